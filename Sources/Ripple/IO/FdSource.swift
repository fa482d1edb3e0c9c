import RippleSupport

// fd_readable / fd_writable: sends the descriptor (an int) each time it is
// ready, level-triggered: after each value the watch is armed again, so a
// descriptor that is still ready is sent again (the observer reads or
// writes it, or disposes). Never completes by itself.

public final class FdReadinessSignal: SourceSignal {
    let fd: Int32
    let writable: Bool

    public init(fd: Int32, writable: Bool, _ scheduler: Scheduler) {
        self.fd = fd
        self.writable = writable
        super.init(scheduler)
    }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        FdReadinessWatch(fd: fd, subscriber, scheduler, watcher,
                         interest: UInt32(writable ? RIPPLE_IO_OUT : RIPPLE_IO_IN))
    }
}

final class FdReadinessWatch: SourceWatch, @unchecked Sendable {
    override func handle(_ events: UInt32) -> Bool {
        subscriber.sendNext(.int(Int64(fd)))
        return true
    }
}

extension Signal {
    /// The descriptor, each time it is readable (level-triggered), on `scheduler`.
    public static func fdReadable(_ fd: Int32, on scheduler: Scheduler) -> Signal {
        FdReadinessSignal(fd: fd, writable: false, scheduler)
    }
    /// The descriptor, each time it is writable (level-triggered), on `scheduler`.
    public static func fdWritable(_ fd: Int32, on scheduler: Scheduler) -> Signal {
        FdReadinessSignal(fd: fd, writable: true, scheduler)
    }
}
