import Glibc
import Ripple
import Testing

/// Records events as a string: n<value> e c, and f for finish.
final class Recorder: Sink {
    var log: [String] = []
    override func onNext(_ value: borrowing Value) { log.append("n\(value.intValue)") }
    override func onError(_ error: RippleError) { log.append("e\(error.code)") }
    override func onCompleted() { log.append("c") }
    override func finish() { log.append("f") }
}

@Suite struct SignalTests {
    @Test func createSignalIsColdAndSynchronous() {
        var bodies = 0
        let sig = CreateSignal { s in
            bodies += 1
            s.sendNext(.int(1))
            s.sendCompleted()
            s.sendNext(.int(2))  // after the terminal: dropped
            return ActionDisposable()
        }
        let r1 = Recorder(), r2 = Recorder()
        let s1 = sig.subscribe(r1)
        _ = sig.subscribe(r2)
        #expect(bodies == 2)
        #expect(r1.log == ["n1", "c", "f"])
        #expect(r2.log == ["n1", "c", "f"])
        #expect(s1.isDisposed)
    }

    @Test func terminalThenResourcesThenFinish() {
        var log: [String] = []
        var kept: Subscriber?
        let sig = CreateSignal { s in
            kept = s
            return ActionDisposable { log.append("dispose") }
        }
        let sink = ClosureSink(error: { _ in log.append("error") }, finished: { log.append("finish") })
        _ = sig.subscribe(sink)
        kept?.sendError(.runtime(.generic, "x"))
        #expect(log == ["error", "dispose", "finish"])
    }

    @Test func synchronousTerminalDisposesReturnedResourceBeforeFinish() {
        var log: [String] = []
        let sig = CreateSignal { s in
            s.sendCompleted()
            return ActionDisposable { log.append("dispose") }
        }
        _ = sig.subscribe(ClosureSink(completed: { log.append("completed") }, finished: { log.append("finish") }))
        #expect(log == ["completed", "dispose", "finish"])
    }

    @Test func disposeEndsWithoutTerminal() {
        var kept: Subscriber?
        let sig = CreateSignal { s in kept = s; return nil }
        let r = Recorder()
        let sub = sig.subscribe(r)
        kept?.sendNext(.int(3))
        sub.dispose()
        kept?.sendNext(.int(4))
        #expect(r.log == ["n3", "f"])
        #expect(sub.isDisposed)
    }

    @Test func releasingEverythingFinishes() {
        let r = Recorder()
        do {
            let sig = NeverSignal()
            _ = sig.subscribe(r)
        }
        #expect(r.log == ["f"])  // rule 6a: freed, finish without a terminal event
    }

    @Test func resourcesAddedAndRemoved() {
        let sub = NeverSignal().subscribe(Recorder())
        let a = ActionDisposable(), b = ActionDisposable()
        sub.addResource(a)
        sub.addResource(b)
        sub.removeResource(a)
        sub.dispose()
        #expect(!a.isDisposed)
        #expect(b.isDisposed)
        let late = ActionDisposable()
        sub.addResource(late)
        #expect(late.isDisposed)
    }

    @Test func reentrantSendIsNestedAndOrdered() {
        var seen: [Int64] = []
        var kept: Subscriber?
        let sig = CreateSignal { s in kept = s; return nil }
        let sub = sig.subscribe(next: { v in
            seen.append(v.intValue)
            if v.intValue < 3 { kept?.sendNext(.int(v.intValue + 1)) } else { kept?.sendCompleted() }
        })
        kept?.sendNext(.int(0))
        #expect(seen == [0, 1, 2, 3])
        #expect(sub.isDisposed)
    }

    @Test func relaySubscriberForwards() {
        // The pattern multi-input operators use: a started relay, fed by hand.
        let r = Recorder()
        let relay = Subscriber.make(r)
        relay.send(.next(.int(5)))
        relay.send(.completed)
        #expect(r.log == ["n5", "c", "f"])
    }

    @Test func attachThatEndsTheSubscriptionFinishesAfterIt() {
        // A sink whose attach ends its own subscription (as a relay's sink
        // does when the relay has ended): the sink, kept only by the
        // subscriber, must outlive the attach, so finish runs after it.
        final class EndingSink: ObserverSink {
            var attaching = false
            var finishedInsideAttach = false
            var finishes = 0
            override func attach(_ subscriber: Subscriber) {
                super.attach(subscriber)
                attaching = true
                subscriber.dispose()
                attaching = false
            }
            override func finish() {
                finishes += 1
                if attaching { finishedInsideAttach = true }
            }
        }
        for subscribing in [false, true] {
            let sink = EndingSink()
            let s = Subscriber.make(sink, subscribing: subscribing)
            if subscribing { s.endSubscribeBody(adding: nil) }
            #expect(s.isDisposed)
            #expect(sink.finishes == 1)
            #expect(!sink.finishedInsideAttach)
        }
    }

    @Test func forwardingSinkChain() {
        final class Doubler: ForwardingSink {
            override func onNext(_ value: borrowing Value) { downstream.onNext(.int(value.intValue * 2)) }
        }
        let r = Recorder()
        _ = ReturnSignal(.int(21)).subscribe(Doubler(r))
        #expect(r.log == ["n42", "c", "f"])
    }

    @Test func primitives() {
        let e = Recorder(), er = Recorder(), n = Recorder()
        _ = EmptySignal().subscribe(e)
        _ = ErrorSignal(.runtime(.timeout, "t")).subscribe(er)
        let never = NeverSignal().subscribe(n)
        #expect(e.log == ["c", "f"])
        #expect(er.log == ["e2", "f"])
        #expect(n.log == [])
        never.dispose()
        #expect(n.log == ["f"])
        let d = Recorder()
        _ = DeferSignal { nil }.subscribe(d)
        #expect(d.log == ["e3", "f"])
    }

    @Test func concurrentSendsAreSerialized() {
        final class Counter: Sink, @unchecked Sendable {
            var inside = false
            var overlaps = 0
            var count = 0
            override func onNext(_ value: borrowing Value) {
                if inside { overlaps += 1 }
                inside = true
                count += 1
                inside = false
            }
        }
        let c = Counter()
        let sub = Subscriber.make(c)
        let threads = 4, per = 20000
        var ids: [pthread_t] = []
        final class Box: @unchecked Sendable { let s: Subscriber; let n: Int; init(_ s: Subscriber, _ n: Int) { self.s = s; self.n = n } }
        for _ in 0..<threads {
            var t = pthread_t()
            let arg = Unmanaged.passRetained(Box(sub, per)).toOpaque()
            pthread_create(&t, nil, { p in
                let b = Unmanaged<Box>.fromOpaque(p!).takeRetainedValue()
                for i in 0..<b.n { b.s.sendNext(.int(Int64(i))) }
                return nil
            }, arg)
            ids.append(t)
        }
        for t in ids { pthread_join(t, nil) }
        #expect(c.count == threads * per)
        #expect(c.overlaps == 0)
        sub.dispose()
    }
}
