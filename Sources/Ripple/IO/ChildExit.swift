import Glibc
import RippleSupport

// child_exit: the raw waitpid status of a child process once it has ended
// (the child is reaped), then completes. A pid that is not this process's
// child fails with ECHILD (as does one another waiter reaped first). The
// exit is watched through a pidfd, which the subscription owns; where the
// kernel has none (before Linux 5.3, or under valgrind), the child is polled
// every 5 ms on the scheduler instead (docs/behaviour.md#os-child-exit).

public final class ChildExitSignal: SourceSignal {
    let pid: Int64

    public init(pid: Int64, _ scheduler: Scheduler) {
        self.pid = pid
        super.init(scheduler)
    }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        let e = ripple_io_child_check(pid)
        if e != 0 { throw OSFailure(e, "waitid") }
        let fd = ripple_io_pidfd_open(pid)
        if fd < 0 {
            let e = ripple_io_errno()
            if e != ENOSYS { throw OSFailure(e, "pidfd_open") }
        }
        return ChildExitWatch(fd: fd, pid: pid, subscriber, scheduler, watcher)
    }
}

final class ChildExitWatch: SourceWatch, @unchecked Sendable {
    let pid: Int64

    init(fd: Int32, pid: Int64, _ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) {
        self.pid = pid
        super.init(fd: fd, subscriber, scheduler, watcher, interest: UInt32(RIPPLE_IO_IN))
    }

    /// Without a pidfd: the polling timer.
    @exclusivity(unchecked) private var poll: Disposable?
    static let pollInterval: UInt64 = 5_000_000

    // The pidfd is closed only here: no job can be using it any more.
    deinit { if fd >= 0 { close(fd) } }

    override func start() throws(OSFailure) {
        if fd >= 0 { return try super.start() }
        guard let s = scheduler.scheduler else { return }
        // The timer holds the watch (as a watcher's slot would) until the
        // watch is disposed, which cancels the timer and so drops it.
        poll = s.schedule(after: 0, repeating: ChildExitWatch.pollInterval) {
            if !self.isDisposed { _ = self.handle(0) }
        }
        if isDisposed { poll?.dispose() }
    }

    override func stopped() { poll?.dispose() }

    override func handle(_ events: UInt32) -> Bool {
        var status: Int32 = 0
        var err: Int32 = 0
        guard let r = io({ ripple_io_child_reap(pid, &status, &err) }) else { return false }
        if r == 0 { return true }  // not ended yet
        if r < 0 {
            fail(err, "waitpid")
            return false
        }
        subscriber.sendNext(.int(Int64(status)))
        subscriber.sendCompleted()
        return false
    }
}

extension Signal {
    /// The wait status of child `pid` once it ends, on `scheduler`.
    public static func childExit(_ pid: Int64, on scheduler: Scheduler) -> Signal { ChildExitSignal(pid: pid, scheduler) }
}
