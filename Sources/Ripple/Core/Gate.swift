import Glibc
import RippleSupport
import Synchronization

// The delivery gate: one owner at a time delivers messages into whatever is
// behind it (a subscriber's sink chain, or every subscriber of a subject).
// Rules 2, 4 and 6 rest on it.
//
// - `owner` holds the owning thread's token (the address of its TLS block),
//   0 when free, `finalToken` once finalized; `flags` holds PENDING, WAITERS
//   and DONE. Uncontended delivery is one CAS (0 -> token), the delivery, a
//   plain store of 0 and a plain load of `flags`: one atomic read-modify-write
//   per send. That the owner cannot miss a flag set while it lets go is paid
//   by whoever sets one (the rare side): it runs `ripple_heavy_fence` between
//   setting the flag and looking at `owner` (an asymmetric Dekker: either the
//   owner's load sees the flag, or the fenced side sees the owner gone).
// - A message sent while this thread already owns the gate (a send from
//   inside a callback) is queued and delivered right after the current
//   delivery returns, in order: recursion becomes iteration, and every
//   receiver behind the gate sees one order.
// - A thread that is itself delivering (inside a callback) never waits for
//   another thread's gate: it queues the message (PENDING) and the owner
//   delivers it before letting go. This removes cross-thread deadlocks.
// - A thread that is not delivering anything waits (WAITERS) until an owner
//   hands the gate over, oldest waiter first, then delivers its own message:
//   its work is bounded, so nothing starves.
// - DONE closes the gate. Whoever holds or takes the gate once DONE is set
//   finalizes it: `finalize` runs exactly once, last.
//
// The queue and the waiters use a lock from a small shared table, so a gate
// allocates no lock of its own; they live in a box made on first use (most
// gates never queue or wait), so an idle gate carries one nil word for them
// (a subscriber keeps its resources there too).

open class Gate: Disposable {
    @usableFromInline static let pending: UInt32 = 1
    @usableFromInline static let waiters: UInt32 = 2
    @usableFromInline static let done: UInt32 = 4
    /// The bits the gate itself uses; a subclass keeps its own flags in the
    /// others (Subscriber), so a gate and its subscriber state share a word.
    @usableFromInline static let gateBits: UInt32 = 7
    /// The owner of a finalized gate (thread tokens are 8-aligned).
    @usableFromInline static let finalToken: UInt = 1

    // `flags` first: 4 bytes, in the 4 the root class leaves after its
    // magic word (an idle subscription's size is what a subject with many
    // subscribers holds). Only `gateBits` are the gate's: a subclass may
    // keep its own in the rest, changed only by read-modify-writes.
    @usableFromInline let flags: Atomic<UInt32>
    @usableFromInline let owner = Atomic<UInt>(0)
    /// What lives under `slowLock`; nil until first needed.
    @exclusivity(unchecked) final var locked: LockedParts?

    public override init(kind: ObjectKind) {
        flags = Atomic(0)
        super.init(kind: kind)
    }

    /// A gate whose word starts with a subclass's own bits (never the gate's):
    /// set at birth, nothing else can see it yet, so no atomic operation.
    public init(kind: ObjectKind, bits: UInt32) {
        flags = Atomic(bits)
        super.init(kind: kind)
    }

    /// `locked`, made now if need be; under `slowLock`.
    final var madeLocked: LockedParts {
        if let l = locked { return l }
        let l = LockedParts()
        locked = l
        return l
    }

    /// Takes the queued messages; under `slowLock`.
    final func takeQueued() -> [Message] {
        guard let q = locked else { return [] }
        let items = q.messages
        q.messages = []
        return items
    }

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
    public final var isClosed: Bool { flags.load(ordering: .acquiring) & Gate.done != 0 }

    // MARK: Owning

    /// Takes a free gate. The caller then checks `isClosed` before
    /// delivering, and lets go with `releaseOwnership`.
    @inlinable @inline(__always)
    final func tryAcquire(_ me: UInt) -> Bool {
        owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged
    }

