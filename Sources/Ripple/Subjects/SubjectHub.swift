import Glibc
import RippleSupport
import Synchronization

/// The subject-wide owner: one gate in front of every subscriber of a
/// subject. A send takes the gate once and delivers to all subscribers, so
/// fan-out pays one serialization per send instead of one per subscriber.
/// Subscribing, leaving and terminating are messages through the same gate,
/// so the registry, the replay buffer and the terminal event are touched by
/// the owner only: no lock, no copy on subscribe (rule 23), and one order of
/// events for every subscriber and for the buffer (rule 10).
///
/// A subscriber of the hub (a `Subscriber` whose `hub` is this) holds it
/// strongly; the registry holds its subscribers until they leave or the
/// subject is freed (`close`), which breaks that cycle (rule 6a).
public final class SubjectHub: Gate, @unchecked Sendable {
    @exclusivity(unchecked) var registry = SubscriberRegistry()
    /// The last values (replay and behavior subjects), owner only.
    @exclusivity(unchecked) var buffer: ReplayBuffer?
    let isBehavior: Bool
    /// The terminal event once sent (rule 7), owner only.
    @exclusivity(unchecked) var terminal: Event?
    /// The subject is gone; owner only.
    @exclusivity(unchecked) var closed = false
    let terminatedFlag = Atomic<Bool>(false)
    /// Written by the owner only (a store, not a read-modify-write); read
    /// from anywhere as a snapshot.
    let liveCount = Atomic<Int>(0)

    /// Guards `currentValue` (a behavior subject's value, read from any thread)
    /// and `sources`; never held while user code runs.
    let lock = Lock()
    @exclusivity(unchecked) var currentValue: Value = .nil
    /// Subscriptions of the subject to sources, disposed when it terminates.
    @exclusivity(unchecked) var sources = SweptList<UpstreamHold>()

    // For the connections multicasting through the subject (rule 6a,
    // Connection.swift): while a connection core could connect it and
    // nothing subscribes to it (no counted subscriber, none through that
    // core's autoconnect sides), only the core can reach it, so the hub keeps
    // it; once something subscribes, those subscriptions would keep a core
    // and so the subject in a cycle: the hub lets it go, and it lives as long
    // as something else can send into it. Two counts and the subject, under
    // `lock`; no list of cores.
    /// Connection cores with no live autoconnect subscription; `wanted`
    /// says whether there are any (read without the lock first).
    @exclusivity(unchecked) var keepers = 0
    let wanted = Atomic<Bool>(false)
    /// Set for good by the first core to want the subject kept, before it
    /// looks at the count: until then a change of the count needs no fence
    /// (`countedChanged`).
    let everWanted = Atomic<Bool>(false)
    /// The subject (weakly: set by the first core), held strongly while kept.
    @exclusivity(unchecked) weak var subjectRef: Subject?
    @exclusivity(unchecked) var kept: Subject?
    /// Counted subscribers: those not joined through an autoconnect side
    /// (`Subscriber.hubUncounted`). Delivery only writes it.
    let countedLive = Atomic<Int>(0)
    /// Told of each new subscriber before it joins (a marble subject logs
    /// its subscriptions this way); set once, before the subject is handed
    /// out, and nil for every other subject. (Here, not in SubjectSource:
    /// its hub is then its only field that needs freeing, see Subject.parts.)
    @exclusivity(unchecked) var joining: ((Subscriber) -> Void)?

    /// A plain subject's hub (`replay` nil), a replay subject's (the number
    /// of values to keep), or a behavior subject's (`behavior`, consumed).
    init(replay: Int?, behavior initial: Value? = nil) {
        if let initial {
            isBehavior = true
            var b = ReplayBuffer(capacity: 1)
            _ = b.append(initial.retained())
            buffer = b
            currentValue = initial
        } else {
            isBehavior = false
            buffer = replay.map { ReplayBuffer(capacity: $0) }
        }
        super.init(kind: .disposable)
    }

