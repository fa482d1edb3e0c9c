import Glibc
import RippleSupport
import Synchronization

// The delivery gate: one owner at a time delivers messages into whatever is
// behind it (a subscriber's sink chain, or every subscriber of a subject).
// Semantics.md rules 2, 4 and 6 rest on it.
//
// - `word` holds the owning thread's token (the address of its TLS block,
//   8-aligned) plus three flags. Uncontended delivery is a CAS 0 -> token, the
//   delivery, and a CAS token -> 0. No lock is held while user code runs.
// - A message sent while this thread already owns the gate (a send from
//   inside a callback) is queued and delivered right after the current
//   delivery returns, in order: recursion becomes iteration, and every
//   receiver behind the gate sees one order.
// - A thread that is itself delivering (inside a callback) never waits for
//   another thread's gate: it queues the message (PENDING) and the owner
//   delivers it before letting go. This removes cross-thread deadlocks.
// - A thread that is not delivering anything waits (WAITERS) until the owner
//   hands the gate over, oldest waiter first, then delivers its own message:
//   its work is bounded, so nothing starves.
// - DONE closes the gate. Whoever set DONE while nobody owned it, or the
//   owner that finds DONE when letting go, calls `finalize` exactly once.
//
// The queue and the waiters use a lock from a small shared table, so a gate
// allocates no lock of its own.

open class Gate: Disposable {
    @usableFromInline static let pending: UInt = 1
    @usableFromInline static let waiters: UInt = 2
    @usableFromInline static let done: UInt = 4
    @usableFromInline static let flagMask: UInt = 7

    @usableFromInline let word = Atomic<UInt>(0)
    /// Queued messages, under `slowLock`.
    @exclusivity(unchecked) final var queue: [Message] = []
    /// Tokens of threads waiting for their turn, oldest first, under `slowLock`.
    @exclusivity(unchecked) final var waitQueue: [UInt] = []

    public override init(kind: ObjectKind) { super.init(kind: kind) }

    /// Delivers one message while owning the gate; consumes it.
    open func deliver(_ message: Message) { message.release() }

    /// Runs once, after DONE, when nobody owns the gate.
    open func finalize() {}

    /// A message sent by the owning thread itself, from inside a delivery,
    /// with nothing queued: return true after handling it at once (it
    /// changes no order), false to have it queued behind the current
    /// delivery. Consumes the message only when returning true.
    open func deliverNested(_ message: Message) -> Bool { false }

    @usableFromInline final var slowLock: StripeLock {
        StripeLock(ripple_stripe_for(Unmanaged.passUnretained(self).toOpaque()))
    }

    /// True once the gate is closed.
    @inlinable @inline(__always)
    public final var isClosed: Bool { word.load(ordering: .acquiring) & Gate.done != 0 }

    // MARK: Owning

    @inlinable @inline(__always)
    final func tryAcquire(_ me: UInt) -> Bool {
        word.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged
    }

    @inlinable @inline(__always)
    final func releaseOwnership(_ me: UInt) {
        if !word.compareExchange(expected: me, desired: 0, ordering: .releasing).exchanged { releaseSlow(me) }
    }

    /// Sends any message; consumes it.
    public final func send(_ message: Message) {
        let t = ripple_thread()!
        let me = UInt(bitPattern: t)
        while true {
            let w = word.load(ordering: .acquiring)
            if w & Gate.done != 0 {
                message.release()
                return
            }
            let owner = w & ~Gate.flagMask
            if owner == 0 {
                guard word.compareExchange(expected: w, desired: w | me, ordering: .acquiring).exchanged else { continue }
                deliverAsOwner(message, t, me)
                return
            }
            if owner == me && w & Gate.pending == 0 && deliverNested(message) { return }
            if owner == me || t.pointee.delivering > 0 {
                enqueue(message, t)
                return
            }
            if waitForTurn(me) {
                deliverAsOwner(message, t, me)
                return
            }
        }
    }

    /// Delivers queued messages and then `message`, and lets go; the caller
    /// owns the gate.
    final func deliverAsOwner(_ message: Message, _ t: UnsafeMutablePointer<ripple_thread_state>, _ me: UInt) {
        t.pointee.delivering &+= 1
        drain()
        deliver(message)
        t.pointee.delivering &-= 1
        releaseOwnership(me)
    }

    /// Sets DONE; false if it was already set.
    public final func markDone() -> Bool {
        var w = word.load(ordering: .relaxed)
        while true {
            if w & Gate.done != 0 { return false }
            let (ok, cur) = word.compareExchange(expected: w, desired: w | Gate.done, ordering: .acquiringAndReleasing)
            if ok { return true }
            w = cur
        }
    }

