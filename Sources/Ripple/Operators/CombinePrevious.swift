import RippleSupport

// combine_previous: each value with the one before it.

/// `next reduce(previous, v)` for each value v, where previous is the value
/// before v, and `start` for the first (RAC's combinePreviousWithStart:reduce::
/// previous is the source's value, not the last result).
public final class CombinePreviousSignal: CallbackOperatorSignal<ReduceFunction> {
    let start: Value

    /// Consumes `start`.
    public init(_ source: Signal, start: Value, _ reduce: Callback<ReduceFunction>) {
        self.start = start
        super.init(source, reduce)
    }

    deinit { start.release() }

    override func makeSink(_ downstream: consuming Sink) -> Sink { CombinePreviousSink(start.retained(), callback, downstream) }
}

final class CombinePreviousSink: CallbackSink<ReduceFunction> {
    @exclusivity(unchecked) var previous: Value  // owned

    init(_ start: Value, _ call: Callback<ReduceFunction>, _ downstream: Sink) {
        previous = start
        super.init(call, downstream)
    }

    deinit { previous.release() }

    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        // The previous value is replaced before the call, so a nested
        // delivery pairs with this value; the old one is held for the call.
        let old = previous
        previous = value.retained()
        let (combined, failed) = call.reduce(old, value)
        old.release()
        sendReturned(combined, failed: failed, "rpl_signal_combine_previous")
    }
}

extension Signal {
    /// `reduce(ctx, previous, v)` for each value, previous starting at `start` (consumed).
    public func combinePrevious(_ start: Value, _ reduce: Callback<ReduceFunction>) -> Signal {
        CombinePreviousSignal(self, start: start, reduce)
    }
}
