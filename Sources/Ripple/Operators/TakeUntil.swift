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

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink, subscribing: true)
        relay.whileSubscribing(held: true) {
            _ = trigger.subscribe(TakeUntilTriggerSink(relay))
            if !relay.isDisposed { _ = source.subscribe(RelaySink(relay)) }
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
