import Ripple
import Testing

/// Records events as text ("1", "C", "E3", "F" for finish).
private final class SubjectRecorder: Sink, @unchecked Sendable {
    let lock = Lock()
    var log: [String] = []
    func add(_ s: String) { lock.withLock { log.append(s) } }
    var text: String { lock.withLock { log.joined(separator: " ") } }
    override func onNext(_ value: borrowing Value) { add("\(value.intValue)") }
    override func onError(_ error: RippleError) { add("E\(error.code)") }
    override func onCompleted() { add("C") }
    override func finish() { add("F") }
}

/// take(n) as an operator sink: it ends the subscription through the root
/// subscriber it is attached to, re-entrant-safe.
private final class SubjectTestTake: ForwardingSink {
    var left: Int
    var root: Subscriber?
    init(_ n: Int, _ downstream: Sink) {
        left = n
        super.init(downstream)
    }
    override func attach(_ subscriber: Subscriber) {
        root = subscriber
        super.attach(subscriber)
    }
    override func onNext(_ value: borrowing Value) {
        guard left > 0 else { return }
        left -= 1
        downstream.onNext(value)
        if left == 0 { root?.sendCompleted() }
    }
    override func finish() {
        root = nil
        super.finish()
    }
}

/// Disposes its own subscription on the first value it gets.
private final class SubjectTestDisposeOnFirst: ForwardingSink {
    var root: Subscriber?
    override func attach(_ subscriber: Subscriber) { root = subscriber }
    override func onNext(_ value: borrowing Value) {
        downstream.onNext(value)
        root?.dispose()
    }
    override func finish() {
        root = nil
        super.finish()
    }
}

@Suite struct SubjectTests {
    @Test func plainSubject() {
        let s = Subject()
        s.sendNext(.int(0))  // nobody subscribed: lost
        let a = SubjectRecorder(), b = SubjectRecorder()
        let da = s.subscribe(a)
        s.sendNext(.int(1))
        let db = s.subscribe(b)
        #expect(s.subscriberCount == 2)
        s.sendNext(.int(2))
        db.dispose()
        #expect(s.subscriberCount == 1)
        s.sendCompleted()
        s.sendNext(.int(3))  // ignored
        let late = SubjectRecorder()
        _ = s.subscribe(late)
        #expect(a.text == "1 2 C F")
        #expect(b.text == "2 F")
        #expect(late.text == "C F")
        #expect(s.isTerminated)
        #expect(da.isDisposed)
    }

    @Test func behaviorSubject() {
        let s = BehaviorSubject(.int(0))
        let a = SubjectRecorder()
        _ = s.subscribe(a)
        s.sendNext(.int(1))
        let b = SubjectRecorder()
        _ = s.subscribe(b)
        #expect(s.value().intValue == 1)
        s.sendError(.runtime(.generic, "x"))
        let c = SubjectRecorder()
        _ = s.subscribe(c)
        #expect(a.text == "0 1 E1 F")
        #expect(b.text == "1 E1 F")
        #expect(c.text == "E1 F")
    }

    @Test func replaySubject() {
        let s = ReplaySubject(capacity: 2)
        for i in 1...3 { s.sendNext(.int(Int64(i))) }
        let a = SubjectRecorder()
        _ = s.subscribe(a)
        s.sendNext(.int(4))
        s.sendCompleted()
        let b = SubjectRecorder()
        _ = s.subscribe(b)
        #expect(a.text == "2 3 4 C F")
        #expect(b.text == "3 4 C F")
    }

    /// RAC: replay stops as soon as the subscription is disposed, even from
    /// the callback of the first replayed value.
    @Test func replayStopsWhenDisposed() {
        let s = ReplaySubject(capacity: .max)
        s.sendNext(.int(0))
        s.sendNext(.int(1))
        let r = SubjectRecorder()
        _ = s.subscribe(SubjectTestDisposeOnFirst(r))
        #expect(r.text == "0 F")
        #expect(s.subscriberCount == 0)
    }

