/// A tuple of every input's latest value, each time any input sends, once
/// every input has sent at least once. Completes when all inputs have
/// completed (RAC: an input completing without a value does not end it early);
/// at once when there are none. The first error ends everything.
public final class CombineLatestSignal: MultiInputSignal {
    override func makeCore(_ sink: Sink) -> InputCore { CombineLatestCore(sink, count: sources.count) }
}

final class CombineLatestCore: InputCore {
    /// Owned values; meaningful where `has` is true.
    var latest: [Value]
    var has: [Bool]
    var missing: Int
    var active: Int

    init(_ downstream: Sink, count: Int) {
        latest = Array(repeating: .nil, count: count)
        has = Array(repeating: false, count: count)
        missing = count
        active = count
        super.init(downstream)
    }

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if has[index] {
            latest[index].release()
        } else {
            has[index] = true
            missing -= 1
        }
        latest[index] = value.retained()
        guard missing == 0 else { return }
        // Built before calling out: a nested event may change `latest`.
        let tuple = Value.tuple(latest.map { $0.retained() })
        downstream.onNext(tuple)
        tuple.release()
    }

    override func onInputCompleted(_ index: Int) {
        active -= 1
        if active == 0 { relay.sendCompleted() }
    }

    override func finish() {
        for i in latest.indices where has[i] { latest[i].release() }
        has = []
        latest = []
        super.finish()
    }
}

extension Signal {
    public static func combineLatest(_ signals: [Signal]) -> Signal { CombineLatestSignal(signals) }
}
