// not, and, or: RAC's boolean helpers.

/// Which boolean operator a `BooleanSignal` is.
public enum BooleanOperator: Sendable {
    /// `!v` for each bool v.
    case not
    /// For each tuple of bools: true when every item is true.
    case and
    /// For each tuple of bools: true when some item is true.
    case or
}

/// RAC's not, and, or. A value of another type (for and/or: not a tuple, an
/// empty tuple, or an item that is not a bool) fails the signal with a type
/// error and disposes the source, where RAC asserts.
public final class BooleanSignal: UnaryOperatorSignal {
    let op: BooleanOperator

    public init(_ source: Signal, _ op: BooleanOperator) {
        self.op = op
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber { source.subscribe(BooleanSink(op, sink)) }
}

final class BooleanSink: StoppingSink {
    let op: BooleanOperator

    init(_ op: BooleanOperator, _ downstream: Sink) {
        self.op = op
        super.init(downstream)
    }

    private var name: StaticString {
        switch op {
        case .not: "rpl_signal_not"
        case .and: "rpl_signal_and"
        case .or: "rpl_signal_or"
        }
    }

    /// The result for `value`, or nil when it has the wrong type.
    @inline(__always)
    private func evaluate(_ value: borrowing Value) -> Bool? {
        let bool = ValueType.bool.rawValue
        if op == .not {
            return value.rawType == bool ? !value.boolValue : nil
        }
        guard let items = value.tupleItems, !items.isEmpty else { return nil }
        var all = true, some = false
        for item in items {
            guard item.rawType == bool else { return nil }
            if item.boolValue { some = true } else { all = false }
        }
        return op == .and ? all : some
    }

    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        guard let result = evaluate(value) else {
            return refuseType(value, expected: op == .not ? "a bool" : "a non-empty tuple of bools", name)
        }
        downstream.onNext(.bool(result))
    }
}

extension Signal {
    public func not() -> Signal { BooleanSignal(self, .not) }
    public func and() -> Signal { BooleanSignal(self, .and) }
    public func or() -> Signal { BooleanSignal(self, .or) }
}
