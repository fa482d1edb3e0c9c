import Synchronization

// Subjects: signals that are also senders (semantics.md rules 7-11).
//
// Subscribers live in an immutable list that is replaced on every change
// (copy on write), so sending reads it without a lock and no subject lock is
// held while a callback runs (rule 11). A list that has been replaced may
// still be read by a sender; it is kept on a "retired" list and freed once no
// sender is inside the subject (`inflight` is zero). A sender pays two atomic
// adds per send for this, whatever the number of subscribers.
//
// Each subscription is a `Subscriber`, which serializes delivery to it and
// handles re-entrancy and cross-thread sends (Subscriber.swift). Its removal
// from the subject's list is one of its resources, so it leaves the list when
// it terminates or is disposed. The removal holds the subject weakly: a
// subject and its subscribers form no cycle (rule 6a).
//
// Replay and behavior subjects (ReplaySubject below) must also fix one order
// for every subscriber and for the replay buffer. They do it by passing every
// event through an internal `hub` subscriber, which serializes them with the
// same deadlock- and starvation-free protocol as any subscriber.

/// A list of subscribers, each held +1. Immutable once published.
final class SubscriberList {
    let items: UnsafeMutableBufferPointer<Unmanaged<Subscriber>>

    /// `items` are taken as they are (each already +1).
    init(_ items: [Unmanaged<Subscriber>]) {
        self.items = .allocate(capacity: items.count)
        _ = self.items.initialize(from: items)
    }

    deinit {
        for s in items { s.release() }
        items.deallocate()
    }

    var count: Int { items.count }

    func contains(_ id: ObjectIdentifier) -> Bool {
        items.contains { ObjectIdentifier($0.takeUnretainedValue()) == id }
    }

    /// The items, each retained again, for a new list.
    func retainedItems() -> [Unmanaged<Subscriber>] { items.map { $0.retain() } }
}

/// A weak reference to a source subscription of a subject.
struct SubjectWeakDisposable {
    weak var disposable: Disposable?
}

/// The resource that removes a subscriber from its subject's list.
final class SubjectEntry: Disposable {
    weak var subject: Subject?
    let id: ObjectIdentifier
    private let disposed = Atomic<Bool>(false)

    init(_ subject: Subject, _ subscriber: Subscriber) {
        self.subject = subject
        id = ObjectIdentifier(subscriber)
        super.init()
    }

    override func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        subject?.remove(id)
    }
    override var isDisposed: Bool { disposed.load(ordering: .acquiring) }
}

/// Forwards a source's events into a subject (the subject as a subscriber).
final class SubjectFeedSink: Sink {
    let subject: Subject
    init(_ subject: Subject) { self.subject = subject }
    override func onNext(_ value: borrowing Value) { subject.sendNext(value.retained()) }
    override func onError(_ error: RippleError) { subject.sendError(error) }
    override func onCompleted() { subject.sendCompleted() }
}

/// A plain (publish) subject: a subscriber gets what is sent after it
/// subscribed, and a late subscriber gets the terminal event at once.
public class Subject: Signal, @unchecked Sendable {
    /// Guards the fields below and every change of the list; never held while
    /// user code runs.
    let lock = Lock()
    /// The current list as an `Unmanaged<SubscriberList>` (+1) bit pattern; 0
    /// when empty.
    let listBits = Atomic<UInt>(0)
    /// Senders reading a list right now.
    let inflight = Atomic<Int>(0)
    let hasRetired = Atomic<Bool>(false)
    @exclusivity(unchecked) var retired: [SubscriberList] = []
    /// The terminal event (error or completed), once sent (rule 7).
    @exclusivity(unchecked) var terminal: Event?
    let terminatedFlag = Atomic<Bool>(false)
    /// Subscriptions of this subject to sources, disposed when it terminates.
    @exclusivity(unchecked) var sources: [SubjectWeakDisposable] = []

    public override init() { super.init(kind: .subject) }