    /// Lets go: a plain store and a plain load on the uncontended path.
    /// (The slow path finds the thread's token itself, so a send need not
    /// keep it across its deliveries.)
    @inlinable @inline(__always)
    final func releaseOwnership() {
        letGoOwnership(to: 0)
        if flags.load(ordering: .sequentiallyConsistent) & Gate.gateBits != 0 { releaseSlow() }
    }

    /// The owner's store as it lets go (`token`: free, or closed for good),
    /// before it looks at `flags`: a plain store where whoever sets a flag
    /// pays the heavy fence (the top of the file).
    @inlinable @inline(__always)
    final func letGoOwnership(to token: UInt) {
        if _fastPath(ripple_light_release_ok() != 0) {
            owner.store(token, ordering: .releasing)
            ripple_compiler_barrier()
        } else {
            owner.store(token, ordering: .sequentiallyConsistent)
        }
    }

    /// Sends any message; consumes it. A thread that is not delivering
    /// waits for its turn behind another thread's delivery (bounded).
    public final func send(_ message: Message) { send(message, mayWait: true) }

    /// Sends a message without ever waiting: behind another thread's
    /// delivery it is queued for that thread (dispose, and a subject's
    /// join and leave, never wait for a callback on another thread).
    public final func post(_ message: Message) { send(message, mayWait: false) }

    final func send(_ message: Message, mayWait: Bool) {
        let t = ripple_thread()!
        let me = UInt(bitPattern: t)
        while true {
            if isClosed {
                message.release()
                return
            }
            let o = owner.load(ordering: .acquiring)
            if o == 0 {
                guard tryAcquire(me) else { continue }
                deliverAsOwner(message, t, me)
                return
            }
            if o == me {
                if flags.load(ordering: .relaxed) & Gate.pending == 0 && deliverNested(message) { return }
                enqueue(message, t)
                return
            }
            if o == Gate.finalToken { continue }  // closed: dropped above
            if !mayWait || t.pointee.delivering > 0 {
                enqueue(message, t)
                return
            }
            if waitForTurn(me) {
                deliverAsOwner(message, t, me)
                return
            }
        }
    }

    /// Delivers what was queued before this thread took its turn, then
    /// `message`, and lets go; the caller owns the gate. Only one batch goes
    /// first: messages queued meanwhile (another thread inside a callback
    /// keeps sending) come after, so this thread's own message is never
    /// starved behind them (it may be a terminal event that ends them).
    @usableFromInline
    final func deliverAsOwner(_ message: Message, _ t: UnsafeMutablePointer<ripple_thread_state>, _ me: UInt) {
        deliverHeld(message, t)
    }

    /// `deliverAsOwner`, inlined (a sender that already holds the gate
    /// for a message it sends first: `Subscriber.sendLast`).
    @inline(__always)
    final func deliverHeld(_ message: Message, _ t: UnsafeMutablePointer<ripple_thread_state>) {
        t.pointee.delivering &+= 1
        drainOnce()
        deliver(message)
        t.pointee.delivering &-= 1
        // Closed by this delivery (a terminal event), nothing queued, nobody
        // waiting: close it for good still holding it, as `releaseSlow`
        // would after letting go and taking it back.
        if flags.load(ordering: .sequentiallyConsistent) & Gate.gateBits == Gate.done { return closeHeld() }
        releaseOwnership()
    }

    /// Closes a done gate for good while holding it: waiters wake to see it
    /// closed, then it finalizes.
    @inline(__always)
    private func closeHeld() {
        letGoOwnership(to: Gate.finalToken)
        wakeWaiters()
        finalize()
    }

    /// Sets DONE; false if it was already set. The thread holding the gate
    /// finalizes it when it lets go. (`close` sets it with a subclass's bits.)
    public final func markDone() -> Bool {
        flags.bitwiseOr(Gate.done, ordering: .sequentiallyConsistent).oldValue & Gate.done == 0
    }

