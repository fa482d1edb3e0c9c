import Synchronization

// The operator skeleton. An operator is either fused or relayed:
// - fused (map, filter, scan, take, ...): its sink wraps the downstream sink
//   and is subscribed upstream in its place, so a chain on one source runs as
//   direct calls behind the one subscriber at the source;
// - relayed (multi-input, scheduled, higher-order): a relay subscriber whose
//   sink chain is the downstream, fed by `RelaySink`s, one per upstream
//   subscription, so events from several inputs or threads are serialized by
//   the relay's gate.
// Both hold their upstream subscription before it starts (rule 3a): a fused
// sink is attached to the source's subscriber when that subscriber is
// created, and a `RelaySink` makes the relay hold its upstream in `attach`,
// which runs before the upstream subscribe callback. So a dispose, a
// downstream take, a terminal event or a timeout reaches a producer that is
// still inside its subscribe callback.
//
// Release order (rule 5): every upstream subscribe call a subscription makes
// goes through `subscribeUpstream` (or `whileSubscribing`), which holds back
// the subscription's `finish` until the call has returned. So when an input
// ends the subscription from inside its subscribe callback, the disposable
// that callback then returns is disposed (by the input's own subscriber, as
// the call returns) before the observer's release runs, as for a plain
// signal; nested relays wait in turn. No cost per event.
//
// Ownership (docs/behaviour.md#lifetime-relay): a relay sink holds the relay
// strongly (a source that can still send keeps the subscription alive); the
// relay holds its upstream subscriptions through `UpstreamHold`s, strongly
// only while its consumer holds it. A relay whose inputs are gone therefore
// ends only when its handle goes too (or by dispose or a terminal event),
// after what they sent and what its timers still hold is delivered: nothing
// ends it early, whatever the operator.

/// The upstream end of a relayed operator.
open class RelaySink: Sink {
    public let relay: Subscriber
    /// The input index for multi-input operators (their events arrive as
    /// `Message.input`/`.inputCompleted`); -1 for plain forwarding.
    let index: Int
    public init(_ relay: Subscriber, input index: Int = -1) {
        self.relay = relay
        self.index = index
    }

    open override func attach(_ subscriber: Subscriber) { relay.hold(subscriber) }

    open override func onNext(_ value: borrowing Value) {
        if index < 0 { relay.sendNext(value.retained()) } else { relay.send(.input(index, value.retained())) }
    }
    open override func onError(_ error: RippleError) { forwardError(error) }
    open override func onCompleted() {
        if index < 0 { forwardCompleted() } else { relay.send(.inputCompleted(index)) }
    }

    /// Sends the relay an error.
    final func forwardError(_ error: RippleError) { relay.sendError(error) }
    /// Sends the relay its completion.
    final func forwardCompleted() { relay.sendCompleted() }
}

/// Base of merge, zip and combine_latest: every input is subscribed into one
/// relay whose head is the operator's core; no inputs complete at once.
public class MultiInputSignal: Signal {
    let sources: [Signal]
    public init(_ sources: [Signal]) {
        self.sources = sources.map(\.asSource)
        super.init()
    }

    /// The sink at the head of the relay, holding the operator's state.
    func makeCore(_ sink: Sink) -> InputCore { fatalError("makeCore must be overridden") }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(makeCore(sink), subscribing: true)
        if sources.isEmpty {
            relay.sendCompleted()
            relay.endSubscribeCall()
            return relay
        }
        // In order, stopping once the relay has ended (an input failed
        // synchronously; RAC's merge rule).
        relay.whileSubscribing(held: true) {
            for (i, s) in sources.enumerated() {
                if relay.isDisposed { break }
                _ = s.subscribe(RelaySink(relay, input: i))
            }
        }
        return relay
    }
}

/// The head of a multi-input relay: receives `onInput`/`onInputCompleted`
/// one at a time (the relay serializes them), so its state needs no lock and
/// outputs leave in the order the state changed. Subclasses forward to
/// `downstream` and end the relay with `relay.sendCompleted()` (queued
/// behind the current delivery, which is safe).
class InputCore: Sink {
    let downstream: Sink
    /// The relay owns this sink, so it outlives every call.
    unowned(unsafe) var relay: Subscriber!

    init(_ downstream: Sink) { self.downstream = downstream }

    final override func attach(_ subscriber: Subscriber) {
        relay = subscriber
        downstream.attach(subscriber)
    }

    final override func onNext(_ value: borrowing Value) { onInput(0, value) }
    final override func onError(_ error: RippleError) { downstream.onError(error) }
    final override func onCompleted() { downstream.onCompleted() }
    override func finish() { downstream.finish() }
}

extension Subscriber {
    /// Runs `body`, which makes upstream subscribe calls for this
    /// subscription: its release waits until they have returned. `held`:
    /// the hold is already open, since the subscriber was made with
    /// `subscribing: true` (the operator's own `subscribe`, before its first
    /// upstream call), and this call ends it.
    @inline(__always)
    public func whileSubscribing<T>(held: Bool = false, _ body: () -> T) -> T {
        if !held { beginSubscribeCall() }
        defer { endSubscribeCall() }
        return body()
    }

    /// Subscribes `sink` (consumed) to `upstream` for this subscription (see
    /// `whileSubscribing`).
    @discardableResult @inline(__always)
    public func subscribeUpstream(_ upstream: Signal, _ sink: consuming Sink, held: Bool = false) -> Subscriber {
        // Moved into the call (a closure could only lend it): no retain/release pair.
        var sink = Optional(sink)
        return whileSubscribing(held: held) { upstream.subscribe(sink.take().unsafelyUnwrapped) }
    }
}
