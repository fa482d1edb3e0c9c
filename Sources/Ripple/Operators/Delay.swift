// delay: values and completion arrive `interval` ns later (on the
// scheduler); an error is forwarded at once and drops what is pending.
//
// One timer at a time per subscription: events wait in a FIFO with their due
// times; when the timer fires it delivers everything due, then arms itself
// for the next item. So order is kept even on a concurrent scheduler.

public final class DelaySignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let relay = Subscriber(sink)
        let delaySink = DelaySink(relay, interval, scheduler)
        // Disposing after upstream completed must still cancel the timer
        // that would deliver the queued events and completion.
        relay.addResource(ActionDisposable { [weak delaySink] in delaySink?.stop() })
        relay.subscribeUpstream(source, delaySink, first: true)
        return relay
    }
}

final class DelaySink: RelaySink, @unchecked Sendable {
    let interval: UInt64
    let schedulerRef: SchedulerRef
    let lock = Lock()
    @exclusivity(unchecked) var items: [(due: UInt64, event: Event)] = []
    @exclusivity(unchecked) var head = 0
    @exclusivity(unchecked) var armed = false
    @exclusivity(unchecked) var stopped = false
    /// The pending timer. The cycle sink -> timer -> closure -> sink lasts
    /// only until the timer runs or is cancelled (its closure is dropped
    /// then); a freed driven scheduler cancels its pending jobs.
    @exclusivity(unchecked) var timer: ScheduledAction?

    init(_ relay: Subscriber, _ interval: UInt64, _ scheduler: Scheduler) {
        self.interval = interval
        self.schedulerRef = SchedulerRef(scheduler)
        super.init(relay)
    }

    deinit { dropItems() }

    override func onNext(_ value: borrowing Value) { push(.next(value.retained())) }
    override func onCompleted() { push(.completed) }

    override func onError(_ error: RippleError) {
        stop()
        forwardError(error)
    }

    private func push(_ e: Event) {
        guard let scheduler = schedulerRef.scheduler else {
            e.release()  // a freed test scheduler or run loop: never delivered
            return
        }
        let due = Scheduler.add(scheduler.now, interval)
        lock.lock()
        if stopped {
            lock.unlock()
            e.release()
            return
        }
        items.append((due, e))
        var next: ScheduledAction?
        if !armed {
            armed = true
            next = makeTimer(due)
        }
        lock.unlock()
        if let next { scheduler.enqueue(next, at: due) }
    }

    /// Under `lock`.
    private func makeTimer(_ due: UInt64) -> ScheduledAction {
        let a = ScheduledAction { [self] in fire() }
        a.deadline = due
        timer = a
        return a
    }

    private func fire() {
        guard let scheduler = schedulerRef.scheduler else { return }
        let now = scheduler.now
        var due: [Event] = []
        lock.lock()
        while head < items.count && items[head].due <= now {
            due.append(items[head].event)
            head += 1
        }
        lock.unlock()
        // `armed` stays set while delivering, so nothing overtakes these.
        for e in due { relay.send(Message(e)) }
        lock.lock()
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        var next: ScheduledAction?
        var at: UInt64 = 0
        if !stopped && head < items.count {
            at = items[head].due
            next = makeTimer(at)
        } else {
            armed = false
        }
        lock.unlock()
        if let next { scheduler.enqueue(next, at: at) }
    }

    func stop() {
        lock.lock()
        stopped = true
        let t = timer
        timer = nil
        let dropped = Array(items[head...])
        items = []
        head = 0
        lock.unlock()
        t?.dispose()
        for d in dropped { d.event.release() }
    }

    private func dropItems() {
        for i in head..<items.count { items[i].event.release() }
        items = []
        head = 0
    }
}

extension Signal {
    /// Delays values and completion by `interval` ns on `scheduler`.
    public func delay(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        DelaySignal(self, interval, scheduler)
    }
}