    /// Closes the gate from outside a delivery. Returns nil if it was closed
    /// already; otherwise whether the caller must finalize (nobody owned it;
    /// waiters have been woken to see DONE).
    final func close() -> Bool? {
        var w = word.load(ordering: .acquiring)
        while true {
            if w & Gate.done != 0 { return nil }
            let (ok, cur) = word.compareExchange(expected: w, desired: w | Gate.done, ordering: .acquiringAndReleasing)
            if ok { break }
            w = cur
        }
        if w & ~Gate.flagMask != 0 { return false }  // the owner finalizes when it lets go
        if w & Gate.waiters != 0 {
            let lock = slowLock
            lock.withLock { lock.broadcast() }
        }
        return true
    }

    /// Queues a message for the owner (this thread, later; or another thread,
    /// which we must not wait for).
    final func enqueue(_ message: Message, _ t: UnsafeMutablePointer<ripple_thread_state>) {
        let lock = slowLock
        lock.lock()
        var w = word.load(ordering: .acquiring)
        while true {
            if w & Gate.done != 0 {
                lock.unlock()
                message.release()
                return
            }
            let (ok, cur) = word.compareExchange(expected: w, desired: w | Gate.pending, ordering: .acquiringAndReleasing)
            if ok { break }
            w = cur
        }
        queue.append(message)
        lock.unlock()
        // If nobody owned it when PENDING was set, nobody will drain: do it here.
        // Taking a free gate never blocks, so this is safe in a callback.
        if w & ~Gate.flagMask == 0 {
            let me = UInt(bitPattern: t)
            var cur = w | Gate.pending
            while cur & Gate.done == 0 && cur & ~Gate.flagMask == 0 {
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

    /// Delivers queued messages while owning the gate.
    final func drain() {
        while word.load(ordering: .acquiring) & Gate.pending != 0 {
            let lock = slowLock
            lock.lock()
            let items = queue
            queue = []
            var w = word.load(ordering: .relaxed)
            while true {
                let (ok, cur) = word.compareExchange(expected: w, desired: w & ~Gate.pending, ordering: .acquiringAndReleasing)
                if ok { break }
                w = cur
            }
            lock.unlock()
            for m in items { deliver(m) }
        }
    }

    /// Drops queued messages (the gate is closed, so no more can be queued:
    /// `enqueue` sets PENDING with a CAS that fails once DONE is there).
    final func dropQueued() {
        if word.load(ordering: .acquiring) & Gate.pending == 0 { return }
        let lock = slowLock
        lock.lock()
        let items = queue
        queue = []
        lock.unlock()
        for m in items { m.release() }
    }

    /// Waits, in arrival order, for this thread's turn (it holds no gate, so
    /// waiting cannot deadlock). True when the owner handed the gate over
    /// (this thread now owns it, even if it is closed since); false when it
    /// became free or closed, and the caller looks again. The hand-over in
    /// FIFO order is what bounds the wait while other threads keep sending:
    /// a woken waiter never races fresh senders for the word.
    final func waitForTurn(_ me: UInt) -> Bool {
        let lock = slowLock
        lock.lock()
        defer { lock.unlock() }
        var queued = false
        while true {
            let w = word.load(ordering: .acquiring)
            let owner = w & ~Gate.flagMask
            if queued && owner == me { return true }
            if w & Gate.done != 0 || owner == 0 {
                if queued, let i = waitQueue.firstIndex(of: me) { waitQueue.remove(at: i) }
                return false
            }
            if !queued {
                if w & Gate.waiters == 0 {
                    guard word.compareExchange(expected: w, desired: w | Gate.waiters,
                                               ordering: .acquiringAndReleasing).exchanged else { continue }
                }
                waitQueue.append(me)
                queued = true
            }
            lock.wait()
        }
    }

    @usableFromInline
    final func releaseSlow(_ me: UInt) {
        while true {
            let w = word.load(ordering: .acquiring)
            if w & Gate.pending != 0 {
                let t = ripple_thread()!
                t.pointee.delivering &+= 1
                drain()
                t.pointee.delivering &-= 1
                continue
            }
            if w & Gate.done != 0 {
                // Keep DONE, drop the owner: nobody can take it again.
                let lock = slowLock
                lock.lock()
                word.store(Gate.done, ordering: .releasing)
                if w & Gate.waiters != 0 { lock.broadcast() }
                lock.unlock()
                finalize()
                return
            }
            if w & Gate.waiters != 0 {
                // Hand the gate to the oldest waiter (w has no PENDING here).
                let lock = slowLock
                lock.lock()
                var next: UInt = 0
                if !waitQueue.isEmpty {
                    next = waitQueue[0] | (waitQueue.count > 1 ? Gate.waiters : 0)
                }
                let ok = word.compareExchange(expected: w, desired: next, ordering: .acquiringAndReleasing).exchanged
                if ok {
                    if !waitQueue.isEmpty { waitQueue.removeFirst() }
                    lock.broadcast()
                }
                lock.unlock()
                if ok { return }
                continue
            }
            if word.compareExchange(expected: w, desired: 0, ordering: .releasing).exchanged { return }
        }
    }
}
