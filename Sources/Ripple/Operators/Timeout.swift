// timeout (semantics 17, RAC): fails with a timeout error (domain "ripple",
// RPL_ERROR_TIMEOUT) when the signal has not terminated within `interval` ns
// of subscription. Values do not reset the deadline. The timer is armed
// before upstream is subscribed and cancelled when the subscription ends.

public final class TimeoutSignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let relay = Subscriber.make(sink, subscribing: true)  // a timeout before the upstream subscribe returns is released after it
        let interval = self.interval
        relay.hold(scheduler.schedule(after: interval) {
            // Ends the subscription, which disposes upstream.
            relay.sendError(.runtime(.timeout, "timeout: the signal did not terminate within \(interval) ns"))
        })
        relay.subscribeUpstream(source, RelaySink(relay), held: true)
        return relay
    }
}


extension Signal {
    /// Fails with a timeout error unless the signal terminates within
    /// `interval` ns of subscription.
    public func timeout(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        TimeoutSignal(self, interval, scheduler)
    }
}
