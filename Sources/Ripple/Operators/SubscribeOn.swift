// subscribe_on: the upstream subscription (its subscribe side effects) runs
// on a scheduler; events are delivered wherever upstream sends them.
// Disposing before the scheduled subscription has run cancels it.

public final class SubscribeOnSignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let relay = Subscriber.make(sink)
        let source = self.source
        // The scheduler holds the job, the job holds the relay; the relay
        // holds the job weakly (no cycle if the scheduler is freed first).
        relay.hold(scheduler.schedule {
            if relay.isDisposed { return }
            relay.subscribeUpstream(source, RelaySink(relay))
        })
        return relay
    }
}

extension Signal {
    /// Subscribes upstream on `scheduler`.
    public func subscribe(on scheduler: Scheduler) -> Signal { SubscribeOnSignal(self, scheduler) }
}
