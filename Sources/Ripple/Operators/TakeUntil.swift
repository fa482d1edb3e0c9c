/// The source's events until `trigger` sends a value or completes; then
/// completes and disposes both. The trigger is subscribed first, so a trigger
/// that fires at once means the source is never subscribed. A trigger error is
/// ignored (RAC): the source goes on.
public final class TakeUntilSignal: Signal {
    /// One stored tuple: freed as one value, without the retain/release pair
    /// of the signal that freeing two fields of a subclass in turn costs.
    let parts: (source: Signal, trigger: Signal)
    public init(_ source: Signal, trigger: Signal) {
        self.parts = (source.asSource, trigger.asSource)
        super.init()
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink, subscribing: true)
        relay.whileSubscribing(held: true) {
            _ = parts.trigger.subscribe(TakeUntilTriggerSink(relay))
            if !relay.isDisposed { _ = parts.source.subscribe(RelaySink(relay)) }
        }
        return relay
    }
}

/// The trigger's end of the relay: its value or completion completes the
/// relay; its error is dropped.
final class TakeUntilTriggerSink: RelaySink {
    override func onNext(_ value: borrowing Value) { forwardCompleted() }
    override func onError(_ error: RippleError) {}
    override func onCompleted() { forwardCompleted() }
}

extension Signal {
    /// This signal's events until `trigger` sends a value or completes.
    public func takeUntil(_ trigger: Signal) -> Signal { TakeUntilSignal(self, trigger: trigger) }
}
