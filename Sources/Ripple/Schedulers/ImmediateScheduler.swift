import Glibc

// The immediate scheduler runs work on the calling thread before `schedule`
// returns. It is a trampoline (semantics 18a): work scheduled from inside
// immediate work on the same thread is queued and runs right after the
// current item returns, so recursive scheduling never grows the stack.
// `enqueue(at:)` blocks the calling thread until the time has come.

/// Per-thread trampoline state, freed with its thread.
final class Trampoline {
    var active = false
    var queue = Fifo<Job>()
    var deadlines: [ObjectIdentifier: UInt64] = [:]

    static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { p in
            if let p { Unmanaged<Trampoline>.fromOpaque(p).release() }
        }
        return k
    }()

    static var current: Trampoline {
        if let p = pthread_getspecific(key) { return Unmanaged<Trampoline>.fromOpaque(p).takeUnretainedValue() }
        let t = Trampoline()
        pthread_setspecific(key, Unmanaged.passRetained(t).toOpaque())
        return t
    }
}

/// Runs work synchronously on the calling thread.
public final class ImmediateScheduler: Scheduler, @unchecked Sendable {
    /// The shared instance (never freed: not in the live count).
    public static let shared: ImmediateScheduler = {
        let s = ImmediateScheduler()
        s.excludeFromLiveCount()
        return s
    }()

    public override func enqueue(_ job: Job) { submit(job, at: nil) }
    public override func enqueue(_ job: Job, at time: UInt64) { submit(job, at: time) }
    public override var supportsRepeating: Bool { false }

    private func submit(_ job: Job, at time: UInt64?) {
        let t = Trampoline.current
        if t.active {
            if let time { t.deadlines[ObjectIdentifier(job)] = time }
            t.queue.append(job)
            return
        }
        t.active = true
        runOne(job, time)
        while let next = t.queue.popFirst() {
            runOne(next, t.deadlines.isEmpty ? nil : t.deadlines.removeValue(forKey: ObjectIdentifier(next)))
        }
        t.active = false
    }

    private func runOne(_ job: Job, _ time: UInt64?) {
        if let time {
            if time == .max { return }  // never due: dropped, never run
            // A time already reached (delay 0) must not cost a sleep call:
            // even a past deadline can sleep for the timer slack (~50 µs).
            if !job.isDisposed && time > monotonicNow() { sleepUntil(time) }
        }
        execute(job)
    }
}

/// Sleeps until CLOCK_MONOTONIC reaches `time` (ns).
func sleepUntil(_ time: UInt64) {
    var ts = timespec(tv_sec: Int(time / 1_000_000_000), tv_nsec: Int(time % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}
