/// Base of the operator signals built on one source.
public class UnaryOperatorSignal: Signal {
    public let source: Signal
    // (Consumed: a caller that hands its reference over gives the operator
    // the one it keeps, without a retain/release pair.)
    init(_ source: consuming Signal) {
        // `source.asSource`, never a sender (docs/behaviour.md#lifetime-subject).
        if let side = source.subscribeOnlySide {
            self.source = side
        } else {
            self.source = consume source
        }
        super.init()
    }
}

/// Base of the fused operators with one C callback (map, filter, scan,
/// take_while, skip_while, do_*, ...): each subscription gets a sink from
/// `makeSink` (a `CallbackSink` over `downstream`, consumed), which calls the
/// callback directly per value. initially and do_dispose override `subscribe` instead.
public class CallbackOperatorSignal<Function>: UnaryOperatorSignal {
    let callback: Callback<Function>

    public init(_ source: consuming Signal, _ callback: consuming Callback<Function>) {
        self.callback = consume callback  // moved: no retain of its context here, no release after super.init
        super.init(consume source)
    }

    func makeSink(_ downstream: consuming Sink) -> Sink { fatalError("makeSink must be overridden") }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber { source.subscribe(makeSink(sink)) }
}

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
