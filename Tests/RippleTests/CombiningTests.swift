// The combining and higher-order operator core (merge, zip, combineLatest,
// concat, startWith, takeUntil, bind/flatMap, switchToLatest, catch,
// retry/repeat), driven from Swift.
import Testing
@testable import Ripple

/// Records what a subscription receives: ints as themselves, tuples of ints
/// as 100 * first + second, other types as -1000 - type.
private final class CombRecorder {
    var values: [Int64] = []
    var completed = 0
    var errors: [RippleError] = []
    var finished = 0

    func sink() -> Sink {
        ClosureSink(next: { [self] v in values.append(CombRecorder.code(v)) },
                    error: { [self] e in errors.append(e) },
                    completed: { [self] in completed += 1 },
                    finished: { [self] in finished += 1 })
    }

    static func code(_ v: borrowing Value) -> Int64 {
        if v.type == .int { return v.intValue }
        if let items = v.tupleItems, items.count == 2 { return 100 * items[0].intValue + items[1].intValue }
        return -1000 - Int64(v.rawType)
    }
}

/// A cold source that keeps its subscribers so a test can send later, sends
/// `initial` at subscription, and counts subscriptions and disposals.
private final class CombSource {
    let initial: [Int64]
    let complete: Bool
    var subscribers: [Subscriber] = []
    var disposals = 0

    init(_ initial: [Int64] = [], complete: Bool = false) {
        self.initial = initial
        self.complete = complete
    }

    var signal: Signal {
        CreateSignal { [self] s in
            subscribers.append(s)
            for v in initial { s.sendNext(.int(v)) }
            if complete { s.sendCompleted() }
            return ActionDisposable { [self] in disposals += 1 }
        }
    }

    func send(_ v: Int64, to i: Int = 0) { subscribers[i].sendNext(.int(v)) }
    func complete(_ i: Int = 0) { subscribers[i].sendCompleted() }
    func fail(_ i: Int = 0, code: Int64 = 7) { subscribers[i].sendError(RippleError(domain: "test", code: code, message: "")) }
}

/// Subscribes as a consumer does: the handle (docs/behaviour.md#lifetime-handle).
@discardableResult
private func record(_ signal: Signal, _ r: CombRecorder) -> Subscription { Subscription(signal.subscribe(r.sink())) }

@Suite struct CombiningTests {
    @Test func mergeInterleavesAndCompletesAfterAll() {
        let a = CombSource(), b = CombSource()
        let r = CombRecorder()
        record(MergeSignal([a.signal, b.signal]), r)
        a.send(1); b.send(2); a.send(3)
        a.complete()
        #expect(r.completed == 0)
        b.complete()
        #expect(r.values == [1, 2, 3])
        #expect(r.completed == 1)
        #expect(r.finished == 1)
    }

    @Test func emptyArraysCompleteAtOnce() {
        for s in [MergeSignal([]), ZipSignal([]), CombineLatestSignal([])] as [Signal] {
            let r = CombRecorder()
            record(s, r)
            #expect(r.completed == 1)
        }
    }

    @Test func firstErrorEndsEverythingAndDisposesInputs() {
        let a = CombSource(), b = CombSource()
        let r = CombRecorder()
        record(ZipSignal([a.signal, b.signal]), r)
        a.fail(code: 3)
        #expect(r.errors.map(\.code) == [3])
        #expect(a.disposals == 1 && b.disposals == 1)
        b.send(1)
        #expect(r.values.isEmpty)
    }

    @Test func zipPairsAndCompletesWhenAnInputIsUsedUp() {
        let a = CombSource(), b = CombSource()
        let r = CombRecorder()
        record(ZipSignal([a.signal, b.signal]), r)
        a.send(1); a.send(2); b.send(10)
        a.complete()
        #expect(r.values == [110])
        #expect(r.completed == 0)
        b.send(20)
        #expect(r.values == [110, 220])
        #expect(r.completed == 1)
        #expect(b.disposals == 1)
    }

    @Test func combineLatestWaitsForEveryInput() {
        let a = CombSource(), b = CombSource()
        let r = CombRecorder()
        record(CombineLatestSignal([a.signal, b.signal]), r)
        a.send(1)
        #expect(r.values.isEmpty)
        b.send(5); a.send(2)
        #expect(r.values == [105, 205])
        a.complete()
        #expect(r.completed == 0)
        b.complete()
        #expect(r.completed == 1)
    }

    @Test func concatStartWithThen() {
        let r = CombRecorder()
        let first = CombSource([1, 2], complete: true)
        record(ConcatSignal(first.signal, ReturnSignal(.int(3))), r)
        #expect(r.values == [1, 2, 3] && r.completed == 1)
        let r2 = CombRecorder()
        record(StartWithSignal(ReturnSignal(.int(1)), .int(0)), r2)
        #expect(r2.values == [0, 1] && r2.completed == 1)
        let r3 = CombRecorder()
        record(ConcatSignal(CombSource([1, 2], complete: true).signal, ReturnSignal(.int(9)), ignoreFirstValues: true), r3)
        #expect(r3.values == [9] && r3.completed == 1)
    }

    @Test func takeUntilStopsOnTriggerAndIgnoresTriggerErrors() {
        let src = CombSource(), trigger = CombSource()
        let r = CombRecorder()
        record(TakeUntilSignal(src.signal, trigger: trigger.signal), r)
        src.send(1)
        trigger.fail()
        src.send(2)
        trigger.subscribers[0].dispose()
        #expect(r.values == [1, 2] && r.completed == 0)
        let r2 = CombRecorder()
        let t2 = CombSource()
        record(TakeUntilSignal(src.signal, trigger: t2.signal), r2)
        t2.send(0)
        #expect(r2.completed == 1)
        #expect(src.disposals == 1)
    }

