// A cold marble signal: each subscription plays the diagram on the test
// scheduler, its frames counted from that subscription.

/// A diagram's events with the values they send (owned).
struct MarblePlay {
    let events: [(time: Int64, event: Event)]

    /// Consumes nothing: takes its own references from `values`. `#` sends
    /// an error of domain "marble", code 1, message "error".
    init(_ diagram: MarbleDiagram, _ values: MarbleValues) {
        let error = diagram.events.contains { $0.kind == .error }
            ? RippleError(domain: "marble", code: 1, message: "error") : nil
        events = diagram.events.map { e in
            switch e.kind {
            case .next(let c): (e.time, .next(values.value(for: c)))
            case .error: (e.time, .error(error!))
            case .completed: (e.time, .completed)
            }
        }
    }

    func release() { for e in events { e.event.release() } }

    /// Event `n`, with its own reference (+1).
    func copy(_ n: Int) -> Event {
        switch events[n].event {
        case .next(let v): .next(v.retained())
        case let other: other
        }
    }
}

/// The signal the program holds. As in RxJS, a subscription stays open
/// until it is disposed or the diagram ends it, also once the diagram has
/// nothing more to send ("-a-"): this object keeps such subscriptions while
/// the program holds it. Operators keep only its `source`, so the
/// subscriptions they make form no cycle with it (rule 6a); once the program
/// releases it, a subscription with nothing left to play ends.
public final class MarbleColdSignal: Signal, @unchecked Sendable {
    let source: MarbleColdSource
    private let lock = Lock()
    private var open: [ObjectIdentifier: Subscriber] = [:]

    /// Consumes `values`' references.
    public init(_ diagram: MarbleDiagram, _ values: MarbleValues, on scheduler: TestScheduler) {
        source = MarbleColdSource(MarblePlay(diagram, values), scheduler)
        values.release()
        super.init()
        source.keeper = self
    }

    public var log: MarbleSubscriptionLog { source.log }
    public override var subscribeOnlySide: Signal? { source }
    public override func subscribe(_ sink: consuming Sink) -> Subscriber { source.subscribe(sink) }

    func keep(_ s: Subscriber) { lock.withLock { open[ObjectIdentifier(s)] = s } }
    func drop(_ s: ObjectIdentifier) { _ = lock.withLock { open.removeValue(forKey: s) } }
}

public final class MarbleColdSource: Signal, @unchecked Sendable {
    let play: MarblePlay
    let scheduler: SchedulerRef
    public let log: MarbleSubscriptionLog
    weak var keeper: MarbleColdSignal?

    init(_ play: MarblePlay, _ scheduler: TestScheduler) {
        self.play = play
        self.scheduler = SchedulerRef(scheduler)
        log = MarbleSubscriptionLog(origin: scheduler.now)
        super.init()
    }
    deinit { play.release() }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let sched = scheduler.scheduler else { return Subscriber.ended(sink) }
        let s = Subscriber.make(sink, subscribing: true)
        let logged = log.subscribed(on: scheduler)
        let keeper = self.keeper
        keeper?.keep(s)
        let id = ObjectIdentifier(s)
        // Every event is scheduled now, as RxJS does: at a frame they share
        // with other work, they run in the order they were scheduled.
        var jobs: [Disposable] = []
        jobs.reserveCapacity(play.events.count)
        if let last = play.events.last, let t = sched as? TestScheduler {
            t.extendHorizon(to: Scheduler.add(t.now, UInt64(max(last.time, 0))))
        }
        for n in play.events.indices {
            // The job keeps this source, which owns the value it sends.
            jobs.append(sched.schedule(after: UInt64(play.events[n].time)) { [self] in
                switch play.copy(n) {
                case .next(let v): s.sendNext(v)
                case .error(let err): s.sendError(err)
                case .completed: s.sendCompleted()
                }
            })
        }
        s.endSubscribeBody(adding: ActionDisposable { [weak keeper] in
            for j in jobs { j.dispose() }
            logged.dispose()
            keeper?.drop(id)
        })
        return s
    }
}
