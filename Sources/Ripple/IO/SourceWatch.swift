import Glibc
import RippleSupport
import Synchronization

// The skeleton of every OS source (fd_readable, read, read_lines, write,
// accept, os_signal, child_exit, file_changes): a signal whose subscription
// is a `SourceWatch`, registered in a watcher (Watcher.swift) while the
// subscription lasts. When the watcher reports it ready, the watch runs as a
// job on the subscription's scheduler, handles the readiness (reads, sends
// values through the subscription's gate) and re-arms. Exactly one job per
// subscription is ever pending or running, so its events keep their order.
//
// Lifetime: the subscriber holds the watch weakly (`Subscriber.hold`); the
// watcher's slot, and the scheduler while a job is queued, hold the watch;
// the watch holds the subscriber (rule 6a: a source that can still send
// keeps its subscription alive). Disposing (the subscription's dispose, its
// terminal event, or a freed run loop cancelling the job) removes the
// registration at once, so the watch is gone when dispose returns, and waits
// out a system call on the descriptor that another thread may be making
// (never a callback): after dispose returns Ripple does not touch the
// descriptor again, and the caller may close it.

extension RippleError {
    /// `RPL_ERROR_DOMAIN_ERRNO`: a failing system call; the code is errno.
    public static let errnoDomain = "errno"

    /// A failing system call `call` with `code` (errno).
    public static func errno(_ code: Int32, _ call: String) -> RippleError {
        RippleError(domain: errnoDomain, code: Int64(code), message: "\(call): \(String(cString: strerror(code)))")
    }
}

/// A system call that failed while a source was being set up: the errno and
/// the call's name.
public struct OSFailure: Error {
    public let code: Int32
    public let call: String
    public init(_ code: Int32, _ call: String) {
        self.code = code
        self.call = call
    }
}

/// One subscription to an OS source.
open class SourceWatch: Watch, @unchecked Sendable {
    public let subscriber: Subscriber
    let scheduler: SchedulerRef
    /// Where the watch is registered (nil for sources fed otherwise: os_signal).
    let watcher: Watcher?
    /// The epoll events waited for (RIPPLE_IO_IN / RIPPLE_IO_OUT).
    @exclusivity(unchecked) var interest: UInt32
    /// Set once, by dispose.
    private let ended = Atomic<Bool>(false)
    /// Held around each system call on the descriptor (never around a
    /// callback): dispose takes it once after setting `ended`. A spin lock:
    /// it is almost never contended, a collision waits out one non-blocking
    /// call, and an idle connection keeps no mutex of its own.
    private let ioLock = SpinLock()
    /// The events of the last report, for the job.
    private let reported = Atomic<UInt32>(0)

    public init(fd: Int32, _ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?, interest: UInt32) {
        self.subscriber = subscriber
        self.scheduler = SchedulerRef(scheduler)
        self.watcher = watcher
        self.interest = interest
        super.init(fd: fd)
    }

    /// Puts the watch in place; the errno and call on failure.
    open func start() throws(OSFailure) {
        let e = watcher!.add(self, events: interest)
        if e != 0 { throw OSFailure(e, "epoll_ctl") }
        if isDisposed { watcher!.remove(self) }  // a dispose that ran before the add
    }

    /// Called once the watch is disposed and its registration removed
    /// (sources with other registrations drop them here).
    open func stopped() {}

    /// Handles readiness (`events`, epoll bits) as work on the scheduler;
    /// returns true to wait for the next readiness.
    open func handle(_ events: UInt32) -> Bool { false }

    public override func fire(_ events: UInt32) {
        reported.store(events, ordering: .releasing)
        guard let s = scheduler.scheduler else {
            dispose()  // a freed run loop: nothing can deliver any more
            return
        }
        s.enqueue(self)
    }

    public override func run(on scheduler: Scheduler) {
        if isDisposed { return }
        if handle(reported.load(ordering: .acquiring)) { rearm() }
    }

    /// Arms the registration again; a descriptor closed under the watch
    /// fails the subscription (docs/behaviour.md#os-closed-descriptor).
    final func rearm() {
        guard let watcher, !isDisposed else { return }
        let e = watcher.rearm(self, events: interest)
        if e != 0 && e != ECANCELED { fail(e, "epoll_ctl") }
    }

    /// Runs `body`, a system call on the descriptor, unless the watch is
    /// disposed (nil then).
    @inline(__always)
    final func io<R>(_ body: () -> R) -> R? {
        ioLock.lock()
        defer { ioLock.unlock() }
        if ended.load(ordering: .acquiring) { return nil }
        return body()
    }

    /// Fails the subscription with errno `code` of `call`.
    final func fail(_ code: Int32, _ call: String) { subscriber.sendError(.errno(code, call)) }

    /// Ends the watch alone: the registration goes at once. A setup that
    /// failed cancels its watch this way and then sends its error.
    final func cancel() {
        if ended.exchange(true, ordering: .acquiringAndReleasing) { return }
        watcher?.remove(self)
        ioLock.lock()  // waits out a system call in progress on another thread
        ioLock.unlock()
        stopped()
    }

    /// A watch ends with its subscription: when it goes first (its run loop
    /// freed, its scheduler gone), nothing can deliver any more, so the
    /// subscription ends too, without a terminal event, and lets go of what
    /// it holds (write's upstream subscription holds this watch).
    public override func dispose() {
        cancel()
        subscriber.dispose()
    }

    public final override var isDisposed: Bool { ended.load(ordering: .acquiring) }
}

/// Base of the OS source signals: each subscription makes a watch on the
/// scheduler's watcher. Setup failures (a system call, known only at
/// subscription) are delivered as an error event on the scheduler, like
/// every other event of the source.
open class SourceSignal: Signal {
    let scheduler: SchedulerRef

    public init(_ scheduler: Scheduler) {
        self.scheduler = SchedulerRef(scheduler)
        super.init()
    }

    /// The subscription's watch (not yet started), or the failing call.
    open func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        fatalError("makeWatch must be overridden")
    }

    /// Whether the source needs a watcher (os_signal does not).
    open var needsWatcher: Bool { true }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let s = Subscriber.make(sink, subscribing: true)
        s.whileSubscribing(held: true) {
            do throws(OSFailure) {
                var watcher: Watcher? = nil
                if needsWatcher {
                    watcher = Watcher.forScheduler(scheduler)
                    if watcher == nil { throw OSFailure(ripple_io_errno(), "epoll_create1") }
                }
                let w = try makeWatch(s, scheduler, watcher)
                _ = s.hold(w)  // disposes it at once if the subscription has ended meanwhile
                if w.isDisposed { return }
                do throws(OSFailure) {
                    try w.start()
                } catch {
                    w.cancel()
                    throw error
                }
            } catch {
                scheduler.schedule { s.sendError(.errno(error.code, error.call)) }
            }
        }
        return s
    }
}