    @Test func bindFollowsRACsRules() {
        let src = CombSource()
        let inner = CombSource()
        let r = CombRecorder()
        var calls = 0
        let bound = BindSignal(src.signal) { v, stop in
            calls += 1
            if v.intValue == 2 { stop = true }
            return inner.signal
        }
        record(bound, r)
        src.send(1); src.send(2)
        #expect(src.disposals == 1)  // stop disposes the source
        src.send(3)
        #expect(calls == 2)
        inner.send(10, to: 0); inner.send(20, to: 1)
        inner.complete(0)
        #expect(r.completed == 0)
        inner.complete(1)
        #expect(r.values == [10, 20] && r.completed == 1)
        // nil stops too
        let r2 = CombRecorder()
        record(BindSignal(CombSource([1, 2, 3], complete: true).signal) { v, _ in
            v.intValue == 2 ? nil : ReturnSignal(.int(v.intValue * 10))
        }, r2)
        #expect(r2.values == [10] && r2.completed == 1)
    }

    @Test func flatMapTreatsNilAsEmpty() {
        let r = CombRecorder()
        record(BindSignal(CombSource([1, 2, 3, 4], complete: true).signal, flatMap: { v in
            v.intValue % 2 == 0 ? ReturnSignal(.int(v.intValue)) : nil
        }), r)
        #expect(r.values == [2, 4] && r.completed == 1)
    }

    @Test func switchToLatestCutsThePreviousInner() {
        let outer = CombSource(), a = CombSource(), b = CombSource()
        let r = CombRecorder()
        record(SwitchToLatestSignal(outer.signal), r)
        outer.subscribers[0].sendNext(.signal(a.signal))
        a.send(1)
        outer.subscribers[0].sendNext(.signal(b.signal))
        #expect(a.disposals == 1)
        a.send(2); b.send(3)
        outer.complete()
        #expect(r.completed == 0)
        b.complete()
        #expect(r.values == [1, 3] && r.completed == 1)
    }

    @Test func catchContinuesWithTheReplacement() {
        let r = CombRecorder()
        let failing = CreateSignal { s in
            s.sendNext(.int(1))
            s.sendError(RippleError(domain: "test", code: 5, message: ""))
            return nil
        }
        record(CatchSignal(failing) { e in ReturnSignal(.int(e.code)) }, r)
        #expect(r.values == [1, 5] && r.completed == 1 && r.errors.isEmpty)
        let r2 = CombRecorder()
        record(CatchSignal(failing) { _ in nil }, r2)
        #expect(r2.errors.map(\.code) == [5])
    }

    @Test func retryAndRepeatCountAttemptsWithoutRecursion() {
        var attempts = 0
        let flaky = CreateSignal { s in
            attempts += 1
            s.sendNext(.int(Int64(attempts)))
            if attempts <= 2 { s.sendError(.runtime(.generic, "flaky")) } else { s.sendCompleted() }
            return nil
        }
        let r = CombRecorder()
        record(RepeatSignal(flaky, .retry, limit: 2), r)
        #expect(r.values == [1, 2, 3] && r.completed == 1)

        attempts = 0
        let r0 = CombRecorder()
        record(RepeatSignal(flaky, .retry, limit: 0), r0)
        #expect(r0.values == [1] && r0.errors.count == 1)

        let r2 = CombRecorder()
        record(RepeatSignal(ReturnSignal(.int(1)), .repeat, limit: 3), r2)
        #expect(r2.values == [1, 1, 1] && r2.completed == 1)

        var n = 0
        let many = CreateSignal { s in
            n += 1
            if n < 100_000 { s.sendCompleted() } else { s.sendError(.runtime(.generic, "done")) }
            return nil
        }
        let r3 = CombRecorder()
        record(RepeatSignal(many, .repeat, limit: .max), r3)  // would overflow the stack if recursive
        #expect(n == 100_000 && r3.errors.count == 1)
    }

    @Test func swiftSpellingsChain() {
        let r = CombRecorder()
        let s = Signal.merge([ReturnSignal(.int(1)), ReturnSignal(.int(2))])
            .flatMap { v in ReturnSignal(.int(v.intValue * 10)) }
            .startWith(.int(0))
            .concat(ReturnSignal(.int(3)))
        record(s, r)
        #expect(r.values == [0, 10, 20, 3] && r.completed == 1)
        let r2 = CombRecorder()
        record(Signal.zip([ReturnSignal(.int(1)), ReturnSignal(.int(2))]).repeat(2), r2)
        #expect(r2.values == [102, 102] && r2.completed == 1)
    }

    @Test func disposingTheResultDisposesEveryInput() {
        let a = CombSource(), b = CombSource()
        let r = CombRecorder()
        let sub = record(MergeSignal([a.signal, b.signal]), r)
        sub.dispose()
        #expect(a.disposals == 1 && b.disposals == 1)
        #expect(r.finished == 1)
    }

    @Test func noCycleOnceTheSourcesAreGone() {
        weak var relay: Subscriber?
        let r = CombRecorder()
        do {
            let a = CombSource(), b = CombSource()
            relay = record(MergeSignal([a.signal, b.signal]), r).subscriber  // the handle goes at once
            #expect(relay != nil)  // the sources keep it alive
            a.send(1)
            // The sources drop their subscribers (each subscriber's resource
            // refers back to its source, so the test breaks that link).
            a.subscribers.removeAll()
            #expect(relay != nil)  // b can still send
            b.subscribers.removeAll()
        }
        #expect(relay == nil)
        #expect(r.finished == 1)
        #expect(r.completed == 0)
        #expect(r.values == [1])
    }
}
