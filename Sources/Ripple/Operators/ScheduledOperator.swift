/// Base of the operators that work on a scheduler (delay, throttle, timeout,
/// deliver_on, subscribe_on): the source signal, an interval in ns (0 where
/// the operator has none) and the scheduler, held through `SchedulerRef` so a
/// driven scheduler (test, run loop) is not kept alive by operators.
public class ScheduledOperatorSignal: UnaryOperatorSignal {
    let interval: UInt64
    let scheduler: SchedulerRef

    public init(_ source: Signal, _ interval: UInt64, _ scheduler: Scheduler) {
        self.interval = interval
        self.scheduler = SchedulerRef(scheduler)
        super.init(source)
    }

    public convenience init(_ source: Signal, _ scheduler: Scheduler) {
        self.init(source, 0, scheduler)
    }
}