    deinit {
        buffer?.releaseAll()
        currentValue.release()
        registry.destroy()
    }

    // MARK: Sending

    /// Sends a value to every subscriber; consumes it. The uncontended path
    /// is a CAS, the deliveries, a store and a load.
    @inline(__always)
    func sendNext(_ value: Value) {
        let t = ripple_thread()!
        let me = UInt(bitPattern: t)
        if tryAcquire(me) {
            // Messages queued before this one (this thread's, sent while
            // another owner was delivering) go first: one sender's order holds.
            if flags.load(ordering: .acquiring) & Gate.pending != 0 {
                deliverAsOwner(.next(value), t, me)
                return
            }
            // The deliveries read the value from one copy on the stack (the
            // callbacks get it as a `const` pointer), and so does its
            // release: nothing of it is kept in registers across the calls.
            var w = value.words
            _withUnprotectedUnsafeMutablePointer(to: &w) { pw in
                let p = UnsafeMutableRawPointer(pw).assumingMemoryBound(to: Value.self)
                t.pointee.delivering &+= 1
                next(at: p)
                t.pointee.delivering &-= 1
                releaseOwnership()
                p.pointee.release()
            }
            return
        }
        send(.next(value))
    }

    /// A subscriber joins (`joining`) or leaves: at once when the hub is
    /// free with nothing queued or waiting (the common case: no message is
    /// made), else as a message behind what is queued (from inside one of
    /// its callbacks, `deliverNested` decides).
    @inline(__always)
    func postMembership(_ x: Subscriber, joining: Bool) {
        let t = ripple_thread()!
        let me = UInt(bitPattern: t)
        if tryAcquire(me) {
            // (A hub's gate is never closed: DONE is never set on it.)
            if flags.load(ordering: .acquiring) == 0 {
                t.pointee.delivering &+= 1
                if joining { join(x) } else { leave(x) }
                t.pointee.delivering &-= 1
                releaseOwnership()
                return
            }
            deliverAsOwner(joining ? .join(x) : .leave(x), t, me)
            return
        }
        post(joining ? .join(x) : .leave(x))
    }

    var isTerminated: Bool { terminatedFlag.load(ordering: .acquiring) }
    var subscriberCount: Int { liveCount.load(ordering: .relaxed) }

    /// A copy (+1) of a behavior subject's current value.
    func value() -> Value { lock.withLock { currentValue.retained() } }

    /// Adds a source subscription, disposed when the subject terminates (at
    /// once if it has).
    func addSource(_ d: Disposable) {
        lock.lock()
        if isTerminated {
            lock.unlock()
            d.dispose()
            return
        }
        sources.append(UpstreamHold(d, strong: false))
        lock.unlock()
    }

    // MARK: The owner's side, one message at a time

    public override func deliver(_ message: Message) {
        switch message {
        case .next(var v):
            _withUnprotectedUnsafeMutablePointer(to: &v) { next(at: $0) }
            v.release()
        case .error(let e): terminate(.error(e))
        case .completed: terminate(.completed)
        case .join(let x): join(x)
        case .leave(let x): leave(x)
        case .close: closeAll()
        case .input(_, let v): v.release()
        case .inputCompleted: break
        }
    }

    /// Joining and leaving from inside a callback of this subject take
    /// effect at once (a subscription made and disposed there is released
    /// when `dispose` returns), except the leave of a subscriber the hub is
    /// delivering to (from its own callback, or from one nested in it).
    public override func deliverNested(_ message: Message) -> Bool {
        switch message {
        case .join(let x):
            join(x)
            return true
        case .leave(let x):
            if x.hubDeliveries != 0 { return false }
            leave(x)
            return true
        default:
            return false
        }
    }

