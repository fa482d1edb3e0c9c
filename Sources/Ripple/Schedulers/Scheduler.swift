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
        // Scheduled work is not an operator callback, even when it runs
        // inside one (the immediate scheduler): rpl_callback_fail refuses.
        outsideFailureChannel { job.run(on: self) }
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
