import Glibc
import RippleSupport

// read: the bytes read from a descriptor (bytes values of at most max_chunk
// bytes each), completing at end of input. The descriptor is made
// non-blocking; each readiness is read until it would block, at most 16
// reads per job so other work on the scheduler gets its turn (the watch is
// armed again and the rest follows).

public final class ReadSignal: SourceSignal {
    let fd: Int32
    let maxChunk: Int

    public init(fd: Int32, maxChunk: Int, _ scheduler: Scheduler) {
        self.fd = fd
        self.maxChunk = maxChunk
        super.init(scheduler)
    }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        try makeNonBlocking(fd)
        return ReadWatch(fd: fd, chunk: min(maxChunk, ReadWatch.largestRead), subscriber, scheduler, watcher)
    }
}

/// Sets O_NONBLOCK on a descriptor a source reads or writes
/// (docs/behaviour.md#os-nonblocking).
func makeNonBlocking(_ fd: Int32) throws(OSFailure) {
    let e = ripple_io_set_nonblock(fd)
    if e != 0 { throw OSFailure(e, "fcntl") }
}

/// Reads a descriptor until it would block; `consume` gets each chunk.
class ReadWatch: SourceWatch, @unchecked Sendable {
    static let largestRead = 256 * 1024
    static let readsPerJob = 16
    let chunk: Int

    init(fd: Int32, chunk: Int, _ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) {
        self.chunk = chunk
        super.init(fd: fd, subscriber, scheduler, watcher, interest: UInt32(RIPPLE_IO_IN))
    }

    override func handle(_ events: UInt32) -> Bool {
        // The buffer lives for one job, so an idle subscription holds none.
        guard let buf = malloc(chunk) else {
            fail(ENOMEM, "read")
            return false
        }
        defer { free(buf) }
        for _ in 0..<ReadWatch.readsPerJob {
            var err: Int32 = 0
            guard let n = io({ ripple_io_read(fd, buf, chunk, &err) }) else { return false }
            if n > 0 {
                if !consume(UnsafeRawBufferPointer(start: buf, count: n)) || isDisposed { return false }
                continue
            }
            if n == 0 {
                endOfInput()
                return false
            }
            if err == EAGAIN || err == EWOULDBLOCK { return true }
            fail(err, "read")
            return false
        }
        return true
    }

    /// One chunk read; false to stop (the subscription failed).
    func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
        subscriber.sendNext(.bytes(bytes))
        return true
    }

    func endOfInput() { subscriber.sendCompleted() }
}

extension Signal {
    /// The bytes read from `fd` in values of at most `maxChunk` bytes, on `scheduler`.
    public static func read(_ fd: Int32, maxChunk: Int, on scheduler: Scheduler) -> Signal {
        ReadSignal(fd: fd, maxChunk: maxChunk, scheduler)
    }
}
