import RippleSupport

// skip, skip_while.

/// Drops the first `count` values (RAC's skip:).
public final class SkipSignal: UnaryOperatorSignal {
    let count: UInt

    public init(_ source: Signal, _ count: UInt) {
        self.count = count
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(SkipSink(count, sink))
    }
}

final class SkipSink: ForwardingSink {
    @exclusivity(unchecked) var remaining: UInt

    init(_ count: UInt, _ downstream: Sink) {
        remaining = count
        super.init(downstream)
    }

    override func onNext(_ value: borrowing Value) {
        if remaining > 0 {
            remaining &-= 1
            return
        }
        downstream.onNext(value)
    }
}

/// Drops values while `predicate` is true, then passes everything, including
/// later values for which it would be true (RAC's skipWhileBlock:).
public final class SkipWhileSignal: CallbackOperatorSignal<PredicateFunction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { SkipWhileSink(callback, downstream) }
}

final class SkipWhileSink: CallbackSink<PredicateFunction> {
    @exclusivity(unchecked) var skipping = true

    override func onNext(_ value: borrowing Value) {
        if skipping {
            let (skip, failed) = call.test(value)
            if failed, let failure = takeFailure() { return stop(failure) }
            if skip { return }
            skipping = false
        }
        downstream.onNext(value)
    }
}

extension Signal {
    /// All but the first `count` values.
    public func skip(_ count: UInt) -> Signal { SkipSignal(self, count) }
    /// Values from the first for which `predicate(ctx, v)` is false on.
    public func skipWhile(_ predicate: Callback<PredicateFunction>) -> Signal { SkipWhileSignal(self, predicate) }
}
