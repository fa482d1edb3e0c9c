/// sample: on every value of `sampler`, the source's latest value, if it has
/// sent one (the same value again on each tick). Ends when either input
/// ends: its completion completes, its error fails (RAC's sample:). The
/// source is subscribed first.
final class SampleCore: LatestValueCore {
    static let source = 0

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if index == SampleCore.source { return keep(value) }
        guard has else { return }
        let v = latest.retained()  // the latest may change during the call
        downstream.onNext(v)
        v.release()
    }

    override func onInputCompleted(_ index: Int) { relay.sendCompleted() }
}

extension Signal {
    /// The latest value on every tick of `sampler` (RAC's sample:).
    public func sample(_ sampler: Signal) -> Signal { SecondSignalOperator<SampleCore>(first: self, second: sampler) }
}
