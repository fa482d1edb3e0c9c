// map_replace, ignore, ignore_values, default_if_empty: operators that hold
// one constant value (or none) and compare or send it.

/// Base of the operators holding one value given at creation (consumed);
/// each subscription's sink takes its own reference, so the value lives as
/// long as a subscription can use it, after the signal is freed too.
public class ConstantValueSignal: UnaryOperatorSignal {
    let value: Value

    /// Consumes `value`.
    public init(_ source: Signal, _ value: Value) {
        self.value = value
        super.init(source)
    }

    deinit { value.release() }

    func makeSink(_ value: Value, _ downstream: consuming Sink) -> Sink { fatalError("makeSink must be overridden") }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(makeSink(value.retained(), sink))
    }
}

/// A sink holding its own reference to a constant value.
class ConstantValueSink: ForwardingSink {
    let value: Value  // owned

    init(_ value: Value, _ downstream: Sink) {
        self.value = value
        super.init(downstream)
    }

    deinit { value.release() }
}

/// Every value replaced by the constant (RAC's mapReplace:).
public final class MapReplaceSignal: ConstantValueSignal {
    override func makeSink(_ value: Value, _ downstream: consuming Sink) -> Sink { MapReplaceSink(value, downstream) }
}

final class MapReplaceSink: ConstantValueSink {
    override func onNext(_ value: borrowing Value) { downstream.onNext(self.value) }
}

/// Drops each value equal to the constant (`Value.equal`, as
/// `rpl_value_equal`; RAC's ignore:).
public final class IgnoreSignal: ConstantValueSignal {
    override func makeSink(_ value: Value, _ downstream: consuming Sink) -> Sink { IgnoreSink(value, downstream) }
}

final class IgnoreSink: ConstantValueSink {
    override func onNext(_ value: borrowing Value) {
        if !Value.equal(self.value, value) { downstream.onNext(value) }
    }
}

/// Drops every value; the terminal event passes (RAC's ignoreValues).
public final class IgnoreValuesSignal: UnaryOperatorSignal {
    public override init(_ source: Signal) { super.init(source) }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber { source.subscribe(IgnoreValuesSink(sink)) }
}

final class IgnoreValuesSink: ForwardingSink {
    override func onNext(_ value: borrowing Value) {}
}

/// The source's values; if it completes without having sent one, the
/// constant first, then completed. An error passes alone (Rx's
/// ifEmpty(default:)).
public final class DefaultIfEmptySignal: ConstantValueSignal {
    override func makeSink(_ value: Value, _ downstream: consuming Sink) -> Sink { DefaultIfEmptySink(value, downstream) }
}

final class DefaultIfEmptySink: ConstantValueSink {
    @exclusivity(unchecked) var sent = false

    override func onNext(_ value: borrowing Value) {
        sent = true
        downstream.onNext(value)
    }

    override func onCompleted() {
        if !sent {
            sent = true
            downstream.onNext(value)
        }
        downstream.onCompleted()
    }
}

extension Signal {
    /// Every value replaced by `value` (consumed).
    public func mapReplace(_ value: Value) -> Signal { MapReplaceSignal(self, value) }
    /// The values not equal to `value` (consumed).
    public func ignore(_ value: Value) -> Signal { IgnoreSignal(self, value) }
    /// No values; the terminal event only.
    public func ignoreValues() -> Signal { IgnoreValuesSignal(self) }
    /// `value` (consumed) when the source completes empty.
    public func defaultIfEmpty(_ value: Value) -> Signal { DefaultIfEmptySignal(self, value) }
}
