/// Virtual time for tests: work runs only when the test advances the clock
/// (`advance(by:)`) or runs everything (`runAll()`), on the calling thread.
/// The clock starts at 0; while a job runs, `now` is the time it was due.
/// Same-time jobs run in the order they were scheduled.
///
/// Freed with work pending, it drops that work (its contexts are released):
/// nothing could ever run it.
public final class TestScheduler: Scheduler, @unchecked Sendable {
    private let lock = Lock()
    @exclusivity(unchecked) private var clock: UInt64 = 0
    @exclusivity(unchecked) private var timers = TimerHeap()
    @exclusivity(unchecked) private var reach: UInt64 = 0

    public override init() { super.init() }

    /// Nothing can run the pending jobs any more: cancel them, which drops
    /// their work (and breaks any cycle through it).
    deinit { for j in timers.removeAll() { j.dispose() } }

    public override var now: UInt64 { lock.withLock { clock } }

    public override var isDriven: Bool { true }

    public override func enqueue(_ job: Job) {
        lock.withLock { timers.push(job, at: clock) }
    }

    public override func enqueue(_ job: Job, at time: UInt64) {
        lock.withLock { timers.push(job, at: time) }
    }

    /// Runs `action` at `time`, before every other job due then, also those
    /// scheduled earlier (FIFO among such jobs). The marble tests subscribe
    /// and unsubscribe this way, so a subscription made at a frame sees that
    /// frame's events and one ended at a frame does not (Testing/).
    @discardableResult
    public func scheduleAhead(at time: UInt64, _ action: @escaping () -> Void) -> Disposable {
        let a = ScheduledAction(action, interval: 0)
        a.deadline = time
        lock.withLock { timers.push(a, at: time, ahead: true) }
        return a
    }

    /// The latest time that work known to end is scheduled for (marble
    /// diagrams' events, Testing/): a marble test runs at least this far.
    public var horizon: UInt64 { lock.withLock { reach } }

    /// Moves `horizon` to `time` if that is later.
    public func extendHorizon(to time: UInt64) { lock.withLock { if time > reach { reach = time } } }

    /// Number of jobs waiting (including cancelled ones not yet reached).
    public var pendingCount: Int { lock.withLock { timers.count } }

    /// Runs every job due up to `now + ns` in time order, then sets the
    /// clock to `now + ns`. Jobs scheduled meanwhile run too if they fall due.
    public func advance(by ns: UInt64) {
        let target = Scheduler.add(now, ns)
        while let job = next(dueBy: target) { execute(job) }
        lock.withLock { if clock < target { clock = target } }
    }

    /// Runs jobs until none is pending, moving the clock to each one's time.
    /// Never call it with repeating work pending: it would not return.
    public func runAll() { run(through: .max) }

    /// Runs jobs due up to `limit` until none is, moving the clock to each
    /// one's time (and no further: jobs due later stay pending).
    public func run(through limit: UInt64) {
        while let job = next(dueBy: limit) { execute(job) }
    }

    private func next(dueBy limit: UInt64) -> Job? {
        lock.withLock {
            // Cancelled jobs (their closure already dropped) are skipped
            // without moving the clock.
            while let e = timers.pop(dueBy: limit) {
                if e.job.isDisposed { continue }
                if e.time > clock { clock = e.time }
                return e.job
            }
            return nil
        }
    }
}
