// throttle_first (RxSwift's throttle(_:latest: false)): the first value
// passes, then values are dropped until `interval` ns have passed on the
// scheduler's clock since the last value sent; a value arriving exactly
// `interval` ns after it passes (semantics 27, as Rx: elapsed >= interval).
// No timer: the scheduler is only the clock, so the operator is fused and
// works on the immediate scheduler too. Completion and errors pass at once.

public final class ThrottleFirstSignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        return source.subscribe(ThrottleFirstSink(sink, interval, scheduler))
    }
}

final class ThrottleFirstSink: ForwardingSink {
    let interval: UInt64
    let clock: SchedulerRef
    /// The clock reading of the last value sent; nil before the first.
    @exclusivity(unchecked) var lastSent: UInt64?

    init(_ downstream: Sink, _ interval: UInt64, _ scheduler: Scheduler) {
        self.interval = interval
        clock = SchedulerRef(scheduler)
        super.init(downstream)
    }

    override func onNext(_ value: borrowing Value) {
        guard let scheduler = clock.scheduler else { return }  // a freed driven scheduler: no clock
        let now = scheduler.now
        if let last = lastSent, now &- last < interval && now >= last { return }
        lastSent = now
        downstream.onNext(value)
    }
}

extension Signal {
    /// The first value, then none until `interval` ns after the last one sent.
    public func throttleFirst(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        ThrottleFirstSignal(self, interval, scheduler)
    }
}
