// Running a signal under a marble subscription and comparing or drawing what
// it did (rpl_marble_record, rpl_marble_expect).

/// Records what a subscription receives, with the time (ns from `start`).
final class MarbleRecorder: ObserverSink, @unchecked Sendable {
    private let lock = Lock()
    let start: UInt64
    let scheduler: SchedulerRef
    private var events: [(time: Int64, event: Event)] = []
    private var closed = false

    init(_ scheduler: TestScheduler) {
        start = scheduler.now
        self.scheduler = SchedulerRef(scheduler)
        super.init()
    }
    deinit { for e in events { e.event.release() } }

    private func record(_ event: Event) {
        let t = Int64(bitPattern: (scheduler.scheduler?.now ?? start) &- start)
        lock.lock()
        if closed {
            lock.unlock()
            event.release()  // after the test: nobody reads it
            return
        }
        events.append((t, event))
        lock.unlock()
    }

    override func onNext(_ value: borrowing Value) { record(.next(value.retained())) }
    override func onError(_ error: RippleError) { record(.error(error)) }
    override func onCompleted() { record(.completed) }

    /// What was recorded (owned by the caller); nothing is recorded after.
    func take() -> [(time: Int64, event: Event)] {
        lock.withLock {
            closed = true
            defer { events = [] }
            return events
        }
    }
}

public enum MarbleTest {
    /// How far past the diagrams' end a run goes while work is pending, so
    /// that work which never ends (an interval without a take) stops: 60 s
    /// of virtual time (60,000 frames).
    public static let slack: Int64 = 60_000 * marbleFrame

    /// Subscribes `signal` as `subscription` says, with frame 0 now, and
    /// runs `scheduler` until no work is pending or `slack` past the latest
    /// of `end`, the subscription diagram's end and the scheduler's
    /// `horizon` (the marble diagrams' last events). Returns what the subscription
    /// received, each event with its time from frame 0. The subscription is
    /// disposed only where the diagram has `!`.
    static func run(_ signal: Signal, on scheduler: TestScheduler, _ subscription: MarbleSubscription,
                    end: Int64) -> [(time: Int64, event: Event)] {
        let recorder = MarbleRecorder(scheduler)
        let start = recorder.start
        // The consumer's handle: dropping it lets go (docs/behaviour.md#lifetime-handle).
        final class Held { var subscription: Disposable? }
        let held = Held()
        // Ahead of the work due in the same frame, as RxJS schedules its
        // subscriptions before the hot diagrams' events.
        scheduler.scheduleAhead(at: start &+ UInt64(subscription.subscribe)) {
            held.subscription = signal.subscription(recorder)
        }
        if let u = subscription.unsubscribe {
            scheduler.scheduleAhead(at: start &+ UInt64(u)) { held.subscription?.dispose() }
        }
        // The horizon moves as cold marbles are subscribed during the run.
        let base = Scheduler.add(start, UInt64(max(end, subscription.end, 0)))
        var limit: UInt64 = 0
        while true {
            let next = Scheduler.add(max(base, scheduler.horizon), UInt64(slack))
            if next <= limit { break }
            limit = next
            scheduler.run(through: limit)
        }
        held.subscription = nil
        return recorder.take()
    }

    /// What `signal` did, drawn with `values`.
    public static func record(_ signal: Signal, on scheduler: TestScheduler, _ subscription: MarbleSubscription,
                              _ values: MarbleValues) -> String {
        let actual = run(signal, on: scheduler, subscription, end: 0)
        defer { for e in actual { e.event.release() } }
        return MarbleDrawing(drawn(actual, values)).text
    }

    /// nil when `signal` does exactly `expected` (values compared with
    /// `Value.equal`, `#` matching any error); else the difference, on three
    /// lines: what differs first, then the expected and the actual
    /// diagrams with a caret under the first difference.
    public static func expect(_ signal: Signal, on scheduler: TestScheduler, _ subscription: MarbleSubscription,
                              _ expected: MarbleDiagram, _ values: MarbleValues) -> String? {
        let actual = run(signal, on: scheduler, subscription, end: expected.end)
        defer { for e in actual { e.event.release() } }
        var first: Int?
        for k in 0..<max(actual.count, expected.events.count) {
            guard k < actual.count, k < expected.events.count,
                  matches(expected.events[k], actual[k], values) else {
                first = k
                break
            }
        }
        guard let k = first else { return nil }
        let actualEvents = drawn(actual, values)
        let e = MarbleDrawing(expected.events), a = MarbleDrawing(actualEvents)
        var caret = Array(zip(e.text.unicodeScalars, a.text.unicodeScalars)).firstIndex { $0 != $1 }
            ?? min(e.text.unicodeScalars.count, a.text.unicodeScalars.count)
        if e.text == a.text { caret = (k < a.offsets.count ? a.offsets[k] : e.offsets[k]) }
        let frame = min(k < expected.events.count ? expected.events[k].time : .max,
                        k < actual.count ? actual[k].time : .max)
        let want = k < expected.events.count ? describe(expected.events[k].kind) : "nothing"
        let got = k < actual.count ? describe(actualEvents[k].kind) : "nothing"
        return "at frame \(marbleFrames(frame)) expected \(want), got \(got)\n"
            + "expected: \(e.text)\n"
            + "actual:   \(a.text)\n"
            + String(repeating: " ", count: 10 + caret) + "^"
    }

    private static func drawn(_ events: [(time: Int64, event: Event)], _ values: MarbleValues) -> [MarbleEvent] {
        events.map { e in
            switch e.event {
            case .next(let v): MarbleEvent(time: e.time, kind: .next(values.draw(v)))
            case .error: MarbleEvent(time: e.time, kind: .error)
            case .completed: MarbleEvent(time: e.time, kind: .completed)
            }
        }
    }

    private static func matches(_ x: MarbleEvent, _ y: (time: Int64, event: Event), _ values: MarbleValues) -> Bool {
        guard x.time == y.time else { return false }
        switch (x.kind, y.event) {
        case (.next(let c), .next(let v)):
            let want = values.value(for: c)
            defer { want.release() }
            return Value.equal(want, v)
        case (.error, .error), (.completed, .completed): return true
        default: return false
        }
    }

    private static func describe(_ k: MarbleEvent.Kind) -> String {
        switch k {
        case .next(let c): "value '\(c)'"
        case .error: "an error"
        case .completed: "completion"
        }
    }
}
