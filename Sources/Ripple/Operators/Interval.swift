// interval: sends 0, 1, 2, ... (ints), one every `interval` ns on a
// scheduler, starting `interval` ns after subscription; never completes.

public final class IntervalSignal: Signal {
    let interval: UInt64
    let scheduler: SchedulerRef

    /// `interval` must be positive and `scheduler` must support repeating work.
    public init(_ interval: UInt64, _ scheduler: Scheduler) {
        self.interval = interval
        self.scheduler = SchedulerRef(scheduler)
        super.init()
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let s = Subscriber.make(sink)
        var tick: Int64 = 0
        // Occurrences of one repeating action never overlap, so `tick` needs
        // no lock. The scheduler holds the action, which holds the
        // subscriber; the subscriber holds the action weakly.
        s.hold(scheduler.schedule(after: interval, repeating: interval) {
            s.sendNext(.int(tick))
            tick &+= 1
        })
        return s
    }
}

extension Signal {
    /// Ticks 0, 1, 2, ... every `interval` ns on `scheduler`.
    public static func interval(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        IntervalSignal(interval, scheduler)
    }
}
