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
// queues' buffers are reused, up to the size a drained Fifo keeps) and no
// wake-up. For fairness the drain re-enqueues
// itself behind the scheduler's other work after a number of batches.
//
// Bounded (deliver_on_bounded, rules 25/27): the same queue with a capacity.
// The drain then takes one event at a time (what it delivers no longer
// waits, so `capacity` more may), and a value pushed into a full queue meets
// the overflow policy. Terminal events are never held back by the bound.
// The unbounded queue pays one compare per push for it.

/// What a send into a full bounded queue does (rpl_overflow).
public enum OverflowPolicy: UInt32, Sendable {
    /// Waits for room; where waiting could never end, fails as `.fail` does.
    case block = 0
    /// Drops the new value.
    case dropNewest = 1
    /// Drops the oldest waiting value and appends the new one.
    case dropOldest = 2
    /// Fails the signal with an RPL_ERROR_OVERFLOW error (after the queued values).
    case fail = 3
}

/// At most `capacity` (> 0) values wait for the scheduler.
public struct DeliveryBound: Sendable {
    public let capacity: Int
    public let policy: OverflowPolicy
    public init(capacity: Int, policy: OverflowPolicy) {
        self.capacity = capacity
        self.policy = policy
    }
}

public final class DeliverOnSignal: ScheduledOperatorSignal {
    let bound: DeliveryBound?

    public init(_ source: Signal, _ scheduler: Scheduler, bound: DeliveryBound? = nil) {
        self.bound = bound
        super.init(source, 0, scheduler)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let relay = Subscriber.make(sink, subscribing: true)
        let core = DeliverOnCore(relay, scheduler, bound)
        relay.subscribeUpstream(source, DeliverOnSink(core), held: true)
        return relay
    }
}

/// The upstream end: queues events (on the sender's thread).
final class DeliverOnSink: RelaySink {
    let core: DeliverOnCore
    init(_ core: DeliverOnCore) {
        self.core = core
        super.init(core.relay)
    }

    override func attach(_ subscriber: Subscriber) {
        core.upstream = subscriber
        super.attach(subscriber)
    }
    override func onNext(_ value: borrowing Value) { core.push(.next(value.retained())) }
    override func onError(_ error: RippleError) { core.push(.error(error)) }
    override func onCompleted() { core.push(.completed) }
    override func finish() { core.end() }
}

/// The waiting events (a `Fifo`) and the drain job that delivers them (the
/// scheduler holds it while it is pending).
final class DeliverOnCore: Job, @unchecked Sendable {
    /// Polls of an empty queue before the drain goes idle (~ a few µs).
    static let idlePolls = 1024
    /// Batches per run before yielding the scheduler to other work.
    static let batchesPerRun = 256
    /// How often a sender waiting for room checks that the subscription
    /// still exists (ns).
    static let recheckInterval: UInt64 = 2_000_000

    let relay: Subscriber
    let scheduler: SchedulerRef
    /// Whether waiting briefly for more events can pay off: only on a
    /// scheduler with threads of its own.
    let polls: Bool
    /// Values that may wait (Int.max: unbounded), and what a full queue does.
    let capacity: Int
    let policy: OverflowPolicy
    /// The upstream subscription (it calls `push`, so it is alive then):
    /// disposed when the queue overflows into a failure.
    @exclusivity(unchecked) unowned(unsafe) var upstream: Subscriber?
    private let lock = SpinLock()
    /// Set (under the lock) while `pending` is non-empty; polled without it.
    private let hasPending = Atomic<Bool>(false)
    /// The waiting events. Unbounded, the drain swaps the whole queue with
    /// `spare` (empty, its buffer kept) and delivers that; bounded, it takes
    /// one event at a time.
    @exclusivity(unchecked) var pending = Fifo<Event>()
    @exclusivity(unchecked) var spare = Fifo<Event>()
    @exclusivity(unchecked) var scheduled = false
    @exclusivity(unchecked) var ended = false
    /// Bounded: set once the subscription has failed with an overflow, or a
    /// waiting sender found it over; nothing more is queued or waited for.
    @exclusivity(unchecked) var closed = false
    /// BLOCK: where senders wait for room; `waiters` of them wait now.
    private let room: Lock?
    private let waiters = Atomic<Int>(0)

    init(_ relay: Subscriber, _ scheduler: Scheduler, _ bound: DeliveryBound? = nil) {
        self.relay = relay
        self.scheduler = SchedulerRef(scheduler)
        polls = scheduler is WorkerScheduler
        capacity = bound?.capacity ?? Int.max
        policy = bound?.policy ?? .block
        room = bound?.policy == .block ? Lock() : nil
        super.init()
    }

    deinit { while let e = pending.popFirst() { e.release() } }

    /// Queues `event` (consumed).
    @inline(__always)
    func push(_ event: Event) {
        lock.lock()
        if pending.count >= capacity {
            guard pushIntoFull(event) else { return }  // lock released
        } else {
            pending.append(event)
        }
        if pending.count == 1 { hasPending.store(true, ordering: .relaxed) }
        if scheduled {
            lock.unlock()
            return
        }
        scheduled = true
        lock.unlock()
        schedule()
    }

