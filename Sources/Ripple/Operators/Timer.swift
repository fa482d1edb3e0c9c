// timer: one value, the int 0, `interval` ns after subscription (on the
// scheduler), then completed (Rx's Observable.timer without a period).

public final class TimerSignal: Signal {
    let interval: UInt64
    let scheduler: SchedulerRef

    /// `scheduler` must support timers (not the immediate scheduler).
    public init(_ interval: UInt64, _ scheduler: Scheduler) {
        self.interval = interval
        self.scheduler = SchedulerRef(scheduler)
        super.init()
    }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let s = Subscriber(sink)
        // The scheduler holds the job until it runs or is cancelled, the job
        // holds the subscriber; the subscriber holds the job weakly.
        s.hold(scheduler.schedule(after: interval) {
            s.sendNext(.int(0))
            s.sendCompleted()
        })
        return s
    }
}

extension Signal {
    /// The int 0 after `interval` ns on `scheduler`, then completed.
    public static func timer(_ interval: UInt64, on scheduler: Scheduler) -> Signal { TimerSignal(interval, scheduler) }
}