    /// The deliveries of the value at `p` (lent), while owning the gate.
    /// After the terminal event, and once the subject is gone, the registry
    /// is empty, so only a buffer needs the terminal check (rule 7).
    @inline(__always)
    func next(at p: UnsafeMutablePointer<Value>) {
        if buffer != nil {
            if terminal != nil { return }  // ignored after the terminal event
            remember(p.pointee)
        }
        let n = registry.count
        if n <= 0 { return }  // (not `== 0`: then the loop needs no other bound)
        // Whether a trace hook or probe watches values is read once per
        // send; a hook set by one of these callbacks sees the next send.
        registry.beginWalk()
        if ripple_trace_next_on() == 0 {
            deliverAll(p, n, watched: false)
        } else {
            nextWatched(p, n)
        }
        registry.endWalk()
    }

    /// The loop of `next`; `watched` is a constant where it is inlined, so
    /// the usual loop has no trace test per subscriber.
    @inline(__always)
    private func deliverAll(_ p: UnsafeMutablePointer<Value>, _ n: Int, watched: Bool) {
        // Subscribers joining meanwhile (from a callback) are past `n`; the
        // slots may move as they do, so they are read afresh each time.
        var i = 0
        repeat {
            if let e = registry.slots[i] {
                e._withUnsafeGuaranteedRef { x in x.hubDelivery { x.deliverFromHub(p, watched: watched) } }
            }
            i &+= 1
        } while i < n
    }

    /// `next`'s loop while a trace hook or probe watches values: out of
    /// line, so the usual send keeps a small frame.
    @inline(never)
    private func nextWatched(_ p: UnsafeMutablePointer<Value>, _ n: Int) { deliverAll(p, n, watched: true) }

    /// A connection core of `subject` starts (+1) or stops (-1) wanting it
    /// kept.
    func changeKeepers(_ delta: Int, _ subject: Subject?) {
        if delta > 0 && !everWanted.load(ordering: .relaxed) {
            everWanted.store(true, ordering: .sequentiallyConsistent)
            ripple_heavy_fence()  // now a count changing sees everWanted, or we see the count (countedChanged)
        }
        lock.lock()
        if let subject, subjectRef == nil { subjectRef = subject }
        keepers += delta
        wanted.store(keepers > 0, ordering: .sequentiallyConsistent)
        let dropped = updateKept()
        lock.unlock()
        withExtendedLifetime(dropped) {}  // may free the subject: outside the lock
    }

    /// Keeps the subject while a core wants it and nothing counted
    /// subscribes; under `lock`. Returns a subject let go of, for the caller
    /// to drop after unlocking. A subject already freed stays gone.
    private func updateKept() -> Subject? {
        if keepers > 0 && countedLive.load(ordering: .sequentiallyConsistent) == 0 {
            if kept == nil { kept = subjectRef }
            return nil
        }
        let k = kept
        kept = nil
        return k
    }

    /// The counted subscribers went from `old` to `new` (delivery). The
    /// store and the load of `wanted` are sequentially consistent, as in
    /// `changeKeepers`: a core changing its wish meanwhile either reads the
    /// new count or is seen here, and both settle under the lock on the
    /// latest state.
    /// Inlined: on a hub no core ever wanted kept (most), a plain store and
    /// a plain load, the fence paid once by the first core that does (an
    /// asymmetric Dekker, as the gate's release: Gate.swift).
    @inline(__always)
    func countedChanged(from old: Int, to new: Int) {
        if _fastPath(ripple_light_release_ok() != 0) {
            countedLive.store(new, ordering: .releasing)
            ripple_compiler_barrier()
            if _fastPath(!everWanted.load(ordering: .sequentiallyConsistent)) { return }
            atomicMemoryFence(ordering: .sequentiallyConsistent)
        } else {
            countedLive.store(new, ordering: .sequentiallyConsistent)
        }
        if (old > 0) == (new > 0) || !wanted.load(ordering: .sequentiallyConsistent) { return }
        keptChanged()
    }

    /// `countedChanged` when a core wants the subject kept and the counted
    /// subscribers came or went.
    @inline(never)
    private func keptChanged() {
        lock.lock()
        let dropped = updateKept()
        lock.unlock()
        withExtendedLifetime(dropped) {}
    }

