// throttle (RAC's throttle, Rx's debounce; semantics 17): a value is sent
// only after `interval` ns pass with no newer value. Completion sends the
// pending value at once, then completes; an error drops it and is forwarded
// at once; disposal cancels the pending send.

public final class ThrottleSignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let relay = Subscriber(sink)
        let throttleSink = ThrottleSink(relay, interval, scheduler)
        // Ending the subscription cancels the pending send (its timer holds
        // the sink, so without this a far timer would keep it).
        relay.addResource(ActionDisposable { [weak throttleSink] in throttleSink?.take()?.release() })
        relay.subscribeUpstream(source, throttleSink, first: true)
        return relay
    }
}

final class ThrottleSink: RelaySink, @unchecked Sendable {
    let interval: UInt64
    let schedulerRef: SchedulerRef
    let lock = Lock()
    @exclusivity(unchecked) var pending: Value?
    /// Bumped by every value and by the end: a timer only sends the value of
    /// its own generation.
    @exclusivity(unchecked) var generation: UInt64 = 0
    /// The pending timer. The cycle sink -> timer -> closure -> sink lasts
    /// only until the timer runs or is cancelled (its closure is dropped
    /// then); a freed driven scheduler cancels its pending jobs.
    @exclusivity(unchecked) var timer: ScheduledAction?
    /// A timer is sending its value right now (on the scheduler's thread).
    /// A completion arriving meanwhile on the sender's thread is handed to
    /// it, so the completion never overtakes that value.
    @exclusivity(unchecked) var firing = false
    @exclusivity(unchecked) var completeAfterFire = false
    @exclusivity(unchecked) var tailAfterFire: Value?

    init(_ relay: Subscriber, _ interval: UInt64, _ scheduler: Scheduler) {
        self.interval = interval
        self.schedulerRef = SchedulerRef(scheduler)
        super.init(relay)
    }

    deinit {
        pending?.release()
        tailAfterFire?.release()
    }

    override func onNext(_ value: borrowing Value) {
        guard let scheduler = schedulerRef.scheduler else { return }  // freed: never sent
        let v = value.retained()
        let due = Scheduler.add(scheduler.now, interval)
        lock.lock()
        let old = pending
        let oldTimer = timer
        pending = v
        generation &+= 1
        let g = generation
        let a = ScheduledAction { [self] in fire(g) }
        a.deadline = due
        timer = a
        lock.unlock()
        oldTimer?.dispose()
        old?.release()
        scheduler.enqueue(a, at: due)
    }

    override func onCompleted() {
        lock.lock()
        if firing {
            // The firing timer sends the value it took, then this.
            tailAfterFire = pending
            pending = nil
            generation &+= 1
            completeAfterFire = true
            let t = timer
            timer = nil
            lock.unlock()
            t?.dispose()
            return
        }
        lock.unlock()
        if let v = take() { relay.sendNext(v) }
        forwardCompleted()
    }

    override func onError(_ error: RippleError) {
        take()?.release()
        forwardError(error)
    }

    private func fire(_ g: UInt64) {
        lock.lock()
        guard g == generation, let v = pending else {
            lock.unlock()
            return
        }
        pending = nil
        firing = true
        lock.unlock()
        relay.sendNext(v)
        lock.lock()
        firing = false
        let complete = completeAfterFire
        let tail = tailAfterFire
        tailAfterFire = nil
        lock.unlock()
        if complete {
            if let tail { relay.sendNext(tail) }
            relay.sendCompleted()
        }
    }

    /// Takes the pending value and cancels its timer.
    func take() -> Value? {
        lock.lock()
        let v = pending
        pending = nil
        generation &+= 1
        let t = timer
        timer = nil
        lock.unlock()
        t?.dispose()
        return v
    }
}

extension Signal {
    /// Sends a value only after `interval` ns without a newer one.
    public func throttle(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        ThrottleSignal(self, interval, scheduler)
    }
}
