/// Every input's values, in arrival order; completes after all inputs have
/// completed (at once when there are none); the first error ends everything.
/// Inputs are subscribed in order, and those after an input that failed
/// synchronously are not subscribed (RAC).
public final class MergeSignal: MultiInputSignal {
    override func makeCore(_ sink: Sink) -> InputCore { MergeCore(sink, remaining: sources.count) }
}

final class MergeCore: InputCore {
    var remaining: Int
    init(_ downstream: Sink, remaining: Int) {
        self.remaining = remaining
        super.init(downstream)
    }
    override func onInput(_ index: Int, _ value: borrowing Value) { downstream.onNext(value) }
    override func onInputCompleted(_ index: Int) {
        remaining -= 1
        if remaining == 0 { relay.sendCompleted() }
    }
}

extension Signal {
    public static func merge(_ signals: [Signal]) -> Signal { MergeSignal(signals) }
}
