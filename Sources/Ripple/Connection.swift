import Synchronization

// Multicast connections (rules 12-14): one subscription of a
// source, shared through a subject.
//
// Ownership (rule 6a, issue 10 D4). What can send into the subject: the
// source's subscription while connected (its source keeps it), whoever
// holds the subject, and whoever can connect. The connection's handle and an
// autoconnect signal's handle can connect, so they keep the subject. An
// operator that keeps an autoconnect signal to subscribe again later
// (repeat, retry, concat, then, catch_to) - or a replay_lazily signal -
// keeps only its connecting side
// (`asSource`, like a subject's SubjectSource): the `ConnectionCore`, for
// which the subject's hub keeps the subject only while nothing is
// subscribed to it. While
// something is - through autoconnect, or directly (an operator over the
// subject that also keeps the autoconnect side, e.g. switch_cases(subject,
// {k: autoconnect}) or concat(subject, autoconnect): fuzz finding cycle1) -
// the subscriptions of the subject would keep a connecting side, and through
// it the subject, in a cycle; the hub then lets the subject go, and it
// lives exactly as long as something else can send into it. Once nothing
// can, it is freed and its subscriptions end; the core then has no subject
// any more, and an autoconnect through it ends at once (there is nothing to
// connect). Counts decide (`SubjectHub.changeKeepers`): the hub counts the
// cores that want the subject kept and its direct subscribers; each core
// counts the subscriptions joined through its autoconnect sides (flagged
// `Subscriber.hubUncounted`), and wants the subject kept again before it
// disconnects (the source subscription may be what keeps it). The price: a subject with a direct subscriber,
// whose connection and autoconnect handles were released and which is not
// connected, is freed even if an operator elsewhere keeps an autoconnect side
// that could connect it later; that side then ends at once.

/// A source and the subject it is multicast through.
public final class MulticastConnection: RippleObject, @unchecked Sendable {
    public let source: Signal
    /// Held strongly: the connection's handle can connect (and lends it).
    public let subject: Subject
    let core: ConnectionCore

    public init(source: Signal, subject: Subject) {
        self.source = source.asSource
        self.subject = subject
        core = ConnectionCore(source: source, subject: subject)
        super.init(kind: .connection)
    }

    /// Subscribes the subject to the source, once: while that connection is
    /// not disposed, every call returns it (even while the source's subscribe
    /// callback is still running on another thread). After it was disposed,
    /// the next call connects again - unless the subject has terminated, which
    /// a new subscription could not change.
    ///
    /// `whenHeld` gets the connection's disposable before the source's
    /// subscribe callback runs, so a disconnect can reach it (rule 3a).
    public func connect(whenHeld: ((Disposable) -> Void)? = nil) -> Disposable {
        core.connect(subject, whenHeld: whenHeld)
    }

    /// A signal that connects when its subscriber count goes from 0 to 1 and
    /// disposes the connection when it goes back to 0 (rule 13).
    public func autoconnect() -> Signal { ConnectingSignal(self, side: AutoconnectSource(core)) }
}

/// What connects a connection, shared by its handle and its autoconnect
/// signals' connecting sides. Not a handle.
final class ConnectionCore: @unchecked Sendable {
    let source: Signal
    /// The subject's subscribe-only side (its hub).
    let subjectSource: SubjectSource
    let lock = Lock()
    /// The current connection; replaced only after it was disposed.
    @exclusivity(unchecked) var current: SerialDisposable?
    /// Subscriptions through autoconnect (replay_lazily, once connected,
    /// counts one for good). While there are none, the core asks the hub to
    /// keep the subject (`SubjectHub.changeKeepers`, see the top of the file).
    @exclusivity(unchecked) var autoSubscriptions = 0

    init(source: Signal, subject: Subject) {
        self.source = source.asSource
        subjectSource = subject.source
        subject.source.hub.changeKeepers(1, subject)
    }

    /// Freed: it can connect no more, so it no longer keeps the subject.
    deinit { if autoSubscriptions == 0 { subjectSource.hub.changeKeepers(-1, nil) } }

    /// The subject, if anything can still send into it.
    var subject: Subject? {
        let hub = subjectSource.hub
        return hub.lock.withLock { hub.subjectRef }
    }

    /// MulticastConnection.connect with `subject` (alive: the caller holds it).
    func connect(_ subject: Subject, whenHeld: ((Disposable) -> Void)?) -> Disposable {
        lock.lock()
        if let c = current, !c.isDisposed || subject.isTerminated {
            lock.unlock()
            whenHeld?(c)
            return c
        }
        let c = SerialDisposable()
        current = c
        lock.unlock()
        whenHeld?(c)
        // The source subscription goes into `c` (weakly: its source keeps
        // it) as soon as it exists; if `c` is disposed meanwhile, it is
        // disposed at once.
        _ = subject.subscribe(to: source, holder: c)
        return c
    }

    /// The subscribers of a connection that never disconnects let go
    /// (replay_lazily): its source subscription is held for them no more.
    func letGoConnection() { lock.withLock { current }?.letGo() }

    /// A subscription through autoconnect begins (or replay_lazily
    /// connects, for good): the first lets the hub stop keeping the subject
    /// for this core.
    func subscriptionBegan() {
        lock.lock()  // held across: the hub sees this core's changes in order
        autoSubscriptions += 1
        if autoSubscriptions == 1 { subjectSource.hub.changeKeepers(-1, nil) }
        lock.unlock()
    }

