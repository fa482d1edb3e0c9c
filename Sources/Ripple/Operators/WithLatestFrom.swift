/// with_latest_from: a tuple (value, latest value of `other`) for each value
/// of the source, once `other` has sent (earlier source values are dropped).
/// `other` is subscribed first (rule 27). The source's
/// completion completes it; `other`'s completion does not (its latest value
/// stays in use); an error of either ends it (RxSwift's withLatestFrom).
final class WithLatestFromCore: LatestValueCore {
    static let other = 0, source = 1

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if index == WithLatestFromCore.other { return keep(value) }
        guard has else { return }
        let tuple = Value.tuple([value.retained(), latest.retained()])
        downstream.onNext(tuple)
        tuple.release()
    }

    override func onInputCompleted(_ index: Int) {
        if index == WithLatestFromCore.source { relay.sendCompleted() }
    }
}

extension Signal {
    /// Tuples (value, latest of `other`), RxSwift's withLatestFrom.
    public func withLatest(from other: Signal) -> Signal {
        SecondSignalOperator<WithLatestFromCore>(first: other, second: self)
    }
}
