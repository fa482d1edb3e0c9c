import Glibc
import RippleSupport
import Synchronization

// Schedulers run `Job`s. A scheduler has two primitives, `enqueue(job)` (as
// soon as possible, FIFO) and `enqueue(job, at:)` (at a time on its own
// clock); everything else is built on them.
//
// Ownership: a scheduler holds each pending job strongly until it has run, so
// pending work (and whatever it captured) stays alive. A job never holds its
// scheduler (it is passed to `run(on:)`), so a scheduler that nothing can
// drive any more (a freed test scheduler or run loop) cancels and frees its
// jobs instead of leaking them in a cycle. Thread-backed schedulers keep themselves alive
// from their worker threads while work is pending.
//
// While a job runs, the thread's current scheduler (ripple_thread_state's
// `scheduler` slot) is the scheduler running it; the previous value is
// restored afterwards, so nesting works.

/// A unit of scheduled work. It is a `Disposable` so that the C API can hand
/// it out as the handle that cancels it.
open class Job: Disposable {
    public init() { super.init(kind: .disposable) }

    /// Runs the job; `scheduler` is the scheduler running it (and the
    /// thread's current scheduler for the duration of the call).
    open func run(on scheduler: Scheduler) {}
}

/// Something that runs jobs.
open class Scheduler: RippleObject {
    public init() { super.init(kind: .scheduler) }

    /// The scheduler's clock in ns (CLOCK_MONOTONIC, or virtual time).
    open var now: UInt64 { monotonicNow() }

    /// Runs `job` as soon as possible, after jobs enqueued before it.
    open func enqueue(_ job: Job) { fatalError("Scheduler.enqueue must be overridden") }

    /// Runs `job` once the clock has reached `time`; same-time jobs run in
    /// the order they were enqueued.
    open func enqueue(_ job: Job, at time: UInt64) { fatalError("Scheduler.enqueue(at:) must be overridden") }

    /// Whether repeating work is supported (not on the immediate scheduler,
    /// which would block its caller forever).
    open var supportsRepeating: Bool { true }

    /// True for schedulers that run work only when their owner drives them
    /// (test scheduler, run loop): once the last reference to one is gone,
    /// nothing can run its pending work. See `SchedulerRef`.
    open var isDriven: Bool { false }

    /// The current scheduler of the calling thread (borrowed), or nil outside
    /// scheduled work.
    public static var current: Scheduler? {
        guard let p = ripple_thread()!.pointee.scheduler else { return nil }
        return Unmanaged<Scheduler>.fromOpaque(p).takeUnretainedValue()
    }

    /// Runs `job` with `self` as the thread's current scheduler.
    @inline(__always)
    public final func execute(_ job: Job) {
        let t = ripple_thread()!
        let saved = t.pointee.scheduler
        t.pointee.scheduler = Unmanaged.passUnretained(self).toOpaque()
        job.run(on: self)
        t.pointee.scheduler = saved
    }
}

extension Scheduler {
    /// Runs `action` as soon as possible. The returned disposable cancels it
    /// if it has not started; the closure is dropped once it has run or been
    /// cancelled.
    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> Disposable {
        let a = ScheduledAction(action, interval: 0)
        enqueue(a)
        return a
    }

    /// Runs `action` once `delay` ns have passed on this scheduler's clock.
    @discardableResult
    public func schedule(after delay: UInt64, _ action: @escaping () -> Void) -> Disposable {
        let a = ScheduledAction(action, interval: 0)
        a.deadline = Scheduler.add(now, delay)
        enqueue(a, at: a.deadline)
        return a
    }

    /// Runs `action` after `delay` ns, then every `interval` ns (> 0) until
    /// the returned disposable is disposed. Occurrences are due at
    /// `start + delay + k * interval`, so they do not drift.
    @discardableResult
    public func schedule(after delay: UInt64, repeating interval: UInt64, _ action: @escaping () -> Void) -> Disposable {
        precondition(interval > 0, "a repeating interval must be positive")
        let a = ScheduledAction(action, interval: interval)
        a.deadline = Scheduler.add(now, delay)
        enqueue(a, at: a.deadline)
        return a
    }

    /// Runs `action` once the clock reaches `time`.
    @discardableResult
    public func schedule(at time: UInt64, _ action: @escaping () -> Void) -> ScheduledAction {
        let a = ScheduledAction(action)
        a.deadline = time
        enqueue(a, at: time)
        return a
    }

