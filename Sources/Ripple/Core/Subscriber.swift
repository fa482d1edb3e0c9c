import Glibc
import RippleSupport
import Synchronization

// One subscription: a gate (Gate.swift) in front of a sink chain, plus the
// resources that end with it.
//
// A subscription to a subject has no owner of its own: the subject's hub
// owns every delivery to all its subscribers at once (one serialization per
// send), and its `hubRef` field says so. It is handed out as a plain disposable,
// so nothing can send into it from outside the hub.
//
// Ending (rules 5, 6): a terminal event marks it done, runs the terminal
// callback, then disposes the resources; `dispose` marks it done and disposes
// the resources. The sink chain's `finish` (the C observer's release) runs
// last and once: at once if nobody is delivering, else when the owner lets go
// (for a subject's subscriber: right after the hub's terminal event ended
// it, or when the hub processes the leave a dispose posted).
//
// The end of the chain may be the subscriber itself, with no sink at all
// (a subclass overriding the `observe*` methods: the C observer on a
// subject, one object per subscription, which `revive` reuses); `sinkRef`
// is then nil from the start, and the events the sink chain would get go to
// those methods.

open class Subscriber: Gate {
    /// The head of the sink chain (+1, by hand, so calling it costs no
    /// retain/release per event); nil once finalized.
    @usableFromInline @exclusivity(unchecked) var sinkRef: Unmanaged<Sink>?
    /// The head sink's `directNext`, copied here so the fast path reads it
    /// without touching the sink. (Set again only by `revive`.)
    @usableFromInline @exclusivity(unchecked) final var directNext: Sink.DirectNext?
    @usableFromInline @exclusivity(unchecked) final var directContext: UnsafeMutableRawPointer?
    /// The subject hub that delivers to this subscriber, if any (+1, by
    /// hand: telling it costs no retain/release; released in deinit, or by
    /// `retire`).
    @exclusivity(unchecked) final var hubRef: Unmanaged<SubjectHub>?
    // The fields below are packed (4- and 1-byte words side by side): an
    // idle subscription's size is what a subject with many subscribers holds.
    /// Position in the hub's registry (hub owner only).
    @exclusivity(unchecked) var hubSlot: Int32 = -1
    /// How many of the hub's deliveries to it are running (hub owner only).
    /// Its leave waits until none is: the registry's reference is what keeps
    /// it, and the sinks it is calling, alive. A count, not the hub's one
    /// "current subscriber": deliveries nest (a callback subscribes another
    /// subscriber, whose replay runs inside it) and a leave posted from the
    /// inner one must still wait for the outer.
    @exclusivity(unchecked) var hubDeliveries: UInt32 = 0
    // Its own flags live in the gate's word, beside the gate's bits (an
    // idle subscription's size is what a subject with many subscribers
    // holds); each changes only by a read-modify-write of that word.
    /// Set by `dispose`, even when the subscription is already ending: the
    /// observer end of the chain drops everything after it (ObserverSink).
    @usableFromInline static let cancelled: UInt32 = 8
    /// Set once the consumer lets go of the subscription (its handle is
    /// released, or the subscription consuming it lets go in turn): until
    /// then its holds on upstreams are strong (docs/behaviour.md#lifetime-handle).
    static let consumerGone: UInt32 = 16
    /// `hasResources` (set under the stripe lock once a resource was ever
    /// added) and `resourcesClosed` (set once the resources were disposed;
    /// later ones are disposed at once): adding one and disposing them each
    /// set their bit and read the other's in one read-modify-write, so one
    /// of the two always sees the other (SubscriptionResources.swift).
    static let hasResources: UInt32 = 32
    static let resourcesClosed: UInt32 = 64
    /// Joined its hub through an autoconnect side, whose connection core
    /// counts it: the hub leaves it out of its counted subscribers
    /// (Connection.swift). Set before its join is posted, then only read.
    static let uncounted: UInt32 = 128
    /// Holds back `finish` while subscribe calls made for this subscription
    /// run: its own subscribe body, and an operator's upstream subscribe
    /// calls (rule 5: a resource such a call returns after a synchronous
    /// terminal event, or after the subscription ended meanwhile, is disposed
    /// before the release). The top bits count the calls running (in units
    /// of `subscribeCall`), `finishDue` is set once finish is held back.
    @usableFromInline static let finishDue: UInt32 = 256
    /// Set once it has finished: a second finalize (a leave after the join
    /// of one disposed before it joined) finishes nothing, a late subscribe
    /// call never matches `finishDue`, and a later `disposeHeldResources`
    /// gives back the reference it took itself.
    static let finished: UInt32 = 512
    /// Set once `endWord` was set (it lives in the locked parts since).
    @usableFromInline static let hasEndWord: UInt32 = 1024
    /// Set once disposing its resources took a reference to it for its
    /// finish to give back (`disposeHeldResources`): a resource may drop the
    /// last reference of a caller still running on it
    /// (docs/behaviour.md#lifetime-call).
    static let keptForFinish: UInt32 = 2048
    /// Counts the subscribe calls running, in the bits between
    /// `keptForFinish` and `noDirectNext` (half a million nested calls).
    @usableFromInline static let subscribeCall: UInt32 = 1 << 12
    /// Set at birth when there is no `directNext`, then only read: the
    /// delivery paths test it together with the done bit, in the word they
    /// load anyway, and call `directNext` without testing it for nil (one
    /// test and branch fewer per delivery: a subject's walk over its
    /// subscribers, 21.9 instructions per delivery before, 18.9 after).
    @usableFromInline static let noDirectNext: UInt32 = 1 << 31
    /// The bits `finish` being held back, due or done depends on.
    static let finishGate: UInt32 = ~(Subscriber.subscribeCall &- 1) & ~Subscriber.noDirectNext
        | Subscriber.finishDue | Subscriber.finished

