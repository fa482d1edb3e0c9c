import Synchronization

// Multicast connections (semantics.md rules 12-14): one subscription of a
// source, shared through a subject.

/// A source and the subject it is multicast through.
public final class MulticastConnection: RippleObject, @unchecked Sendable {
    public let source: Signal
    public let subject: Subject
    let lock = Lock()
    /// The current connection; replaced only after it was disposed.
    @exclusivity(unchecked) var current: SerialDisposable?

    public init(source: Signal, subject: Subject) {
        self.source = source
        self.subject = subject
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
        // The source subscription goes into `c` as soon as it exists; if `c`
        // is disposed meanwhile, it is disposed at once.
        _ = subject.subscribe(to: source, holder: c)
        return c
    }

    /// A signal that connects when its subscriber count goes from 0 to 1 and
    /// disposes the connection when it goes back to 0 (rule 13).
    public func autoconnect() -> Signal { AutoconnectSignal(self) }
}

/// `connection.autoconnect()`: reference-counted connecting.
final class AutoconnectSignal: Signal, @unchecked Sendable {
    let connection: MulticastConnection
    let lock = Lock()
    @exclusivity(unchecked) var count = 0
    @exclusivity(unchecked) var connected: Disposable?

    init(_ connection: MulticastConnection) {
        self.connection = connection
        super.init()
    }

    override func subscribe(_ sink: Sink) -> Subscriber {
        // Join the subject first, so events sent while connecting reach it (RAC).
        let x = connection.subject.subscribe(sink)
        if x.isDisposed { return x }  // the subject has terminated: nothing to connect
        lock.lock()
        count += 1
        let first = count == 1
        lock.unlock()
        // Weak: the subscriber must not keep this signal (and so the subject
        // it is in) alive in a cycle.
        x.addResource(ActionDisposable { [weak self] in self?.leave() })
        if first {
            var stale = false
            // x's release waits until the source's subscribe call returned (rule 5).
            let d = x.whileSubscribing { connection.connect { [self] c in
                lock.lock()
                if count > 0 && connected == nil { connected = c } else { stale = count == 0 }
                lock.unlock()
            } }
            if stale { d.dispose() }  // everyone left before it was held
        }
        return x
    }

    func leave() {
        lock.lock()
        count -= 1
        if count == 0, let d = connected {
            connected = nil
            lock.unlock()
            d.dispose()
            return
        }
        lock.unlock()
    }
}

/// `replay_lazily`: connects on the first subscription, never disconnects.
final class LazyReplaySignal: Signal, @unchecked Sendable {
    let connection: MulticastConnection
    let started = Atomic<Bool>(false)

    init(_ connection: MulticastConnection) {
        self.connection = connection
        super.init()
    }

    override func subscribe(_ sink: Sink) -> Subscriber {
        if !started.exchange(true, ordering: .acquiringAndReleasing) { _ = connection.connect() }
        return connection.subject.subscribe(sink)
    }
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
        LazyReplaySignal(MulticastConnection(source: self, subject: ReplaySubject(capacity: .max)))
    }

    private func replayConnected(capacity: Int) -> Subject {
        let subject = ReplaySubject(capacity: capacity)
        _ = subject.subscribe(to: self)
        return subject
    }
}
