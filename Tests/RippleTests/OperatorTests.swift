// The single-input operator core, driven from Swift (closures through the
// same C-callback path the C API uses).
import Testing
@testable import Ripple

/// Records what a subscription receives (ints, with -1000 - type for others).
private final class OpRecorder {
    var values: [Int64] = []
    var completed = 0
    var errors: [RippleError] = []
    var finished = 0

    func sink() -> Sink {
        ClosureSink(next: { [self] v in values.append(v.type == .int ? v.intValue : -1000 - Int64(v.rawType)) },
                    error: { [self] e in errors.append(e) },
                    completed: { [self] in completed += 1 },
                    finished: { [self] in finished += 1 })
    }
}

/// A source that sends `values`, then completes (or not), and counts
/// subscriptions and disposals; it keeps its last subscriber in `subscriber`.
private final class OpSource {
    var values: [Int64]
    let complete: Bool
    var subscriptions = 0
    var disposals = 0
    var subscriber: Subscriber?

    init(_ values: [Int64], complete: Bool = true) {
        self.values = values
        self.complete = complete
    }

    /// A new signal over this source (not stored: no cycle).
    var signal: Signal {
        CreateSignal { [self] s in
        subscriptions += 1
        subscriber = s
        for v in values where !s.isDisposed { s.sendNext(.int(v)) }
        if complete { s.sendCompleted() }
        return ActionDisposable { [self] in disposals += 1 }
        }
    }
}

@discardableResult
private func record(_ signal: Signal, _ r: OpRecorder) -> Subscriber { signal.subscribe(r.sink()) }

@Suite struct OperatorTests {
    @Test func mapFilterScanChain() {
        let src = OpSource([1, 2, 3, 4, 5, 6])
        let chain = src.signal.map { .int($0.intValue + 1) }.filter { $0.intValue % 2 == 0 }
            .scan(.int(0)) { .int($0.intValue + $1.intValue) }
        for _ in 0..<2 {  // restartable: each subscription starts again
            let r = OpRecorder()
            record(chain, r)
            #expect(r.values == [2, 6, 12])
            #expect(r.completed == 1)
            #expect(r.finished == 1)
        }
        #expect(src.disposals == 2)
    }

    @Test func aggregateSendsInitialWhenEmpty() {
        let r = OpRecorder()
        record(OpSource([]).signal.aggregate(.int(7)) { .int($0.intValue + $1.intValue) }, r)
        #expect(r.values == [7])
        let r2 = OpRecorder()
        record(OpSource([1, 2, 3]).signal.aggregate(.int(0)) { .int($0.intValue + $1.intValue) }, r2)
        #expect(r2.values == [6])
        #expect(r2.completed == 1)
    }

    @Test func takeCompletesANeverEndingSourceAndDisposesIt() {
        let src = OpSource([], complete: false)
        let r = OpRecorder()
        let sub = record(src.signal.take(1), r)
        src.subscriber?.sendNext(.int(5))
        src.subscriber?.sendNext(.int(6))
        #expect(r.values == [5])
        #expect(r.completed == 1)
        #expect(src.disposals == 1)
        #expect(sub.isDisposed)
        #expect(r.finished == 1)
    }

    @Test func takeZeroDoesNotSubscribe() {
        let src = OpSource([1])
        let r = OpRecorder()
        record(src.signal.take(0), r)
        #expect(r.values.isEmpty)
        #expect(r.completed == 1)
        #expect(src.subscriptions == 0)
    }

    /// Rule 4: RAC's recursive take.
    @Test func recursiveTake() {
        let src = OpSource([], complete: false)
        var got: [Int64] = []
        var completed = 0
        src.signal.take(3).subscribe(next: { v in
            got.append(v.intValue)
            src.subscriber?.sendNext(.int(v.intValue + 1))
        }, completed: { completed += 1 })
        src.subscriber?.sendNext(.int(0))
        #expect(got == [0, 1, 2])
        #expect(completed == 1)
        #expect(src.disposals == 1)
    }

    @Test func upstreamSinksSeeNoCompletionWhenTakeStops() {
        let src = OpSource([1, 2, 3], complete: false)
        var upstreamCompleted = 0
        let r = OpRecorder()
        record(src.signal.doCompleted { upstreamCompleted += 1 }.take(2), r)
        #expect(r.values == [1, 2])
        #expect(r.completed == 1)
        #expect(upstreamCompleted == 0)
    }

