import Glibc
import RippleSupport
import Synchronization

// One subscription: it serializes delivery into its sink chain and owns the
// resources that end with it.
//
// Delivery (semantics.md rules 2, 4, 6):
// - `word` holds the delivering thread's token (the address of its TLS block,
//   8-aligned) plus three flags. Uncontended delivery is a CAS 0 -> token, the
//   callback, and a CAS token -> 0. No lock is held while user code runs.
// - A re-entrant send on the owning thread is delivered at once, nested.
// - A thread that is itself delivering (inside a callback) never waits for
//   another thread's subscriber: it queues the event (PENDING) and the owner
//   delivers it before letting go. This removes cross-thread deadlocks.
// - A thread that is not delivering anything waits (WAITERS) until the
//   subscriber is free, then delivers its own event: its work is bounded, so
//   nothing starves.
// - DONE stops delivery. Whoever set DONE while nobody was delivering, or the
//   owner that finds DONE when letting go, finalizes: the sink's `finish`
//   (the C observer's release) runs exactly once, last.
//
// The queue, waiters and resources use a lock from a small shared table, so a
// subscriber allocates no lock of its own.

public final class Subscriber: Disposable {
    @usableFromInline static let pending: UInt = 1
    @usableFromInline static let waiters: UInt = 2
    @usableFromInline static let done: UInt = 4
    @usableFromInline static let flagMask: UInt = 7

    @usableFromInline let word = Atomic<UInt>(0)
    /// The head of the sink chain (+1, by hand, so calling it costs no
    /// retain/release per event); nil once finalized.
    @usableFromInline @exclusivity(unchecked) var sinkRef: Unmanaged<Sink>?
    /// Orphaned events, under `slowLock`.
    @exclusivity(unchecked) var queue: [Event] = []
    /// Resources disposed when the subscription ends, under `slowLock`.
    @exclusivity(unchecked) var resource: Disposable?
    @exclusivity(unchecked) var moreResources: [Disposable] = []
    /// Set once the resources have been disposed; later ones are disposed at once.
    let resourcesClosed = Atomic<Bool>(false)
    /// Set (under the stripe lock) once a resource has ever been added.
    let hasResources = Atomic<Bool>(false)
    /// Holds back `finish` while a subscribe body runs (rule 5: a resource the
    /// body returns after a synchronous terminal event is disposed before the
    /// release). 0: open, 1: a body is running, 2: running and finish is due.
    let finishGate = Atomic<UInt8>(0)

    public init(_ sink: __owned Sink) {
        sinkRef = Unmanaged.passRetained(sink)
        super.init(kind: .subscriber)
    }

    deinit {
        // Nothing can send to it any more: the subscription is over (rule 6a).
        if word.load(ordering: .acquiring) & Subscriber.done == 0 {
            disposeResources()
            finalize()
        }
    }

    /// Makes `sink` the head of this subscriber's chain (before any event).
    @inlinable
    public func start() { sinkRef?._withUnsafeGuaranteedRef { $0.attach(self) } }

    @usableFromInline var slowLock: StripeLock { StripeLock(ripple_stripe_for(Unmanaged.passUnretained(self).toOpaque())) }

    // MARK: Sending