    deinit {
        let bits = listBits.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<SubscriberList>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    // MARK: Sending

    /// Sends a value to every current subscriber; consumes `value`. Ignored
    /// after the terminal event.
    public func sendNext(_ value: Value) {
        broadcast(value)
        value.release()
    }

    public func sendError(_ error: RippleError) { terminate(.error(error)) }
    public func sendCompleted() { terminate(.completed) }

    /// Sends any event; consumes it.
    public func send(_ event: Event) {
        switch event {
        case .next(let v): sendNext(v)
        case .error(let e): sendError(e)
        case .completed: sendCompleted()
        }
    }

    /// Delivers `value` to each subscriber of the current list.
    @inline(__always)
    final func broadcast(_ value: borrowing Value) {
        let v = copy value  // a plain 16-byte copy; the reference stays borrowed
        inflight.wrappingAdd(1, ordering: .sequentiallyConsistent)
        let bits = listBits.load(ordering: .sequentiallyConsistent)
        if bits != 0 {
            Unmanaged<SubscriberList>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
                ._withUnsafeGuaranteedRef { list in
                    let items = list.items
                    for i in 0..<items.count {
                        items[i]._withUnsafeGuaranteedRef { $0.sendNext(v.retained()) }
                    }
                }
        }
        leave()
    }

    @inline(__always)
    final func leave() {
        if inflight.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0
            && hasRetired.load(ordering: .relaxed) {
            reclaim()
        }
    }

    /// Records the terminal event, unsubscribes from sources, and delivers it
    /// to everyone subscribed.
    func terminate(_ event: Event) {
        lock.lock()
        if terminal != nil {
            lock.unlock()
            return
        }
        terminal = event
        terminatedFlag.store(true, ordering: .releasing)
        let old = takeList()
        let srcs = takeSources()
        lock.unlock()
        for s in srcs { s.disposable?.dispose() }
        if let old {
            for s in old.items { s._withUnsafeGuaranteedRef { $0.send(event) } }
            retire(old)
        }
    }

    // MARK: Subscribing

    public override func subscribe(_ sink: Sink) -> Subscriber {
        let x = Subscriber(sink)
        x.start()
        x.addResource(SubjectEntry(self, x))
        lock.lock()
        if let t = terminal {
            lock.unlock()
            x.send(t)
            return x
        }
        publish(adding: [x])
        lock.unlock()
        reclaim()
        return x
    }

    /// Subscribes this subject to `source`, as its subscriber, and returns
    /// that subscription. The first terminal event from any source terminates
    /// the subject and disposes its other source subscriptions (RAC).
    public func subscribe(to source: Signal) -> Subscriber {
        let s = source.subscribe(SubjectFeedSink(self))
        addSource(s)
        return s
    }

    func addSource(_ d: Disposable) {
        lock.lock()
        if terminal != nil {
            lock.unlock()
            d.dispose()
            return
        }
        sources.removeAll { $0.disposable == nil }
        sources.append(SubjectWeakDisposable(disposable: d))
        lock.unlock()
    }

    func takeSources() -> [SubjectWeakDisposable] {
        let s = sources
        sources = []
        return s
    }

    // MARK: The list

    /// The current number of subscribers.
    public var subscriberCount: Int {
        lock.withLock { currentList()?.count ?? 0 } + pendingCount
    }

    /// Subscribers registered but not yet in the list (replay subjects).
    var pendingCount: Int { 0 }

    /// True once the subject has sent its terminal event.
    public var isTerminated: Bool { terminatedFlag.load(ordering: .acquiring) }

    /// The current list, borrowed; call with the lock held.
    func currentList() -> SubscriberList? {
        let bits = listBits.load(ordering: .relaxed)
        guard bits != 0 else { return nil }
        return Unmanaged<SubscriberList>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// Takes the current list out (+1 for the caller, who must `retire` it);
    /// call with the lock held.
    func takeList() -> SubscriberList? {
        let bits = listBits.exchange(0, ordering: .sequentiallyConsistent)
        guard bits != 0 else { return nil }
        return Unmanaged<SubscriberList>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
    }

    /// Publishes a new list (nil: empty) and retires the old one; call with
    /// the lock held, and `reclaim()` after unlocking.
    func publish(_ list: SubscriberList?) {
        let bits = list.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0
        let old = listBits.exchange(bits, ordering: .sequentiallyConsistent)
        if old != 0 {
            retired.append(Unmanaged<SubscriberList>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue())
            hasRetired.store(true, ordering: .relaxed)
        }
    }

    /// Publishes the current list plus `subs`; call with the lock held.
    func publish(adding subs: [Subscriber]) {
        var items = currentList()?.retainedItems() ?? []
        for s in subs { items.append(Unmanaged.passRetained(s)) }
        publish(SubscriberList(items))
    }

    /// Removes a subscriber (its subscription ended).
    func remove(_ id: ObjectIdentifier) {
        lock.lock()
        removeLocked(id)
        lock.unlock()
        reclaim()
    }

    func removeLocked(_ id: ObjectIdentifier) {
        guard let list = currentList(), list.contains(id) else { return }
        var items: [Unmanaged<Subscriber>] = []
        items.reserveCapacity(list.count - 1)
        for s in list.items where ObjectIdentifier(s.takeUnretainedValue()) != id { items.append(s.retain()) }
        publish(items.isEmpty ? nil : SubscriberList(items))
    }

    /// Puts a list taken with `takeList` on the retired list.
    func retire(_ list: SubscriberList) {
        lock.lock()
        retired.append(list)
        hasRetired.store(true, ordering: .relaxed)
        lock.unlock()
        reclaim()
    }

    /// Frees retired lists if no sender can be reading them. Freeing a list
    /// may free subscribers, which may run user code: no lock is held.
    func reclaim() {
        lock.lock()
        if retired.isEmpty {
            lock.unlock()
            return
        }
        let taken = retired
        retired = []
        hasRetired.store(false, ordering: .relaxed)
        lock.unlock()
        // Every list in `taken` was unpublished before this load: a sender that
        // starts later reads a newer list.
        if inflight.load(ordering: .sequentiallyConsistent) == 0 { return }  // `taken` is freed here
        lock.lock()
        retired.append(contentsOf: taken)
        hasRetired.store(true, ordering: .relaxed)
        lock.unlock()
    }
}

// MARK: - Replay and behavior subjects

/// The last `capacity` values, oldest first. Each held +1.
struct ReplayBuffer {
    let capacity: Int
    var items: [Value] = []
    var start = 0

    init(capacity: Int) { self.capacity = capacity }

    /// Appends `v` (consumed); returns the value it pushed out, if any.
    mutating func append(_ v: Value) -> Value? {
        if items.count < capacity {
            items.append(v)
            return nil
        }
        let old = items[start]
        items[start] = v
        start += 1
        if start == capacity { start = 0 }
        return old
    }

    /// The values in order, each retained again.
    func copyRetained() -> [Value] {
        var out: [Value] = []
        out.reserveCapacity(items.count)
        for i in 0..<items.count { out.append(items[(start + i) % items.count].retained()) }
        return out
    }

    /// The newest value, borrowed.
    var last: Value? { items.isEmpty ? nil : items[(start + items.count - 1) % items.count] }

    mutating func removeAll() -> [Value] {
        let v = items
        items = []
        start = 0
        return v
    }
}

/// Runs the replay subject's side of each event, in one order for all.
///
/// The subject owns the hub, which owns this sink: it refers to the subject
/// without a reference count (the subject has a weak side table, which would
/// make each retain slow), and only the subject drives the hub.
final class HubSink: Sink {
    let subject: Unmanaged<ReplaySubject>
    init(_ subject: ReplaySubject) { self.subject = Unmanaged.passUnretained(subject) }
    override func onNext(_ value: borrowing Value) {
        let v = copy value
        subject._withUnsafeGuaranteedRef { $0.hubNext(v) }
    }
    override func onError(_ error: RippleError) { subject._withUnsafeGuaranteedRef { $0.hubTerminal(.error(error)) } }
    override func onCompleted() { subject._withUnsafeGuaranteedRef { $0.hubTerminal(.completed) } }
}

/// A subscriber being replayed to: live events that reach it meanwhile
/// (re-entrant sends) wait here until its replay is done.
final class Replaying {
    let subscriber: Subscriber
    var pending: [Event] = []
    init(_ s: Subscriber) { subscriber = s }
}

/// A replay subject (the last `capacity` values, then the terminal event,
/// then live events) or a behavior subject (the current value, then live
/// events; after termination only the terminal event).
///
/// Every event, and every new subscriber's replay, passes through `hub`, a
/// subscriber that serializes them: the buffer's order is the order in which
/// the hub delivers live events, a new subscriber joins the list at one point
/// of that order, and gets exactly the buffer as it is at that point. A send
/// made from inside a callback while another thread holds the hub is queued
/// and delivered by that thread (the protocol of Subscriber.swift), so no
/// sender ever waits for a subscriber's replay while holding a callback.
public final class ReplaySubject: Subject, @unchecked Sendable {
    /// Int.max: unlimited.
    public let capacity: Int
    public let isBehavior: Bool
    /// Written only by the hub (so only after a lock-free handoff); read by
    /// others only after the terminal event, under the lock.
    @exclusivity(unchecked) var buffer: ReplayBuffer
    /// Behavior subjects: the current value, under `lock` (read by `value`).
    @exclusivity(unchecked) var current: Value = .nil
    /// Subscribers waiting for the hub to replay to them, under `lock`.
    @exclusivity(unchecked) var joiners: [Subscriber] = []
    /// Hub-only state.
    @exclusivity(unchecked) var replaying: [Replaying] = []
    /// The hub (+1 by hand, so calling it costs no retain/release).
    @exclusivity(unchecked) var hubRef: Unmanaged<Subscriber>? = nil
    @inline(__always) var hub: Unmanaged<Subscriber> { hubRef.unsafelyUnwrapped }

    /// The hub's signal to process joiners (never leaves the hub): a type no
    /// constructor makes, and a marker payload.
    static let joinTag: UInt32 = 0xFFFF_0001
    static let joinBits: UInt64 = 0x4A4F_494E_4A4F_494E

    /// A replay subject; `capacity` must be at least 1 (Int.max: unlimited).
    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        isBehavior = false
        buffer = ReplayBuffer(capacity: capacity)
        super.init()
        startHub()
    }

    /// A behavior subject starting with `initial` (consumed).
    public init(behavior initial: Value) {
        capacity = 1
        isBehavior = true
        buffer = ReplayBuffer(capacity: 1)
        _ = buffer.append(initial.retained())
        current = initial
        super.init()
        startHub()
    }

    private func startHub() {
        let h = Subscriber(HubSink(self))
        hubRef = Unmanaged.passRetained(h)
        h.start()
    }

    deinit {
        hubRef?.release()
        for v in buffer.removeAll() { v.release() }
        current.release()
    }

    public override func sendNext(_ value: Value) { hub._withUnsafeGuaranteedRef { $0.sendNext(value) } }
    public override func sendError(_ error: RippleError) { hub._withUnsafeGuaranteedRef { $0.sendError(error) } }
    public override func sendCompleted() { hub._withUnsafeGuaranteedRef { $0.sendCompleted() } }

    /// A copy (+1) of a behavior subject's current value (the last value
    /// sent, or the initial one).
    public func value() -> Value { lock.withLock { current.retained() } }

    override var pendingCount: Int { lock.withLock { joiners.count } }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        let x = Subscriber(sink)
        x.start()
        x.addResource(SubjectEntry(self, x))
        lock.lock()
        if let t = terminal {
            // The buffer no longer changes: replay it from here.
            let items = isBehavior ? [] : buffer.copyRetained()
            lock.unlock()
            for v in items { x.sendNext(v) }
            x.send(t)
            return x
        }
        joiners.append(x)
        lock.unlock()
        hub._withUnsafeGuaranteedRef { $0.sendNext(Value(rawType: ReplaySubject.joinTag, bits: ReplaySubject.joinBits)) }
        return x
    }

