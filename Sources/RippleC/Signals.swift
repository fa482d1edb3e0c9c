// Cold signals, subscribers, observers and the primitive constructors.
import CRipple
import Ripple
import RippleSupport

/// The end of a sink chain that calls a C observer.
final class CObserverSink: ObserverSink {
    let next: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<rpl_value>) -> Void)?
    let error: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void)?
    let completed: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    let release: rpl_release_fn?
    let ctx: UnsafeMutableRawPointer?
    /// Reports this subscription's events while tracing is on (Tracing.swift).
    @exclusivity(unchecked) var trace = TraceState()

    init(_ o: rpl_observer) {
        next = o.on_next
        error = o.on_error
        completed = o.on_completed
        release = o.release
        ctx = o.ctx
    }

    // Same layout (Value is rpl_value): the subscriber may call on_next itself.
    override func directNext() -> (function: Sink.DirectNext, context: UnsafeMutableRawPointer?)? {
        next.map { (unsafeBitCast($0, to: Sink.DirectNext.self), ctx) }
    }

    // Each event is reported (if anybody watches) just before the callback;
    // that path is out of line, so the usual one keeps a small frame.
    override func onNext(_ value: borrowing Value) {
        guard !isCancelled else { return }
        if ripple_trace_next_on() != 0 { return onNextReported(value) }
        guard let next else { return }
        withCValue(value) { next(ctx, cValue($0)) }
    }

    @inline(never)
    private func onNextReported(_ value: borrowing Value) {
        withCValue(value) { trace.emit(RPL_TRACE_NEXT, cValue($0), nil) }
        guard let next else { return }
        withCValue(value) { next(ctx, cValue($0)) }
    }
    // Nothing reaches a cancelled subscription's observer, so nothing of it
    // is reported either; its DISPOSE comes with finish.
    override func onError(_ e: RippleError) {
        guard !isCancelled else { return }
        if ripple_trace_any_on() != 0 { trace.emit(RPL_TRACE_ERROR, nil, handle(e)) }
        error?(ctx, handle(e))
    }
    override func onCompleted() {
        guard !isCancelled else { return }
        if ripple_trace_any_on() != 0 { trace.emit(RPL_TRACE_COMPLETED, nil, nil) }
        completed?(ctx)
    }
    override func finish() {
        trace.end()
        release?(ctx)
    }
}

@c @implementation
public func rpl_signal_create(_ did_subscribe: rpl_subscribe_fn?, _ ctx: UnsafeMutableRawPointer?,
                              _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let did_subscribe else {
        setError(RPL_ERR_NULL, "rpl_signal_create: did_subscribe is NULL")
        return rejected(releasing: ctx, release)
    }
    let context = CallbackContext(ctx, release: release, function: unsafeBitCast(did_subscribe, to: UnsafeRawPointer.self))
    return named(CreateSignal { s in
        let body = unsafeBitCast(context.function.unsafelyUnwrapped, to: rpl_subscribe_fn.self)
        return returnedDisposable(body(context.ctx, handle(s)), failing: s, "rpl_signal_create")
    }, .constructor("+create:"))
}

@inline(__always)
func subscriberArg(_ s: OpaquePointer?, _ fn: StaticString) -> Subscriber? {
    checked(s, .subscriber, what: "a subscriber", in: fn).map { unsafeDowncast($0, to: Subscriber.self) }
}

@c @implementation
public func rpl_subscriber_send_next(_ s: OpaquePointer?, _ v: rpl_value) -> rpl_status {
    // The hot path: the handle is borrowed for the call, so use it without
    // retain/release (the caller's reference keeps it alive). The error path
    // lives in its own function so this one stays small (no spills); the
    // value's has its own (see rpl_subject_send_next).
    guard let s, isKind(s, .subscriber) else { return rejectSendNext(s, v) }
    guard isListed(v) else { return refuseSent(v, "rpl_subscriber_send_next") }
    borrowed(s, as: Subscriber.self) { $0.sendNext(toValue(v)) }
    return 0
}

@inline(never)
private func rejectSendNext(_ s: OpaquePointer?, _ v: rpl_value) -> rpl_status {
    if subscriberArg(s, "rpl_subscriber_send_next") != nil { refuseValue(v.type, "rpl_subscriber_send_next") }
    dropValue(v)  // rule 19: consumed even on failure
    return rpl_last_error()
}