    /// Closes the gate from outside a delivery: in one read-modify-write,
    /// sets `also` (even when it was closed already) and, if it was not,
    /// DONE and a subclass's `closing` bits (what only the closer sets).
    /// Returns nil if it was closed already; otherwise the word before and
    /// whether the caller must finalize (nobody owned it). `claiming` false:
    /// a gate nobody ever owns (a subject's subscriber: its hub delivers,
    /// and finalizes it as it leaves) is not claimed. Inlined: the usual
    /// close is two CASes (one unclaimed), the close of a gate closed for
    /// good none.
    @inline(__always)
    final func close(also: UInt32, closing: UInt32, claiming: Bool) -> (old: UInt32, mustFinalize: Bool)? {
        // Closed for good (finalToken is stored after DONE): no delivery can
        // come any more, so there is nothing for `also` to stop.
        if owner.load(ordering: .acquiring) == Gate.finalToken { return nil }
        var old = flags.load(ordering: .relaxed)
        while true {
            let new = old | also | (old & Gate.done == 0 ? Gate.done | closing : 0)
            if new == old { return nil }  // closed, `also` set: bits are never cleared
            let (ok, cur) = flags.compareExchange(expected: old, desired: new, ordering: .sequentiallyConsistent)
            if ok { break }
            old = cur
        }
        if old & Gate.done != 0 { return nil }
        return (old, claiming && (claimFinal() || closeOwned()))
    }

    /// `close` when the gate had an owner as it was marked DONE.
    @inline(never)
    private func closeOwned() -> Bool {
        ripple_heavy_fence()  // now the owner sees DONE when it lets go, or we see it gone
        while true {
            let o = owner.load(ordering: .sequentiallyConsistent)
            if o != 0 { return false }  // its holder finalizes (or already has)
            if claimFinal() { return true }
        }
    }

