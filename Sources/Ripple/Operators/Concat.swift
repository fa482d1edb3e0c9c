/// `concat(first, second)`: first's events, then, when first completes,
/// second's. An error of first ends it (second is never subscribed).
/// `then(first, second)` is the same with first's values ignored;
/// `switchIfEmpty(first, second)` (Rx) subscribes second only when first
/// completed without sending a value, and otherwise completes with first.
public final class ConcatSignal: Signal {
    /// One stored tuple: freed as one value, without the retain/release pair
    /// of the signal that freeing two fields of a subclass in turn costs.
    let parts: (first: Signal, second: Signal)
    let mode: ConcatMode

    public convenience init(_ first: Signal, _ second: Signal, ignoreFirstValues: Bool = false) {
        self.init(first, second, mode: ignoreFirstValues ? .then : .concat)
    }

    public init(_ first: Signal, _ second: Signal, mode: ConcatMode) {
        self.parts = (first.asSource, second.asSource)
        self.mode = mode
        super.init()
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink, subscribing: true)
        relay.subscribeUpstream(parts.first, ConcatFirstSink(relay, parts.second, mode), held: true)
        return relay
    }
}

/// What a `ConcatSignal` does with its first signal's values, and when it
/// goes on with the second.
public enum ConcatMode {
    /// Passes them on; always goes on.
    case concat
    /// Ignores them; always goes on.
    case then
    /// Passes them on; goes on only if there were none.
    case ifEmpty
}

/// The first signal's end of the relay: values as the mode says; on
/// completion, the second signal goes on into the same relay.
final class ConcatFirstSink: RelaySink {
    let second: Signal
    let mode: ConcatMode
    /// A value passed on (only touched in the first's serialized delivery).
    var sentValue = false
    init(_ relay: Subscriber, _ second: Signal, _ mode: ConcatMode) {
        self.second = second
        self.mode = mode
        super.init(relay)
    }
    override func onNext(_ value: borrowing Value) {
        if mode == .then { return }
        sentValue = true
        relay.sendNext(value.retained())
    }
    override func onCompleted() {
        if relay.isDisposed { return }
        if mode == .ifEmpty && sentValue { return forwardCompleted() }
        relay.subscribeUpstream(second, RelaySink(relay))
    }
}

/// `value`, then the source's events.
public final class StartWithSignal: UnaryOperatorSignal {
    let value: Value
    /// Consumes `value`.
    public init(_ source: Signal, _ value: Value) {
        self.value = value
        super.init(source)
    }
    deinit { value.release() }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink, subscribing: true)
        relay.sendNext(value.retained())
        if relay.isDisposed {
            relay.endSubscribeCall()
        } else {
            relay.subscribeUpstream(source, RelaySink(relay), held: true)
        }
        return relay
    }
}

extension Signal {
    /// This signal's events, then `other`'s.
    public func concat(_ other: Signal) -> Signal { ConcatSignal(self, other) }

    /// `value` first (consumed), then this signal's events.
    public func startWith(_ value: Value) -> Signal { StartWithSignal(self, value) }

    /// Ignores this signal's values; on completion, `next`'s events.
    public func then(_ next: Signal) -> Signal { ConcatSignal(self, next, ignoreFirstValues: true) }

    /// This signal's events, or, if it completes without a value, `other`'s.
    public func switchIfEmpty(_ other: Signal) -> Signal { ConcatSignal(self, other, mode: .ifEmpty) }
}
