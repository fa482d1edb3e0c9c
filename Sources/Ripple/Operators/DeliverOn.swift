// deliver_on: every event is delivered on a scheduler, in order.
//
// Batched hand-off: the sender appends to a per-subscription queue under a
// short lock and schedules one drain job only when none is pending, so a
// sender that keeps the queue busy pays a lock and an append per event, with
// no allocation (the queues are reused) and no wake-up. The drain job
// delivers one batch through the relay and, if more arrived meanwhile,
// re-enqueues itself behind the scheduler's other work (fairness).

public final class DeliverOnSignal: Signal {
    let upstream: Signal
    let scheduler: Scheduler

    public init(_ upstream: Signal, _ scheduler: Scheduler) {
        self.upstream = upstream
        self.scheduler = scheduler
        super.init()
    }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        let relay = Subscriber.relay(sink)
        let queue = DeliverOnQueue(relay, scheduler)
        relay.link(upstream.subscribe(DeliverOnSink(queue)))
        return relay
    }
}

/// The upstream end: queues events (on the sender's thread).
final class DeliverOnSink: Sink {
    let queue: DeliverOnQueue
    init(_ queue: DeliverOnQueue) { self.queue = queue }

    override func onNext(_ value: borrowing Value) { queue.push(.next(value.retained())) }
    override func onError(_ error: RippleError) { queue.push(.error(error)) }
    override func onCompleted() { queue.push(.completed) }
    override func finish() { queue.end() }
}

/// The queue and its drain job (the scheduler holds it while it is pending).
final class DeliverOnQueue: Job, @unchecked Sendable {
    let relay: Subscriber
    let scheduler: SchedulerRef
    let lock = Lock()
    @exclusivity(unchecked) var pending: [Event] = []
    @exclusivity(unchecked) var spare: [Event] = []
    @exclusivity(unchecked) var scheduled = false
    @exclusivity(unchecked) var ended = false

    init(_ relay: Subscriber, _ scheduler: Scheduler) {
        self.relay = relay
        self.scheduler = SchedulerRef(scheduler)
        super.init()
    }

    deinit { for e in pending { e.release() } }

    /// Queues `event` (consumed).
    @inline(__always)
    func push(_ event: Event) {
        lock.lock()
        pending.append(event)
        if scheduled {
            lock.unlock()
            return
        }
        scheduled = true
        lock.unlock()
        schedule()
    }

    /// Enqueues the drain job; if the (driven) scheduler is gone nothing can
    /// deliver any more, so the subscription ends.
    private func schedule() {
        if let s = scheduler.scheduler {
            s.enqueue(self)
        } else {
            relay.dispose()
        }
    }

    /// The upstream subscription is over; once the queue is delivered the
    /// relay is disposed (a no-op after a delivered terminal event).
    func end() {
        lock.lock()
        ended = true
        let go = !scheduled
        scheduled = true
        lock.unlock()
        if go { schedule() }
    }

    override func run(on scheduler: Scheduler) {
        lock.lock()
        if pending.isEmpty {
            scheduled = false
            let done = ended
            lock.unlock()
            if done { relay.dispose() }
            return
        }
        swap(&pending, &spare)
        lock.unlock()
        for e in spare { relay.send(e) }
        spare.removeAll(keepingCapacity: true)
        // More may have arrived: go to the back of the scheduler's queue
        // rather than monopolizing it. `scheduled` is still true.
        scheduler.enqueue(self)
    }
}

extension Signal {
    /// Delivers every event on `scheduler`.
    public func deliver(on scheduler: Scheduler) -> Signal { DeliverOnSignal(self, scheduler) }
}
