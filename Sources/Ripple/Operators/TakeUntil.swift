/// The source's events until `trigger` sends a value or completes; then
/// completes and disposes both. The trigger is subscribed first, so a trigger
/// that fires at once means the source is never subscribed. A trigger error is
/// ignored (RAC): the source goes on.
public final class TakeUntilSignal: Signal {
    let source: Signal
    let trigger: Signal
    public init(_ source: Signal, trigger: Signal) {
        self.source = source.asSource
        self.trigger = trigger.asSource
        super.init()
    }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        let relay = Subscriber(sink)
        relay.whileSubscribing(first: true) {
            _ = trigger.subscribe(TakeUntilTriggerSink(relay))
            if !relay.isDisposed { _ = source.subscribe(RelaySink(relay)) }
        }
        return relay
    }
}

final class TakeUntilTriggerSink: Sink {
    let relay: Subscriber
    init(_ relay: Subscriber) { self.relay = relay }
    override func attach(_ subscriber: Subscriber) { relay.hold(subscriber) }
    override func onNext(_ value: borrowing Value) { relay.sendCompleted() }
    override func onCompleted() { relay.sendCompleted() }
}

extension Signal {
    /// This signal's events until `trigger` sends a value or completes.
    public func takeUntil(_ trigger: Signal) -> Signal { TakeUntilSignal(self, trigger: trigger) }
}
