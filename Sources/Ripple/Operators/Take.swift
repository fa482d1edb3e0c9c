import RippleSupport

// take, take_last, take_while.

/// The first `count` values, then completed; the source is disposed after
/// the last one (so `take(1)` of a signal that never completes completes).
/// `take(0)` completes at once without subscribing to the source (RAC).
/// Values sent back into the source from a callback are counted in order
/// (rule 4: RAC's recursive take).
public final class TakeSignal: UnaryOperatorSignal {
    let count: UInt

    public init(_ source: Signal, _ count: UInt) {
        self.count = count
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        if count == 0 {
            let s = Subscriber.make(sink, sender: false)
            s.sendCompleted()
            return s
        }
        return source.subscribe(TakeSink(count, sink))
    }
}

final class TakeSink: StoppingSink {
    @exclusivity(unchecked) var remaining: UInt

    init(_ count: UInt, _ downstream: Sink) {
        remaining = count
        super.init(downstream)
    }

    override func onNext(_ value: borrowing Value) {
        if remaining == 0 { return }
        remaining &-= 1  // before forwarding: a nested send sees the new count
        let last = remaining == 0
        downstream.onNext(value)
        if last { stop() }
    }
}

/// The last `count` values, sent at completion before completed; an error is
/// forwarded alone. The buffer grows with the values, up to `count`.
public final class TakeLastSignal: UnaryOperatorSignal {
    let count: UInt

    public init(_ source: Signal, _ count: UInt) {
        self.count = count
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(TakeLastSink(count, sink))
    }
}

final class TakeLastSink: ForwardingSink {
    /// The last `limit` values (owned), oldest first.
    @exclusivity(unchecked) var buffer: ReplayBuffer

    init(_ limit: UInt, _ downstream: Sink) {
        buffer = ReplayBuffer(capacity: Int(clamping: limit))
        super.init(downstream)
    }

    deinit { buffer.releaseAll() }

    override func onNext(_ value: borrowing Value) {
        if buffer.capacity == 0 { return }
        buffer.append(value.retained())?.release()
    }

    override func onCompleted() {
        // Taken before calling out: a nested event may reach this sink.
        var items = buffer
        buffer = ReplayBuffer(capacity: items.capacity)
        items.forEach { downstream.onNext($0) }
        items.releaseAll()
        downstream.onCompleted()
    }
}

/// Values while `predicate` is true; at the first value for which it is
/// false, completes (without that value) and disposes the source (RAC's
/// takeWhileBlock:).
public final class TakeWhileSignal: CallbackOperatorSignal<PredicateFunction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { TakeWhileSink(callback, downstream) }
}

final class TakeWhileSink: CallbackSink<PredicateFunction> {
    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        let (pass, failed) = call.test(value)
        if failed, let failure = takeFailure() { return stop(failure) }
        if pass {
            downstream.onNext(value)
        } else {
            stop()
        }
    }
}

extension Signal {
    /// The first `count` values.
    public func take(_ count: UInt) -> Signal { TakeSignal(self, count) }
    /// The last `count` values, at completion.
    public func takeLast(_ count: UInt) -> Signal { TakeLastSignal(self, count) }
    /// Values until `predicate(ctx, v)` is false.
    public func takeWhile(_ predicate: Callback<PredicateFunction>) -> Signal { TakeWhileSignal(self, predicate) }
}
