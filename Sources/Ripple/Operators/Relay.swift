import Synchronization

// Plumbing shared by the multi-input operators (merge, zip, bind, concat, ...).
//
// Such an operator makes a relay: a `Subscriber` whose sink chain is the
// downstream. Inputs are subscribed with small sinks that send into the relay,
// which serializes what several inputs deliver concurrently, so downstream
// callbacks never overlap. Ownership (semantics.md rule 6a):
// - an input's sink holds the relay strongly: a source that can still send
//   keeps the subscription alive, even after the user released its handle;
// - the relay holds its input subscriptions weakly (`WeakSubscription`), only
//   to dispose them. So nothing forms a cycle: once every source that could
//   reach the relay is freed, the relay is freed and its release runs.
// An input's sink registers its upstream subscription in `attach`, which runs
// before the input's first event: a relay that ends while an input is still
// inside `subscribe` (a synchronous endless source, a downstream take) can
// already dispose that input (semantics.md rule 3).

/// Disposes an upstream subscription without keeping it alive.
final class WeakSubscription: Disposable {
    weak var target: Subscriber?
    init(_ target: Subscriber) {
        self.target = target
        super.init()
    }
    override func dispose() { target?.dispose() }
    override var isDisposed: Bool { target?.isDisposed ?? true }
}

extension Subscriber {
    /// Makes `upstream` end with this subscription. Returns the token that
    /// holds it, or nil when it has already ended (nothing to hold).
    @discardableResult
    func holdUpstream(_ upstream: Subscriber) -> WeakSubscription? {
        if upstream.isDisposed { return nil }
        let token = WeakSubscription(upstream)
        addResource(token)  // disposes it at once if we have ended
        return token
    }
}

/// Forwards every event of one input into a relay.
final class RelaySink: Sink {
    let relay: Subscriber
    init(_ relay: Subscriber) { self.relay = relay }
    override func attach(_ subscriber: Subscriber) { relay.holdUpstream(subscriber) }
    override func onNext(_ value: borrowing Value) { relay.sendNext(value.retained()) }
    override func onError(_ error: RippleError) { relay.sendError(error) }
    override func onCompleted() { relay.sendCompleted() }
}

// MARK: Tagged relays
//
// Operators whose state depends on which input sent what (zip, combine_latest,
// merge's completion count) keep that state in a sink at the head of the
// relay, where delivery is already serialized: no lock, and outputs leave in
// the order the state changed. An input tags what it sends: a value carries
// the input's index in the `reserved` field of `Value` (always zero outside
// the runtime), and a completion is a private marker value. Neither ever
// reaches user code.

enum Tag {
    /// The raw type of "input `bits` completed": not a valid `ValueType`.
    static let completedType: UInt32 = 0x7250_C0DE

    @inline(__always)
    static func value(_ v: borrowing Value, input: Int) -> Value {
        var x = v.retained()
        x.reserved = UInt32(truncatingIfNeeded: input)
        return x
    }

    @inline(__always)
    static func completed(input: Int) -> Value { Value(rawType: completedType, bits: UInt64(input)) }
}

/// Sends one input's events, tagged, into a relay whose head is a `TaggedCore`.
final class TaggedInputSink: Sink {
    let relay: Subscriber
    let index: Int
    init(_ relay: Subscriber, _ index: Int) {
        self.relay = relay
        self.index = index
    }
    override func attach(_ subscriber: Subscriber) { relay.holdUpstream(subscriber) }
    override func onNext(_ value: borrowing Value) { relay.sendNext(Tag.value(value, input: index)) }
    override func onError(_ error: RippleError) { relay.sendError(error) }
    override func onCompleted() { relay.sendNext(Tag.completed(input: index)) }
}

/// The head of a tagged relay: decodes tags and calls `input(_:value:)` /
/// `inputCompleted(_:)`, one at a time. Subclasses forward to `downstream`
/// and end the relay with `relay.sendCompleted()` (nested, which is safe).
class TaggedCore: Sink {
    let downstream: Sink
    /// The relay owns this sink, so it outlives every call.
    unowned(unsafe) var relay: Subscriber!

    init(_ downstream: Sink) { self.downstream = downstream }

    final override func attach(_ subscriber: Subscriber) {
        relay = subscriber
        downstream.attach(subscriber)
    }

    final override func onNext(_ value: borrowing Value) {
        if value.rawType == Tag.completedType {
            inputCompleted(Int(value.bits))
            return
        }
        let index = Int(value.reserved)
        var v = copy value
        v.reserved = 0
        input(index, value: v)
    }
    final override func onError(_ error: RippleError) { downstream.onError(error) }
    final override func onCompleted() { downstream.onCompleted() }
    override func finish() { downstream.finish() }

    /// A value from input `index`, borrowed (retain it to keep it).
    func input(_ index: Int, value: borrowing Value) {}
    func inputCompleted(_ index: Int) {}

    /// Subscribes `sources` in order into `relay`, stopping as soon as the
    /// relay has ended (an input failed synchronously; RAC's merge rule).
    static func subscribeInputs(_ sources: [Signal], into relay: Subscriber) {
        for (i, s) in sources.enumerated() {
            if relay.isDisposed { return }
            _ = s.subscribe(TaggedInputSink(relay, i))
        }
    }
}
