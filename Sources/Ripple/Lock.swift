import Glibc

// pthread_mutex_t rather than Synchronization.Mutex: Mutex is a PI futex on
// Linux, which hands the lock straight to a sleeping waiter, so when runnable
// threads outnumber cores every acquisition becomes a context switch (1M sends
// from 6-16 threads took seconds instead of tens of milliseconds); glibc's
// mutex lets a running thread take it. The mutex lives behind a pointer so it never moves.

/// A plain, non-recursive mutex with a condition variable.
public final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let cond: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        initCondition()
    }

    private func initCondition() {
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    /// In a forked child, with the mutex held: the condition's copied state
    /// may count waiters that stayed in the parent.
    public func resetConditionAfterFork() { initCondition() }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    @inlinable @inline(__always) public func lock() { pthread_mutex_lock(mutex) }
    @inlinable @inline(__always) public func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable @inline(__always)
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits on the condition; the lock must be held.
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits until `deadline` (CLOCK_MONOTONIC ns); false on timeout.
    public func wait(until deadline: UInt64) -> Bool {
        if deadline == UInt64.max { wait(); return true }
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(cond, mutex, &ts) != ETIMEDOUT
    }

    public func broadcast() { pthread_cond_broadcast(cond) }
    public func signal() { pthread_cond_signal(cond) }
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
