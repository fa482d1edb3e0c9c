import RippleSupport

// distinct_until_changed and distinct_until_changed_with: drop a value equal
// to the last one passed, by `Value.equal` or by the caller's equality.

/// `rpl_equal_fn`: `(ctx, a, b)`, both borrowed.
public typealias EqualFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>,
                                                 UnsafePointer<ripple_value>) -> Bool

/// Passes a value unless it equals (`Value.equal`, as `rpl_value_equal`) the
/// last value passed; the first value always passes, nil included (RAC).
public final class DistinctUntilChangedSignal: UnaryOperatorSignal {
    public override init(_ source: Signal) { super.init(source) }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(DistinctUntilChangedSink(ValueEquality(), sink))
    }
}

/// Passes a value unless `equal(last, v)` is true, where last is the last
/// value passed; the first value always passes, without a call (Rx's
/// distinctUntilChanged(_ comparer:)).
public final class DistinctUntilChangedWithSignal: CallbackOperatorSignal<EqualFunction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { DistinctUntilChangedWithSink(callback, downstream) }
}

/// How a distinct sink compares the last value passed with a new one.
protocol DistinctEquality {
    /// Whether the comparison calls out and can fail (then a value that
    /// arrives after the subscription stopped is not compared).
    static var callsOut: Bool { get }
    /// Whether `value` repeats `last` (borrowed from the sink), and the
    /// failure that ends the subscription, if any.
    func repeats(_ last: Value, _ value: borrowing Value) -> (Bool, RippleError?)
}

/// distinct_until_changed: `Value.equal`, which calls nothing and cannot fail.
struct ValueEquality: DistinctEquality {
    static var callsOut: Bool { false }

    @inline(__always)
    func repeats(_ last: Value, _ value: borrowing Value) -> (Bool, RippleError?) { (Value.equal(last, value), nil) }
}

/// distinct_until_changed_with: the caller's `rpl_equal_fn`, through the
/// failure channel (rule 24).
extension Callback: DistinctEquality where Function == EqualFunction {
    static var callsOut: Bool { true }

    /// `last` is held for the call: a callback that sends into the source
    /// replaces (and releases) the sink's last value in a nested delivery.
    @inline(__always)
    func repeats(_ last: Value, _ value: borrowing Value) -> (Bool, RippleError?) {
        let held = last.retained(), v = copy value  // 16 bytes; the box stays borrowed
        let result = withFailureChannel {
            withCValue(held) { a in withCValue(v) { b in function(ctx, a, b) } }
        }
        held.release()
        return result
    }
}

/// The one distinct sink, specialized per equality through its two final
/// subclasses (a generic class's own methods would be called through the
/// witness table): the plain operator pays no call, hold or stopped check
/// for the callback's sake.
class DistinctSink<Equality: DistinctEquality>: StoppingSink {
    // The value fields come first: their offsets do not depend on Equality.
    @exclusivity(unchecked) final var last = Value.nil  // owned
    @exclusivity(unchecked) final var hasLast = false
    final let equality: Equality

    init(_ equality: Equality, _ downstream: Sink) {
        self.equality = equality
        super.init(downstream)
    }

    deinit { last.release() }

    @inline(__always)
    final func pass(_ value: borrowing Value) {
        if Equality.callsOut && stopped { return }
        if hasLast {
            let (same, failure) = equality.repeats(last, value)
            if let failure { return stop(failure) }
            if same { return }
        }
        let replaced = last
        last = value.retained()
        hasLast = true
        replaced.release()
        downstream.onNext(value)
    }
}

final class DistinctUntilChangedSink: DistinctSink<ValueEquality> {
    override func onNext(_ value: borrowing Value) { pass(value) }
}

final class DistinctUntilChangedWithSink: DistinctSink<Callback<EqualFunction>> {
    override func onNext(_ value: borrowing Value) { pass(value) }
}

extension Signal {
    /// Drops each value equal to the previous value passed.
    public func distinctUntilChanged() -> Signal { DistinctUntilChangedSignal(self) }
    /// Drops each value `equal(ctx, last, v)` says equals the last value passed.
    public func distinctUntilChanged(_ equal: Callback<EqualFunction>) -> Signal {
        DistinctUntilChangedWithSignal(self, equal)
    }
}
