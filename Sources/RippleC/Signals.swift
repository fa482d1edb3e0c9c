// Cold signals, subscribers, observers and the primitive constructors.
import CRipple
import Ripple

/// The end of a sink chain that calls a C observer.
final class CObserverSink: Sink {
    let next: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<rpl_value>) -> Void)?
    let error: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void)?
    let completed: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    let release: rpl_release_fn?
    let ctx: UnsafeMutableRawPointer?

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

    override func onNext(_ value: borrowing Value) {
        guard let next else { return }
        withBorrowed(value) { next(ctx, $0) }
    }
    override func onError(_ e: RippleError) { error?(ctx, handle(e)) }
    override func onCompleted() { completed?(ctx) }
    override func finish() { release?(ctx) }
}

@c @implementation
public func rpl_signal_create(_ did_subscribe: rpl_subscribe_fn?, _ ctx: UnsafeMutableRawPointer?,
                              _ release: rpl_release_fn?) -> OpaquePointer? {
    let context = CContext(ctx, release)
    guard let did_subscribe else {
        setError(RPL_ERR_NULL, "rpl_signal_create: did_subscribe is NULL")
        return nil  // `context` is freed here, releasing ctx
    }
    return retainedHandle(CreateSignal { s in
        takeDisposable(did_subscribe(context.ctx, handle(s)))
    })
}

@inline(__always)
func subscriberArg(_ s: OpaquePointer?, _ fn: StaticString) -> Subscriber? {
    checked(s, .subscriber, what: "a subscriber", in: fn).map { unsafeDowncast($0, to: Subscriber.self) }
}

@c @implementation
public func rpl_subscriber_send_next(_ s: OpaquePointer?, _ v: rpl_value) -> rpl_status {
    // The hot path: the handle is borrowed for the call, so use it without
    // retain/release (the caller's reference keeps it alive). The error path
    // lives in its own function so this one stays small (no spills).
    guard let s, isKind(s, .subscriber) else { return rejectSendNext(s, v) }
    borrowed(s, as: Subscriber.self) { $0.sendNext(toValue(v)) }
    return 0
}

@inline(never)
private func rejectSendNext(_ s: OpaquePointer?, _ v: rpl_value) -> rpl_status {
    _ = subscriberArg(s, "rpl_subscriber_send_next")
    toValue(v).release()  // rule 19: consumed even on failure
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

@c @implementation
public func rpl_signal_subscribe(_ sig: OpaquePointer?, _ obs: UnsafePointer<rpl_observer>?) -> OpaquePointer? {
    guard let obs else {
        setError(RPL_ERR_NULL, "rpl_signal_subscribe: observer is NULL")
        return nil
    }
    let o = obs.pointee
    guard o.version == RPL_OBSERVER_VERSION else {
        setError(RPL_ERR_INVALID, "rpl_signal_subscribe: unknown observer version \(o.version) (this library knows \(RPL_OBSERVER_VERSION))")
        o.release?(o.ctx)
        return nil
    }
    guard let sig, isKind(sig, .signal, .subject) else {
        _ = signalArg(sig, "rpl_signal_subscribe")
        o.release?(o.ctx)
        return nil
    }
    let sink = CObserverSink(o)
    return borrowed(sig, as: Signal.self) { retainedHandle($0.subscribe(sink)) }
}

@c @implementation
public func rpl_signal_subscribe_next(
    _ sig: OpaquePointer?,
    _ on_next: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<rpl_value>) -> Void)?,
    _ ctx: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    guard let on_next else {
        setError(RPL_ERR_NULL, "rpl_signal_subscribe_next: on_next is NULL")
        return nil
    }
    var o = rpl_observer()
    o.version = UInt32(RPL_OBSERVER_VERSION)
    o.on_next = on_next
    o.ctx = ctx
    return rpl_signal_subscribe(sig, &o)
}

@c @implementation
public func rpl_signal_return(_ v: rpl_value) -> OpaquePointer? { retainedHandle(ReturnSignal(toValue(v))) }

@c @implementation
public func rpl_signal_empty() -> OpaquePointer? { retainedHandle(EmptySignal()) }

@c @implementation
public func rpl_signal_error(_ e: OpaquePointer?) -> OpaquePointer? {
    guard let err = errorOrGeneric(e, "rpl_signal_error") else { return nil }
    return retainedHandle(ErrorSignal(err))
}

@c @implementation
public func rpl_signal_never() -> OpaquePointer? { retainedHandle(NeverSignal()) }

@c @implementation
public func rpl_signal_defer(_ factory: (@convention(c) (UnsafeMutableRawPointer?) -> OpaquePointer?)?,
                             _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    let context = CContext(ctx, release)
    guard let factory else {
        setError(RPL_ERR_NULL, "rpl_signal_defer: factory is NULL")
        return nil
    }
    return retainedHandle(DeferSignal { takeSignal(factory(context.ctx), "rpl_signal_defer") })
}
