import Glibc
import RippleSupport

// pthread_mutex_t rather than Synchronization.Mutex: Mutex is a PI futex on
// Linux, which hands the lock straight to a sleeping waiter, so when runnable
// threads outnumber cores every acquisition becomes a context switch (1M sends
// from 6-16 threads took seconds instead of tens of milliseconds); glibc's
// mutex lets a running thread take it. The mutex lives behind a pointer so it never moves.

/// A plain, non-recursive mutex with a condition variable, of its own: a
/// `StripeLock` over a pair this lock allocates (its condition waits on the
/// monotonic clock).
public final class Lock: @unchecked Sendable {
    @usableFromInline let pair: StripeLock

    public init() {
        let p = UnsafeMutablePointer<ripple_stripe>.allocate(capacity: 1)
        p.initialize(to: ripple_stripe())
        pthread_mutex_init(&p.pointee.mutex, nil)
        pair = StripeLock(p)
        initCondition()
    }

    private func initCondition() {
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(&pair.stripe.pointee.cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    /// In a forked child, with the mutex held: the condition's copied state
    /// may count waiters that stayed in the parent.
    public func resetConditionAfterFork() { initCondition() }

    deinit {
        pthread_cond_destroy(&pair.stripe.pointee.cond)
        pthread_mutex_destroy(&pair.stripe.pointee.mutex)
        pair.stripe.deallocate()
    }

    @inlinable @inline(__always) public func lock() { pair.lock() }
    @inlinable @inline(__always) public func unlock() { pair.unlock() }

    @inlinable @inline(__always)
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pair.lock()
        defer { pair.unlock() }
        return try body()
    }

    /// Waits on the condition; the lock must be held.
    public func wait() { pair.wait() }

    /// Waits until `deadline` (CLOCK_MONOTONIC ns); false on timeout.
    public func wait(until deadline: UInt64) -> Bool { pair.wait(until: deadline) }

    public func broadcast() { pair.broadcast() }
    public func signal() { pair.signal() }
}

/// Monotonic clock in nanoseconds.
@inlinable
public func monotonicNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// `now + delta`, saturating at UInt64.max ("forever").
@inlinable
public func deadline(after delta: UInt64) -> UInt64 {
    if delta == UInt64.max { return .max }
    let (sum, overflow) = monotonicNow().addingReportingOverflow(delta)
    return overflow ? .max : sum
}
