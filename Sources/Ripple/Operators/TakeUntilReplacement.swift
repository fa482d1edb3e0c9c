/// take_until_replacement: the source's values until `replacement` sends
/// any event; from then on, only `replacement`'s events, the source
/// disposed. `replacement` is subscribed first, so one that sends at once
/// means the source is never subscribed. The source's completion is not
/// passed on (only the replacement ends the result); its error is, until the
/// replacement has fired (RAC's takeUntilReplacement:).
final class TakeUntilReplacementCore: PairCore {
    static let replacement = 0, source = 1
    var replaced = false

    /// The replacement's first event ends the source, before it is passed on.
    func replace() {
        if replaced { return }
        replaced = true
        endInput(TakeUntilReplacementCore.source)
    }

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if index == TakeUntilReplacementCore.replacement {
            replace()
        } else if replaced {
            return  // queued before the source was disposed
        }
        downstream.onNext(value)
    }

    override func onInputCompleted(_ index: Int) {
        guard index == TakeUntilReplacementCore.replacement else { return }
        replace()
        relay.sendCompleted()
    }
}

extension Signal {
    /// This signal until `replacement` sends anything, then `replacement`.
    public func takeUntil(replacement: Signal) -> Signal { SecondSignalOperator<TakeUntilReplacementCore>(first: replacement, second: self) }
}
