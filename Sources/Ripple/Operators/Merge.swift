/// Every input's values, in arrival order; completes after all inputs have
/// completed (at once when there are none); the first error ends everything.
/// Inputs are subscribed in order, and those after an input that failed
/// synchronously are not subscribed (RAC).
public final class MergeSignal: MultiInputSignal {
    override func makeCore(_ sink: Sink) -> TaggedCore { MergeCore(sink, remaining: sources.count) }
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
