/// skip_until: the source's events once `trigger` has sent a value
/// (earlier values are dropped; the trigger is then disposed). The source is
/// subscribed first (RxSwift's skipUntil). A trigger that completes without a value leaves
/// every value dropped; a trigger error fails the result; a source that
/// completes before the trigger fired ends the subscription without a
/// completion (rule 27); a source error always passes.
final class SkipUntilCore: PairCore {
    static let source = 0, trigger = 1
    var open = false

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if index == SkipUntilCore.source {
            if open { downstream.onNext(value) }
        } else if !open {
            open = true
            endInput(SkipUntilCore.trigger)
        }
    }

    override func onInputCompleted(_ index: Int) {
        guard index == SkipUntilCore.source else { return }
        if open { relay.sendCompleted() } else { relay.dispose() }
    }
}

extension Signal {
    /// This signal's events once `trigger` has sent a value (RxSwift's skipUntil).
    public func skipUntil(_ trigger: Signal) -> Signal { SecondSignalOperator<SkipUntilCore>(first: self, second: trigger) }
}
