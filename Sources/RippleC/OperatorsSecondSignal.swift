// Combining with a second signal, and grouping (0.2): with_latest_from,
// sample, take_until_replacement, skip_until, group_by.
import CRipple
import Ripple

@c @implementation
public func rpl_signal_with_latest_from(_ sig: OpaquePointer?, _ other: OpaquePointer?) -> OpaquePointer? {
    signalPairOperator(sig, other, "rpl_signal_with_latest_from", what: "the other signal", "-withLatestFrom:") { $0.withLatest(from: $1) }
}

@c @implementation
public func rpl_signal_sample(_ sig: OpaquePointer?, _ sampler: OpaquePointer?) -> OpaquePointer? {
    signalPairOperator(sig, sampler, "rpl_signal_sample", what: "the sampler signal", "-sample:") { $0.sample($1) }
}

@c @implementation
public func rpl_signal_take_until_replacement(_ sig: OpaquePointer?, _ replacement: OpaquePointer?) -> OpaquePointer? {
    signalPairOperator(sig, replacement, "rpl_signal_take_until_replacement", what: "the replacement signal",
                       "-takeUntilReplacement:") { $0.takeUntil(replacement: $1) }
}

@c @implementation
public func rpl_signal_skip_until(_ sig: OpaquePointer?, _ trigger: OpaquePointer?) -> OpaquePointer? {
    signalPairOperator(sig, trigger, "rpl_signal_skip_until", what: "the trigger signal", "-skipUntil:") { $0.skipUntil($1) }
}

@c @implementation
public func rpl_signal_group_by(_ sig: OpaquePointer?, _ key: rpl_map_fn?, _ ctx: UnsafeMutableRawPointer?,
                                _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let (source, key) = checkedCallback(sig, key, ctx, release, "rpl_signal_group_by",
                                              callback: "key") else { return nil }
    return named(GroupBySignal(source, key.cast(mapFunction)), .onSource("-groupBy:"))
}