    @Test func takeLastKeepsTheLastValuesInOrder() {
        let r = OpRecorder()
        record(OpSource([1, 2, 3, 4, 5, 6, 7]).signal.takeLast(3), r)
        #expect(r.values == [5, 6, 7])
        let r2 = OpRecorder()
        record(OpSource([1, 2]).signal.takeLast(UInt.max), r2)
        #expect(r2.values == [1, 2])
    }

    @Test func takeWhileAndSkipWhile() {
        let values: [Int64] = [0, 1, 2, 3, 0, 2, 4]
        let r = OpRecorder()
        record(OpSource(values).signal.takeWhile { $0.intValue <= 1 }, r)
        #expect(r.values == [0, 1])
        #expect(r.completed == 1)
        let r2 = OpRecorder()
        record(OpSource(values).signal.skipWhile { $0.intValue < 3 }, r2)
        #expect(r2.values == [3, 0, 2, 4])
        let r3 = OpRecorder()
        record(OpSource(values).signal.skip(5), r3)
        #expect(r3.values == [2, 4])
    }

    @Test func distinctUntilChanged() {
        let r = OpRecorder()
        record(OpSource([1, 2, 2, 1, 1]).signal.distinctUntilChanged(), r)
        #expect(r.values == [1, 2, 1])
    }

    @Test func materializeAndBack() {
        let src = OpSource([1, 2])
        let r = OpRecorder()
        record(src.signal.materialize(), r)
        let eventType = -1000 - Int64(ValueType.event.rawValue)
        #expect(r.values == [eventType, eventType, eventType])  // next, next, completed
        #expect(r.completed == 1)
        let r2 = OpRecorder()
        record(src.signal.materialize().dematerialize(), r2)
        #expect(r2.values == [1, 2])
        #expect(r2.completed == 1)
    }

    @Test func dematerializeRejectsPlainValues() {
        let src = OpSource([1], complete: false)
        let r = OpRecorder()
        record(src.signal.dematerialize(), r)
        #expect(r.values.isEmpty)
        #expect(r.errors.count == 1)
        #expect(r.errors.first?.code == RippleError.typeErrorCode)
        #expect(r.errors.first?.domain == RippleError.runtimeDomain)
        #expect(src.disposals == 1)
    }

    @Test func collectMakesOneTuple() {
        var items: [Int64] = []
        OpSource([1, 2, 3]).signal.collect().subscribe(next: { v in items = (v.tupleItems ?? []).map(\.intValue) })
        #expect(items == [1, 2, 3])
    }

    @Test func sideEffectsRunBeforeForwarding() {
        var log: [String] = []
        let src = OpSource([1])
        src.signal.doNext { log.append("do \($0.intValue)") }
            .doCompleted { log.append("do completed") }
            .subscribe(next: { log.append("next \($0.intValue)") }, completed: { log.append("completed") })
        #expect(log == ["do 1", "next 1", "do completed", "completed"])
        var errors = 0
        let failing = CreateSignal { s in
            s.sendError(.runtime(.generic, "boom"))
            return nil
        }
        failing.doError { _ in errors += 1 }.subscribe()
        #expect(errors == 1)
    }

    /// The callback's context lives while the signal or a subscription does,
    /// and is released once.
    @Test func contextReleasedOnceWhenSignalAndSubscriptionsAreGone() {
        final class Token { var onDeinit: () -> Void = {}; deinit { onDeinit() } }
        var released = 0
        let src = OpSource([], complete: false)
        var sub: Subscriber?
        do {
            let token = Token()
            token.onDeinit = { released += 1 }
            let mapped = src.signal.map { [token] v in _ = token; return v.retained() }
            sub = record(mapped, OpRecorder())
        }
        #expect(released == 0)  // the subscription still holds the callback
        sub?.dispose()
        #expect(released == 1)
        _ = sub
    }

    /// Boxed values keep balanced counts through a chain: the value a map
    /// returns is owned by the runtime, the accumulator of scan is released.
    @Test func boxedValuesAreBalanced() {
        var lengths: [Int] = []
        OpSource([1, 22, 333]).signal
            .map { .string("v\($0.intValue)") }
            .scan(.string("")) { acc, v in (v.bytesBox?.count ?? 0) >= (acc.bytesBox?.count ?? 0) ? v.retained() : acc.retained() }
            .subscribe(next: { v in lengths.append(v.bytesBox?.count ?? -1) })
        #expect(lengths == [2, 3, 4])
    }
}
