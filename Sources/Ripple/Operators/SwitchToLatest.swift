import Synchronization

/// For a signal of signals: subscribes each inner signal as it arrives and
/// disposes the previous one, passing on only the latest inner's events.
/// Completes once the outer signal and the latest inner have completed (RAC:
/// outer completed + a never-ending inner = no completion). A nil value
/// stands for an empty inner; any other non-signal value fails (see
/// `Value.innerSignal`). Errors of the outer or the latest inner end
/// everything.
///
/// With a selector, each outer value is mapped to the signal to switch to
/// (RAC's `+if:then:else:` and `+switch:cases:default:` are map +
/// switchToLatest; SwitchCases.swift).
public final class SwitchToLatestSignal: UnaryOperatorSignal {
    /// The signal to switch to for a value (borrowed); nil: an empty inner.
    public typealias Selector = (borrowing Value) -> Signal?

    let select: Selector?

    public init(_ source: Signal, select: Selector? = nil) {
        self.select = select
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink, subscribing: true)
        let state = SwitchState(relay)
        relay.addResource(state.current)
        relay.subscribeUpstream(source, SwitchOuterSink(state, select), held: true)
        return relay
    }
}

final class SwitchState {
    static let outerDone: UInt64 = 1
    static let latestDone: UInt64 = 2

    let relay: Subscriber
    /// The latest inner's subscription (weakly).
    let current = SerialDisposable()
    /// generation << 2 | latestDone | outerDone. The generation names the
    /// latest inner; older inners find it changed and keep quiet.
    let word = Atomic<UInt64>(SwitchState.latestDone)

    init(_ relay: Subscriber) { self.relay = relay }

    func isLatest(_ gen: UInt64) -> Bool { word.load(ordering: .acquiring) >> 2 == gen }

    /// Sets `flag` (for inner `gen`, or for the outer when gen is nil) and
    /// completes when both sides are done.
    func markDone(_ flag: UInt64, gen: UInt64?) {
        var w = word.load(ordering: .acquiring)
        while true {
            if let gen, w >> 2 != gen { return }  // a stale inner
            let (ok, cur) = word.compareExchange(expected: w, desired: w | flag, ordering: .acquiringAndReleasing)
            if ok { w |= flag; break }
            w = cur
        }
        if w & (SwitchState.outerDone | SwitchState.latestDone) == SwitchState.outerDone | SwitchState.latestDone {
            relay.sendCompleted()
        }
    }

    /// Starts a new generation; the previous inner is no longer the latest.
    func nextGeneration(emptyInner: Bool) -> UInt64 {
        var w = word.load(ordering: .acquiring)
        while true {
            let gen = (w >> 2) &+ 1
            let new = gen << 2 | (w & SwitchState.outerDone) | (emptyInner ? SwitchState.latestDone : 0)
            let (ok, cur) = word.compareExchange(expected: w, desired: new, ordering: .acquiringAndReleasing)
            if ok { return gen }
            w = cur
        }
    }
}

/// The outer signal's end of the relay: each value switches to a new inner.
final class SwitchOuterSink: RelaySink {
    let state: SwitchState
    let select: SwitchToLatestSignal.Selector?
    init(_ state: SwitchState, _ select: SwitchToLatestSignal.Selector?) {
        self.state = state
        self.select = select
        super.init(state.relay)
    }

    override func onNext(_ value: borrowing Value) {
        if relay.isDisposed { return }
        let signal: Signal?
        if let select { signal = select(value) } else { signal = value.innerSignal("rpl_signal_switch_to_latest") }
        let gen = state.nextGeneration(emptyInner: signal == nil)
        state.current.swap(nil)?.dispose()
        guard let signal else { return }
        relay.subscribeUpstream(signal, SwitchInnerSink(state, gen))
    }
    override func onCompleted() { state.markDone(SwitchState.outerDone, gen: nil) }
}

/// An inner signal's end of the relay: quiet once a newer inner came.
final class SwitchInnerSink: RelaySink {
    let state: SwitchState
    let gen: UInt64
    init(_ state: SwitchState, _ gen: UInt64) {
        self.state = state
        self.gen = gen
        super.init(state.relay)
    }
    /// Runs inside the outer value's delivery, before any older generation
    /// could be installed: the slot was emptied just before.
    override func attach(_ subscriber: Subscriber) {
        if state.isLatest(gen) { relay.hold(subscriber, in: state.current)?.dispose() }
    }
    override func onNext(_ value: borrowing Value) {
        if state.isLatest(gen) { relay.sendNext(value.retained()) }
    }
    override func onError(_ error: RippleError) {
        if state.isLatest(gen) { forwardError(error) }
    }
    override func onCompleted() { state.markDone(SwitchState.latestDone, gen: gen) }
}

extension Signal {
    /// Follows only the latest inner signal of a signal of signal values.
    public func switchToLatest() -> Signal { SwitchToLatestSignal(self) }
}
