// Names, the trace hook, USDT probes, the live-object count and
// rpl_signal_log (ripple.h "Names, tracing and counting"; rule
// 26). The flags and probe sites are in RippleSupport (ripple_trace.h); the
// C observer's end (CObserverEnd, Signals.swift) reports its subscription's events.
import CRipple
import Glibc
import Ripple
import RippleSupport
import RippleTraceWriter

/// What an event of a subscription made while tracing was off reports as
/// its signal's name: the signal may be gone by then.
private var untracedName: UnsafePointer<CChar> { staticCString("(subscribed before tracing)") }

/// The trace state of one C observer subscription. Kept by its end (the
/// sink or the subscriber that calls the observer: CObserverSink,
/// CObserverSubscriber), which the subscription calls one event at a time,
/// so it needs no lock. One word: the record is made when the subscription
/// is first reported, so an untraced subscription carries a nil pointer
/// (the subscriber keeps not even that: an idle subscription's size is
/// what a subject with many subscribers holds).
struct TraceState {
    struct Record {
        /// The subscription's id in the trace.
        var id: UInt64
        /// A copy of the subscribed signal's name, taken at subscription
        /// while tracing was on; nil for one made while it was off.
        var name: UnsafeMutablePointer<CChar>?
    }
    var record: UnsafeMutablePointer<Record>? = nil

    /// At subscription, before any event can arrive: reports SUBSCRIBE if
    /// anybody watches (the name is built now, not before).
    mutating func subscribe(_ signal: Signal) {
        guard ripple_trace_any_on() != 0 else { return }
        made(name: strdup(signal.cName))
        emit(RPL_TRACE_SUBSCRIBE, nil, nil)
    }

