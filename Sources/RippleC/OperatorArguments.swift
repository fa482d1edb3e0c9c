// Argument checks shared by every operator entry point: the (signal,
// callback) triple, a (signal, value) pair and both together, a (signal,
// scheduler) pair, an array of signals, and the casts of C function types to
// the runtime's. One place, so every operator
// checks in the same order and reports in the same words.
import CRipple
import Ripple

/// A callback operator: the checks of `checkedCallback`, then `make`.
@inline(__always)
func callbackOperator<F>(
    _ sig: OpaquePointer?, _ fn: F?, _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?,
    _ name: StaticString, _ op: StaticString, _ make: (__owned Signal, consuming Callback<F>) -> UnaryOperatorSignal
) -> OpaquePointer? {
    guard let (source, callback) = checkedCallback(sig, fn, ctx, release, name) else { return nil }
    return named(make(consume source, consume callback), .onSource(OriginLabel(op)))
}

/// An operator over (sig, v) (map_replace, ignore, default_if_empty, and
/// the shape of start_with): the signal first, then the value (19a); v is
/// consumed on every path.
@inline(__always)
func valueOperator(_ sig: OpaquePointer?, _ v: rpl_value, _ name: StaticString, _ op: StaticString,
                   _ make: (__owned Signal, Value) -> UnaryOperatorSignal) -> OpaquePointer? {
    guard let source = signalArg(sig, name) else {
        dropValue(v)
        return nil
    }
    return valueArg(v, name).flatMap { named(make(consume source, $0), .onSource(OriginLabel(op))) }
}

/// A callback operator with a value argument (scan, aggregate,
/// combine_previous): the checks of `checkedCallback`, then the value (named
/// `what` in the error: handles, callbacks, then other arguments); v is
/// consumed on every failure path (rule 19) and passed to `make` otherwise.
@inline(__always)
func valueCallbackOperator<F>(
    _ sig: OpaquePointer?, _ v: rpl_value, what: StaticString, _ fn: F?, _ ctx: UnsafeMutableRawPointer?,
    _ release: rpl_release_fn?, _ name: StaticString, _ op: StaticString,
    _ make: (__owned Signal, Value, consuming Callback<F>) -> UnaryOperatorSignal
) -> OpaquePointer? {
    guard let (source, callback) = checkedCallback(sig, fn, ctx, release, name,
                                                   then: { valueArg(v, name, what: what) != nil }) else {
        dropValue(v)
        return nil
    }
    return named(make(consume source, toValue(v), consume callback), .onSource(OriginLabel(op)))
}

@inline(__always)
func plainOperator(_ sig: OpaquePointer?, _ name: StaticString, _ op: StaticString,
                           _ make: (__owned Signal) -> UnaryOperatorSignal) -> OpaquePointer? {
    guard let source = signalArg(sig, name) else { return nil }
    return named(make(consume source), .onSource(OriginLabel(op)))
}

/// A plainOperator whose name shows its count argument.
@inline(__always)
func countOperator(_ sig: OpaquePointer?, _ n: Int, _ name: StaticString, _ op: StaticString,
                           _ make: (__owned Signal, UInt) -> UnaryOperatorSignal) -> OpaquePointer? {
    guard let source = signalArg(sig, name) else { return nil }
    return named(make(consume source, UInt(bitPattern: n)), .onSourceArg(OriginLabel(op), UInt64(UInt(bitPattern: n))))
}

@inline(__always) func mapFunction(_ f: rpl_map_fn) -> MapFunction { unsafeBitCast(f, to: MapFunction.self) }
@inline(__always) func predicateFunction(_ f: rpl_predicate_fn) -> PredicateFunction {
    unsafeBitCast(f, to: PredicateFunction.self)
}
@inline(__always) func reduceFunction(_ f: rpl_reduce_fn) -> ReduceFunction { unsafeBitCast(f, to: ReduceFunction.self) }

/// The checked (signal, scheduler) pair of a scheduling operator.
func operands(_ sig: OpaquePointer?, _ s: OpaquePointer?, _ fn: StaticString,
                      timers: Bool = false) -> (Signal, Scheduler)? {
    guard let signal = signalArg(sig, fn), let scheduler = schedulerArg(s, fn) else { return nil }
    if timers && !timerScheduler(scheduler, fn) { return nil }
    return (signal, scheduler)
}

/// Reads `count` signals from `sigs`, or records why it cannot.
func signalArray(_ sigs: UnsafePointer<OpaquePointer?>?, _ count: Int, _ fn: StaticString) -> [Signal]? {
    guard count >= 0 else {
        setError(RPL_ERR_INVALID, "\(fn): count \(UInt(bitPattern: count)) is too large")
        return nil
    }
    guard count > 0 else { return [] }
    guard let sigs else {
        setError(RPL_ERR_NULL, "\(fn): sigs is NULL with a non-zero count")
        return nil
    }
    var list: [Signal] = []
    list.reserveCapacity(count)
    for i in 0..<count {
        guard let p = sigs[i] else {
            setError(RPL_ERR_NULL, "\(fn): sigs[\(i)] is NULL")
            return nil
        }
        guard let s = signalArg(p, fn, what: "a signal in sigs") else { return nil }
        list.append(s)
    }
    return list
}

/// An operator on a signal and a second signal (take_until_replacement,
/// skip_until, sample, with_latest_from): both handles checked, in argument
/// order, the second named `what` in the error; the name `[sig] op [second]`.
@inline(__always)
func signalPairOperator(_ sig: OpaquePointer?, _ second: OpaquePointer?, _ name: StaticString, what: StaticString,
                        _ op: StaticString, _ make: (Signal, Signal) -> Signal) -> OpaquePointer? {
    guard let source = signalArg(sig, name), let other = signalArg(second, name, what: what) else { return nil }
    return named(make(source, other), .binary(consume source, OriginLabel(op), consume other))
}
