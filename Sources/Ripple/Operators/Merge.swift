/// Every input's values, in arrival order; completes after all inputs have
/// completed (at once when there are none); the first error ends everything.
/// Inputs are subscribed in order, and those after an input that failed
/// synchronously are not subscribed (RAC).
public final class MergeSignal: Signal {
    let sources: [Signal]
    public init(_ sources: [Signal]) {
        self.sources = sources
        super.init()
    }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        let relay = Subscriber(MergeCore(sink, remaining: sources.count))
        relay.start()
        if sources.isEmpty {
            relay.sendCompleted()
            return relay
        }
        TaggedCore.subscribeInputs(sources, into: relay)
        return relay
    }
}

final class MergeCore: TaggedCore {
    var remaining: Int
    init(_ downstream: Sink, remaining: Int) {
        self.remaining = remaining
        super.init(downstream)
    }
    override func input(_ index: Int, value: borrowing Value) { downstream.onNext(value) }
    override func inputCompleted(_ index: Int) {
        remaining -= 1
        if remaining == 0 { relay.sendCompleted() }
    }
}
