// Cold signals, subscribers, observers and the primitive constructors.
import CRipple
import Ripple
import RippleSupport

/// What a C observer's two ends keep besides `on_next` and `ctx` (which sit
/// where the subscriber calls them directly) and the trace state (which
/// each keeps in its own way, `trace`): the other callbacks and the
/// release, and how each event reaches them. One
/// observer, two places it can end a subscription: the sink at the end of an
/// operator chain (`CObserverSink`), or, subscribed straight to a subject,
/// the subscriber itself (`CObserverSubscriber`, one allocation in all).
/// Both call it one event at a time (the subscriber serializes them), and
/// only while the subscription was not disposed (rule 6).
struct CObserverEnd {
    let error: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void)?
    let completed: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    let release: rpl_release_fn?

    init(_ o: rpl_observer) {
        error = o.on_error
        completed = o.on_completed
        release = o.release
    }

    /// `on_next` as the subscriber calls it directly (same layout: Value is
    /// rpl_value).
    static func next(_ o: rpl_observer) -> Sink.DirectNext? { unsafeBitCast(o.on_next, to: Sink.DirectNext?.self) }

    // Each event is reported (if anybody watches) just before the callback.
    @inline(__always)
    func onNext(_ value: borrowing Value, _ next: Sink.DirectNext?, _ ctx: UnsafeMutableRawPointer?,
                _ trace: inout TraceState) {
        if ripple_trace_next_on() != 0 { return onNextReported(value, next, ctx, &trace) }
        guard let next else { return }
        withCValue(value) { next(ctx, $0) }
    }

    @inline(__always)
    func onNextReported(_ value: borrowing Value, _ next: Sink.DirectNext?, _ ctx: UnsafeMutableRawPointer?,
                        _ trace: inout TraceState) {
        withCValue(value) { trace.emit(RPL_TRACE_NEXT, cValue($0), nil) }
        guard let next else { return }
        withCValue(value) { next(ctx, $0) }
    }

    func onError(_ e: RippleError, _ ctx: UnsafeMutableRawPointer?, cancelled: Bool, _ trace: inout TraceState) {
        if cancelled { return }
        if ripple_trace_any_on() != 0 { trace.emit(RPL_TRACE_ERROR, nil, handle(e)) }
        error?(ctx, handle(e))
    }

    func onCompleted(_ ctx: UnsafeMutableRawPointer?, cancelled: Bool, _ trace: inout TraceState) {
        if cancelled { return }
        if ripple_trace_any_on() != 0 { trace.emit(RPL_TRACE_COMPLETED, nil, nil) }
        completed?(ctx)
    }

    /// The subscription's end (its subscriber runs it once, last): DISPOSE
    /// is reported, then release(ctx).
    func finish(_ ctx: UnsafeMutableRawPointer?, _ trace: inout TraceState) {
        trace.end()
        release?(ctx)
    }
}

/// The end of a sink chain that calls a C observer. Nothing reaches a
/// cancelled subscription's observer, so nothing of it is reported either;
/// its DISPOSE comes with finish.
final class CObserverSink: ObserverSink {
    let next: Sink.DirectNext?
    let ctx: UnsafeMutableRawPointer?
    let end: CObserverEnd
    /// Reports this subscription's events while tracing is on (Tracing.swift).
    @exclusivity(unchecked) var trace = TraceState()

    init(_ o: rpl_observer) {
        next = CObserverEnd.next(o)
        ctx = o.ctx
        end = CObserverEnd(o)
    }

    override func directNext() -> (function: Sink.DirectNext, context: UnsafeMutableRawPointer?)? {
        next.map { ($0, ctx) }
    }
    // The usual path (cancelled check, trace check, the call) kept here
    // with a small frame; the traced one out of line, as a tail call.
    override func onNext(_ value: borrowing Value) {
        guard !isCancelled else { return }
        if ripple_trace_next_on() != 0 { return onNextReported(value) }
        guard let next else { return }
        withCValue(value) { next(ctx, $0) }
    }
    @inline(never)
    private func onNextReported(_ value: borrowing Value) { end.onNextReported(value, next, ctx, &trace) }
    override func onError(_ e: RippleError) { end.onError(e, ctx, cancelled: isCancelled, &trace) }
    override func onCompleted() { end.onCompleted(ctx, cancelled: isCancelled, &trace) }
    override func finish() { end.finish(ctx, &trace) }
}

/// A C observer subscribed straight to a subject: the subscriber is its own
/// chain end (`on_next` and `ctx` are its `endNext` and `endContext`) and
/// the consumer's handle (a disposable's kind,
/// docs/behaviour.md#lifetime-handle-kind): one object per subscription,
/// kept for the thread's next one once it has ended and been released
/// (SpareSubscribers.swift).
final class CObserverSubscriber: Subscriber {
    @exclusivity(unchecked) var end: CObserverEnd

    init(_ o: rpl_observer, _ subject: Subject) {
        end = CObserverEnd(o)
        super.init(observing: subject, next: CObserverEnd.next(o), context: o.ctx)
    }

    /// A retired one made what `init` makes (SpareSubscribers.swift).
    func revive(_ o: rpl_observer, _ subject: Subject) {
        end = CObserverEnd(o)
        revive(observing: subject, next: CObserverEnd.next(o), context: o.ctx)
    }