    /// Every subscriber was let go (terminal event, or the subject freed).
    func allLeft() {
        let old = countedLive.load(ordering: .relaxed)
        if old != 0 { countedChanged(from: old, to: 0) }
    }

    /// Inlined into the dispose of a hub's subscriber (and the hub's
    /// `deliver`): a dispose makes no call for it.
    @inline(__always)
    func leave(_ x: Subscriber) {
        if let entry = registry.remove(x) {
            liveCount.store(registry.live, ordering: .relaxed)
            if !x.hubUncounted {
                let old = countedLive.load(ordering: .relaxed)
                countedChanged(from: old, to: old &- 1)
            }
            entry.release()
        }
        x.finalize()
    }

    /// Replays the buffer to `x`, marked as being delivered to meanwhile.
    @inline(__always)
    func replay(to x: Subscriber) {
        if buffer != nil { replayBuffer(to: x) }  // a plain subject has none: no call
    }

    private func replayBuffer(to x: Subscriber) {
        guard let buffer, !buffer.isEmpty else { return }
        x.hubDelivery {
            buffer.forEach { value in
                var v = copy value
                _withUnprotectedUnsafeMutablePointer(to: &v) { x.deliverFromHub($0, watched: ripple_trace_next_on() != 0) }
            }
        }
    }

    func remember(_ value: borrowing Value) {
        buffer!.append(value.retained())?.release()
        if isBehavior {
            lock.lock()
            let old = currentValue
            currentValue = value.retained()
            lock.unlock()
            old.release()
        }
    }

    /// A new subscriber: the buffer, then (after termination) the terminal
    /// event, else it goes live at this point of the order. Inlined: a live
    /// plain subject's new subscriber (nothing to replay, not disposed) is
    /// added at once; `joinSlow` does the rest.
    @inline(__always)
    func join(_ x: Subscriber) {
        if _fastPath(buffer == nil && terminal == nil && !closed && !x.isDisposed) {
            admit(x)
            return
        }
        joinSlow(x)
    }

    @inline(never)
    private func joinSlow(_ x: Subscriber) {
        if x.isDisposed {
            x.finalize()  // disposed before it joined
            return
        }
        if let t = terminal {
            if !isBehavior { replay(to: x) }
            x.endFromHub(t)
            return
        }
        if closed {
            // The subject is gone and never ended: the replay (or the
            // current value) is all that can ever arrive; then it ends
            // without an event (rule 6a).
            replay(to: x)
            if x.markDone() { x.disposeResources(leavingHub: false) }
            x.finalize()
            return
        }
        replay(to: x)
        if x.isDisposed { return }  // disposed during its replay: its leave is queued
        admit(x)
    }

    /// `x` goes live: it gets every send from now on.
    @inline(__always)
    private func admit(_ x: Subscriber) {
        registry.add(x)
        liveCount.store(registry.live, ordering: .relaxed)
        if !x.hubUncounted {
            let old = countedLive.load(ordering: .relaxed)
            countedChanged(from: old, to: old &+ 1)
        }
    }

    func terminate(_ event: Event) {
        if terminal != nil || closed { return }
        terminal = event
        lock.lock()
        terminatedFlag.store(true, ordering: .releasing)
        let srcs = sources.takeAll()
        lock.unlock()
        for s in srcs { s.dispose() }
        let all = registry.takeAll()
        liveCount.store(0, ordering: .relaxed)
        allLeft()
        for entry in all {
            // Ends it (callback, resources, release).
            entry._withUnsafeGuaranteedRef { $0.endFromHub(event) }
            entry.release()
        }
    }

    /// The subject was freed: nothing can send any more. The hub lets go of
    /// every subscription; one that nothing else holds is freed at once and
    /// its release runs without an event (rule 6a); one whose handle is
    /// still held ends when that handle goes, or when it is disposed.
    func closeAll() {
        closed = true
        let all = registry.takeAll()
        liveCount.store(0, ordering: .relaxed)
        allLeft()
        for entry in all { entry.release() }
    }
}
