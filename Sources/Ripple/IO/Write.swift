import Glibc
import RippleSupport

// write: writes each string or bytes value of a signal to a descriptor, in
// order, and sends each value's byte count once all of it is written. A
// partial write continues when the descriptor is writable again (the
// descriptor is made non-blocking). Completes once the signal completed and
// everything is written; the signal's error fails it after what came before
// is written. A value of another type fails it with RPL_ERROR_TYPE after the
// values before it are written (later ones are dropped).
//
// The signal is subscribed synchronously, after the watch is in place. Its
// values are queued (under a small lock; the signal may send from any
// thread) and the watch's job writes them on the scheduler: one job at a
// time, enqueued when the queue becomes non-empty or the descriptor
// writable.

public final class WriteSignal: SourceSignal {
    let source: Signal
    let fd: Int32

    public init(_ source: Signal, fd: Int32, _ scheduler: Scheduler) {
        // A subject is kept by its subscribe-only side, as every operator
        // keeps its inputs: the subject itself would keep its subscribers,
        // and an operator that keeps this signal to subscribe again (repeat
        // over merge(subject, write(subject))) would close a cycle through
        // them (docs/behaviour.md#lifetime-subject).
        self.source = source.asSource
        self.fd = fd
        super.init(scheduler)
    }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        try makeNonBlocking(fd)
        return WriteWatch(fd: fd, source, subscriber, scheduler, watcher)
    }
}

final class WriteWatch: SourceWatch, @unchecked Sendable {
    enum Item {
        case value(Value)
        case wrongType
        case error(RippleError)
        case completed
    }
    let source: Signal
    /// A few instructions under it (queue operations), never a call.
    private let lock = SpinLock()
    /// Under `lock`.
    @exclusivity(unchecked) private var queue = Fifo<Item>()
    /// Under `lock`: a job is queued or running, or the watch waits for
    /// writability; a new item then needs no job of its own.
    @exclusivity(unchecked) private var busy = true  // the first readiness report runs the first job
    /// Under `lock`: a terminal item was queued; later ones are dropped.
    @exclusivity(unchecked) private var closed = false
    /// Bytes of the front value written so far (the job's).
    @exclusivity(unchecked) private var written = 0

    init(fd: Int32, _ source: Signal, _ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) {
        self.source = source
        super.init(fd: fd, subscriber, scheduler, watcher, interest: UInt32(RIPPLE_IO_OUT))
    }

    deinit {
        while let item = queue.popFirst() { if case .value(let v) = item { v.release() } }
    }

    override func start() throws(OSFailure) {
        try super.start()
        subscriber.subscribeUpstream(source, WriteSink(self))
    }

    /// Queues an item (any thread); consumes a value.
    func push(_ item: Item) {
        lock.lock()
        if closed {
            lock.unlock()
            if case .value(let v) = item { v.release() }
            return
        }
        if case .value = item {} else { closed = true }
        queue.append(item)
        let start = !busy
        busy = true
        lock.unlock()
        if start, let s = scheduler.scheduler { s.enqueue(self) }
    }

    override func handle(_ events: UInt32) -> Bool {
        while true {
            lock.lock()
            guard let item = queue.first else {
                busy = false
                lock.unlock()
                return false
            }
            lock.unlock()
            switch item {
            case .value(let v):
                let box = v.bytesBox!
                while written < box.count {
                    var err: Int32 = 0
                    guard let n = io({ ripple_io_write(fd, box.base + written, box.count - written, &err) }) else { return false }
                    if n >= 0 {
                        written += n
                    } else if err == EAGAIN || err == EWOULDBLOCK {
                        return true  // the rest once writable (busy stays set)
                    } else {
                        fail(err, "write")
                        return false
                    }
                }
                written = 0
                lock.lock()
                _ = queue.popFirst()
                lock.unlock()
                v.release()
                subscriber.sendNext(.int(Int64(box.count)))
                if isDisposed { return false }
            case .wrongType:
                subscriber.sendError(RippleError(domain: RippleError.runtimeDomain, code: RippleError.typeErrorCode,
                                                 message: "write: a value that is neither a string nor bytes"))
                return false
            case .error(let e):
                subscriber.sendError(e)
                return false
            case .completed:
                subscriber.sendCompleted()
                return false
            }
        }
    }
}

/// The written signal's end: queues its events for the watch.
final class WriteSink: RelaySink {
    let watch: WriteWatch
    init(_ watch: WriteWatch) {
        self.watch = watch
        super.init(watch.subscriber)
    }

    override func onNext(_ value: borrowing Value) {
        let t = value.type
        watch.push(t == .string || t == .bytes ? .value(value.retained()) : .wrongType)
    }
    override func onError(_ error: RippleError) { watch.push(.error(error)) }
    override func onCompleted() { watch.push(.completed) }
}

extension Signal {
    /// Writes each string or bytes value of `source` to `fd` on `scheduler`,
    /// sending each value's byte count.
    public static func write(_ source: Signal, to fd: Int32, on scheduler: Scheduler) -> Signal {
        WriteSignal(source, fd: fd, scheduler)
    }
}