    /// Runs `body` on its trace state, which it keeps in its `endWord`
    /// (tracing is rare: an idle subscription's size is what a subject with
    /// many subscribers holds). Only the record's making and freeing store
    /// the word.
    @inline(__always)
    private func withTrace(_ body: (inout TraceState) -> Void) {
        var t = trace
        let before = t.record
        body(&t)
        keep(t, was: before)
    }
    private var trace: TraceState { TraceState(record: endWord?.assumingMemoryBound(to: TraceState.Record.self)) }
    @inline(__always)
    private func keep(_ t: TraceState, was before: UnsafeMutablePointer<TraceState.Record>?) {
        if t.record != before { setEndWord(UnsafeMutableRawPointer(t.record)) }
    }

    /// At subscription, before it joins (TraceState.subscribe): while
    /// nobody watches, one test.
    @inline(__always)
    func traceSubscribe(_ signal: Signal) {
        if ripple_trace_any_on() != 0 { traceSubscribeReported(signal) }
    }
    @inline(never)
    private func traceSubscribeReported(_ signal: Signal) { withTrace { $0.subscribe(signal) } }

    override func observeNext(_ value: borrowing Value) {
        guard !isCancelled else { return }
        var t = trace  // (a borrowed value cannot go into withTrace's closure)
        let before = t.record
        end.onNext(value, endNext, endContext, &t)
        keep(t, was: before)
    }
    override func observeError(_ e: RippleError) {
        withTrace { end.onError(e, endContext, cancelled: isCancelled, &$0) }
    }
    override func observeCompleted() { withTrace { end.onCompleted(endContext, cancelled: isCancelled, &$0) } }
    override func observeFinish() {
        // An observer with no release, untraced and unwatched: nothing to do
        // (checked before anything needs a frame).
        if end.release == nil && ripple_trace_any_on() == 0 && endWord == nil { return }
        finishReported()
    }
    @inline(never)
    private func finishReported() {
        var t = trace
        end.finish(endContext, &t)  // frees the record: last, so its word needs no clearing
    }
}

@c @implementation
public func rpl_signal_create(_ did_subscribe: rpl_subscribe_fn?, _ ctx: UnsafeMutableRawPointer?,
                              _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let did_subscribe else {
        setError(RPL_ERR_NULL, "rpl_signal_create: did_subscribe is NULL")
        return rejected(releasing: ctx, release)
    }
    return named(CreateSignal(Callback(did_subscribe, ctx: ctx, release: release)) { $0.subscribe($1, "rpl_signal_create") },
                 .constructor("+create:"))
}

extension Callback where Function == SubscribeFunction? {
    /// Runs a CreateSignal's C body for `s`: the disposable it returned, or
    /// nil (a handle of another kind fails `s`, naming `name`).
    @inline(__always)
    func subscribe(_ s: Subscriber, _ name: StaticString) -> Disposable? {
        returnedDisposable(function.unsafelyUnwrapped(ctx, handle(s)), failing: s, name)
    }
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
/// observer; on failure obs's release(ctx) runs. The checks are a compare
/// and a branch each, their refusal out of line (`rejectSubscribe`).
@inline(__always)
private func subscribe(_ sig: OpaquePointer?, _ obs: UnsafePointer<rpl_observer>?, _ fn: StaticString) -> OpaquePointer? {
    guard let sig, let obs, isKind(sig, .signal, .subject), obs.pointee.version == RPL_OBSERVER_VERSION else {
        return rejectSubscribe(sig, obs, fn)
    }
    if isKind(sig, .subject) { return borrowed(sig, as: Subject.self) { subscribeDirect($0, obs) } }
    return subscribeSink(sig, obs)
}

/// A C observer subscribed straight to a subject: one object, the handle.
@inline(__always)
private func subscribeDirect(_ subject: Subject, _ obs: UnsafePointer<rpl_observer>) -> OpaquePointer {
    // The new object's own reference becomes the handle's: no
    // retain/release pair around the join.
    let x = SpareSubscribers.take(obs.pointee, subject)
    x._withUnsafeGuaranteedRef {
        $0.traceSubscribe(subject)
        subject.directSubscription($0)
    }
    return OpaquePointer(x.toOpaque())
}

/// A C observer at the end of a signal's sink chain.
@inline(never)
private func subscribeSink(_ sig: OpaquePointer, _ obs: UnsafePointer<rpl_observer>) -> OpaquePointer? {
    borrowed(sig, as: Signal.self) {
        let sink = CObserverSink(obs.pointee)
        sink.trace.subscribe($0)
        return retainedHandle($0.subscription(consume sink))
    }
}

/// Why `subscribe` refused its arguments, checked in their order; runs
/// obs's release(ctx) where there is an observer to release.
@inline(never)
private func rejectSubscribe(_ sig: OpaquePointer?, _ obs: UnsafePointer<rpl_observer>?, _ fn: StaticString) -> OpaquePointer? {
    guard let sig, isKind(sig, .signal, .subject) else {
        _ = signalArg(sig, fn)
        return obs.flatMap { rejected(releasing: $0.pointee.ctx, $0.pointee.release) }
    }
    guard let obs else {
        setError(RPL_ERR_NULL, "\(fn): observer is NULL")
        return nil
    }
    let o = obs.pointee
    setError(RPL_ERR_INVALID, "\(fn): unknown observer version \(o.version) (this library knows \(RPL_OBSERVER_VERSION))")
    return rejected(releasing: o.ctx, o.release)
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
    let callback = Callback(factory, ctx: ctx, release: release)
    return named(DeferSignal {
        // NULL is documented as a failed subscription: say so in our words,
        // naming the entry point, like a handle of the wrong kind.
        returnedSignal(callback.function(callback.ctx), "rpl_signal_defer")
            ?? ErrorSignal(.runtime(.callback, "rpl_signal_defer: the factory returned NULL"))
    }, .constructor("+defer:"))
}
