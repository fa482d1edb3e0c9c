// share (RxSwift's share(replay:scope: .whileConnected)): subscribers share
// one subscription of the source, a connection, made when the first one
// subscribes and disposed when the last one leaves. Each connection has a
// fresh subject: a plain one (replay 0) or a replay subject keeping the
// last `replay` values, so a subscriber joining a live connection first
// gets those. When the source terminates, the connection is over before its
// subscribers hear of it, so a subscriber that subscribes again (also from
// its terminal callback, semantics 27) gets a fresh connection and the
// source is subscribed again.
//
// Ownership (rule 6a): the signal holds its current connection; each
// subscriber's leave holds its connection; a connection holds its subject
// and its source subscription only weakly, so once the source lets go of
// that subscription (nothing can send any more) it ends, closing the
// subject, whose subscribers end too.

public final class ShareSignal: UnaryOperatorSignal, @unchecked Sendable {
    /// 0: a plain subject; Int.max: unlimited.
    let replay: Int
    /// Guards `current` and every connection's state.
    let lock = Lock()
    @exclusivity(unchecked) var current: ShareConnection?

    public init(_ source: Signal, replay: Int) {
        self.replay = replay
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        lock.lock()
        let connection: ShareConnection
        let first: Bool
        if let c = current {
            connection = c
            first = false
        } else {
            connection = ShareConnection(self, replay == 0 ? Subject() : ReplaySubject(capacity: replay))
            current = connection
            first = true
        }
        connection.counts.members += 1
        connection.counts.held += 1
        lock.unlock()
        // Join first, so nothing sent while connecting is missed.
        let x = connection.subject.subscribe(sink)
        x.addResource(Membership.counted(connection))  // leaves at once if x has ended
        if first { x.subscribeUpstream(source, ShareFeedSink(connection)) }
        return x
    }
}

/// One connection: its subject, its members and its source subscription
/// (Membership.swift). All state under the share signal's lock.
final class ShareConnection: SharedConnection, @unchecked Sendable {
    let subject: Subject
    let lock: Lock
    /// To clear the signal's `current` when this connection ends.
    weak var share: ShareSignal?
    @exclusivity(unchecked) var counts = MemberCounts()
    /// The source subscription's hold, once it exists.
    @exclusivity(unchecked) var connection: Disposable?

    init(_ share: ShareSignal, _ subject: Subject) {
        self.subject = subject
        self.lock = share.lock
        self.share = share
    }

    /// Under `lock`: no new subscriber joins this connection any more.
    private func retire() {
        if let s = share, s.current === self { s.current = nil }
    }

    /// The last subscriber left: a later one gets a fresh connection.
    func disconnecting() { retire() }

    /// The source subscription exists (before the source's subscribe
    /// callback runs, rule 3a): held strongly while a member holds its handle.
    func held(_ subscription: Subscriber) {
        let f = UpstreamHold(subscription, strong: true)
        adopt(f).apply(to: f)
    }

    /// The source terminated or let go of the subscription.
    func sourceEnded() { lock.withLock { retire() } }
}

/// Feeds the source's events into a connection's subject.
final class ShareFeedSink: Sink {
    let connection: ShareConnection
    init(_ connection: ShareConnection) { self.connection = connection }

    override func attach(_ subscriber: Subscriber) {
        connection.subject.parts.hub.addSource(subscriber)
        connection.held(subscriber)
    }
    override func onNext(_ value: borrowing Value) { connection.subject.sendNext(value.retained()) }
    override func onError(_ error: RippleError) {
        connection.sourceEnded()
        connection.subject.sendError(error)
    }
    override func onCompleted() {
        connection.sourceEnded()
        connection.subject.sendCompleted()
    }
    /// The subscription ended. Without a terminal event (disconnected, or
    /// the source let go of it), nothing can send into the subject any
    /// more: close it, ending whatever subscribers it still has (rule 6a).
    override func finish() {
        connection.sourceEnded()
        connection.subject.parts.hub.post(.close)
    }
}

extension Signal {
    /// Shares one subscription among the current subscribers, replaying the
    /// last `replay` values of the connection to a late one (0: none).
    public func share(replay: Int) -> Signal { ShareSignal(self, replay: replay) }
}