    @discardableResult
    private mutating func made(name: UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<Record> {
        let r = UnsafeMutablePointer<Record>.allocate(capacity: 1)
        r.initialize(to: Record(id: ripple_trace_new_id(), name: name))
        record = r
        return r
    }

    @inline(never)
    mutating func emit(_ kind: rpl_trace_kind, _ value: UnsafePointer<rpl_value>?, _ error: OpaquePointer?) {
        let r = record ?? made(name: nil)
        let n = UnsafePointer(r.pointee.name) ?? untracedName
        let id = r.pointee.id
        var e = rpl_trace_event(version: UInt32(RPL_TRACE_EVENT_VERSION), kind: kind, signal_name: n,
                                subscription: id, value: value, error: error)
        ripple_trace_emit(&e, Int32(kind.rawValue), n, id)
    }

    /// The subscription's end: DISPOSE if anybody watches; frees the record.
    mutating func end() {
        if ripple_trace_any_on() != 0 { emit(RPL_TRACE_DISPOSE, nil, nil) }
        guard let r = record else { return }
        free(r.pointee.name)
        r.deallocate()
        record = nil
    }
}

// MARK: Names

@c @implementation
public func rpl_signal_set_name(_ sig: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> rpl_status {
    guard let s = signalArg(sig, "rpl_signal_set_name") else { return rpl_last_error() }
    guard let name else {
        setError(RPL_ERR_NULL, "rpl_signal_set_name: name is NULL")
        return rpl_last_error()
    }
    s.setName(name)
    return 0
}

@c @implementation
public func rpl_signal_name(_ sig: OpaquePointer?) -> UnsafePointer<CChar>? {
    signalArg(sig, "rpl_signal_name")?.cName
}

/// Gives a new signal its origin (its default name is built from it later)
/// and returns its +1 handle; nil (RPL_ERR_DEPTH) when that makes it deeper
/// than RPL_MAX_SIGNAL_DEPTH (rule 19). The refused signal is freed here,
/// so its callbacks' release(ctx) runs and the values it took are released,
/// as on every failed call.
@inline(__always)
func named(_ s: Signal, _ origin: SignalOrigin) -> OpaquePointer? {
    s.setOrigin(origin)
    let depth = s.sourceDepth
    guard depth <= Signal.maxDepth else {
        refuseDepth(depth)
        return nil
    }
    return retainedHandle(s)
}

/// Whether `input` may be an operator's input: false (RPL_ERR_DEPTH) when
/// it is RPL_MAX_SIGNAL_DEPTH deep already. For the operators that act when
/// made (a connection that connects at once), checked before they are made.
func shallowEnough(_ input: Signal, _ fn: StaticString) -> Bool {
    let depth = input.sourceDepth
    guard depth >= Signal.maxDepth else { return true }
    refuseDepth(depth + 1, fn)
    return false
}

@inline(never)
private func refuseDepth(_ depth: Int32, _ fn: StaticString? = nil) {
    let prefix = fn.map { "\($0): " } ?? ""
    setError(RPL_ERR_DEPTH, "\(prefix)the signal would be \(depth) operators deep, past RPL_MAX_SIGNAL_DEPTH "
             + "(\(Signal.maxDepth)): build long chains from arrays (merge, concat_all) instead")
}

/// Names a subject fed by `origin`'s input now, and returns it.
/// A lazy name would keep the input alive from the subject, and the input
/// (a live source) keeps the subject alive through its subscription: a
/// cycle. Only connecting operators (publish, replay) need this.
@discardableResult
func nameNow<S: Signal>(_ s: S, _ origin: SignalOrigin) -> S {
    s.setOrigin(origin)
    _ = s.cName
    s.setOrigin(.none)
    return s
}

// MARK: Tracing and counting

@c @implementation
public func rpl_trace_set(_ fn: rpl_trace_fn?, _ ctx: UnsafeMutableRawPointer?) -> rpl_status {
    ripple_trace_set(unsafeBitCast(fn, to: ripple_trace_fn?.self), ctx)
    return 0
}

@c @implementation
public func rpl_trace_write(_ fd: Int32) -> rpl_status {
    var buf = [CChar](repeating: 0, count: 256)
    var msg: UnsafePointer<CChar>? = nil
    let status = buf.withUnsafeMutableBufferPointer { ripple_trace_writer_set(fd, $0.baseAddress, $0.count, &msg) }
    if status != 0 { setError(Int(status), String(cString: msg!)) }
    return rpl_status(status)
}

@c @implementation
public func rpl_live_objects() -> Int { RippleObject.liveCount }

// MARK: rpl_signal_log

/// Writes each event to stderr, one line per event (a single write, so
/// lines from several threads do not mix), then forwards it.
final class LogSink: ForwardingSink {
    let label: String
    init(_ label: String, _ downstream: Sink) {
        self.label = label
        super.init(downstream)
    }
    private func line(_ text: String) {
        var s = label + ": " + text + "\n"
        s.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
    override func onNext(_ value: borrowing Value) {
        line("next " + describe(value))
        downstream.onNext(value)
    }
    override func onError(_ e: RippleError) {
        line("error " + String(cString: e.domainCString) + " " + String(e.code) + " " + String(cString: e.messageCString))
        downstream.onError(e)
    }
    override func onCompleted() {
        line("completed")
        downstream.onCompleted()
    }
}

final class LogSignal: Signal {
    let source: Signal
    let label: String?
    init(_ source: Signal, _ label: String?) {
        self.source = source.asSource
        self.label = label
        super.init()
    }
    override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(LogSink(label ?? source.name, sink))
    }
}

/// A value as rpl_signal_log writes it: the trace writer's text of it
/// (ripple_value_text), so the log and a trace show values alike.
func describe(_ v: borrowing Value) -> String {
    withCValue(v) { p in
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buf in
            _ = ripple_value_text(cValue(p), buf.baseAddress!, buf.count)
            return String(cString: buf.baseAddress!)
        }
    }
}

@c @implementation
public func rpl_signal_log(_ sig: OpaquePointer?, _ label: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_log") else { return nil }
    return named(LogSignal(source, label.map { String(cString: $0) }), .unary(source, "-logAll"))
}