    /// Takes a free, closed gate for good; wakes waiters to see it closed.
    @inline(__always)
    private func claimFinal() -> Bool {
        guard owner.compareExchange(expected: 0, desired: Gate.finalToken, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        wakeWaiters()
        return true
    }

    @inline(__always)
    private func wakeWaiters() {
        if flags.load(ordering: .sequentiallyConsistent) & Gate.waiters != 0 { broadcastWaiters() }
    }

    @inline(never)
    private func broadcastWaiters() {
        let lock = slowLock
        lock.withLock { lock.broadcast() }
    }

    /// Queues a message for the owner (this thread, later; or another thread,
    /// which we must not wait for).
    final func enqueue(_ message: Message, _ t: UnsafeMutablePointer<ripple_thread_state>) {
        let me = UInt(bitPattern: t)
        let lock = slowLock
        lock.lock()
        if isClosed {
            lock.unlock()
            message.release()
            return
        }
        madeLocked.messages.append(message)
        flags.bitwiseOr(Gate.pending, ordering: .sequentiallyConsistent)
        lock.unlock()
        if owner.load(ordering: .relaxed) == me { return }  // we drain it when we let go
        ripple_heavy_fence()
        // If nobody owns it now, nobody will drain: do it here. Taking a
        // free gate never blocks, so this is safe in a callback.
        while owner.load(ordering: .sequentiallyConsistent) == 0 {
            if tryAcquire(me) {
                t.pointee.delivering &+= 1
                drain()
                t.pointee.delivering &-= 1
                releaseOwnership()
                return
            }
        }
    }

    /// Delivers queued messages while owning the gate, until none is left.
    final func drain() {
        while drainOnce() {}
    }

    /// Delivers the messages queued now (one batch); false if there were none.
    @discardableResult
    final func drainOnce() -> Bool {
        if flags.load(ordering: .sequentiallyConsistent) & Gate.pending == 0 { return false }
        let lock = slowLock
        lock.lock()
        let items = takeQueued()
        flags.bitwiseAnd(~Gate.pending, ordering: .sequentiallyConsistent)
        lock.unlock()
        for m in items { deliver(m) }
        return true
    }

    /// Drops queued messages (the gate is closed, so no more can be queued).
    /// Inlined: almost always there are none.
    @inline(__always)
    final func dropQueued() {
        if flags.load(ordering: .sequentiallyConsistent) & Gate.pending != 0 { dropQueuedMessages() }
    }

    @inline(never)
    private func dropQueuedMessages() {
        let lock = slowLock
        lock.lock()
        let items = takeQueued()
        lock.unlock()
        for m in items { m.release() }
    }

    /// Waits, in arrival order, for this thread's turn (it holds no gate, so
    /// waiting cannot deadlock). True when an owner handed the gate over
    /// (this thread now owns it, even if it is closed since); false when it
    /// became free or closed, and the caller looks again. The hand-over in
    /// FIFO order is what bounds the wait while other threads keep sending.
    final func waitForTurn(_ me: UInt) -> Bool {
        let lock = slowLock
        lock.lock()
        madeLocked.waiters.append(me)
        flags.bitwiseOr(Gate.waiters, ordering: .sequentiallyConsistent)
        lock.unlock()
        ripple_heavy_fence()  // now the owner sees WAITERS when it lets go, or we see it gone
        lock.lock()
        defer { lock.unlock() }
        while true {
            let o = owner.load(ordering: .sequentiallyConsistent)
            if o == me { return true }  // handed over (and taken off the queue)
            if o == 0 || o == Gate.finalToken || isClosed {
                let q = madeLocked
                if let i = q.waiters.firstIndex(of: me) { q.waiters.remove(at: i) }
                if q.waiters.isEmpty { flags.bitwiseAnd(~Gate.waiters, ordering: .sequentiallyConsistent) }
                return false
            }
            lock.wait()
        }
    }

    /// Lets go after `releaseOwnership` found a flag: takes the gate back if
    /// it is still free, then drains, finalizes or hands over.
    @usableFromInline
    final func releaseSlow() {
        let me = UInt(bitPattern: ripple_thread()!)
        var holding = false
        while true {
            if !holding {
                guard tryAcquire(me) else { return }  // another holder sees the flags
                holding = true
            }
            let f = flags.load(ordering: .sequentiallyConsistent)
            if f & Gate.pending != 0 {
                let t = ripple_thread()!
                t.pointee.delivering &+= 1
                drain()
                t.pointee.delivering &-= 1
                continue
            }
            if f & Gate.done != 0 { return closeHeld() }
            if f & Gate.waiters != 0 {
                // Hand the gate to the oldest waiter.
                let lock = slowLock
                lock.lock()
                if let q = locked, !q.waiters.isEmpty {
                    let next = q.waiters.removeFirst()
                    if q.waiters.isEmpty { flags.bitwiseAnd(~Gate.waiters, ordering: .sequentiallyConsistent) }
                    owner.store(next, ordering: .sequentiallyConsistent)
                    lock.broadcast()
                    lock.unlock()
                    return
                }
                flags.bitwiseAnd(~Gate.waiters, ordering: .sequentiallyConsistent)
                lock.unlock()
                continue
            }
            owner.store(0, ordering: .sequentiallyConsistent)
            holding = false
            if flags.load(ordering: .sequentiallyConsistent) & Gate.gateBits == 0 { return }
        }
    }
}

/// What a gate keeps under its stripe lock, in one box made on first use.
final class LockedParts {
    /// Queued messages, in order.
    @exclusivity(unchecked) var messages: [Message] = []
    /// Tokens of threads waiting for their turn, oldest first.
    @exclusivity(unchecked) var waiters: [UInt] = []
    /// A subscriber's resources (SubscriptionResources.swift).
    @exclusivity(unchecked) var resources = DisposableBag()
    /// A rarely used word of a subscriber that is its own chain end
    /// (`Subscriber.endWord`).
    @exclusivity(unchecked) var endWord: UnsafeMutableRawPointer?
}
