// delay_subscription (Rx's delaySubscription): subscribes to the source
// `interval` ns after the subscription, as work on the scheduler; events
// then arrive wherever the source sends them. Disposing before that cancels
// the pending subscription, so the source is never subscribed.

public final class DelaySubscriptionSignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let relay = Subscriber.make(sink)
        let source = self.source
        // The scheduler holds the job, the job holds the relay; the relay
        // holds the job weakly. The relay holds the source subscription
        // (RelaySink.attach) before the source's subscribe callback runs.
        relay.hold(scheduler.schedule(after: interval) {
            if relay.isDisposed { return }
            relay.subscribeUpstream(source, RelaySink(relay))
        })
        return relay
    }
}

extension Signal {
    /// Subscribes to this signal `interval` ns later, on `scheduler`.
    public func delaySubscription(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        DelaySubscriptionSignal(self, interval, scheduler)
    }
}

extension Signal {
    /// timer (Rx's Observable.timer without a period): the int 0 `interval`
    /// ns after subscription, on `scheduler`, then completed: a delayed
    /// subscription to a signal that sends 0 and completes.
    public static func timer(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        DelaySubscriptionSignal(ReturnSignal(.int(0)), interval, scheduler)
    }
}
