import Glibc
import RippleSupport

// Thread-backed schedulers: a FIFO of ready jobs and a timer heap under one
// mutex, served by up to `maxThreads` worker threads (1: a serial scheduler;
// more: the background pool).
//
// Hand-off cost: enqueueing is one lock/append/unlock; a worker is woken
// (condition signal) only if one is asleep, and a serial worker takes the
// whole ready queue as one batch, so a producer that keeps the queue busy
// pays no wake-up per job.
//
// Lifetime: workers are created on demand and exit after `linger` ns with
// nothing to do. A worker holds its scheduler strongly, and one exists
// whenever work (ready or timed) is pending, so pending work keeps its
// scheduler alive and releasing a scheduler cancels nothing.

/// A scheduler served by a small set of worker threads.
public class WorkerScheduler: Scheduler, @unchecked Sendable {
    let lock = Lock()
    let maxThreads: Int
    let linger: UInt64
    let label: String
    @exclusivity(unchecked) var ready = Fifo<Job>()
    @exclusivity(unchecked) var timers = TimerHeap()
    @exclusivity(unchecked) var threads = 0
    @exclusivity(unchecked) var idle = 0
    /// The fork generation `threads` and `idle` were counted in.
    @exclusivity(unchecked) var forkGeneration = ripple_current_fork_generation()

    init(label: String, maxThreads: Int, linger: UInt64) {
        self.label = label
        self.maxThreads = max(1, maxThreads)
        self.linger = linger
        super.init()
    }

    public override func enqueue(_ job: Job) {
        lock.lock()
        ready.append(job)
        wakeOrSpawn()
        lock.unlock()
    }

    public override func enqueue(_ job: Job, at time: UInt64) {
        lock.lock()
        timers.push(job, at: time)
        wakeOrSpawn()
        lock.unlock()
    }

    /// How long a worker sleeps at most while a timer is pending (ns).
    static let timerRecheck: UInt64 = 1_000_000_000

    /// Under `lock`: makes sure a worker will look at the queues.
    private func wakeOrSpawn() {
        let generation = ripple_current_fork_generation()
        if generation != forkGeneration {
            // A forked child: the workers counted here stayed in the parent,
            // and the condition may record their waits. Start afresh.
            forkGeneration = generation
            threads = 0
            idle = 0
            lock.resetConditionAfterFork()
        }
        if idle > 0 {
            lock.signal()
        } else if threads < maxThreads {
            threads += 1
            spawn()
        }
        // Otherwise every worker is busy and checks the queues when done.
    }

    private func spawn() {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        var tid = pthread_t()
        let arg = Unmanaged.passRetained(self).toOpaque()  // the worker's reference
        let rc = pthread_create(&tid, &attr, { p in
            let s = Unmanaged<WorkerScheduler>.fromOpaque(p!).takeRetainedValue()
            s.work()
            return nil
        }, arg)
        pthread_attr_destroy(&attr)
        if rc != 0 {
            Unmanaged<WorkerScheduler>.fromOpaque(arg).release()
            threads -= 1
            precondition(threads > 0, "ripple: cannot create a scheduler thread (error \(rc))")
        }
    }

    /// A worker's loop; returns (and drops its reference) after lingering idle.
    private func work() {
        nameThread()
        lock.lock()
        var idleSince: UInt64 = 0
        // The serial worker's batch: swapped with `ready` and drained, so the
        // two buffers (up to Fifo's kept size) are reused batch after batch,
        // not grown from nothing and freed each time.
        var batch = Fifo<Job>()
        while true {
            let now = monotonicNow()
            while let e = timers.pop(dueBy: now) { ready.append(e.job) }
            if !ready.isEmpty {
                idleSince = 0
                if maxThreads == 1 {
                    swap(&ready, &batch)
                    runUnlocked(draining: &batch)
                } else {
                    let job = ready.popFirst().unsafelyUnwrapped
                    if !ready.isEmpty && idle > 0 { lock.signal() }
                    runUnlocked(job)
                }
                continue
            }
            if idleSince == 0 { idleSince = now }
            // A cancelled timer is not waited for (a far one, UINT64_MAX ns,
            // would keep this worker, and the scheduler, for ever); one
            // cancelled while this worker sleeps is seen within a second.
            timers.dropCancelledTop()
            let wake: UInt64
            if let t = timers.earliest {
                wake = min(t, now &+ WorkerScheduler.timerRecheck)
            } else if now >= idleSince &+ linger {
                threads -= 1
                lock.unlock()
                return
            } else {
                wake = idleSince &+ linger
            }
            idle += 1
            _ = lock.wait(until: wake)
            idle -= 1
        }
    }

    /// A separate function, so the name's buffer is freed before the worker
    /// idles: in a forked child an idle parent worker's stack is gone, and
    /// what only it referenced would be lost.
    @inline(never)
    private func nameThread() {
        var name = Array(label.utf8.prefix(15)).map { CChar(bitPattern: $0) }
        name.append(0)
        pthread_setname_np(pthread_self(), name)
    }

    /// Runs `jobs` with the lock released; the jobs are dropped before the
    /// lock is taken again, so no release callback runs under it.
    private func runUnlocked(draining jobs: inout Fifo<Job>) {
        lock.unlock()
        while let j = jobs.popFirst() { execute(j) }
        lock.lock()
    }

    /// Runs `job` as `runUnlocked(_ jobs:)` runs each.
    private func runUnlocked(_ job: consuming Job) {
        lock.unlock()
        execute(job)
        _ = consume job
        lock.lock()
    }
}

/// FIFO, one job at a time, on its own thread.
public final class SerialScheduler: WorkerScheduler, @unchecked Sendable {
    public init(label: String) {
        super.init(label: label, maxThreads: 1, linger: 50_000_000)
    }
}