@c @implementation
public func rpl_subscriber_send_error(_ s: OpaquePointer?, _ e: OpaquePointer?) -> rpl_status {
    guard let sub = subscriberArg(s, "rpl_subscriber_send_error"),
          let err = errorOrGeneric(e, "rpl_subscriber_send_error") else { return rpl_last_error() }
    sub.sendError(err)
    return 0
}

@c @implementation
public func rpl_subscriber_send_completed(_ s: OpaquePointer?) -> rpl_status {
    guard let sub = subscriberArg(s, "rpl_subscriber_send_completed") else { return rpl_last_error() }
    sub.sendCompleted()
    return 0
}

@c @implementation
public func rpl_subscriber_is_disposed(_ s: OpaquePointer?) -> Bool {
    subscriberArg(s, "rpl_subscriber_is_disposed")?.isDisposed ?? true
}

/// rpl_signal_subscribe and rpl_signal_subscribe_next: sig, then the
/// observer; on failure obs's release(ctx) runs.
private func subscribe(_ sig: OpaquePointer?, _ obs: UnsafePointer<rpl_observer>?, _ fn: StaticString) -> OpaquePointer? {
    guard let sig, isKind(sig, .signal, .subject) else {
        _ = signalArg(sig, fn)
        return obs.flatMap { rejected(releasing: $0.pointee.ctx, $0.pointee.release) }
    }
    guard let obs else {
        setError(RPL_ERR_NULL, "\(fn): observer is NULL")
        return nil
    }
    let o = obs.pointee
    guard o.version == RPL_OBSERVER_VERSION else {
        setError(RPL_ERR_INVALID, "\(fn): unknown observer version \(o.version) (this library knows \(RPL_OBSERVER_VERSION))")
        return rejected(releasing: o.ctx, o.release)
    }
    let sink = CObserverSink(o)
    return borrowed(sig, as: Signal.self) {
        sink.trace.subscribe($0)
        if isKind(sig, .subject) { return retainedHandle(unsafeDowncast($0, to: Subject.self).directSubscription(sink)) }
        return retainedHandle($0.subscription(sink))
    }
}

@c @implementation
public func rpl_signal_subscribe(_ sig: OpaquePointer?, _ obs: UnsafePointer<rpl_observer>?) -> OpaquePointer? {
    subscribe(sig, obs, "rpl_signal_subscribe")
}

@c @implementation
public func rpl_signal_subscribe_next(
    _ sig: OpaquePointer?,
    _ on_next: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<rpl_value>) -> Void)?,
    _ ctx: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    var o = rpl_observer()
    o.version = UInt32(RPL_OBSERVER_VERSION)
    o.on_next = on_next
    o.ctx = ctx
    if on_next == nil, signalArg(sig, "rpl_signal_subscribe_next") != nil {
        setError(RPL_ERR_NULL, "rpl_signal_subscribe_next: on_next is NULL")
        return nil
    }
    return subscribe(sig, &o, "rpl_signal_subscribe_next")
}

@c @implementation
public func rpl_signal_return(_ v: rpl_value) -> OpaquePointer? {
    valueArg(v, "rpl_signal_return").flatMap { named(ReturnSignal($0), .constructor("+return:")) }
}

@c @implementation
public func rpl_signal_empty() -> OpaquePointer? { named(EmptySignal(), .constructor("+empty")) }

@c @implementation
public func rpl_signal_error(_ e: OpaquePointer?) -> OpaquePointer? {
    guard let err = errorOrGeneric(e, "rpl_signal_error") else { return nil }
    return named(ErrorSignal(err), .constructor("+error:"))
}

@c @implementation
public func rpl_signal_never() -> OpaquePointer? { named(NeverSignal(), .constructor("+never")) }

@c @implementation
public func rpl_signal_defer(_ factory: (@convention(c) (UnsafeMutableRawPointer?) -> OpaquePointer?)?,
                             _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let factory else {
        setError(RPL_ERR_NULL, "rpl_signal_defer: factory is NULL")
        return rejected(releasing: ctx, release)
    }
    let context = CallbackContext(ctx, release: release)
    return named(DeferSignal {
        // NULL is documented as a failed subscription: say so in our words,
        // naming the entry point, like a handle of the wrong kind.
        returnedSignal(factory(context.ctx), "rpl_signal_defer")
            ?? ErrorSignal(.runtime(.callback, "rpl_signal_defer: the factory returned NULL"))
    }, .constructor("+defer:"))
}
