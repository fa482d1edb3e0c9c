import Glibc
import RippleSupport

/// A mutex and its condition (a `ripple_stripe`), by pointer: the one lock
/// of the runtime. Gates use one stripe of the shared table (RippleSupport),
/// so a gate allocates no lock of its own; a `Lock` owns its pair. A
/// condition wait on a stripe wakes every waiter of the stripe, and each
/// re-checks its own gate.
@usableFromInline
struct StripeLock {
    @usableFromInline let stripe: UnsafeMutablePointer<ripple_stripe>
    @inlinable init(_ stripe: UnsafeMutablePointer<ripple_stripe>) { self.stripe = stripe }

    @inlinable @inline(__always) func lock() { pthread_mutex_lock(&stripe.pointee.mutex) }
    @inlinable @inline(__always) func unlock() { pthread_mutex_unlock(&stripe.pointee.mutex) }
    @inlinable @inline(__always) func wait() { pthread_cond_wait(&stripe.pointee.cond, &stripe.pointee.mutex) }
    @inlinable @inline(__always) func broadcast() { pthread_cond_broadcast(&stripe.pointee.cond) }
    @inlinable @inline(__always) func signal() { pthread_cond_signal(&stripe.pointee.cond) }
    @inlinable @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits until `deadline` (CLOCK_MONOTONIC ns: the condition must have
    /// been made for that clock, as a `Lock`'s is); false on timeout.
    func wait(until deadline: UInt64) -> Bool {
        if deadline == UInt64.max { wait(); return true }
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(&stripe.pointee.cond, &stripe.pointee.mutex, &ts) != ETIMEDOUT
    }
}
