/// On every value of `sampler`, the source's latest value, if it has sent
/// one (the same value again on each tick). Ends when either input ends:
/// its completion completes, its error fails (RAC's sample:). The source is
/// subscribed first.
public final class SampleSignal: SecondSignalOperator {
    public init(_ source: Signal, sampler: Signal) { super.init(first: source, second: sampler) }
    override func makeCore(_ sink: Sink) -> InputCore { SampleCore(sink) }
}

final class SampleCore: PairCore {
    static let source = 0, sampler = 1
    /// Owned; meaningful once the source has sent (`has`).
    var latest: Value = .nil
    var has = false

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if index == SampleCore.source {
            let old = latest
            latest = value.retained()
            has = true
            old.release()
        } else if has {
            let v = latest.retained()
            downstream.onNext(v)
            v.release()
        }
    }

    override func onInputCompleted(_ index: Int) { relay.sendCompleted() }

    override func finish() {
        latest.release()
        latest = .nil
        super.finish()
    }
}

extension Signal {
    /// The latest value on every tick of `sampler` (RAC's sample:).
    public func sample(_ sampler: Signal) -> Signal { SampleSignal(self, sampler: sampler) }
}
