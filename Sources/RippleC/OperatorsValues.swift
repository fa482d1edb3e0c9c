// The 0.2 value operators (ripple.h "Transforming, testing, and side effects
// of a subscription's life"): map_replace, ignore, ignore_values,
// reduce_each, combine_previous, distinct_until_changed_with, buffer, not,
// and, or, any, all, default_if_empty. Argument checks, then the runtime
// operator (Sources/Ripple/Operators).
import CRipple
import Ripple

@c @implementation
public func rpl_signal_map_replace(_ sig: OpaquePointer?, _ v: rpl_value) -> OpaquePointer? {
    valueOperator(sig, v, "rpl_signal_map_replace", "-mapReplace:") { MapReplaceSignal($0, $1) }
}

@c @implementation
public func rpl_signal_ignore(_ sig: OpaquePointer?, _ v: rpl_value) -> OpaquePointer? {
    valueOperator(sig, v, "rpl_signal_ignore", "-ignore:") { IgnoreSignal($0, $1) }
}

@c @implementation
public func rpl_signal_ignore_values(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_ignore_values", "-ignoreValues") { IgnoreValuesSignal($0) }
}

@c @implementation
public func rpl_signal_default_if_empty(_ sig: OpaquePointer?, _ v: rpl_value) -> OpaquePointer? {
    valueOperator(sig, v, "rpl_signal_default_if_empty", "-defaultIfEmpty:") { DefaultIfEmptySignal($0, $1) }
}

@c @implementation
public func rpl_signal_reduce_each(_ sig: OpaquePointer?, _ fn: rpl_reduce_each_fn?, _ ctx: UnsafeMutableRawPointer?,
                                   _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_reduce_each", "-reduceEach:") {
        ReduceEachSignal($0, $1.cast { unsafeBitCast($0, to: ReduceEachFunction.self) })
    }
}

@c @implementation
public func rpl_signal_combine_previous(_ sig: OpaquePointer?, _ start: rpl_value, _ fn: rpl_reduce_fn?,
                                        _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    valueCallbackOperator(sig, start, what: "start", fn, ctx, release, "rpl_signal_combine_previous",
                          "-combinePreviousWithStart:reduce:") {
        CombinePreviousSignal($0, start: $1, $2.cast(reduceFunction))
    }
}

@c @implementation
public func rpl_signal_distinct_until_changed_with(_ sig: OpaquePointer?, _ fn: rpl_equal_fn?,
                                                   _ ctx: UnsafeMutableRawPointer?,
                                                   _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_distinct_until_changed_with", "-distinctUntilChangedWith:") {
        DistinctUntilChangedWithSignal($0, $1.cast { unsafeBitCast($0, to: EqualFunction.self) })
    }
}

// size_t arrives as Int: read it back as the unsigned count it is.
@c @implementation
public func rpl_signal_buffer(_ sig: OpaquePointer?, _ count: Int) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_buffer") else { return nil }
    guard count != 0 else {
        setError(RPL_ERR_INVALID, "rpl_signal_buffer: count is 0")
        return nil
    }
    let n = UInt(bitPattern: count)
    return named(BufferSignal(source, n), .onSourceArg("-buffer:", UInt64(n)))
}

@c @implementation
public func rpl_signal_not(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_not", "-not") { BooleanSignal($0, .not) }
}

@c @implementation
public func rpl_signal_and(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_and", "-and") { BooleanSignal($0, .and) }
}

@c @implementation
public func rpl_signal_or(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_or", "-or") { BooleanSignal($0, .or) }
}

@c @implementation
public func rpl_signal_any(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                           _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_any", "-any:") {
        AnyAllSignal($0, $1.cast(predicateFunction), all: false)
    }
}

@c @implementation
public func rpl_signal_all(_ sig: OpaquePointer?, _ fn: rpl_predicate_fn?, _ ctx: UnsafeMutableRawPointer?,
                           _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_all", "-all:") {
        AnyAllSignal($0, $1.cast(predicateFunction), all: true)
    }
}
