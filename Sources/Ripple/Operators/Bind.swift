import Synchronization

/// RAC's `bind:` (rule 15), and `flattenMap` / `flatten` on top.
///
/// 1. Subscribes the source.
/// 2. Maps each source value through `binder`.
/// 3. Subscribes each returned signal and passes its values on, concurrently
///    with the others (merge, not concat).
/// 4. When `binder` sets `stop`, or returns nil while `nilStops`, the source
///    is disposed (after subscribing the returned signal, if any); inner
///    signals already running go on. With `nilStops` false, nil means empty.
/// 5. Completes when the source side and every inner signal have completed;
///    the first error of any of them ends everything, and source values that
///    come after it are ignored.
///
/// With a `limit` (flattenMap only; RAC's `flatten:`), at most that many
/// inner signals run at once; the others wait in arrival order and start as
/// running ones complete (FlattenLimited.swift). Without one (0), inners are
/// subscribed as they arrive, on a lock-free path.
public final class BindSignal: UnaryOperatorSignal {
    /// Borrowed value; may set `stop`; returns a signal to subscribe, or nil.
    public typealias Binder = (borrowing Value, inout Bool) -> Signal?

    public typealias Transform = (borrowing Value) -> Signal?

    let function: BindFunction
    /// At most this many inners at once; 0: no limit.
    let limit: Int

    /// bind: nil from `binder` stops the source.
    public init(_ source: Signal, _ binder: @escaping Binder) {
        self.function = BindFunction(bind: binder, flatMap: nil)
        self.limit = 0
        super.init(source)
    }

    /// flattenMap: `transform` returns the signal for each value (nil:
    /// empty); at most `limit` of them run at once (0: no limit).
    /// `transform` runs when the value arrives, also for an inner that waits.
    public init(_ source: Signal, flatMap transform: @escaping Transform, limit: Int = 0) {
        self.function = BindFunction(bind: nil, flatMap: transform)
        self.limit = max(limit, 0)
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink, subscribing: true)
        let state = BindState(relay, limit: limit)
        relay.subscribeUpstream(source, BindSourceSink(state, function), held: true)
        return relay
    }
}

/// What a bind calls for each source value: one of the two (flattenMap
/// skips the stop flag). Two optionals, not an enum: a call through optional
/// chaining borrows the closure, where binding an enum's payload copies it (a
/// retain/release pair per value).
struct BindFunction {
    let bind: BindSignal.Binder?
    let flatMap: BindSignal.Transform?
}

/// Per subscription: what every sink of one bind shares.
final class BindState {
    let relay: Subscriber
    /// The source side (1 until it completes or stops) plus running inners
    /// (and, with a limit, waiting ones).
    let active = Atomic<Int>(1)
    /// The waiting inners of a bind with a limit; nil without one.
    let limiter: InnerLimiter?

    init(_ relay: Subscriber, limit: Int = 0) {
        self.relay = relay
        self.limiter = limit > 0 ? InnerLimiter(limit) : nil
    }

    /// One side (the source or an inner) has completed.
    @inline(__always)
    func sideCompleted() {
        if active.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { relay.sendCompleted() }
    }

    /// Subscribes an inner signal and passes its values on (with a limit:
    /// queues it, and starts what the limit allows).
    @inline(__always)
    func subscribeInner(_ signal: Signal) {
        if let limiter {
            active.wrappingAdd(1, ordering: .relaxed)  // counted while it waits
            limiter.enqueue(signal, self)
            return
        }
        if endedAtOnce(signal) { return }
        active.wrappingAdd(1, ordering: .relaxed)
        subscribeInnerSlow(signal)
    }

    /// Fast paths for inners that end synchronously: `return` sends its
    /// value and completes, `empty` just completes. Same events, no
    /// subscription, no accounting. False for any other signal.
    @inline(__always)
    func endedAtOnce(_ signal: Signal) -> Bool {
        let t = ObjectIdentifier(type(of: signal))
        if t == ObjectIdentifier(ReturnSignal.self) {
            relay.sendNext(unsafeDowncast(signal, to: ReturnSignal.self).value.retained())
            return true
        }
        return t == ObjectIdentifier(EmptySignal.self)
    }

    /// Subscribes an inner already counted in `active`; returns its sink.
    @discardableResult
    func subscribeInnerSlow(_ signal: Signal) -> BindInnerSink {
        let inner = BindInnerSink(self)
        let sub = relay.subscribeUpstream(signal, inner)
        if sub.isDisposed { return inner }  // ended synchronously: nothing to hold
        // Hold it until it ends. It may end on another thread meanwhile:
        // whichever of us comes second removes the token. (Registering only
        // now keeps inners that end at once free of weak references; during
        // `subscribe` the inner sink itself stops the inner if we end.)
        let token = relay.makeHold(sub)
        inner.token = .passRetained(token)
        relay.addResource(token)
        relay.settle(token)
        if !inner.phase.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged {
            relay.removeResource(token)
        }
        return inner
    }
}

