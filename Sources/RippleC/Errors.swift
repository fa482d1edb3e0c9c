// The thread-local last error (rpl_last_error, rpl_last_error_message), the
// last signal error of the blocking helpers, and rpl_error_t.
import CRipple
import Glibc
import Ripple
import RippleSupport

/// Per-thread error state, freed with its thread.
final class ThreadErrors {
    var status: rpl_status = 0
    var message: UnsafeMutablePointer<CChar> = strdup("")
    var signalError: RippleError?
    deinit { free(message) }

    /// Only for its destructor, which frees the record when the thread
    /// exits; the record itself is read from the thread state.
    static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { p in
            ripple_thread().pointee.errors = nil
            if let p { Unmanaged<ThreadErrors>.fromOpaque(p).release() }
        }
        return k
    }()

    static var current: ThreadErrors {
        if let p = ripple_thread().pointee.errors { return Unmanaged<ThreadErrors>.fromOpaque(p).takeUnretainedValue() }
        let s = ThreadErrors()
        let p = Unmanaged.passRetained(s).toOpaque()
        ripple_thread().pointee.errors = p
        pthread_setspecific(key, p)
        return s
    }
}

/// Records a failure for rpl_last_error / rpl_last_error_message.
func setError(_ status: Int, _ message: String) {
    let s = ThreadErrors.current
    s.status = rpl_status(status)
    free(s.message)
    s.message = strdup(message)
}

/// Runs `body` (a user callback) without letting it change this thread's
/// last error: a failed call's error must survive the release it runs.
func keepingLastError(_ body: () -> Void) {
    let s = ThreadErrors.current
    let status = s.status
    let message = s.message
    s.message = strdup("")
    body()
    free(s.message)
    s.message = message
    s.status = status
}

@c @implementation
public func rpl_last_error() -> rpl_status { ThreadErrors.current.status }

@c @implementation
public func rpl_last_error_message() -> UnsafePointer<CChar> { UnsafePointer(ThreadErrors.current.message) }

@c @implementation
public func rpl_set_last_error(_ status: rpl_status, _ message: UnsafePointer<CChar>?) -> rpl_status {
    guard status >= rpl_status(RPL_ERR_DEPTH) && status < 0 else {
        setError(RPL_ERR_INVALID, "rpl_set_last_error: \(status) is not an RPL_ERR_* status")
        return rpl_status(RPL_ERR_INVALID)
    }
    let s = ThreadErrors.current
    s.status = status
    let copy = strdup(message ?? rpl_status_string(status))!
    free(s.message)
    s.message = copy
    return status
}

@c @implementation
public func rpl_last_signal_error() -> OpaquePointer? {
    ThreadErrors.current.signalError.map(handle)
}

@c @implementation
public func rpl_status_string(_ status: rpl_status) -> UnsafePointer<CChar> {
    switch Int(status) {
    case RPL_OK: staticCString("ok")
    case RPL_ERR_NULL: staticCString("a required argument was NULL")
    case RPL_ERR_KIND: staticCString("a handle of the wrong kind was passed")
    case RPL_ERR_INVALID: staticCString("invalid argument")
    case RPL_ERR_TIMEOUT: staticCString("timed out")
    case RPL_ERR_NO_VALUE: staticCString("the signal completed without a value")
    case RPL_ERR_FAILED: staticCString("the signal failed with an error")
    case RPL_ERR_NOMEM: staticCString("out of memory")
    case RPL_ERR_STATE: staticCString("not valid in the current state")
    case RPL_ERR_MISUSE: staticCString("a handle was used after it was freed")
    case RPL_ERR_DEPTH: staticCString("the signal would be built too deep")
    default: staticCString("unknown status")
    }
}

@c @implementation
public func rpl_error_create(_ domain: UnsafePointer<CChar>?, _ code: Int64,
                             _ message: UnsafePointer<CChar>?) -> OpaquePointer? {
    retainedHandle(RippleError(domain: domain, code: code, message: message))
}

@c @implementation
public func rpl_error_domain(_ e: OpaquePointer?) -> UnsafePointer<CChar>? {
    errorArg(e, "rpl_error_domain").map { UnsafePointer($0.domainCString) }
}

@c @implementation
public func rpl_error_code(_ e: OpaquePointer?) -> Int64 {
    errorArg(e, "rpl_error_code")?.code ?? 0
}

@c @implementation
public func rpl_error_message(_ e: OpaquePointer?) -> UnsafePointer<CChar>? {
    errorArg(e, "rpl_error_message").map { UnsafePointer($0.messageCString) }
}

@c @implementation
public func rpl_error_equal(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Bool {
    guard let x = errorArg(a, "rpl_error_equal"), let y = errorArg(b, "rpl_error_equal") else { return false }
    return x.matches(y)
}

/// The error to send for a `send_error(e)` whose e may be NULL.
func errorOrGeneric(_ e: OpaquePointer?, _ fn: StaticString) -> RippleError? {
    guard e != nil else { return .generic() }
    return errorArg(e, fn)
}

// MARK: The failure channel of operator callbacks

@c @implementation
public func rpl_callback_fail(_ e: OpaquePointer?) -> rpl_status {
    // The error is consumed whatever happens, even a handle of the wrong kind.
    var error = RippleError.generic()
    if let e {
        guard ObjectKind.isValid(RippleObject.magic(at: UnsafeRawPointer(e))) else {
            refuseHandle(e, what: "an error", in: "rpl_callback_fail")  // no object: nothing to consume
            return rpl_last_error()
        }
        let o = Unmanaged<RippleObject>.fromOpaque(UnsafeRawPointer(e)).takeRetainedValue()
        guard o.kind == .error else {
            setError(RPL_ERR_KIND, "rpl_callback_fail: expected an error, got \(kindName(o.kind))")
            return rpl_last_error()
        }
        error = unsafeDowncast(o, to: RippleError.self)
    }
    if failCurrentCallback(error) { return 0 }
    setError(RPL_ERR_INVALID,
             "rpl_callback_fail: not inside an operator callback (observer callbacks and scheduled work cannot fail this way)")
    return rpl_last_error()
}