    /// See `uncounted`.
    var hubUncounted: Bool {
        get { flags.load(ordering: .relaxed) & Subscriber.uncounted != 0 }
        set { if newValue { flags.bitwiseOr(Subscriber.uncounted, ordering: .relaxed) } }
    }

    /// True until the consumer lets go (`consumerGone`).
    var isConsumerHeld: Bool { flags.load(ordering: .sequentiallyConsistent) & Subscriber.consumerGone == 0 }

    /// Runs one of the hub's deliveries to it (hub owner only): its leave
    /// waits meanwhile (`hubDeliveries`).
    @inline(__always)
    final func hubDelivery(_ body: () -> Void) {
        hubDeliveries &+= 1
        body()
        hubDeliveries &-= 1
    }

    /// A subscription delivering into `sink`, which is attached to it before
    /// anything else can happen (rule 3: it exists before any upstream does).
    /// `sender` false: a source that never hands it out to send to (return,
    /// empty, error, from_array: they send inside `subscribe`) makes it with
    /// a disposable's kind, so once it has ended it can be the consumer's
    /// handle itself (`Signal.subscription`). `subscribing`: the subscribe
    /// call that makes it holds back `finish` from birth (one subscribe call
    /// running, rule 5), ended by `endSubscribeBody`, or by the
    /// `whileSubscribing(held: true)` / `subscribeUpstream(held: true)` it
    /// makes next: no atomic add to open the hold.
    ///
    /// The one way such a subscriber is made. A factory, not an initializer:
    /// here the new object's own reference is lent to `attach`, where an
    /// initializer pays a retain/release pair of `self` around the call.
    /// `sink` is consumed: the caller's reference becomes the chain's, so
    /// `attach` runs on sinks only the subscriber keeps; an attach can end
    /// the subscription (a relay's sink holding it in a relay that has
    /// ended, on this thread or another), and its finish would free them
    /// under the running attach. So `finish` is held back while it runs, by
    /// a subscribe call from birth (no atomic to open it): the caller's own
    /// when `subscribing` (it ends later, the attach is inside it), else one
    /// ended right after.
    @inline(__always)
    public static func make(_ sink: consuming Sink, hub: __shared SubjectHub? = nil, sender: Bool = true,
                            subscribing: Bool = false) -> Subscriber {
        let s = Subscriber(sink, hub: hub, sender: sender, calls: 1)
        s.sinkRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.attach(s) }
        if !subscribing { s.endSubscribeCall() }
        return s
    }

    /// The object `make` attaches `sink` to, `calls` subscribe calls running
    /// (a parameter although `make` passes 1: so built, `make` inlines to
    /// about 40 instructions fewer per subscription).
    private init(_ sink: consuming Sink, hub: __shared SubjectHub?, sender: Bool, calls: UInt32) {
        let direct = sink.directNext()
        directNext = direct?.function
        directContext = direct?.context
        hubRef = hub.map { Unmanaged.passRetained($0) }
        super.init(kind: hub == nil && sender ? .subscriber : .disposable,
                   bits: calls &* Subscriber.subscribeCall | (direct == nil ? Subscriber.noDirectNext : 0))
        // The last use of `sink`, whose reference this takes over: the
        // retain here and the release of the consumed argument cancel out.
        sinkRef = Unmanaged.passRetained(sink)
    }

    /// A subscriber of `subject` that is its own chain end: `next(context,
    /// value)` per value (called directly, like a head sink's
    /// `directNext`), the other events through the `observe*` methods a
    /// subclass overrides. Join it with `Subject.directSubscription`.
    public init(observing subject: __shared Subject, next: Sink.DirectNext?, context: UnsafeMutableRawPointer?) {
        directNext = next
        directContext = context
        sinkRef = nil
        hubRef = Unmanaged.passRetained(subject.parts.hub)
        super.init(kind: .disposable, bits: next == nil ? Subscriber.noDirectNext : 0)
    }

    // MARK: Reuse of a subscriber that is its own chain end

    /// True when this subscriber, its own chain end (`init(observing:)`),
    /// is over and holds nothing its init did not set: it has finished (its
    /// `observeFinish` ran) and never queued, waited, kept resources or an
    /// end word (its locked parts were never made). If the caller's
    /// reference is also the only one, nothing can reach it any more, and it
    /// may be retired and revived for another subscription instead of freed
    /// (the C observer's, SpareSubscribers.swift).
    ///
    /// Its hub used it last (delivering, leaving, finishing) while owning
    /// the hub's gate, which may still be owned when its reference is
    /// gone: only a free gate, seen by an acquiring load, comes after that
    /// use for sure (and says so to a race detector, which cannot see the
    /// reference count's ordering inside the Swift runtime).
    public final var isReusable: Bool {
        let f = flags.load(ordering: .acquiring)
        guard f & (Gate.done | Subscriber.finished) == Gate.done | Subscriber.finished && locked == nil
              && sinkRef == nil else { return false }
        guard let hub = hubRef else { return true }
        return hub._withUnsafeGuaranteedRef { $0.owner.load(ordering: .acquiring) == 0 }
    }

    /// Retires a reusable subscriber (`isReusable`, the caller's reference
    /// the only one): it lets go of its hub and reads as freed (its magic
    /// word poisoned, out of the live count) until `revive`; its context
    /// word holds `link` meanwhile (`retiredLink`).
    public final func retire(link: UnsafeMutableRawPointer?) {
        hubRef?.release()
        hubRef = nil
        directContext = link
        markFreed()
    }

    /// What `retire` was given.
    public final var retiredLink: UnsafeMutableRawPointer? { directContext }

    /// Makes a retired subscriber what `init(observing:next:context:)`
    /// makes: a subscriber of `subject`, not yet joined.
    public final func revive(observing subject: __shared Subject, next: Sink.DirectNext?,
                             context: UnsafeMutableRawPointer?) {
        directNext = next
        directContext = context
        hubRef = Unmanaged.passRetained(subject.parts.hub)
        hubSlot = -1
        hubDeliveries = 0
        owner.store(0, ordering: .relaxed)
        flags.store(next == nil ? Subscriber.noDirectNext : 0, ordering: .relaxed)
        markRevived(kind: .disposable)
    }

    /// The chain-end function and context of a subscriber that is its own
    /// chain end (`init(observing:next:context:)`).
    public final var endNext: Sink.DirectNext? { directNext }
    public final var endContext: UnsafeMutableRawPointer? { directContext }

    /// A word such a chain end keeps for a rare use (the C observer's trace
    /// record) outside the object, in the locked parts, so a subscription
    /// that never uses it carries no field for it; nil until set
    /// (`setEndWord`). Only the chain end uses it: before the subscriber is
    /// shared, then from its deliveries and its finish, one at a time. The
    /// word is stored under the stripe lock and `hasEndWord` set after it
    /// (releasing), and the locked parts are never replaced, so a read that
    /// sees the bit needs no lock.
    @inlinable
    public final var endWord: UnsafeMutableRawPointer? {
        if flags.load(ordering: .acquiring) & Subscriber.hasEndWord == 0 { return nil }
        return keptEndWord
    }
    @usableFromInline final var keptEndWord: UnsafeMutableRawPointer? { locked.unsafelyUnwrapped.endWord }

    public final func setEndWord(_ word: UnsafeMutableRawPointer?) {
        let lock = slowLock
        lock.lock()
        madeLocked.endWord = word
        lock.unlock()
        flags.bitwiseOr(Subscriber.hasEndWord, ordering: .releasing)
    }

    // MARK: The chain end of a subscriber without sinks (overridden)

    /// A value, when this subscriber is its own chain end and `next` was
    /// not called directly (no function, or a trace hook watches values).
    open func observeNext(_ value: borrowing Value) {}
    open func observeError(_ error: RippleError) {}
    open func observeCompleted() {}
    /// Runs once, last (what a sink chain's `finish` is).
    open func observeFinish() {}

    // The chain's entry points: the head sink, or this subscriber's own end.
    @inlinable @inline(__always)
    final func chainNext(_ value: Value) {
        if let s = sinkRef { s._withUnsafeGuaranteedRef { $0.onNext(value) } } else { observeNext(value) }
    }
    @inline(__always)
    final func chainError(_ error: RippleError) {
        if let s = sinkRef { s._withUnsafeGuaranteedRef { $0.onError(error) } } else { observeError(error) }
    }
    @inline(__always)
    final func chainCompleted() {
        if let s = sinkRef { s._withUnsafeGuaranteedRef { $0.onCompleted() } } else { observeCompleted() }
    }

    /// A subscription that is over at once (its release runs): what an
    /// operator returns when nothing could ever deliver to it.
    public static func ended(_ sink: consuming Sink) -> Subscriber {
        let r = Subscriber.make(sink, sender: false)
        r.dispose()
        return r
    }

    deinit {
        // Neither a producer nor the consumer can reach it: the subscription
        // is over (docs/behaviour.md#lifetime-unreachable). (A hub's
        // subscriber is only freed once its hub is done with it.)
        if !isClosed { endUnreachable() }
        hubRef?.release()
    }

    /// The end of a subscription nothing can reach any more (out of line:
    /// the usual deinit, of one that ended, stays a small frame). Nothing
    /// runs on it but this deinit, so its resources take no reference.
    @inline(never)
    private func endUnreachable() {
        disposeResourcesInline(leavingHub: false, keeping: false)
        finalize()
    }

    // MARK: Sending

    /// Sends a value; consumes `value`. Inlined into callers: the
    /// uncontended path is a CAS, the call, a store and a load.
    @inlinable @inline(__always)
    public final func sendNext(_ value: Value) { sendNext(value, owned: true) }

    /// Sends a value the caller keeps: delivered now, it costs no reference
    /// counting; one that must wait (or is dropped) is retained or left alone
    /// instead of consumed. For a source reusing one box value after value
    /// (read_lines), which then sees whether the receiver kept it.
    @inlinable @inline(__always)
    public final func sendNext(lent value: borrowing Value) { sendNext(copy value, owned: false) }

    /// The one sending skeleton; `owned` says whether `value`'s reference is
    /// the caller's to give (a constant where it is inlined).
    @inlinable @inline(__always)
    final func sendNext(_ value: Value, owned: Bool) {
        let t = ripple_thread()!
        let me = UInt(bitPattern: t)
        if tryAcquire(me) {
            let f = flags.load(ordering: .acquiring)
            if f & (Gate.done | Gate.pending) != 0 {
                if f & Gate.done != 0 {  // disposed, not yet finalized: letting go finalizes
                    releaseOwnership()
                    if owned { value.release() }
                    return
                }
                // A message this thread queued earlier (while another owner
                // was delivering) goes first: one sender's order holds.
                deliverAsOwner(.next(owned ? value : value.retained()), t, me)
                return
            }
            nextAsOwner(value, f, t)
            releaseOwnership()
            if owned { value.release() }
            return
        }
        send(.next(owned ? value : value.retained()))
    }

    /// Delivers a value (borrowed) on the uncontended path, the gate owned
    /// and nothing queued or closed; `flags` is the word as loaded then.
    @inlinable @inline(__always)
    final func nextAsOwner(_ value: Value, _ flags: UInt32, _ t: UnsafeMutablePointer<ripple_thread_state>) {
        t.pointee.delivering &+= 1
        // While a trace hook or probe watches values, the sink reports
        // them (the C observer's end): one flag load and one branch when off.
        if flags & Subscriber.noDirectNext == 0 && ripple_trace_next_on() == 0 {
            var v = value
            directNext.unsafelyUnwrapped(directContext, &v)
        } else {
            chainNext(value)
        }
        t.pointee.delivering &-= 1
    }

    public final func sendError(_ error: RippleError) { send(.error(error)) }
    public final func sendCompleted() { send(.completed) }

    /// `sendNext(value)` then `sendCompleted()`, taking the gate once when
    /// it is free (return's whole subscription); consumes `value`. What the
    /// value's callbacks queue meanwhile still goes before the completion.
    public final func sendLast(_ value: Value) {
        let t = ripple_thread()!
        let me = UInt(bitPattern: t)
        if tryAcquire(me) {
            let f = flags.load(ordering: .acquiring)
            if f & (Gate.done | Gate.pending) == 0 {
                nextAsOwner(value, f, t)
                value.release()
                deliverHeld(.completed, t)
                return
            }
            releaseOwnership()
        }
        sendNext(value)
        sendCompleted()
    }


    /// True once the subscription has terminated or been disposed.
    public final override var isDisposed: Bool { isClosed }

    /// True once `dispose` was called.
    @inlinable @inline(__always)
    public final var isCancelled: Bool { flags.load(ordering: .acquiring) & Subscriber.cancelled != 0 }

    /// Delivers one message while its gate is owned (by this subscriber's
    /// own owner, or by its hub); consumes it.
    public final override func deliver(_ message: Message) {
        switch message {
        case .next(let v):
            if !isClosed { chainNext(v) }
            v.release()
        case .error(let e):
            if markDone() {
                chainError(e)
                disposeResources()
            }
        case .completed:
            if markDone() {
                chainCompleted()
                disposeResources()
            }
        case .input(let i, let v):
            if !isClosed, let s = sinkRef { s._withUnsafeGuaranteedRef { $0.onInput(i, v) } }
            v.release()
        case .inputCompleted(let i):
            if !isClosed, let s = sinkRef { s._withUnsafeGuaranteedRef { $0.onInputCompleted(i) } }
        case .close:
            if markDone() { disposeResources() }  // no event; the owner finalizes as it lets go
        case .join, .leave:
            preconditionFailure("a hub message reached a subscriber")
        }
    }

    /// A value from the hub, which owns the delivery: no gate of its own.
    /// `value` is lent for the call; `watched` is `ripple_trace_next_on()`,
    /// read by the hub once per send: while it is set, the sink reports the
    /// value (the C observer's end).
    @inline(__always)
    final func deliverFromHub(_ value: UnsafeMutablePointer<Value>, watched: Bool) {
        let f = flags.load(ordering: .acquiring)
        if f & (Gate.done | Subscriber.noDirectNext) == 0 && !watched {
            directNext.unsafelyUnwrapped(directContext, value)
        } else if f & Gate.done != 0 {
            return
        } else if let s = sinkRef {
            s._withUnsafeGuaranteedRef { $0.onNext(value.pointee) }
        } else {
            observeNext(value.pointee)
        }
    }

    /// The hub's terminal event (hub owner only): ends it (callback, then
    /// resources) and finalizes it here, with no leave message, unless a
    /// delivery to it is still running further up the stack (then its leave
    /// is posted, as a dispose would). Does nothing if it had already ended
    /// (a dispose on another thread posts its own leave).
    final func endFromHub(_ event: Event) {
        guard markDone() else { return }
        hubDelivery {
            if case .error(let e) = event { chainError(e) } else { chainCompleted() }
            disposeResources(leavingHub: false)
        }
        if hubDeliveries == 0 { finalize() } else { hubRef?._withUnsafeGuaranteedRef { $0.post(.leave(self)) } }
    }

    // MARK: Ending

    /// Ends the subscription without a terminal event. Never waits for a
    /// callback running on another thread: that thread finalizes when it
    /// returns.
    public final override func dispose() {
        // Closing the resources in the same step as the gate saves an atomic
        // (their protocol only needs the bit set by one read-modify-write
        // that reads `hasResources`); a dispose after the gate closed leaves
        // them to whoever closed it (a terminal event disposes them next).
        guard let (old, mustFinalize) = close(also: Subscriber.cancelled, closing: Subscriber.resourcesClosed,
                                              claiming: hubRef == nil)
        else { return }
        disposeClosedResources(old, leavingHub: true, keeping: true)  // for a hub's subscriber this also tells the hub
        if mustFinalize { finalize() }
    }

    /// Adds the body's resource and runs a `finish` held back meanwhile.
    public final func endSubscribeBody(adding resource: Disposable?) {
        addResource(resource)
        endSubscribeCall()
    }

    /// Holds back `finish` until the matching `endSubscribeCall` (any thread,
    /// any time: a late call after `finish` has run changes nothing).
    public final func beginSubscribeCall() {
        flags.wrappingAdd(Subscriber.subscribeCall, ordering: .acquiringAndReleasing)
    }

    /// The last running call runs a `finish` held back meanwhile, exactly
    /// once: it takes it (clears `finishDue`, sets `finished`) in the same
    /// read-modify-write that ends the call; a call begun meanwhile, or any
    /// other bit changing, makes it look again.
    public final func endSubscribeCall() {
        var g = flags.load(ordering: .relaxed)
        while true {
            let left = g &- Subscriber.subscribeCall
            let due = left & Subscriber.finishGate == Subscriber.finishDue
            let new = due ? (left & ~Subscriber.finishDue) | Subscriber.finished : left
            let (ok, cur) = flags.compareExchange(expected: g, desired: new, ordering: .acquiringAndReleasing)
            if ok {
                if due { finishTaken() }
                return
            }
            g = cur
        }
    }

    /// The finish `endSubscribeCall` took: out of line, so the usual end of
    /// a call (nothing due) keeps a small frame.
    @inline(never)
    private func finishTaken() { finishMarked(first: true) }

    /// The consumer let go of this subscription (its handle was released,
    /// or the subscription holding it let go in turn): its holds turn weak,
    /// and it ends once nothing else can reach it. Once; never ends it
    /// (docs/behaviour.md#lifetime-handle).
    public final override func letGo() {
        let old = flags.bitwiseOr(Subscriber.consumerGone, ordering: .sequentiallyConsistent).oldValue
        if old & (Subscriber.consumerGone | Subscriber.hasResources) != Subscriber.hasResources { return }
        let lock = slowLock
        lock.lock()
        let held = locked?.resources.all ?? []
        lock.unlock()
        for d in held { d.letGo() }
    }

    /// Drops queued messages and runs the sink chain's `finish`, once.
    public final override func finalize() {
        // A plain load first: the gate is almost always open, and a failed
        // compare-exchange costs as much as a successful one. While
        // subscribe calls run, the last one to return finishes.
        let gate = flags.load(ordering: .acquiring)
        if gate & Subscriber.finishGate != 0 { return finalizeHeld(gate) }
        finish()
    }

    /// `finalize` while the finish gate was not open (rare): out of line,
    /// so the usual finalize stays small enough to inline.
    @inline(never)
    private func finalizeHeld(_ seen: UInt32) {
        var gate = seen
        while gate & Subscriber.finishGate != 0 {
            let (ok, cur) = flags.compareExchange(expected: gate, desired: gate | Subscriber.finishDue,
                                                  ordering: .acquiringAndReleasing)
            if ok { return }
            gate = cur
        }
        finish()
    }

    /// Runs the chain's finish, once; then gives back the reference its
    /// resources' disposal took (`keptForFinish`), last: the subscriber may
    /// be freed then, so nothing after a finalize touches it.
    /// (`finished` alone is set and tested, a `lock bts`; `keptForFinish` is
    /// only ever set while `finished` is not, so once this has set `finished`,
    /// a set `keptForFinish` is this finish's to give back.)
    @inline(__always)
    private func finish() {
        let first = flags.bitwiseOr(Subscriber.finished, ordering: .acquiringAndReleasing).oldValue
            & Subscriber.finished == 0
        finishMarked(first: first)
    }

    /// `finish` once `finished` is set (`first`: by this caller's step).
    @inline(__always)
    private func finishMarked(first: Bool) {
        dropQueued()
        if let s = sinkRef {
            sinkRef = nil
            s.takeRetainedValue().finish()
        } else if first {
            observeFinish()
        }
        if first && flags.load(ordering: .acquiring) & Subscriber.keptForFinish != 0 {
            Unmanaged.passUnretained(self).release()
        }
    }
}
