import RippleSupport

// reduce_each: a callback over the items of each tuple.

/// `rpl_reduce_each_fn`: `(ctx, items, count)`, the items of a tuple lent
/// for the call; returns a new value owned by the runtime.
public typealias ReduceEachFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>, Int) -> ripple_value

/// A value lent to C as a run of items: never a NULL pointer, also for an
/// empty tuple.
@inline(__always)
func withTupleItems<R>(_ items: [Value], _ body: (UnsafePointer<ripple_value>, Int) -> R) -> R {
    items.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else {
            return withCValue(Value.nil) { body($0, 0) }
        }
        return body(UnsafeRawPointer(base).assumingMemoryBound(to: ripple_value.self), buffer.count)
    }
}

extension Callback where Function == ReduceEachFunction {
    /// `fn(ctx, items, count)`, owned by the caller; the items stay borrowed.
    @inline(__always)
    func reduce(_ items: [Value]) -> (Value, Bool) {
        inFailureChannel { withTupleItems(items) { Value(c: function(ctx, $0, $1)) } }
    }
}

/// `next fn(items of v)` for each tuple v (RAC's reduceEach:). A value that
/// is not a tuple fails the signal with a type error and disposes the source
/// (RAC asserts).
public final class ReduceEachSignal: CallbackOperatorSignal<ReduceEachFunction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { ReduceEachSink(callback, downstream) }
}

final class ReduceEachSink: CallbackSink<ReduceEachFunction> {
    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        guard let items = value.tupleItems else {
            return refuseType(value, expected: "a tuple", "rpl_signal_reduce_each")
        }
        let (reduced, failed) = call.reduce(items)
        sendReturned(reduced, failed: failed, "rpl_signal_reduce_each")
    }
}

extension Signal {
    /// `fn(ctx, items, count)` for each tuple.
    public func reduceEach(_ fn: Callback<ReduceEachFunction>) -> Signal { ReduceEachSignal(self, fn) }
}
