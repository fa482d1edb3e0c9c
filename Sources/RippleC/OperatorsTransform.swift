// Single-input operators (map, filter, scan, take, ...): argument checks, then
// the runtime operator. C callbacks are passed to the runtime as they are
// (rpl_value and the runtime's ripple_value share one layout and calling
// convention), so an event costs one indirect call per operator.
import CRipple
import Ripple

/// A callback operator: the checks of `checkedCallback`, then `make`.
@inline(__always)
private func callbackOperator<F>(
    _ sig: OpaquePointer?, _ fn: F?, _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?,
    _ name: StaticString, _ make: (Signal, F, CallbackContext) -> Signal
) -> OpaquePointer? {
    checkedCallback(sig, fn, ctx, release, name).map { retainedHandle(make($0, $1, $2)) }
}

@inline(__always)
private func plainOperator(_ sig: OpaquePointer?, _ name: StaticString, _ make: (Signal) -> Signal) -> OpaquePointer? {
    guard let source = signalArg(sig, name) else { return nil }
    return retainedHandle(make(source))
}

@inline(__always) private func mapFunction(_ f: rpl_map_fn) -> MapFunction { unsafeBitCast(f, to: MapFunction.self) }
@inline(__always) private func predicateFunction(_ f: rpl_predicate_fn) -> PredicateFunction {
    unsafeBitCast(f, to: PredicateFunction.self)
}
@inline(__always) private func reduceFunction(_ f: rpl_reduce_fn) -> ReduceFunction { unsafeBitCast(f, to: ReduceFunction.self) }

@c @implementation
public func rpl_signal_map(_ sig: OpaquePointer?, _ fn: rpl_map_fn?, _ ctx: UnsafeMutableRawPointer?,
                           _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_map") { MapSignal($0, mapFunction($1), $2) }
}

@c @implementation
public func rpl_signal_filter(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                              _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_filter") { FilterSignal($0, predicateFunction($1), $2) }
}

private func scanOperator(_ sig: OpaquePointer?, _ initial: rpl_value, _ fn: rpl_reduce_fn?,
                          _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?,
                          aggregate: Bool, _ name: StaticString) -> OpaquePointer? {
    // The value is checked last (handles, callbacks, then other arguments)
    // and consumed on every failure path (rule 19).
    guard let (source, fn, context) = checkedCallback(sig, fn, ctx, release, name,
                                                      then: { valueArg(initial, name, what: "initial") != nil }) else {
        dropValue(initial)
        return nil
    }
    return retainedHandle(ScanSignal(source, initial: toValue(initial), reduceFunction(fn), context, aggregate: aggregate))
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
    plainOperator(sig, "rpl_signal_distinct_until_changed") { DistinctUntilChangedSignal($0) }
}

@c @implementation
public func rpl_signal_materialize(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_materialize") { MaterializeSignal($0) }
}

@c @implementation
public func rpl_signal_dematerialize(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_dematerialize") { DematerializeSignal($0) }
}

@c @implementation
public func rpl_signal_collect(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_collect") { CollectSignal($0) }
}

// size_t arrives as Int: read it back as the unsigned count it is.
@c @implementation
public func rpl_signal_take(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_take") { TakeSignal($0, UInt(bitPattern: n)) }
}

@c @implementation
public func rpl_signal_skip(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_skip") { SkipSignal($0, UInt(bitPattern: n)) }
}

@c @implementation
public func rpl_signal_take_last(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_take_last") { TakeLastSignal($0, UInt(bitPattern: n)) }
}

@c @implementation
public func rpl_signal_take_while(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                                  _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_take_while") { TakeWhileSignal($0, predicateFunction($1), $2) }
}

@c @implementation
public func rpl_signal_skip_while(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                                  _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_skip_while") { SkipWhileSignal($0, predicateFunction($1), $2) }
}

@c @implementation
public func rpl_signal_do_next(_ sig: OpaquePointer?, _ fn: rpl_do_next_fn?, _ ctx: UnsafeMutableRawPointer?,
                               _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_do_next") {
        DoNextSignal($0, unsafeBitCast($1, to: ValueAction.self), $2)
    }
}

@c @implementation
public func rpl_signal_do_error(_ sig: OpaquePointer?, _ fn: rpl_do_error_fn?, _ ctx: UnsafeMutableRawPointer?,
                                _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_do_error") {
        DoErrorSignal($0, $1, $2)
    }
}

@c @implementation
public func rpl_signal_do_completed(_ sig: OpaquePointer?, _ fn: rpl_do_completed_fn?, _ ctx: UnsafeMutableRawPointer?,
                                    _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_do_completed") { DoCompletedSignal($0, $1, $2) }
}
