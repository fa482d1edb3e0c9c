import Glibc
import Synchronization

// deliver_on: every event is delivered on a scheduler, in order.
//
// Batched hand-off. Upstream delivery is serialized by the upstream
// subscriber, so the queue has one producer at a time and one consumer (the
// single drain job in flight). The sender appends under a tiny spin lock (no
// futex sleep on a brief collision with the drain's swap) and enqueues the
// drain job only when none is pending. The drain job swaps the whole queue
// out, delivers it through the relay, and on a thread-backed scheduler keeps
// polling for a few microseconds before going idle, so a sender that keeps
// the queue busy pays a lock and an append per event: no allocation (the two
// buffers are reused) and no wake-up. For fairness the drain re-enqueues
// itself behind the scheduler's other work after a number of batches.

public final class DeliverOnSignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let relay = Subscriber(sink)
        let queue = DeliverOnQueue(relay, scheduler)
        relay.subscribeUpstream(source, DeliverOnSink(queue), first: true)
        return relay
    }
}

/// The upstream end: queues events (on the sender's thread).
final class DeliverOnSink: RelaySink {
    let queue: DeliverOnQueue
    init(_ queue: DeliverOnQueue) {
        self.queue = queue
        super.init(queue.relay)
    }

    override func onNext(_ value: borrowing Value) { queue.push(.next(value.retained())) }
    override func onError(_ error: RippleError) { queue.push(.error(error)) }
    override func onCompleted() { queue.push(.completed) }
    override func finish() { queue.end() }
}

/// A test-and-test-and-set lock for critical sections of a few instructions
/// with no user code: a collision spins instead of sleeping in the kernel.
struct SpinLock: ~Copyable {
    let word = Atomic<Bool>(false)

    @inline(__always)
    func lock() {
        if !word.exchange(true, ordering: .acquiring) { return }
        var spins = 0
        while true {
            while word.load(ordering: .relaxed) {
                spins += 1
                if spins > 256 { sched_yield() }
            }
            if !word.exchange(true, ordering: .acquiring) { return }
        }
    }

    @inline(__always)
    func unlock() { word.store(false, ordering: .releasing) }
}

/// The queue and its drain job (the scheduler holds it while it is pending).
final class DeliverOnQueue: Job, @unchecked Sendable {
    /// Polls of an empty queue before the drain goes idle (~ a few µs).
    static let idlePolls = 1024
    /// Batches per run before yielding the scheduler to other work.
    static let batchesPerRun = 256

    let relay: Subscriber
    let scheduler: SchedulerRef
    /// Whether waiting briefly for more events can pay off: only on a
    /// scheduler with threads of its own.
    let polls: Bool
    private let lock = SpinLock()
    /// Set (under the lock) while `pending` is non-empty; polled without it.
    private let hasPending = Atomic<Bool>(false)
    @exclusivity(unchecked) var pending: [Event] = []
    @exclusivity(unchecked) var spare: [Event] = []
    @exclusivity(unchecked) var scheduled = false
    @exclusivity(unchecked) var ended = false

    init(_ relay: Subscriber, _ scheduler: Scheduler) {
        self.relay = relay
        self.scheduler = SchedulerRef(scheduler)
        polls = scheduler is WorkerScheduler
        super.init()
    }

    deinit { for e in pending { e.release() } }

    /// Queues `event` (consumed).
    @inline(__always)
    func push(_ event: Event) {
        lock.lock()
        pending.append(event)
        if pending.count == 1 { hasPending.store(true, ordering: .relaxed) }
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
        var batches = 0
        while true {
            lock.lock()
            if pending.isEmpty {
                if polls && !ended && waitForMore() { continue }  // lock released
                scheduled = false
                let done = ended
                lock.unlock()
                if done { relay.dispose() }
                return
            }
            swap(&pending, &spare)
            hasPending.store(false, ordering: .relaxed)
            lock.unlock()
            deliverSpare()
            batches += 1
            if batches == DeliverOnQueue.batchesPerRun {
                // Still scheduled: go to the back of the scheduler's queue.
                scheduler.enqueue(self)
                return
            }
        }
    }

    /// Called with the lock held and the queue empty; polls (lock released)
    /// for a few µs. Returns true, lock released, if events arrived.
    private func waitForMore() -> Bool {
        lock.unlock()
        for i in 0..<DeliverOnQueue.idlePolls {
            if hasPending.load(ordering: .relaxed) { return true }
            if i & 127 == 127 { sched_yield() }
        }
        lock.lock()
        if !pending.isEmpty {
            lock.unlock()
            return true
        }
        return false
    }

    private func deliverSpare() {
        for i in 0..<spare.count {
            switch spare[i] {
            case .next(let v): relay.sendNext(v)
            case .error(let e): relay.sendError(e)
            case .completed: relay.sendCompleted()
            }
        }
        spare.removeAll(keepingCapacity: true)
    }
}

extension Signal {
    /// Delivers every event on `scheduler`.
    public func deliver(on scheduler: Scheduler) -> Signal { DeliverOnSignal(self, scheduler) }
}
