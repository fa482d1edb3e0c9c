import Glibc
import RippleSupport
import Synchronization

// os_signal: the signal number each time the process gets the signal while
// subscribed. The first subscription to a signal number installs Ripple's
// handler (the previous disposition is saved, not chained: it does not run
// while subscribed); the last one to end restores it. The handler writes the
// number into a self-pipe that the process-wide watcher reads; each
// subscription to that number then gets it, as work on its scheduler.
// Deliveries of one signal that arrive before a subscription's pending one
// has run are counted, not dropped (only a full pipe coalesces them).

public final class OSSignalSignal: SourceSignal {
    let signo: Int32

    public init(signo: Int32, _ scheduler: Scheduler) {
        self.signo = signo
        super.init(scheduler)
    }

    public override var needsWatcher: Bool { false }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        OSSignalWatch(signo: signo, subscriber, scheduler)
    }
}

final class OSSignalWatch: SourceWatch, @unchecked Sendable {
    let signo: Int32
    /// Deliveries not yet sent; a job is pending while non-zero.
    private let pending = Atomic<Int>(0)

    init(signo: Int32, _ subscriber: Subscriber, _ scheduler: Scheduler) {
        self.signo = signo
        super.init(fd: -1, subscriber, scheduler, nil, interest: 0)
    }

    override func start() throws(OSFailure) {
        try SignalRegistry.add(self)
        if isDisposed { SignalRegistry.remove(self) }  // a dispose that ran before the add
    }

    override func stopped() { SignalRegistry.remove(self) }

    override func fire(_ events: UInt32) {
        if pending.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
            guard let s = scheduler.scheduler else {
                dispose()
                return
            }
            s.enqueue(self)
        }
    }

    override func handle(_ events: UInt32) -> Bool {
        var n = pending.load(ordering: .acquiring)
        while n > 0 {
            subscriber.sendNext(.int(Int64(signo)))
            if isDisposed { return false }
            n = pending.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue
        }
        return false
    }
}

/// The subscriptions per signal number and the self-pipe's reader.
enum SignalRegistry {
    private static let lock = Lock()
    nonisolated(unsafe) private static var watches: [[ObjectIdentifier: OSSignalWatch]] = []
    nonisolated(unsafe) private static var reader: SignalPipeReader?

    static func add(_ w: OSSignalWatch) throws(OSFailure) {
        lock.lock()
        defer { lock.unlock() }
        if reader == nil || reader!.watcher.inert {
            // First use, or a forked child: subscriptions inherited from the
            // parent stay inert here, like its other watches (docs/behaviour.md#os-fork).
            watches = Array(repeating: [:], count: 65)
            let fd = ripple_io_signal_pipe()
            if fd < 0 { throw OSFailure(ripple_io_errno(), "pipe2") }
            guard let watcher = Watcher.shared() else { throw OSFailure(ripple_io_errno(), "epoll_create1") }
            let r = SignalPipeReader(fd: fd, watcher)
            let e = watcher.add(r, events: UInt32(RIPPLE_IO_IN))
            if e != 0 { throw OSFailure(e, "epoll_ctl") }
            reader = r
        }
        let n = Int(w.signo)
        if watches[n].isEmpty {
            let e = ripple_io_signal_install(w.signo)
            if e != 0 { throw OSFailure(e, "sigaction") }
        }
        watches[n][ObjectIdentifier(w)] = w
    }

    static func remove(_ w: OSSignalWatch) {
        lock.lock()
        defer { lock.unlock() }
        let n = Int(w.signo)
        guard n < watches.count, watches[n].removeValue(forKey: ObjectIdentifier(w)) != nil else { return }
        if watches[n].isEmpty { ripple_io_signal_restore(w.signo) }
    }

    /// Signal `signo` arrived: each subscription to it gets it.
    static func deliver(_ signo: Int) {
        lock.lock()
        let targets = signo < watches.count ? Array(watches[signo].values) : []
        lock.unlock()
        for w in targets { w.fire(0) }
    }
}

/// Reads signal numbers from the self-pipe, on the watcher's thread.
final class SignalPipeReader: Watch, @unchecked Sendable {
    let watcher: Watcher

    init(fd: Int32, _ watcher: Watcher) {
        self.watcher = watcher
        super.init(fd: fd)
        excludeFromLiveCount()  // lives as long as the process, like the shared schedulers
    }

    override func fire(_ events: UInt32) {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while true {
            var err: Int32 = 0
            let n = withUnsafeMutableBytes(of: &bytes) { b in ripple_io_read(fd, b.baseAddress, b.count, &err) }
            if n <= 0 { break }
            withUnsafeBytes(of: &bytes) { b in
                for i in 0..<n { SignalRegistry.deliver(Int(b[i])) }
            }
        }
        _ = watcher.rearm(self, events: UInt32(RIPPLE_IO_IN))
    }
}

extension Signal {
    /// `signo` each time the process gets that signal, on `scheduler`.
    public static func osSignal(_ signo: Int32, on scheduler: Scheduler) -> Signal {
        OSSignalSignal(signo: signo, scheduler)
    }
}
