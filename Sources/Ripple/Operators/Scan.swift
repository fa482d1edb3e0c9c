import RippleSupport

// scan and aggregate: a running accumulator per subscription.

/// Sends every running accumulation (`scan`), or only the final one at
/// completion (`aggregate`: the initial value if the source sent nothing,
/// as RAC's aggregateWithStart:reduce:). A reduce callback that returns a
/// value of a type the header does not list fails the subscription.
public final class ScanSignal: CallbackOperatorSignal<ReduceFunction> {
    let initial: Value
    let aggregate: Bool

    /// Consumes `initial`.
    public init(_ source: Signal, initial: Value, _ reduce: Callback<ReduceFunction>,
                aggregate: Bool) {
        self.initial = initial
        self.aggregate = aggregate
        super.init(source, reduce)
    }

    deinit { initial.release() }

    override func makeSink(_ downstream: consuming Sink) -> Sink {
        let acc = initial.retained()
        return aggregate ? AggregateSink(acc, callback, downstream) : ScanSink(acc, callback, downstream)
    }
}

class AccumulatingSink: CallbackSink<ReduceFunction> {
    @exclusivity(unchecked) final var acc: Value  // owned

    var aggregate: Bool { false }

    init(_ acc: Value, _ call: Callback<ReduceFunction>, _ downstream: Sink) {
        self.acc = acc
        super.init(call, downstream)
    }

    deinit { acc.release() }

    /// Folds `value` into the accumulator. A boxed old accumulator is held
    /// for the call, so a callback that sends back into the source (which
    /// runs this again, nested) cannot free what it is reading.
    /// Returns the new accumulator, borrowed from the sink, or nil when the
    /// callback failed or returned an unlisted value (the subscription has
    /// failed).
    @inline(__always) @discardableResult
    final func accumulate(_ value: borrowing Value) -> Value? {
        let old = acc.retained()
        let (next, failed) = call.reduce(old, value)
        if _slowPath(failed || !next.isListed), refusedAccumulation(next, failed, old) { return nil }
        let replaced = acc
        acc = next
        replaced.release()
        old.release()
        return next
    }

    /// The callback failed (rule 24: its result is discarded) or returned
    /// an unlisted value (rule 19a): the subscription fails, and `old` is
    /// consumed. False, with nothing done, when the failure recorded is not
    /// this callback's (`takeFailure`) and `next` is listed.
    @inline(never)
    final func refusedAccumulation(_ next: Value, _ failed: Bool, _ old: Value) -> Bool {
        let failure = failed ? takeFailure() : nil
        if failure == nil && next.isListed { return false }
        old.release()
        if let failure {
            if next.isListed { next.release() }
            stop(failure)
        } else {
            refuse(next, aggregate ? "rpl_signal_aggregate" : "rpl_signal_scan")
        }
        return true
    }
}

final class ScanSink: AccumulatingSink {
    override func onNext(_ value: borrowing Value) {
        guard let current = accumulate(value)?.retained() else { return }
        downstream.onNext(current)
        current.release()
    }
}

final class AggregateSink: AccumulatingSink {
    override var aggregate: Bool { true }
    override func onNext(_ value: borrowing Value) { accumulate(value) }

    override func onCompleted() {
        if stopped { return }
        stopped = true
        let result = acc.retained()
        downstream.onNext(result)
        result.release()
        downstream.onCompleted()
    }
}

extension Signal {
    /// Running accumulations: `acc = reduce(ctx, acc, v)`, starting from
    /// `initial` (consumed, not sent).
    public func scan(_ initial: Value, _ reduce: Callback<ReduceFunction>) -> Signal {
        ScanSignal(self, initial: initial, reduce, aggregate: false)
    }
    /// The final accumulation at completion (`initial` if there were no values).
    public func aggregate(_ initial: Value, _ reduce: Callback<ReduceFunction>) -> Signal {
        ScanSignal(self, initial: initial, reduce, aggregate: true)
    }
}