    override func removeLocked(_ id: ObjectIdentifier) {
        joiners.removeAll { ObjectIdentifier($0) == id }
        super.removeLocked(id)
    }

    // MARK: The hub's side (one event at a time, in the hub's order)

    func hubNext(_ value: borrowing Value) {
        let (type, bits) = (value.rawType, value.bits)
        if type == ReplaySubject.joinTag && bits == ReplaySubject.joinBits {
            processJoiners()
            return
        }
        let evicted = buffer.append(value.retained())
        if isBehavior {
            lock.lock()
            let old = current
            current = value.retained()
            lock.unlock()
            old.release()
        }
        evicted?.release()
        if replaying.isEmpty {
            broadcast(value)
        } else {
            deliverAware(.next(value.retained()))
        }
    }

    func hubTerminal(_ event: Event) {
        lock.lock()
        if terminal != nil {
            lock.unlock()
            return
        }
        terminal = event
        terminatedFlag.store(true, ordering: .releasing)
        let js = joiners
        joiners = []
        let old = takeList()
        let srcs = takeSources()
        lock.unlock()
        for s in srcs { s.disposable?.dispose() }
        if let old {
            for s in old.items {
                s._withUnsafeGuaranteedRef { sub in
                    if let r = replaying.first(where: { $0.subscriber === sub }) {
                        r.pending.append(event)
                    } else {
                        sub.send(event)
                    }
                }
            }
            retire(old)
        }
        if !js.isEmpty {
            // They subscribed before the terminal event: replay, then it.
            let items = buffer.copyRetained()
            for j in js {
                for v in items { j.sendNext(v.retained()) }
                j.send(event)
            }
            for v in items { v.release() }
        }
    }

