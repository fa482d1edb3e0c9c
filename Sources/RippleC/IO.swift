// The operating system's event sources: descriptors, sockets, OS signals,
// child processes, file changes (the runtime is Sources/Ripple/IO).
import CRipple
import Glibc
import Ripple
import RippleSupport

/// The scheduler of an OS source: not the immediate scheduler (a watch
/// would block its caller) nor a test scheduler (virtual time cannot wait
/// for the OS).
private func sourceScheduler(_ s: OpaquePointer?, _ fn: StaticString) -> Scheduler? {
    guard let scheduler = schedulerArg(s, fn) else { return nil }
    if !scheduler.supportsRepeating || scheduler is TestScheduler {
        setError(RPL_ERR_INVALID, "\(fn): OS sources need a run loop, serial or background scheduler")
        return nil
    }
    return scheduler
}

/// A descriptor argument: open now (a closed one is a bug at the call).
private func fdArg(_ fd: Int32, _ fn: StaticString, what: StaticString = "fd") -> Bool {
    let e = ripple_io_check_fd(fd)
    if e != 0 {
        setError(RPL_ERR_INVALID, "\(fn): \(what) \(fd) is not an open descriptor")
        return false
    }
    return true
}

/// The (descriptor, scheduler) pair of most sources, checked in argument order.
private func fdSource(_ fd: Int32, _ s: OpaquePointer?, _ fn: StaticString, what: StaticString = "fd") -> Scheduler? {
    guard fdArg(fd, fn, what: what) else { return nil }
    return sourceScheduler(s, fn)
}

@c @implementation
public func rpl_signal_fd_readable(_ fd: Int32, _ s: OpaquePointer?) -> OpaquePointer? {
    fdSource(fd, s, "rpl_signal_fd_readable").flatMap {
        named(FdReadinessSignal(fd: fd, writable: false, $0), .constructorArg("+fdReadable:", UInt64(fd)))
    }
}

@c @implementation
public func rpl_signal_fd_writable(_ fd: Int32, _ s: OpaquePointer?) -> OpaquePointer? {
    fdSource(fd, s, "rpl_signal_fd_writable").flatMap {
        named(FdReadinessSignal(fd: fd, writable: true, $0), .constructorArg("+fdWritable:", UInt64(fd)))
    }
}

/// A size_t maximum: positive (Int.max stands for anything larger).
private func sizeArg(_ n: Int, _ fn: StaticString, _ what: StaticString) -> Int? {
    if n == 0 {
        setError(RPL_ERR_INVALID, "\(fn): \(what) is 0")
        return nil
    }
    return n < 0 ? Int.max : n
}

@c @implementation
public func rpl_signal_read(_ fd: Int32, _ max_chunk: Int, _ s: OpaquePointer?) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_read"
    guard fdArg(fd, fn), let chunk = sizeArg(max_chunk, fn, "max_chunk"), let scheduler = sourceScheduler(s, fn) else { return nil }
    return named(ReadSignal(fd: fd, maxChunk: chunk, scheduler), .constructorArg("+read:", UInt64(fd)))
}

@c @implementation
public func rpl_signal_read_lines(_ fd: Int32, _ max_line: Int, _ s: OpaquePointer?) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_read_lines"
    guard fdArg(fd, fn), let line = sizeArg(max_line, fn, "max_line"), let scheduler = sourceScheduler(s, fn) else { return nil }
    return named(ReadLinesSignal(fd: fd, maxLine: line, scheduler), .constructorArg("+readLines:", UInt64(fd)))
}

@c @implementation
public func rpl_signal_write(_ sig: OpaquePointer?, _ fd: Int32, _ s: OpaquePointer?) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_write"
    guard let source = signalArg(sig, fn), let scheduler = fdSource(fd, s, fn) else { return nil }
    return named(WriteSignal(source, fd: fd, scheduler), .unaryArg(source, "-write:", UInt64(fd)))
}

@c @implementation
public func rpl_signal_accept(_ listen_fd: Int32, _ s: OpaquePointer?) -> OpaquePointer? {
    fdSource(listen_fd, s, "rpl_signal_accept", what: "listen_fd").flatMap {
        named(AcceptSignal(fd: listen_fd, $0), .constructorArg("+accept:", UInt64(listen_fd)))
    }
}

@c @implementation
public func rpl_signal_os_signal(_ signo: Int32, _ s: OpaquePointer?) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_os_signal"
    guard ripple_io_signal_valid(signo) != 0 else {
        setError(RPL_ERR_INVALID, "\(fn): signo \(signo) cannot be watched (out of range, SIGKILL or SIGSTOP)")
        return nil
    }
    return sourceScheduler(s, fn).flatMap { named(OSSignalSignal(signo: signo, $0), .constructorArg("+osSignal:", UInt64(signo))) }
}

@c @implementation
public func rpl_signal_child_exit(_ pid: Int64, _ s: OpaquePointer?) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_child_exit"
    guard pid > 0 && pid <= Int64(Int32.max) else {
        setError(RPL_ERR_INVALID, "\(fn): pid \(pid) is not a process id")
        return nil
    }
    return sourceScheduler(s, fn).flatMap { named(ChildExitSignal(pid: pid, $0), .constructorArg("+childExit:", UInt64(pid))) }
}

@c @implementation
public func rpl_signal_file_changes(_ path: UnsafePointer<CChar>?, _ s: OpaquePointer?) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_file_changes"
    guard let path else {
        setError(RPL_ERR_NULL, "\(fn): path is NULL")
        return nil
    }
    guard path[0] != 0 else {
        setError(RPL_ERR_INVALID, "\(fn): path is empty")
        return nil
    }
    return sourceScheduler(s, fn).flatMap { named(FileChangesSignal(path: String(cString: path), $0), .constructor("+fileChanges:")) }
}