    /// A bounded queue is full (lock held): a terminal event gets in all the
    /// same; a value meets the policy. Returns true, lock held, once the event
    /// is queued; false, lock released, if it was dropped.
    @inline(never)
    private func pushIntoFull(_ event: Event) -> Bool {
        if closed {  // over, or failed: nothing more gets in
            lock.unlock()
            event.release()
            return false
        }
        guard case .next(let value) = event else {
            pending.append(event)  // a terminal event is never dropped (rule 25)
            return true
        }
        switch policy {
        case .dropNewest:
            lock.unlock()
            value.release()
            return false
        case .dropOldest:
            pending.popFirst().unsafelyUnwrapped.release()
            pending.append(event)
            return true
        case .fail:
            return overflow(value, "the queue of \(capacity) is full")
        case .block:
            // Waiting could never end on the scheduler's own thread, nor on a
            // test scheduler (it runs work only inside the caller's advance).
            if let s = scheduler.scheduler, Scheduler.current === s || s is TestScheduler {
                return overflow(value, "a send that must wait for room comes from the scheduler's own thread")
            }
            return waitForRoom(event)
        }
    }

    /// Fails the signal (lock held): drops `value`, queues the overflow error
    /// behind the waiting values and disposes the upstream. Returns true,
    /// lock held, with the error queued.
    private func overflow(_ value: Value, _ why: String) -> Bool {
        value.release()
        closed = true
        pending.append(.error(.runtime(.overflow, "rpl_signal_deliver_on_bounded: \(why)")))
        let up = upstream
        lock.unlock()
        up?.dispose()
        wakeSenders()
        lock.lock()
        return true
    }

    /// BLOCK (lock held, queue full): waits until there is room or the
    /// subscription is over. The drain wakes it when it takes an event; that
    /// the subscription ended (disposed, or its driven scheduler freed) it
    /// sees within `recheckInterval`, so nothing the relay holds has to
    /// point back at the queue. Returns as `pushIntoFull` does.
    private func waitForRoom(_ event: Event) -> Bool {
        lock.unlock()
        let room = room.unsafelyUnwrapped
        room.lock()
        waiters.add(1, ordering: .sequentiallyConsistent)
        while true {
            lock.lock()
            if closed || pending.count < capacity { break }
            if relay.isDisposed || scheduler.scheduler == nil {
                closed = true
                break
            }
            lock.unlock()
            _ = room.wait(until: deadline(after: DeliverOnCore.recheckInterval))
        }
        waiters.subtract(1, ordering: .sequentiallyConsistent)
        room.unlock()
        if closed {
            lock.unlock()
            event.release()
            return false
        }
        pending.append(event)
        return true
    }

    /// Wakes the senders waiting for room (BLOCK), if any.
    @inline(__always)
    private func wakeSenders() {
        if let room, waiters.load(ordering: .sequentiallyConsistent) > 0 {
            room.lock()
            room.broadcast()
            room.unlock()
        }
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

    /// The upstream subscription is over: what is queued is still delivered,
    /// and the drain stops waiting for more. The relay is not ended: it lives
    /// while its handle is held (docs/behaviour.md#lifetime-relay).
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
                lock.unlock()
                return
            }
            if capacity == Int.max {
                swap(&pending, &spare)
                hasPending.store(false, ordering: .relaxed)
                lock.unlock()
                deliverSpare()
            } else {
                let event = takeOne()
                lock.unlock()
                wakeSenders()
                deliver(event)
            }
            batches += 1
            if batches == DeliverOnCore.batchesPerRun {
                // Still scheduled: go to the back of the scheduler's queue.
                scheduler.enqueue(self)
                return
            }
        }
    }

    /// Bounded (lock held, queue not empty): takes the oldest event.
    private func takeOne() -> Event {
        let event = pending.popFirst().unsafelyUnwrapped
        if pending.isEmpty { hasPending.store(false, ordering: .relaxed) }
        return event
    }

    /// Called with the lock held and the queue empty; polls (lock released)
    /// for a few µs. Returns true, lock released, if events arrived.
    private func waitForMore() -> Bool {
        lock.unlock()
        for i in 0..<DeliverOnCore.idlePolls {
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

    @inline(__always)
    private func deliver(_ event: Event) {
        switch event {
        case .next(let v): relay.sendNext(v)
        case .error(let e): relay.sendError(e)
        case .completed: relay.sendCompleted()
        }
    }

    private func deliverSpare() {
        while let event = spare.popFirst() { deliver(event) }
    }
}

extension Signal {
    /// Delivers every event on `scheduler`.
    public func deliver(on scheduler: Scheduler) -> Signal { DeliverOnSignal(self, scheduler) }

    /// Delivers every event on `scheduler`, with at most `bound.capacity`
    /// values waiting.
    public func deliver(on scheduler: Scheduler, bound: DeliveryBound) -> Signal {
        DeliverOnSignal(self, scheduler, bound: bound)
    }
}
