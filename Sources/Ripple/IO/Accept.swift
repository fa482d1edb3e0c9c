import Glibc
import RippleSupport

// accept: each connection accepted on a listening socket, as its descriptor
// (an int; non-blocking and close-on-exec), owned by the receiver from then
// on. Errors that concern only the connection being accepted (it was reset
// before it could be accepted, a network error; accept(2) says to retry)
// are skipped; any other error (EMFILE, a closed or non-listening socket)
// fails the signal.

public final class AcceptSignal: SourceSignal {
    let fd: Int32

    public init(fd: Int32, _ scheduler: Scheduler) {
        self.fd = fd
        super.init(scheduler)
    }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        try makeNonBlocking(fd)
        return AcceptWatch(fd: fd, subscriber, scheduler, watcher, interest: UInt32(RIPPLE_IO_IN))
    }
}

final class AcceptWatch: SourceWatch, @unchecked Sendable {
    static let perJob = 64

    override func handle(_ events: UInt32) -> Bool {
        for _ in 0..<AcceptWatch.perJob {
            var err: Int32 = 0
            guard let c = io({ ripple_io_accept(fd, &err) }) else { return false }
            if c >= 0 {
                subscriber.sendNext(.int(Int64(c)))
                if isDisposed { return false }
                continue
            }
            switch err {
            case EAGAIN, EWOULDBLOCK: return true
            case ECONNABORTED, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH:
                continue
            default:
                fail(err, "accept4")
                return false
            }
        }
        return true
    }
}

extension Signal {
    /// Each connection accepted on `fd`, as its descriptor, on `scheduler`.
    public static func accept(_ fd: Int32, on scheduler: Scheduler) -> Signal { AcceptSignal(fd: fd, scheduler) }
}
