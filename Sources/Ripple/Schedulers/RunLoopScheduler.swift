import Glibc
import RippleSupport
import Synchronization

// A scheduler that a C program drives from its own loop (a GUI or event-loop
// thread): work runs only inside runOne / runUntilIdle / run, on the thread
// that calls them.
//
// Wake-up: `fd` is an epoll descriptor holding an eventfd (non-zero exactly
// while ready work is queued) and a timerfd (armed for the earliest timed
// job). So `fd` is readable whenever work is ready or a timer is due, and a
// program can poll it beside its other descriptors with no timeout of its own.

/// A host-driven scheduler.
public final class RunLoopScheduler: Scheduler, @unchecked Sendable {
    private let lock = Lock()
    @exclusivity(unchecked) private var ready = Fifo<Job>()
    @exclusivity(unchecked) private var timers = TimerHeap()
    @exclusivity(unchecked) private var armed: UInt64 = 0  // timerfd deadline, 0 = disarmed
    @exclusivity(unchecked) private var stopRequested = false
    /// Thread token of the thread inside a run call (0: none).
    private let driver = Atomic<UInt>(0)
    private let eventFD: Int32
    private let timerFD: Int32
    /// The descriptor to poll.
    public let fd: Int32
    /// The OS sources' watcher (Watcher.swift), made on first use; its epoll
    /// set sits in `fd`, so `fd` is readable while one of them is ready.
    private let ioWatcher = Atomic<UnsafeRawPointer?>(nil)

    /// A new run loop; nil if its descriptors cannot be created.
    public static func make() -> RunLoopScheduler? {
        let e = ripple_eventfd()
        let t = ripple_timerfd()
        let p = e >= 0 && t >= 0 ? ripple_epoll_pair(e, t) : -1
        guard p >= 0 else {
            for f in [e, t] where f >= 0 { close(f) }
            return nil
        }
        return RunLoopScheduler(eventFD: e, timerFD: t, fd: p)
    }

    private init(eventFD: Int32, timerFD: Int32, fd: Int32) {
        self.eventFD = eventFD
        self.timerFD = timerFD
        self.fd = fd
        super.init()
    }

    deinit {
        // Nothing can run the pending jobs any more: cancel them (see
        // TestScheduler.deinit).
        while let j = ready.popFirst() { j.dispose() }
        for j in timers.removeAll() { j.dispose() }
        if let w = ioWatcher.load(ordering: .acquiring) {
            // Its sources' watches hold it (and their subscriptions): end them.
            Unmanaged<Watcher>.fromOpaque(w).takeUnretainedValue().cancelAll()
            Unmanaged<Watcher>.fromOpaque(w).release()
        }
        close(fd)
        close(eventFD)
        close(timerFD)
    }

    public override var isDriven: Bool { true }

    /// The watcher of the OS sources delivering here; nil (errno set) if it
    /// cannot be made.
    public func watcher() -> Watcher? {
        if let w = ioWatcher.load(ordering: .acquiring) { return Unmanaged<Watcher>.fromOpaque(w).takeUnretainedValue() }
        guard let w = Watcher() else { return nil }
        guard ripple_io_epoll_add(fd, w.epfd, UInt32(RIPPLE_IO_IN), 0) == 0 else { return nil }
        let p = UnsafeRawPointer(Unmanaged.passRetained(w).toOpaque())
        let (ok, current) = ioWatcher.compareExchange(expected: nil, desired: p, ordering: .acquiringAndReleasing)
        if ok { return w }
        // Another thread made one first: use it.
        _ = ripple_io_epoll_del(fd, w.epfd)
        Unmanaged<Watcher>.fromOpaque(p).release()
        return Unmanaged<Watcher>.fromOpaque(current!).takeUnretainedValue()
    }

    /// Turns the OS sources that are ready into queued work (their jobs
    /// enqueue here). Not under `lock`.
    private func collectSources() {
        guard let p = ioWatcher.load(ordering: .acquiring) else { return }
        let w = Unmanaged<Watcher>.fromOpaque(p).takeUnretainedValue()
        if w.hasWatches { w.harvest(timeoutMs: 0) }
    }

    public override func enqueue(_ job: Job) {
        lock.lock()
        let wasEmpty = ready.isEmpty
        ready.append(job)
        if wasEmpty { signalFD() }
        lock.unlock()
    }

