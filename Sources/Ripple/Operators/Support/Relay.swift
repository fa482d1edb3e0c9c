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
// Ownership (rule 6a): a relay sink holds the relay strongly (a source that
// can still send keeps the subscription alive); the relay holds its upstream
// subscriptions weakly (`Subscriber.hold`). Nothing forms a cycle.

/// The upstream end of a relayed operator.
open class RelaySink: Sink {
    public let relay: Subscriber
    /// The input index for multi-input operators (their events arrive as
    /// `Message.input`/`.inputCompleted`); -1 for plain forwarding.
    let index: Int
    /// Set once this sink has handed the relay a terminal event (or one the
    /// relay will get; throttle's firing timer). Written before the upstream
    /// subscription ends, read in `finish` (maybe on another thread): one
    /// store and one load per subscription, nothing per event.
    let forwardedTerminal = Atomic<Bool>(false)

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
        if index < 0 { forwardCompleted() } else {
            markTerminalForwarded()
            relay.send(.inputCompleted(index))
        }
    }

    /// Notes that the relay has (or will get) its terminal event from this
    /// sink; see `SoleRelaySink.finish`.
    final func markTerminalForwarded() { forwardedTerminal.store(true, ordering: .releasing) }
    /// Sends the relay an error (subclasses use this, not `relay.sendError`).
    final func forwardError(_ error: RippleError) {
        markTerminalForwarded()
        relay.sendError(error)
    }
    /// Sends the relay its completion (subclasses use this, not `relay.sendCompleted`).
    final func forwardCompleted() {
        markTerminalForwarded()
        relay.sendCompleted()
    }
}

/// A relay sink whose upstream is the relay's only source of events: when
/// the upstream subscription ends without a terminal event (its source was
/// freed), nothing can reach the relay any more, so it ends too (rule 6a).
///
/// Not by disposing it: what the upstream sent may not have been delivered
/// yet. When another delivery owns the relay's gate (a timer's, on the
/// scheduler's thread; or this thread's own, when the relay's observer ends
/// the source from inside its callback) the events are queued for that
/// owner, and the upstream subscription ends (and runs this `finish`) before
/// the owner lets go; a dispose would close the gate and drop them. So the
/// end is queued behind them (`endWhenDelivered`), and after a terminal
/// event nothing is needed: the relay ends by itself once it is delivered.
open class SoleRelaySink: RelaySink {
    open override func finish() {
        if !forwardedTerminal.load(ordering: .acquiring) { relay.endWhenDelivered() }
    }
}

/// Base of merge, zip and combine_latest: every input is subscribed into one
/// relay whose head is the operator's core; no inputs complete at once.
public class MultiInputSignal: Signal {
    let sources: [Signal]
    public init(_ sources: [Signal]) {
        self.sources = sources
        super.init()
    }

    /// The sink at the head of the relay, holding the operator's state.
    func makeCore(_ sink: Sink) -> InputCore { fatalError("makeCore must be overridden") }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        let relay = Subscriber(makeCore(sink))
        if sources.isEmpty {
            relay.sendCompleted()
            return relay
        }
        // In order, stopping once the relay has ended (an input failed
        // synchronously; RAC's merge rule).
        relay.whileSubscribing(first: true) {
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
    /// subscription: its release waits until they have returned. `first`:
    /// no other subscribe call for it can be running (the operator's own
    /// `subscribe`, before its first upstream call), so a plain store
    /// opens the hold instead of an atomic add.
    @inline(__always)
    public func whileSubscribing<T>(first: Bool = false, _ body: () -> T) -> T {
        if first { beginSubscribeBody() } else { beginSubscribeCall() }
        defer { endSubscribeCall() }
        return body()
    }

    /// Subscribes `sink` to `upstream` for this subscription (see
    /// `whileSubscribing`).
    @discardableResult @inline(__always)
    public func subscribeUpstream(_ upstream: Signal, _ sink: Sink, first: Bool = false) -> Subscriber {
        whileSubscribing(first: first) { upstream.subscribe(sink) }
    }
}