    /// Enqueues `action` after `delay` ns (nil: as soon as possible) and
    /// returns it (the disposable that cancels it).
    @discardableResult
    public func submit(_ action: ScheduledAction, after delay: UInt64?) -> ScheduledAction {
        if let delay {
            action.deadline = Scheduler.add(now, delay)
            enqueue(action, at: action.deadline)
        } else {
            enqueue(action)
        }
        return action
    }

    /// `a + b`, saturating at UInt64.max.
    @inline(__always)
    public static func add(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (s, o) = a.addingReportingOverflow(b)
        return o ? .max : s
    }
}

/// One-shot or repeating work with a closure. Disposing it before it starts
/// cancels it; disposing it while it runs lets the run finish and stops any
/// repetition. The closure (and what it captured, e.g. a C context) is
/// dropped exactly once: after a one-shot run, on cancel, or when the last
/// reference goes (a scheduler freed with the job pending).
public final class ScheduledAction: Job, @unchecked Sendable {
    static let running: UInt8 = 1
    static let disposed: UInt8 = 2
    static let finished: UInt8 = 4

    private let state = Atomic<UInt8>(0)
    /// Read and dropped only by whoever the state machine designates.
    @exclusivity(unchecked) private var action: (() -> Void)?
    /// The C form, `function(context)` then `release(context)` once: one
    /// allocation per item instead of a closure and a context box.
    @exclusivity(unchecked) private var function: RawCallback?
    @exclusivity(unchecked) private var context: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var release: RawCallback?
    let interval: UInt64
    /// Due time of the next occurrence (scheduler clock).
    @exclusivity(unchecked) var deadline: UInt64 = 0

    /// Not yet enqueued: pass it to `enqueue` (set `deadline` first for a
    /// timed one).
    public init(_ action: @escaping () -> Void, interval: UInt64 = 0) {
        self.action = action
        self.interval = interval
        super.init()
    }

    /// A C callback; `release(context)` runs exactly once when the action is
    /// dropped (after a one-shot run, on cancel, or when freed unrun).
    public init(function: RawCallback, context: UnsafeMutableRawPointer?, release: RawCallback?,
                interval: UInt64 = 0) {
        self.function = function
        self.context = context
        self.release = release
        self.interval = interval
        super.init()
    }

    deinit { drop() }

    @inline(__always)
    private func invoke() {
        if let function { function(context) } else { action.unsafelyUnwrapped() }
    }

    /// Drops the work (closure or C context); idempotent.
    private func drop() {
        action = nil
        function = nil
        if let r = release {
            release = nil
            r(context)
        }
    }

    public override func run(on scheduler: Scheduler) {
        var s = state.load(ordering: .acquiring)
        while true {
            if s & (ScheduledAction.disposed | ScheduledAction.finished) != 0 { return }
            let (ok, cur) = state.compareExchange(expected: s, desired: s | ScheduledAction.running,
                                                  ordering: .acquiringAndReleasing)
            if ok { break }
            s = cur
        }
        invoke()
        // A next occurrence past the end of the clock never falls due: end
        // here. (Saturating it at UInt64.max would make it due again at
        // once, and a test scheduler advanced to the top would never return.)
        let (next, pastEnd) = deadline.addingReportingOverflow(interval)
        if interval == 0 || pastEnd {
            // One-shot: nobody else drops the closure once RUNNING was set.
            state.bitwiseOr(ScheduledAction.finished, ordering: .acquiringAndReleasing)
            drop()
            return
        }
        // Repeating: clear RUNNING; if disposed meanwhile, the drop is ours.
        let old = state.bitwiseAnd(~ScheduledAction.running, ordering: .acquiringAndReleasing).oldValue
        if old & ScheduledAction.disposed != 0 {
            drop()
            return
        }
        deadline = next
        scheduler.enqueue(self, at: deadline)
    }

    public override func dispose() {
        var s = state.load(ordering: .acquiring)
        while true {
            if s & ScheduledAction.disposed != 0 { return }
            let (ok, cur) = state.compareExchange(expected: s, desired: s | ScheduledAction.disposed,
                                                  ordering: .acquiringAndReleasing)
            if ok { break }
            s = cur
        }
        // Neither running nor finished: the closure will never run, drop it now.
        if s & (ScheduledAction.running | ScheduledAction.finished) == 0 { drop() }
    }

    /// True once cancelled, or once a one-shot action has run.
    public override var isDisposed: Bool {
        state.load(ordering: .acquiring) & (ScheduledAction.disposed | ScheduledAction.finished) != 0
    }
}