    /// RAC's recursive take: take 3 of a subject, sending v+1 back on each
    /// value: [0, 1, 2, C].
    @Test func recursiveTake() {
        for s in [Subject(), ReplaySubject(capacity: 1), ReplaySubject(capacity: .max)] {
            let r = SubjectRecorder()
            final class SendBack: Sink {
                let subject: Subject
                let rec: SubjectRecorder
                init(_ s: Subject, _ r: SubjectRecorder) { subject = s; rec = r }
                override func onNext(_ value: borrowing Value) {
                    rec.onNext(value)
                    subject.sendNext(.int(value.intValue + 1))
                }
                override func onCompleted() { rec.onCompleted() }
                override func finish() { rec.finish() }
            }
            _ = s.subscribe(SubjectTestTake(3, SendBack(s, r)))
            s.sendNext(.int(0))
            #expect(r.text == "0 1 2 C F")
            #expect(s.subscriberCount == 0)
        }
    }

    @Test func subjectAsSubscriber() {
        let up = Subject()
        let down = ReplaySubject(capacity: .max)
        let conn = down.subscribe(to: up)
        up.sendNext(.int(1))
        up.sendCompleted()
        #expect(down.isTerminated)
        #expect(conn.isDisposed)
        let r = SubjectRecorder()
        _ = down.subscribe(r)
        #expect(r.text == "1 C F")
    }

    /// Rule 6a: a subject and its subscribers form no cycle.
    @Test func releasingFreesSubscriptions() {
        let r = SubjectRecorder()
        do {
            let s = Subject()
            _ = s.subscribe(r)
            s.sendNext(.int(5))
        }
        #expect(r.text == "5 F")
    }
}

@Suite struct ConnectionTests {
    final class Counting: @unchecked Sendable {
        let lock = Lock()
        var subscribed = 0, disposed = 0
        var kept: Subscriber?
        lazy var signal: Signal = CreateSignal { [unowned self] s in
            self.lock.withLock { self.subscribed += 1; self.kept = s }
            return ActionDisposable { [unowned self] in self.lock.withLock { self.disposed += 1 } }
        }
    }

    @Test func publishConnect() {
        let src = Counting()
        let c = src.signal.publish()
        let r = SubjectRecorder()
        _ = c.subject.subscribe(r)
        let d1 = c.connect(), d2 = c.connect()
        #expect(d1 === d2)
        #expect(src.subscribed == 1)
        src.kept?.sendNext(.int(1))
        d1.dispose()
        #expect(src.disposed == 1)
        _ = c.connect()
        #expect(src.subscribed == 2)
        src.kept?.sendNext(.int(2))
        src.kept?.sendCompleted()
        #expect(r.text == "1 2 C F")
    }

    @Test func autoconnectReconnects() {
        let src = Counting()
        let ac = src.signal.publish().autoconnect()
        let a = ac.subscribe(SubjectRecorder())
        let b = ac.subscribe(SubjectRecorder())
        #expect(src.subscribed == 1)
        a.dispose()
        #expect(src.disposed == 0)
        b.dispose()
        #expect(src.disposed == 1)
        let r = SubjectRecorder()
        _ = ac.subscribe(r)
        #expect(src.subscribed == 2)
        src.kept?.sendNext(.int(3))
        #expect(r.text == "3")
        src.kept?.sendCompleted()
    }

    @Test func replayVariants() {
        let src = Counting()
        let lazy = src.signal.replayLazily()
        #expect(src.subscribed == 0)
        let a = SubjectRecorder()
        let da = lazy.subscribe(a)
        src.kept?.sendNext(.int(1))
        da.dispose()
        let b = SubjectRecorder()
        _ = lazy.subscribe(b)
        #expect(src.subscribed == 1)
        #expect(src.disposed == 0)
        src.kept?.sendCompleted()
        #expect(b.text == "1 C F")

        let eager = CreateSignal { s in
            s.sendNext(.int(7)); s.sendNext(.int(8)); s.sendCompleted(); return nil
        }
        let all = SubjectRecorder(), last = SubjectRecorder()
        _ = eager.replay().subscribe(all)
        _ = eager.replayLast().subscribe(last)
        #expect(all.text == "7 8 C F")
        #expect(last.text == "8 C F")
    }
}
