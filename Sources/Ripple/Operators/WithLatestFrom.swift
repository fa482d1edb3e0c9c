/// A tuple (value, latest value of `other`) for each value of the source,
/// once `other` has sent (earlier source values are dropped). `other` is
/// subscribed first (semantics.md rule 27). The source's completion
/// completes it; `other`'s completion does not (its latest value stays in
/// use); an error of either ends it (RxSwift's withLatestFrom).
public final class WithLatestFromSignal: SecondSignalOperator {
    public init(_ source: Signal, _ other: Signal) { super.init(first: other, second: source) }
    override func makeCore(_ sink: Sink) -> InputCore { WithLatestFromCore(sink) }
}

final class WithLatestFromCore: PairCore {
    static let other = 0, source = 1
    /// Owned; `.nil` until `other` has sent (`has`).
    var latest: Value = .nil
    var has = false

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if index == WithLatestFromCore.other {
            let old = latest
            latest = value.retained()
            has = true
            old.release()
            return
        }
        guard has else { return }
        let tuple = Value.tuple([value.retained(), latest.retained()])
        downstream.onNext(tuple)
        tuple.release()
    }

    override func onInputCompleted(_ index: Int) {
        if index == WithLatestFromCore.source { relay.sendCompleted() }
    }

    override func finish() {
        latest.release()
        latest = .nil
        super.finish()
    }
}

extension Signal {
    /// Tuples (value, latest of `other`), RxSwift's withLatestFrom.
    public func withLatest(from other: Signal) -> Signal { WithLatestFromSignal(self, other) }
}