/// Disposes its target if that is still alive, without keeping it alive.
/// Subscriptions hold their scheduled jobs and upstream subscriptions through
/// it, so no cycle outlives the scheduler or the source (rule 6a).
public final class WeakDisposable: Disposable {
    weak var target: Disposable?
    public init(_ target: Disposable) {
        self.target = target
        super.init()
    }
    public override func dispose() { target?.dispose() }
    public override var isDisposed: Bool { target?.isDisposed ?? true }
}

// MARK: Queues shared by the scheduler implementations

/// A FIFO of jobs (array plus head index; compacts as it drains).
struct JobQueue {
    private var items: [Job?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }

    mutating func append(_ j: Job) { items.append(j) }

    mutating func popFirst() -> Job? {
        guard head < items.count else { return nil }
        let j = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return j
    }

    /// Takes every job, leaving the queue empty.
    mutating func takeAll() -> [Job?] {
        if head > 0 { items.removeFirst(head); head = 0 }
        let all = items
        items = []
        return all
    }
}

/// A min-heap of jobs by (time, sequence): FIFO among equal times.
struct TimerHeap {
    struct Entry {
        let time: UInt64
        let seq: UInt64
        let job: Job
        @inline(__always) func before(_ o: Entry) -> Bool { time < o.time || (time == o.time && seq < o.seq) }
    }
    private var items: [Entry] = []
    private var nextSeq: UInt64 = 0

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var earliest: UInt64? { items.first?.time }

    mutating func push(_ job: Job, at time: UInt64) {
        items.append(Entry(time: time, seq: nextSeq, job: job))
        nextSeq &+= 1
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if !items[i].before(items[p]) { break }
            items.swapAt(i, p)
            i = p
        }
    }

    /// Removes every entry and returns the jobs.
    mutating func removeAll() -> [Job] {
        let jobs = items.map(\.job)
        items = []
        return jobs
    }

    /// Removes the earliest entry if its time is <= `limit`.
    mutating func pop(dueBy limit: UInt64) -> Entry? {
        guard let top = items.first, top.time <= limit else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && items[l].before(items[m]) { m = l }
                if r < items.count && items[r].before(items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }
}

// MARK: Operator support

/// How operator signals and their per-subscription state hold a scheduler. A thread-backed
/// scheduler is held strongly: the subscription outlives the operator signal
/// (rule 6a) and must still be able to schedule. A driven scheduler is held
/// weakly: its pending jobs hold operator state and signals, so a strong
/// reference back would be a cycle that leaks once the program releases the
/// scheduler; and a freed driven scheduler could never run the work anyway.
/// A driven scheduler lives exactly as long as its owner's references.
public struct SchedulerRef {
    private let strong: Scheduler?
    private weak var weakRef: Scheduler?

    public init(_ s: Scheduler) {
        if s.isDriven {
            strong = nil
            weakRef = s
        } else {
            strong = s
        }
    }

    /// The scheduler, or nil if it was a driven scheduler now freed.
    @inline(__always)
    public var scheduler: Scheduler? { strong ?? weakRef }
}

/// Forwards an upstream subscription's events into a relay subscriber.
/// Operators whose events arrive from scheduler threads (or must be able to
/// end early from a timer) subscribe upstream with it, so that the relay
/// serializes delivery downstream.
///
/// Ownership: the upstream source holds this sink, which holds the relay;
/// the relay holds the upstream subscription only weakly (`link`). So when
/// the source is freed the upstream subscription ends, `finish` disposes
/// the relay, and nothing is left in a cycle (rule 6a).
open class SchedulerRelaySink: Sink {
    public let relay: Subscriber
    public init(_ relay: Subscriber) { self.relay = relay }

    open override func onNext(_ value: borrowing Value) { relay.sendNext(value.retained()) }
    open override func onError(_ error: RippleError) { relay.sendError(error) }
    open override func onCompleted() { relay.sendCompleted() }
    /// The upstream subscription ended. After a forwarded terminal event this
    /// is a no-op; otherwise nothing can reach the relay any more.
    open override func finish() { relay.dispose() }
}

extension Subscriber {
    /// A new subscriber for `sink`, started (it exists before any upstream
    /// subscription, rule 3).
    public static func relay(_ sink: Sink) -> Subscriber {
        let r = Subscriber(sink)
        r.start()
        return r
    }

    /// A subscription that is over at once (its release runs): what an
    /// operator returns when its driven scheduler (test scheduler, run loop)
    /// has been freed, since nothing could ever deliver to it.
    public static func ended(_ sink: Sink) -> Subscriber {
        let r = relay(sink)
        r.dispose()
        return r
    }

    /// Disposes `d` with this subscription, without keeping `d` alive.
    public func link(_ d: Disposable) { addResource(WeakDisposable(d)) }
}
