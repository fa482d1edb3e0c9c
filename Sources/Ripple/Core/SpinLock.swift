import Glibc
import Synchronization

// The lock for a critical section of a few instructions that never runs
// user code and never waits (deliver_on's queue, a write's queue, an OS
// watch's registration): a collision spins instead of sleeping in the
// kernel. Everything that may wait, or hold the lock longer, takes a
// `StripeLock` (a gate's stripe, or a `Lock`'s own pair).

/// A test-and-test-and-set lock for critical sections of a few instructions
/// with no user code: a collision spins instead of sleeping in the kernel.
struct SpinLock: ~Copyable {
    let word = Atomic<Bool>(false)

    @inline(__always)
    func lock() {
        if !word.exchange(true, ordering: .acquiring) { return }
        var spins = 0
        while true {
            while word.load(ordering: .relaxed) {
                spins += 1
                if spins > 256 { sched_yield() }
            }
            if !word.exchange(true, ordering: .acquiring) { return }
        }
    }

    @inline(__always)
    func unlock() { word.store(false, ordering: .releasing) }
}