    /// One ended: the last has the hub keep the subject again, if it is
    /// still alive (else nothing can send into it any more: it stays gone).
    func subscriptionEnded() {
        lock.lock()
        autoSubscriptions -= 1
        if autoSubscriptions == 0 { subjectSource.hub.changeKeepers(1, nil) }
        lock.unlock()
    }
}

/// An autoconnect or replay_lazily signal as its handle: it keeps the
/// connection (it can connect); operators keep its connecting side.
final class ConnectingSignal: Signal, @unchecked Sendable {
    /// One stored tuple: freed as one value, without the retain/release pair
    /// of the signal that freeing two fields of a subclass in turn costs.
    let parts: (connection: MulticastConnection, side: ConnectingSide)

    init(_ connection: MulticastConnection, side: ConnectingSide) {
        self.parts = (connection, side)
        super.init()
    }

    override var subscribeOnlySide: Signal? { parts.side }
    override func subscribe(_ sink: consuming Sink) -> Subscriber { parts.side.subscribe(sink) }
}

/// The side of a connecting signal that operators keep: the core only.
class ConnectingSide: Signal, @unchecked Sendable {
    let core: ConnectionCore
    init(_ core: ConnectionCore) {
        self.core = core
        super.init()
    }
}

/// Reference-counted connecting (RxSwift's refCount): connects when the
/// subscriber count goes from 0 to 1, disconnects when it goes back to 0
/// (Membership.swift).
final class AutoconnectSource: ConnectingSide, SharedConnection, @unchecked Sendable {
    let lock = Lock()
    @exclusivity(unchecked) var counts = MemberCounts()
    /// The connection it made (or adopted), while connected.
    @exclusivity(unchecked) var connection: Disposable?

    override func subscribe(_ sink: consuming Sink) -> Subscriber {
        // Held for the call: the subject stays alive while it connects.
        guard let subject = core.subject else {
            // Nothing can send into the subject any more: joining its hub
            // gives the terminal event, if any, or ends at once.
            return core.subjectSource.subscribe(sink)
        }
        // Join the subject first, so events sent while connecting reach it
        // (RAC); counted by the core (subscriptionBegan), not by the hub.
        let x = core.subjectSource.subscribe(sink, counted: false)
        if x.isDisposed { return x }  // the subject has terminated: nothing to connect
        core.subscriptionBegan()
        let (m, first) = Membership.join(self)
        x.addResource(m)  // leaves at once if x has ended
        if first {
            var adoption = Adoption.kept
            // x's release waits until the source's subscribe call returned (rule 5).
            let d = x.whileSubscribing { core.connect(subject) { [self] c in adoption = adopt(c) } }
            adoption.apply(to: d)  // everyone left, or every handle went, before it was held
        }
        return x
    }

    func memberLeft(last: Bool) {
        // First the strong hold back (the subscription to the source, which
        // the disconnect below ends, may be what keeps the subject alive).
        core.subscriptionEnded()
        if last { disconnect() }
    }
}

/// `replay_lazily`: connects on the first subscription, never disconnects;
/// its subscribers hold the source subscription while they hold their
/// handles (Membership.swift).
final class LazyReplaySource: ConnectingSide, SharedConnection, @unchecked Sendable {
    let started = Atomic<Bool>(false)
    let lock = Lock()
    @exclusivity(unchecked) var counts = MemberCounts()
    /// Unused: the core holds the connection, which never disconnects.
    @exclusivity(unchecked) var connection: Disposable?

    override func subscribe(_ sink: consuming Sink) -> Subscriber {
        if !started.exchange(true, ordering: .acquiringAndReleasing), let subject = core.subject {
            // Connected for good: from now on the source's subscription (and
            // the handles) keep the subject, not this side (see the top).
            core.subscriptionBegan()
            _ = core.connect(subject, whenHeld: nil)
        }
        let x = core.subjectSource.subscribe(sink)
        if x.isDisposed { return x }
        let (m, _) = Membership.join(self)
        x.addResource(m)
        return x
    }

    func memberLeft(last: Bool) {}
    func lastLetGo() { core.letGoConnection() }
}

extension Signal {
    /// Multicast through a new plain subject (not connected).
    public func publish() -> MulticastConnection { MulticastConnection(source: self, subject: Subject()) }

    /// Multicast through `subject` (not connected).
    public func multicast(_ subject: Subject) -> MulticastConnection {
        MulticastConnection(source: self, subject: subject)
    }

    /// Multicast through an unlimited replay subject, connected at once.
    public func replay() -> Subject { replayConnected(capacity: .max) }

    /// Multicast through a replay subject of capacity 1, connected at once.
    public func replayLast() -> Subject { replayConnected(capacity: 1) }

    /// Multicast through an unlimited replay subject, connected on the first
    /// subscription and never disconnected by unsubscription.
    public func replayLazily() -> Signal {
        let c = MulticastConnection(source: self, subject: ReplaySubject(capacity: .max))
        return ConnectingSignal(c, side: LazyReplaySource(c.core))
    }

    private func replayConnected(capacity: Int) -> Subject {
        let subject = ReplaySubject(capacity: capacity)
        subject.subscribe(to: self).letGo()
        return subject
    }
}