    /// Delivers `event` (consumed) to the list, queueing it for subscribers
    /// still being replayed to.
    func deliverAware(_ event: Event) {
        lock.lock()
        let list = currentList()  // a strong reference: safe without `inflight`
        lock.unlock()
        if let list {
            for s in list.items {
                s._withUnsafeGuaranteedRef { sub in
                    if let r = replaying.first(where: { $0.subscriber === sub }) {
                        r.pending.append(event.retained())
                    } else {
                        sub.send(event.retained())
                    }
                }
            }
        }
        event.release()
    }

    /// Replays the buffer to each new subscriber and makes it live, at this
    /// point of the hub's order.
    func processJoiners() {
        lock.lock()
        let js = joiners
        joiners = []
        if js.isEmpty {
            lock.unlock()
            return
        }
        publish(adding: js)
        lock.unlock()
        reclaim()
        let items = buffer.copyRetained()
        let states = js.map { Replaying($0) }
        replaying.append(contentsOf: states)
        for r in states {
            let x = r.subscriber
            for v in items {
                if x.isDisposed { break }
                x.sendNext(v.retained())
            }
            // Live events sent re-entrantly during the replay, in order.
            while !r.pending.isEmpty {
                let batch = r.pending
                r.pending = []
                for e in batch { x.send(e) }
            }
            replaying.removeAll { $0 === r }
        }
        for v in items { v.release() }
    }
}

extension Event {
    /// Adds a reference to a `.next` value and returns the same event.
    @inlinable
    public func retained() -> Event {
        if case .next(let v) = self { _ = v.retained() }
        return self
    }
}
