import Synchronization

/// `retry(n)`: on error, resubscribes the source, at most `n` times
/// (`UInt.max`: without limit); then forwards the error. `repeat(n)`: on
/// completion, resubscribes, for `n` subscriptions in all (`UInt.max`:
/// forever); `repeat(0)` completes at once. Values of every attempt pass on.
///
/// Resubscription is a loop, not a recursion: a source that ends
/// synchronously inside `subscribe` only asks the loop already running below
/// it for one more turn, so the stack never grows.
public final class RepeatSignal: UnaryOperatorSignal {
    public enum Mode: Sendable { case retry, `repeat` }
    let limit: UInt
    let mode: Mode

    public init(_ source: Signal, _ mode: Mode, limit: UInt) {
        self.mode = mode
        self.limit = limit
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink)
        if mode == .repeat && limit == 0 {
            relay.sendCompleted()
            return relay
        }
        let state = RepeatState(relay, source, mode, limit)
        relay.addResource(state.current)
        state.resubscribe()
        return relay
    }
}

final class RepeatState {
    let relay: Subscriber
    let source: Signal
    let mode: RepeatSignal.Mode
    let limit: UInt
    /// Retries made (retry) or attempts completed (repeat). Only touched by the
    /// attempt that has just ended, before the next one starts.
    @exclusivity(unchecked) var count: UInt = 0
    /// Pending subscription requests; whoever takes it from 0 runs the loop.
    let wip = Atomic<Int>(0)
    /// The running attempt (weakly).
    let current = SerialDisposable()

    init(_ relay: Subscriber, _ source: Signal, _ mode: RepeatSignal.Mode, _ limit: UInt) {
        self.relay = relay
        self.source = source.asSource
        self.mode = mode
        self.limit = limit
    }

    func resubscribe() {
        if wip.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue != 0 { return }
        repeat {
            if relay.isDisposed { return }
            relay.subscribeUpstream(source, RepeatAttemptSink(self))
        } while wip.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue != 0
    }

    func attemptFailed(_ error: RippleError) {
        if mode == .retry && (limit == .max || count < limit) {
            count &+= 1
            resubscribe()
        } else {
            relay.sendError(error)
        }
    }

    func attemptCompleted() {
        if mode == .repeat {
            count &+= 1
            if limit == .max || count < limit {
                resubscribe()
                return
            }
        }
        relay.sendCompleted()
    }
}

/// One attempt's end of the relay: values pass on; its terminal event asks
/// the state for the next attempt.
final class RepeatAttemptSink: RelaySink {
    let state: RepeatState
    init(_ state: RepeatState) {
        self.state = state
        super.init(state.relay)
    }
    /// The previous attempt has ended: its token is simply dropped.
    override func attach(_ subscriber: Subscriber) { relay.hold(subscriber, in: state.current) }
    override func onError(_ error: RippleError) { state.attemptFailed(error) }
    override func onCompleted() { state.attemptCompleted() }
}

extension Signal {
    /// Resubscribes on error, at most `count` times (`UInt.max`: without limit).
    public func retry(_ count: UInt = .max) -> Signal { RepeatSignal(self, .retry, limit: count) }

    /// Subscribes `count` times in all, one after another (`UInt.max`: forever).
    public func `repeat`(_ count: UInt = .max) -> Signal { RepeatSignal(self, .repeat, limit: count) }
}
