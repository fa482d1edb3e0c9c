/// Base of the operators that work on a scheduler (delay, throttle, timeout,
/// deliver_on, subscribe_on): the upstream signal, an interval in ns (0 where
/// the operator has none) and the scheduler, held through `SchedulerRef` so a
/// driven scheduler (test, run loop) is not kept alive by operators.
public class ScheduledOperatorSignal: Signal {
    let upstream: Signal
    let interval: UInt64
    let scheduler: SchedulerRef

    public init(_ upstream: Signal, _ interval: UInt64, _ scheduler: Scheduler) {
        self.upstream = upstream
        self.interval = interval
        self.scheduler = SchedulerRef(scheduler)
        super.init()
    }

    public convenience init(_ upstream: Signal, _ scheduler: Scheduler) {
        self.init(upstream, 0, scheduler)
    }
}
