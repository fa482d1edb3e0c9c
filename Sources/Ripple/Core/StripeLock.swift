import Glibc
import RippleSupport

/// One stripe of the shared lock table (RippleSupport): a mutex and a
/// condition. A condition wait wakes every waiter of the stripe, and each
/// re-checks its own gate.
@usableFromInline
struct StripeLock {
    @usableFromInline let stripe: UnsafeMutablePointer<ripple_stripe>
    @inlinable init(_ stripe: UnsafeMutablePointer<ripple_stripe>) { self.stripe = stripe }

    @inlinable @inline(__always) func lock() { pthread_mutex_lock(&stripe.pointee.mutex) }
    @inlinable @inline(__always) func unlock() { pthread_mutex_unlock(&stripe.pointee.mutex) }
    @inlinable @inline(__always) func wait() { pthread_cond_wait(&stripe.pointee.cond, &stripe.pointee.mutex) }
    @inlinable @inline(__always) func broadcast() { pthread_cond_broadcast(&stripe.pointee.cond) }
    @inlinable @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