    /// Sends a value; consumes `value`. Inlined into callers: the
    /// uncontended path is a CAS, the call, and a CAS.
    @inlinable @inline(__always)
    public func sendNext(_ value: Value) {
        let t = ripple_thread()!
        let me = UInt(bitPattern: t)
        if word.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged {
            t.pointee.delivering &+= 1
            sinkRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.onNext(value) }
            t.pointee.delivering &-= 1
            if !word.compareExchange(expected: me, desired: 0, ordering: .releasing).exchanged {
                releaseSlow(me)
            }
            value.release()
            return
        }
        sendSlow(.next(value), t)
    }

    public func sendError(_ error: RippleError) { sendSlow(.error(error), ripple_thread()!) }
    public func sendCompleted() { sendSlow(.completed, ripple_thread()!) }

    /// Sends any event; consumes it.
    public func send(_ event: Event) { sendSlow(event, ripple_thread()!) }

    /// True once the subscription has terminated or been disposed.
    public override var isDisposed: Bool { word.load(ordering: .acquiring) & Subscriber.done != 0 }

    @usableFromInline
    func sendSlow(_ event: Event, _ t: UnsafeMutablePointer<ripple_thread_state>) {
        let me = UInt(bitPattern: t)
        while true {
            let w = word.load(ordering: .acquiring)
            if w & Subscriber.done != 0 { event.release(); return }
            let owner = w & ~Subscriber.flagMask
            if owner == me {
                deliver(event)  // re-entrant on this thread: nested, in order
                return
            }
            if owner == 0 {
                guard word.compareExchange(expected: w, desired: w | me, ordering: .acquiring).exchanged else { continue }
                t.pointee.delivering &+= 1
                drain()
                deliver(event)
                t.pointee.delivering &-= 1
                releaseOwnership(me)
                return
            }
            if t.pointee.delivering > 0 {
                enqueueOrphan(event, t)
                return
            }
            waitUntilFree()
        }
    }

    /// Delivers one event while owning the subscriber; consumes it.
    @usableFromInline
    func deliver(_ event: Event) {
        switch event {
        case .next(let v):
            if word.load(ordering: .relaxed) & Subscriber.done == 0 {
                sinkRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.onNext(v) }
            }
            v.release()
        case .error(let e):
            if markDone() {
                sinkRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.onError(e) }
                disposeResources()
            }
        case .completed:
            if markDone() {
                sinkRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.onCompleted() }
                disposeResources()
            }
        }
    }

    /// Sets DONE; false if it was already set.
    func markDone() -> Bool {
        var w = word.load(ordering: .relaxed)
        while true {
            if w & Subscriber.done != 0 { return false }
            let (ok, cur) = word.compareExchange(expected: w, desired: w | Subscriber.done, ordering: .acquiringAndReleasing)
            if ok { return true }
            w = cur
        }
    }

    /// Queues an event for the owning thread to deliver (we must not wait).
    func enqueueOrphan(_ event: Event, _ t: UnsafeMutablePointer<ripple_thread_state>) {
        let lock = slowLock
        lock.lock()
        var w = word.load(ordering: .acquiring)
        while true {
            if w & Subscriber.done != 0 {
                lock.unlock()
                event.release()
                return
            }
            let (ok, cur) = word.compareExchange(expected: w, desired: w | Subscriber.pending, ordering: .acquiringAndReleasing)
            if ok { break }
            w = cur
        }
        queue.append(event)
        lock.unlock()
        // If nobody owned it when PENDING was set, nobody will drain: do it here.
        // Taking a free subscriber never blocks, so this is safe in a callback.
        if w & ~Subscriber.flagMask == 0 {
            let me = UInt(bitPattern: t)
            var cur = w | Subscriber.pending
            while cur & Subscriber.done == 0 && cur & ~Subscriber.flagMask == 0 {
                let r = word.compareExchange(expected: cur, desired: cur | me, ordering: .acquiring)
                if r.exchanged {
                    t.pointee.delivering &+= 1
                    drain()
                    t.pointee.delivering &-= 1
                    releaseOwnership(me)
                    return
                }
                cur = r.original
            }
        }
    }

    /// Delivers queued orphans while owning the subscriber.
    func drain() {
        while word.load(ordering: .acquiring) & Subscriber.pending != 0 {
            let lock = slowLock
            lock.lock()
            let items = queue
            queue = []
            var w = word.load(ordering: .relaxed)
            while true {
                let (ok, cur) = word.compareExchange(expected: w, desired: w & ~Subscriber.pending, ordering: .acquiringAndReleasing)
                if ok { break }
                w = cur
            }
            lock.unlock()
            for e in items { deliver(e) }
        }
    }

    /// Blocks until no thread is delivering (or the subscription is done).
    func waitUntilFree() {
        let lock = slowLock
        lock.lock()
        while true {
            let w = word.load(ordering: .acquiring)
            if w & Subscriber.done != 0 || w & ~Subscriber.flagMask == 0 { break }
            if w & Subscriber.waiters != 0
                || word.compareExchange(expected: w, desired: w | Subscriber.waiters, ordering: .acquiringAndReleasing).exchanged {
                lock.wait()
            }
        }
        lock.unlock()
    }

    @inlinable @inline(__always)
    func releaseOwnership(_ me: UInt) {
        if !word.compareExchange(expected: me, desired: 0, ordering: .releasing).exchanged { releaseSlow(me) }
    }

    @usableFromInline
    func releaseSlow(_ me: UInt) {
        while true {
            let w = word.load(ordering: .acquiring)
            if w & Subscriber.pending != 0 {
                let t = ripple_thread()!
                t.pointee.delivering &+= 1
                drain()
                t.pointee.delivering &-= 1
                continue
            }
            if w & Subscriber.done != 0 {
                // Keep DONE, drop the owner: nobody can take it again.
                let lock = slowLock
                lock.lock()
                word.store(Subscriber.done, ordering: .releasing)
                if w & Subscriber.waiters != 0 { lock.broadcast() }
                lock.unlock()
                finalize()
                return
            }
            if w & Subscriber.waiters != 0 {
                let lock = slowLock
                lock.lock()
                let ok = word.compareExchange(expected: w, desired: 0, ordering: .releasing).exchanged
                if ok { lock.broadcast() }
                lock.unlock()
                if ok { return }
                continue
            }
            if word.compareExchange(expected: w, desired: 0, ordering: .releasing).exchanged { return }
        }
    }

    // MARK: Ending

    /// Ends the subscription without a terminal event. Never waits for a
    /// callback running on another thread: that thread finalizes when it
    /// returns.
    public override func dispose() {
        var w = word.load(ordering: .acquiring)
        while true {
            if w & Subscriber.done != 0 { return }
            let (ok, cur) = word.compareExchange(expected: w, desired: w | Subscriber.done, ordering: .acquiringAndReleasing)
            if ok { break }
            w = cur
        }
        disposeResources()
        if w & ~Subscriber.flagMask == 0 {
            if w & Subscriber.waiters != 0 {
                let lock = slowLock
                lock.withLock { lock.broadcast() }
            }
            finalize()
        }
    }

    /// Call before running a subscribe body that may end the subscription
    /// synchronously and then return a resource; pair with `endSubscribeBody`.
    public func beginSubscribeBody() { finishGate.store(1, ordering: .relaxed) }

    /// Adds the body's resource and runs a `finish` held back meanwhile.
    public func endSubscribeBody(adding resource: Disposable?) {
        addResource(resource)
        if finishGate.exchange(0, ordering: .acquiringAndReleasing) == 2 { finalize() }
    }

    /// Drops queued events and runs the sink chain's `finish`, once.
    func finalize() {
        // A plain load first: the gate is almost always open, and a failed
        // compare-exchange costs as much as a successful one.
        // Closed (1 or 2): leave it to endSubscribeBody.
        var gate = finishGate.load(ordering: .acquiring)
        while gate != 0 {
            if gate == 2 { return }
            let (ok, cur) = finishGate.compareExchange(expected: 1, desired: 2, ordering: .acquiringAndReleasing)
            if ok { return }
            gate = cur
        }
        // DONE is set, so no orphan can be queued any more (enqueueOrphan sets
        // PENDING with a CAS that fails once DONE is there). A queue that still
        // holds events has PENDING set: only then is the lock needed.
        if word.load(ordering: .acquiring) & Subscriber.pending != 0 {
            let lock = slowLock
            lock.lock()
            let items = queue
            queue = []
            lock.unlock()
            for e in items { e.release() }
        }
        if let s = sinkRef {
            sinkRef = nil
            s.takeRetainedValue().finish()
        }
    }

    // MARK: Resources

    /// Adds a resource disposed when the subscription ends (at once if it
    /// already has).
    public func addResource(_ d: Disposable?) {
        guard let d else { return }
        let lock = slowLock
        lock.lock()
        // Announce first, then look (both sequentially consistent): either
        // disposeResources sees the announcement and takes the lock, or we
        // see that it has run and dispose `d` ourselves.
        hasResources.store(true, ordering: .sequentiallyConsistent)
        if resourcesClosed.load(ordering: .sequentiallyConsistent) {
            lock.unlock()
            d.dispose()
            return
        }
        if resource == nil { resource = d } else { moreResources.append(d) }
        lock.unlock()
    }

    /// Removes a resource without disposing it.
    public func removeResource(_ d: Disposable) {
        let lock = slowLock
        lock.withLock {
            if resource === d { resource = nil }
            moreResources.removeAll { $0 === d }
        }
    }

    /// Disposes every resource, once. A subscription that never had one (the
    /// common case) costs one atomic exchange and no lock.
    func disposeResources() {
        if resourcesClosed.exchange(true, ordering: .sequentiallyConsistent) { return }
        if !hasResources.load(ordering: .sequentiallyConsistent) { return }
        let lock = slowLock
        lock.lock()
        let first = resource
        let rest = moreResources
        resource = nil
        moreResources = []
        lock.unlock()
        first?.dispose()
        for d in rest { d.dispose() }
    }
}

/// One stripe of the shared lock table (RippleSupport): a mutex and a
/// condition. A condition wait wakes every waiter of the stripe, and each
/// re-checks its own subscriber.
@usableFromInline
struct StripeLock {
    @usableFromInline let stripe: UnsafeMutablePointer<ripple_stripe>
    @inlinable init(_ stripe: UnsafeMutablePointer<ripple_stripe>) { self.stripe = stripe }

    @inlinable @inline(__always) func lock() { pthread_mutex_lock(&stripe.pointee.mutex) }
    @inlinable @inline(__always) func unlock() { pthread_mutex_unlock(&stripe.pointee.mutex) }
    @inlinable @inline(__always) func wait() { pthread_cond_wait(&stripe.pointee.cond, &stripe.pointee.mutex) }
    @inlinable @inline(__always) func broadcast() { pthread_cond_broadcast(&stripe.pointee.cond) }
    @inlinable @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
