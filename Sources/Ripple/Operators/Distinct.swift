// distinct_until_changed: drops a value equal to the previous one sent.

/// Passes a value unless it equals (`Value.equal`, as `rpl_value_equal`) the
/// last value passed; the first value always passes, nil included (RAC).
public final class DistinctUntilChangedSignal: UnaryOperatorSignal {
    public override init(_ source: Signal) { super.init(source) }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        source.subscribe(DistinctUntilChangedSink(sink))
    }
}

final class DistinctUntilChangedSink: ForwardingSink {
    @exclusivity(unchecked) var last = Value.nil  // owned
    @exclusivity(unchecked) var hasLast = false

    deinit { last.release() }

    override func onNext(_ value: borrowing Value) {
        if hasLast {
            if Value.equal(last, value) { return }
        }
        let previous = last
        last = value.retained()
        hasLast = true
        previous.release()
        downstream.onNext(value)
    }
}

extension Signal {
    /// Drops each value equal to the previous value passed.
    public func distinctUntilChanged() -> Signal { DistinctUntilChangedSignal(self) }
}
