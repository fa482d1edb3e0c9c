// Single-input operators (map, filter, scan, take, ...): argument checks, then
// the runtime operator. C callbacks are passed to the runtime as they are
// (rpl_value and the runtime's ripple_value share one layout and calling
// convention), so an event costs one indirect call per operator.
import CRipple
import Ripple

@c @implementation
public func rpl_signal_map(_ sig: OpaquePointer?, _ fn: rpl_map_fn?, _ ctx: UnsafeMutableRawPointer?,
                           _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_map", "-map:") { MapSignal($0, $1.cast(mapFunction)) }
}

@c @implementation
public func rpl_signal_filter(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                              _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_filter", "-filter:") { FilterSignal($0, $1.cast(predicateFunction)) }
}

private func scanOperator(_ sig: OpaquePointer?, _ initial: rpl_value, _ fn: rpl_reduce_fn?,
                          _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?,
                          aggregate: Bool, _ name: StaticString) -> OpaquePointer? {
    valueCallbackOperator(sig, initial, what: "initial", fn, ctx, release, name, aggregate ? "-aggregate:" : "-scan:") {
        ScanSignal($0, initial: $1, $2.cast(reduceFunction), aggregate: aggregate)
    }
}

@c @implementation
public func rpl_signal_scan(_ sig: OpaquePointer?, _ initial: rpl_value, _ fn: rpl_reduce_fn?,
                            _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    scanOperator(sig, initial, fn, ctx, release, aggregate: false, "rpl_signal_scan")
}

@c @implementation
public func rpl_signal_aggregate(_ sig: OpaquePointer?, _ initial: rpl_value, _ fn: rpl_reduce_fn?,
                                 _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    scanOperator(sig, initial, fn, ctx, release, aggregate: true, "rpl_signal_aggregate")
}

@c @implementation
public func rpl_signal_distinct_until_changed(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_distinct_until_changed", "-distinctUntilChanged") { DistinctUntilChangedSignal($0) }
}

@c @implementation
public func rpl_signal_materialize(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_materialize", "-materialize") { MaterializeSignal($0) }
}

@c @implementation
public func rpl_signal_dematerialize(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_dematerialize", "-dematerialize") { DematerializeSignal($0) }
}

@c @implementation
public func rpl_signal_collect(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_collect", "-collect") { CollectSignal($0) }
}

// size_t arrives as Int: read it back as the unsigned count it is.
@c @implementation
public func rpl_signal_take(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    countOperator(sig, n, "rpl_signal_take", "-take:") { TakeSignal($0, $1) }
}

@c @implementation
public func rpl_signal_skip(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    countOperator(sig, n, "rpl_signal_skip", "-skip:") { SkipSignal($0, $1) }
}

@c @implementation
public func rpl_signal_take_last(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    countOperator(sig, n, "rpl_signal_take_last", "-takeLast:") { TakeLastSignal($0, $1) }
}

@c @implementation
public func rpl_signal_take_while(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                                  _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_take_while", "-takeWhile:") { TakeWhileSignal($0, $1.cast(predicateFunction)) }
}

@c @implementation
public func rpl_signal_skip_while(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                                  _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_skip_while", "-skipWhile:") { SkipWhileSignal($0, $1.cast(predicateFunction)) }
}

@c @implementation
public func rpl_signal_do_next(_ sig: OpaquePointer?, _ fn: rpl_do_next_fn?, _ ctx: UnsafeMutableRawPointer?,
                               _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_do_next", "-doNext:") {
        DoNextSignal($0, $1.cast { unsafeBitCast($0, to: ValueAction.self) })
    }
}

@c @implementation
public func rpl_signal_do_error(_ sig: OpaquePointer?, _ fn: rpl_do_error_fn?, _ ctx: UnsafeMutableRawPointer?,
                                _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_do_error", "-doError:") {
        DoErrorSignal($0, $1)
    }
}

@c @implementation
public func rpl_signal_do_completed(_ sig: OpaquePointer?, _ fn: rpl_do_completed_fn?, _ ctx: UnsafeMutableRawPointer?,
                                    _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_do_completed", "-doCompleted:") { DoCompletedSignal($0, $1) }
}