    public override func enqueue(_ job: Job, at time: UInt64) {
        lock.lock()
        timers.push(job, at: time)
        rearm()
        lock.unlock()
    }

    // MARK: Driving

    public enum DriveError: Error { case otherThread }

    /// Runs one ready (or due) job; false if there was none.
    public func runOne() throws(DriveError) -> Bool {
        try drive { nextJob().map { execute($0); return true } ?? false }
    }

    /// Jobs taken since the OS sources were last collected; only the driving
    /// thread touches it.
    private var sinceCollect = 0

    /// The next job. Sources are collected when nothing else is ready, and
    /// every 64 jobs, so a busy queue does not starve them, and an idle
    /// source costs no epoll_wait per job (an adapter drives with runOne).
    private func nextJob() -> Job? {
        sinceCollect += 1
        if sinceCollect >= 64 {
            sinceCollect = 0
            collectSources()
        }
        if let j = takeOne() { return j }
        sinceCollect = 0
        collectSources()
        return takeOne()
    }

    /// Runs ready and due work until there is none; returns how many ran.
    public func runUntilIdle() throws(DriveError) -> Int {
        try drive {
            // Sources are collected once: one that stays ready (fd_readable
            // with nobody reading) is handled once per call, not for ever.
            collectSources()
            var n = 0
            while let j = takeOne() {
                execute(j)
                n += 1
            }
            return n
        }
    }

    /// Runs work, sleeping while there is none, until `stop()`.
    public func run() throws(DriveError) {
        try drive {
            while true {
                lock.lock()
                let stop = stopRequested
                stopRequested = false
                if stop && ready.isEmpty {
                    var x: UInt64 = 0
                    _ = read(eventFD, &x, 8)  // the stop's wake-up: not work
                }
                lock.unlock()
                if stop { return }
                if let j = nextJob() { execute(j) } else { ripple_wait_readable(fd) }
            }
        }
    }

    /// Makes `run` return after its current job. Any thread; if no `run` is
    /// active, the next one returns at once.
    public func stop() {
        lock.lock()
        stopRequested = true
        signalFD()
        lock.unlock()
    }

    /// ns until the earliest timer is due (0 if work is ready, UInt64.max if
    /// nothing is pending): a poll timeout for loops that prefer one.
    public var timeUntilNext: UInt64 {
        lock.withLock {
            if !ready.isEmpty { return 0 }
            guard let t = timers.earliest else { return .max }
            let n = monotonicNow()
            return t > n ? t - n : 0
        }
    }

    private func drive<R>(_ body: () -> R) throws(DriveError) -> R {
        let me = UInt(bitPattern: ripple_thread()!)
        let prev = driver.load(ordering: .acquiring)
        if prev != 0 && prev != me { throw .otherThread }
        if prev == 0 {
            guard driver.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged else { throw .otherThread }
        }
        let r = body()
        if prev == 0 { driver.store(0, ordering: .releasing) }
        return r
    }

    /// Pops the next job, moving due timers to the ready queue first, and
    /// keeps the descriptors' readiness in step with the queues.
    private func takeOne() -> Job? {
        lock.lock()
        let now = monotonicNow()
        var moved = false
        while let e = timers.pop(dueBy: now) {
            ready.append(e.job)
            moved = true
        }
        if moved || (armed != 0 && armed <= now) {
            var x: UInt64 = 0
            _ = read(timerFD, &x, 8)  // consume the expiry
            armed = 0
            rearm()
        }
        let job = ready.popFirst()
        if ready.isEmpty && !stopRequested {
            var x: UInt64 = 0
            _ = read(eventFD, &x, 8)  // reset the counter: nothing ready
        } else if moved {
            signalFD()
        }
        lock.unlock()
        return job
    }

    /// Under `lock`: makes the eventfd readable.
    private func signalFD() {
        var one: UInt64 = 1
        _ = write(eventFD, &one, 8)
    }

    /// Under `lock`: arms the timerfd for the earliest timer (absolute time).
    private func rearm() {
        let t = timers.earliest ?? 0
        if t == armed { return }
        armed = t
        // An absolute time of 0 disarms; a due time is never 0 on this clock.
        _ = ripple_timerfd_set(timerFD, t)
    }
}
