// rpl_signal_first / wait / to_array: blocking helpers for C programs.
import CRipple
import Ripple

/// Maps a blocking result to a status, recording a signal error.
private func report<T>(_ r: Result<T, BlockingFailure>, _ fn: StaticString) -> (T?, rpl_status) {
    let errors = ThreadErrors.current
    errors.signalError = nil
    switch r {
    case .success(let x): return (x, rpl_status(RPL_OK))
    case .failure(.timedOut):
        setError(RPL_ERR_TIMEOUT, "\(fn): timed out")
    case .failure(.noValue):
        setError(RPL_ERR_NO_VALUE, "\(fn): the signal completed without a value")
    case .failure(.failed(let e)):
        errors.signalError = e
        setError(RPL_ERR_FAILED, "\(fn): the signal failed: \(e.domain) \(e.code): \(e.message)")
    }
    return (nil, rpl_last_error())
}

@c @implementation
public func rpl_signal_first(_ sig: OpaquePointer?, _ out: UnsafeMutablePointer<rpl_value>?, _ timeout_ns: UInt64) -> rpl_status {
    out?.pointee = cnil()
    guard let signal = signalArg(sig, "rpl_signal_first") else { return rpl_last_error() }
    guard let out else {
        setError(RPL_ERR_NULL, "rpl_signal_first: out is NULL")
        return rpl_last_error()
    }
    let (v, status) = report(signal.first(timeout: timeout_ns), "rpl_signal_first")
    if let v { out.pointee = toC(v) }
    return status
}

@c @implementation
public func rpl_signal_wait(_ sig: OpaquePointer?, _ timeout_ns: UInt64) -> rpl_status {
    guard let signal = signalArg(sig, "rpl_signal_wait") else { return rpl_last_error() }
    return report(signal.wait(timeout: timeout_ns), "rpl_signal_wait").1
}

@c @implementation
public func rpl_signal_to_array(_ sig: OpaquePointer?, _ out_tuple: UnsafeMutablePointer<rpl_value>?, _ timeout_ns: UInt64) -> rpl_status {
    out_tuple?.pointee = cnil()
    guard let signal = signalArg(sig, "rpl_signal_to_array") else { return rpl_last_error() }
    guard let out_tuple else {
        setError(RPL_ERR_NULL, "rpl_signal_to_array: out_tuple is NULL")
        return rpl_last_error()
    }
    let (values, status) = report(signal.collect(timeout: timeout_ns), "rpl_signal_to_array")
    if let values { out_tuple.pointee = toC(.tuple(values)) }
    return status
}
