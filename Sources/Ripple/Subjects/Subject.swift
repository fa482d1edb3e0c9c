// Subjects: signals that are also senders (rules 7-11). A
// subject is a front for its hub (SubjectHub.swift), which owns delivery to
// every subscriber.

/// A plain (publish) subject: a subscriber gets what is sent after it
/// subscribed, and a late subscriber gets the terminal event at once.
public class Subject: Signal, @unchecked Sendable {
    /// The hub, and the subscribe-only side operators keep (`asSource`). One
    /// stored tuple: freed as one value, without the retain/release pair of
    /// the subject that freeing two fields of a subclass in turn costs. Read
    /// `parts.hub` as it is: a getter returning it retains it on some paths.
    let parts: (hub: SubjectHub, source: SubjectSource)
    /// The subscribe-only side operators keep (`asSource`).
    public final var source: SubjectSource { parts.source }

    public convenience override init() { self.init(hub: SubjectHub(replay: nil)) }

    init(hub: SubjectHub) {
        parts = (hub, SubjectSource(hub))
        super.init(kind: .subject)
    }

    public final override var subscribeOnlySide: Signal? { parts.source }

    // The hub borrowed, as `parts` keeps it until after the body: no
    // retain/release pair around the call.
    deinit { Unmanaged.passUnretained(parts.hub)._withUnsafeGuaranteedRef { $0.post(.close) } }

    /// Sends a value to every current subscriber; consumes `value`. Ignored
    /// after the terminal event.
    @inline(__always)
    public final func sendNext(_ value: Value) { parts.hub.sendNext(value) }
    public final func sendError(_ error: RippleError) { parts.hub.send(.error(error)) }
    public final func sendCompleted() { parts.hub.send(.completed) }

    /// Sends any event; consumes it.
    public final func send(_ event: Event) { parts.hub.send(Message(event)) }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber { parts.source.subscribe(sink) }

    /// Joins `subscriber`, made with `Subscriber(observing: self, ...)` and
    /// its own chain end (the C observer), straight to the subject; it is
    /// the consumer's handle too, not a `Subscription` around it. It is
    /// never a producer's subscriber (its kind is a disposable's and only
    /// the hub delivers to it, docs/behaviour.md#lifetime-handle-kind), and
    /// with no operator in between it holds no upstream that letting go
    /// would turn weak (docs/behaviour.md#lifetime-handle): releasing the
    /// handle is dropping a reference, and the registry keeps it while the
    /// subject can send (docs/behaviour.md#lifetime-subject). One object per
    /// subscription.
    public final func directSubscription(_ subscriber: __shared Subscriber) {
        parts.source.join(subscriber, counted: true)
    }

    /// Subscribes this subject to `source`, as its subscriber, and returns
    /// that subscription. The first terminal event from any source terminates
    /// the subject and disposes its other source subscriptions (RAC). The
    /// subscription is held by the subject (and put into `holder`) before the
    /// source's subscribe callback runs (rule 3a).
    public final func subscribe(to source: Signal, holder: SerialDisposable? = nil) -> Subscriber {
        source.subscribe(SubjectFeedSink(self, holder))
    }

    /// The current number of subscribers (a snapshot).
    public final var subscriberCount: Int { parts.hub.subscriberCount }

    /// True once the subject has sent its terminal event.
    public final var isTerminated: Bool { parts.hub.isTerminated }
}

/// `rpl_subject_send_next` once its checks have passed: sends `value` (the
/// two words of an `rpl_value`, consumed) into the subject at `subject`,
/// borrowed without touching its reference count (the caller's reference
/// keeps it alive; a subject referred to weakly has a side table, which
/// makes every retain and release slow). A C function taking the entry
/// point's own arguments, so the entry point reaches it with a jump rather
/// than a call from a frame of its own. Not exported (ripple.map).
@_cdecl("ripple_subject_send_next")
public func subjectSendNext(_ subject: UnsafeRawPointer, _ head: UInt64, _ bits: UInt64) -> Int32 {
    let value = unsafeBitCast((head, bits), to: Value.self)
    // A local function, so that the whole send inlines here.
    @inline(__always) func send(_ s: Subject) { s.sendNext(value) }
    Unmanaged<Subject>.fromOpaque(subject)._withUnsafeGuaranteedRef(send)
    return 0
}

/// A subject as something to subscribe to, without the subject: it keeps the
/// hub (the subscribers and the replay buffer) but not the subject, so
/// operators that keep it to subscribe again later (repeat, retry, concat,
/// catch_to, ...) form no cycle with the subscriptions the subject holds.
/// Once nobody can send into the subject any more (its last reference, all
/// of them senders, is gone), it is freed and its subscriptions end (rule
/// 6a); a later subscriber gets the terminal event, if there was one, or
/// ends at once without an event.
public final class SubjectSource: Signal, @unchecked Sendable {
    let hub: SubjectHub
    init(_ hub: SubjectHub) {
        self.hub = hub
        super.init()
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber { subscribe(sink, counted: true) }

    /// `counted` false: a subscription through an autoconnect side, which
    /// its connection core counts itself (`Subscriber.hubUncounted`).
    func subscribe(_ sink: consuming Sink, counted: Bool) -> Subscriber {
        let x = Subscriber.make(sink, hub: hub)
        join(x, counted: counted)
        return x
    }

    /// Joins `x`, a new subscriber of this hub.
    @inline(__always)
    func join(_ x: Subscriber, counted: Bool) {
        x.hubUncounted = !counted
        if hub.joining != nil { hub.joining.unsafelyUnwrapped(x) }
        hub.postMembership(x, joining: true)  // behind another thread's delivery: joins when it lets go
    }
}

/// Forwards a source's events into a subject (the subject as a subscriber).
final class SubjectFeedSink: Sink {
    let subject: Subject
    /// Only until `attach`: the holder holds the subscription, which holds
    /// this sink, so keeping it would be a cycle (rule 6a).
    @exclusivity(unchecked) var holder: SerialDisposable?
    init(_ subject: Subject, _ holder: SerialDisposable?) {
        self.subject = subject
        self.holder = holder
    }
    override func attach(_ subscriber: Subscriber) {
        subject.parts.hub.addSource(subscriber)
        // The connection consumes the source subscription: it holds it
        // until it disconnects or lets go (docs/behaviour.md#lifetime-multicast).
        holder?.swap(UpstreamHold(subscriber, strong: true))
        holder = nil
    }
    override func onNext(_ value: borrowing Value) { subject.sendNext(value.retained()) }
    override func onError(_ error: RippleError) { subject.sendError(error) }
    override func onCompleted() { subject.sendCompleted() }
}
