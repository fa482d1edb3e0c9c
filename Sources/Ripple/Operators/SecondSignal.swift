/// The operators on a signal and one second signal (with_latest_from,
/// sample, take_until_replacement, skip_until): a two-input relay
/// (`MultiInputSignal`) headed by a `Core`, whose inputs are subscribed in
/// the order the operator's peer uses, `first` then `second`. Each input
/// also keeps its subscription in a slot of the core, so the core can end
/// one input and go on with the other (`PairCore.endInput`). Subscription
/// stops early when the relay has ended, or when the core has already ended
/// the input about to be subscribed (a second signal that fired
/// synchronously).
final class SecondSignalOperator<Core: PairCore>: MultiInputSignal {
    init(first: Signal, second: Signal) { super.init([first, second]) }

    override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let core = Core(sink)
        let relay = Subscriber.make(core, subscribing: true)
        relay.whileSubscribing(held: true) {
            for (i, s) in sources.enumerated() {
                if relay.isDisposed { break }
                if core.inputs[i].isDisposed { continue }
                _ = s.subscribe(InputSlotSink(relay, input: i, slot: core.inputs[i]))
            }
        }
        return relay
    }
}

/// The head of a two-input relay; `inputs[i]` holds input i's subscription
/// (weakly), so ending one input disposes it, also before it has started
/// (the slot disposes what is put in later).
class PairCore: InputCore {
    let inputs = [SerialDisposable(), SerialDisposable()]

    required override init(_ downstream: Sink) { super.init(downstream) }

    /// Disposes input `index`'s subscription; its later events are dropped.
    final func endInput(_ index: Int) { inputs[index].dispose() }
}

/// The upstream end of one input of a `PairCore`: held by the relay (rule
/// 3a) and put in its slot at attach. An input the core has ended stays
/// quiet: an error it sends meanwhile (from another thread) is dropped.
final class InputSlotSink: RelaySink {
    let slot: SerialDisposable

    init(_ relay: Subscriber, input index: Int, slot: SerialDisposable) {
        self.slot = slot
        super.init(relay, input: index)
    }

    override func attach(_ subscriber: Subscriber) {
        if let token = relay.hold(subscriber) { slot.swap(token) }
    }

    override func onError(_ error: RippleError) {
        if !slot.isDisposed { relay.sendError(error) }
    }
}

/// A pair core that keeps the latest value of one input (with_latest_from's
/// other, sample's source).
class LatestValueCore: PairCore {
    /// Owned; `.nil` until a value came (`has`).
    final var latest: Value = .nil
    final var has = false

    final func keep(_ value: borrowing Value) {
        let old = latest
        latest = value.retained()
        has = true
        old.release()
    }

    override func finish() {
        latest.release()
        latest = .nil
        super.finish()
    }
}