/// Receives the source's events; the relay holds the source's subscription
/// from `attach` on (rule 3a), as for every relayed operator.
final class BindSourceSink: RelaySink {
    let state: BindState
    let function: BindFunction
    /// The source's subscriber (which owns this sink), to stop it.
    unowned(unsafe) var source: Subscriber?
    /// The source side has completed or stopped (only touched in the source's
    /// serialized delivery).
    var stopped = false

    init(_ state: BindState, _ function: BindFunction) {
        self.state = state
        self.function = function
        super.init(state.relay)
    }

    override func attach(_ subscriber: Subscriber) {
        source = subscriber
        super.attach(subscriber)
    }

    override func onNext(_ value: borrowing Value) {
        if stopped || relay.isDisposed { return }
        var stop = false
        let v = copy value  // 16 bytes; the box stays borrowed
        let (returned, failure) = withFailureChannel { () -> Signal? in
            if function.bind == nil { return function.flatMap?(v) ?? nil }
            return function.bind?(v, &stop) ?? nil
        }
        if let failure {
            // The callback failed: its signal is dropped and everything ends (rule 24).
            stopped = true
            relay.sendError(failure)
            return
        }
        // (Moved out of `returned`: no retain/release pair per value.)
        if let signal = consume returned {
            state.subscribeInner(signal)
        } else if function.bind != nil {
            stop = true  // nil from a binder stops the source (flatten_map: nil is empty)
        }
        if stop {
            stopped = true
            source?.dispose()
            state.sideCompleted()
        }
    }

    override func onCompleted() {
        if stopped { return }
        stopped = true
        state.sideCompleted()
    }
}

/// Receives one inner signal's events. Unlike the other relay sinks it does
/// not make the relay hold its upstream in `attach`: `subscribeInnerSlow`
/// holds an inner only once its subscribe call has returned and it is still
/// running, so inners that end at once cost no hold.
final class BindInnerSink: RelaySink {
    let state: BindState
    /// The inner subscription, which owns this sink.
    unowned(unsafe) var inner: Subscriber?
    /// 0: subscribing; 1: its token is held by the relay; 2: completed.
    let phase = Atomic<Int>(0)
    /// The relay's hold on the inner subscription, +1 (released by deinit),
    /// once it is held. Unmanaged: `state` stays the only field of its own
    /// that Swift frees, as freeing two of a subclass's fields in turn costs a
    /// retain/release pair of the sink (once per inner).
    var token: Unmanaged<UpstreamHold>?
    /// With a limit: the call that subscribed it has returned (under the
    /// limiter's lock; see InnerLimiter).
    var subscribeReturned = false

    init(_ state: BindState) {
        self.state = state
        super.init(state.relay)
    }

    deinit { token?.release() }

    override func attach(_ subscriber: Subscriber) { inner = subscriber }

    override func onNext(_ value: borrowing Value) {
        relay.sendNext(value.retained())
        // The relay may have ended (a downstream take, an error) while the
        // inner is still inside `subscribe`, before its token is held.
        if relay.isDisposed { inner?.dispose() }
    }
    override func onCompleted() {
        if phase.exchange(2, ordering: .acquiringAndReleasing) == 1, let token {
            token._withUnsafeGuaranteedRef { relay.removeResource($0) }  // keeps the relay's list short
        }
        // With a limit, a slot is free: the next waiting inner starts, here
        // if the subscribe call that started this one has returned, else in
        // the loop that made that call (no recursion, FlattenLimited.swift).
        if let limiter = state.limiter { limiter.innerEnded(self, state) }
        state.sideCompleted()
    }
}

extension Value {
    /// The signal a `flatten` / `switch_to_latest` value stands for: the
    /// signal itself, nil for a nil value (RAC: a nil inner is empty), or a
    /// signal failing with a runtime error for any other type.
    public func innerSignal(_ op: String) -> Signal? {
        if let s = signalValue { return s }
        if type == .nil { return nil }
        return ErrorSignal(.runtime(.generic, "\(op): the value is not a signal (type \(rawType))"))
    }
}

extension Signal {
    /// RAC's bind (see `BindSignal`): nil or `stop` ends the source side.
    public func bind(_ binder: @escaping BindSignal.Binder) -> Signal { BindSignal(self, binder) }

    /// Subscribes the signal `transform` returns for each value (nil: empty)
    /// and merges their values.
    public func flatMap(_ transform: @escaping BindSignal.Transform) -> Signal { BindSignal(self, flatMap: transform) }

    /// Merges the inner signals of a signal of signal values.
    public func flatten() -> Signal { BindSignal(self, flatMap: { $0.innerSignal("flatten") }) }
}
