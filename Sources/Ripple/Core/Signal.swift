import Synchronization

/// A stream of events: `next* (error | completed)?`.
///
/// Subclasses implement `subscribe(_:)`: attach `sink` to a subscriber (new,
/// or the one at the head of an upstream chain) and return that subscriber,
/// which is also the subscription's disposable. `sink` is consumed: the
/// caller's reference is handed on, through the operators' sinks, to the
/// subscriber that keeps the chain, so building one costs no retain/release
/// per sink.
open class Signal: RippleObject {
    /// How many signals deep this one is built: 1 for a source, else one more
    /// than the deepest input its origin names (set with the origin).
    /// Subscribing, delivering and freeing go down the chain in nested calls,
    /// so the C API refuses an input at `maxDepth` (rule 19).
    /// (Declared first: 4 bytes, in the 4 the root class leaves after its
    /// magic word.)
    @exclusivity(unchecked) public final var depth: Int32 = 1
    /// The current name's block (SignalName.swift); nil until named.
    let nameBlock = Atomic<UnsafeMutableRawPointer?>(nil)
    /// What the default name is built from; set once, before the signal is
    /// handed out. (Unchecked: set once before anyone else can see it, so
    /// no dynamic exclusivity check is paid per signal made.)
    @exclusivity(unchecked) public final var origin: SignalOrigin = .none
    /// RPL_MAX_SIGNAL_DEPTH.
    public static let maxDepth: Int32 = 1000

    /// The depth that counts against `maxDepth`: a subject's (and a
    /// connecting signal's) lives on its subscribe-only side. (Read through
    /// this call from other modules: a direct read of `depth` there pays a
    /// dynamic exclusivity check.)
    public final var sourceDepth: Int32 {
        if let side = subscribeOnlySide { return side.depth }
        return depth
    }

    public init() { super.init(kind: .signal) }
    public override init(kind: ObjectKind) { super.init(kind: kind) }
    deinit { freeNames() }

    /// Subscribes `sink` (consumed) and returns the subscription (its disposable).
    open func subscribe(_ sink: consuming Sink) -> Subscriber {
        fatalError("Signal.subscribe must be overridden")
    }

    /// What an operator keeps of this signal to subscribe to it later: the
    /// signal itself, except for a subject, whose subscribe-only side keeps
    /// its subscribers reachable but not the subject (see `SubjectSource`).
    public final var asSource: Signal { subscribeOnlySide ?? self }

    /// The signal operators keep instead of this one (a subject's
    /// `SubjectSource`, a connecting signal's side), or nil when they keep
    /// this one. (Nil rather than `self`: an operator given its input's
    /// reference keeps that reference, without a retain/release pair.)
    open var subscribeOnlySide: Signal? { nil }
}

extension Signal {
    /// Subscribes closures; returns the consumer's handle
    /// (docs/behaviour.md#lifetime-handle).
    @discardableResult
    public func subscribe(next: ((borrowing Value) -> Void)? = nil, error: ((RippleError) -> Void)? = nil,
                          completed: (() -> Void)? = nil) -> Disposable {
        subscription(ClosureSink(next: next, error: error, completed: completed))
    }
}

/// A cold signal: `body` runs once per subscription, with the subscriber to
/// send to, and may return a resource to dispose when the subscription ends.
public final class CreateSignal: Signal {
    /// `body`, and the `callback` it is called with: a C body's function,
    /// ctx and release, held inline, so a C signal made without a release
    /// is one allocation (`body` then captures nothing); empty for a Swift
    /// body. (One stored tuple: freed as one value, without the
    /// retain/release pair of the signal that freeing two fields in turn
    /// costs.)
    let parts: (callback: Callback<SubscribeFunction?>,
                body: (borrowing Callback<SubscribeFunction?>, Subscriber) -> Disposable?)

    public init(_ callback: consuming Callback<SubscribeFunction?>,
                _ body: consuming @escaping (borrowing Callback<SubscribeFunction?>, Subscriber) -> Disposable?) {
        // Moved: no retain/release pair of either context.
        self.parts = (consume callback, consume body)
        super.init()
    }

    public convenience init(_ body: @escaping (Subscriber) -> Disposable?) {
        self.init(Callback(nil, ctx: nil, release: nil)) { _, s in body(s) }
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let s = Subscriber.make(sink, subscribing: true)  // the disposable exists before the body runs (rule 3)
        s.endSubscribeBody(adding: parts.body(parts.callback, s))
        return s
    }
}

/// Sends one value, then completes.
public final class ReturnSignal: Signal {
    let value: Value
    /// Consumes `value`.
    public init(_ value: Value) {
        self.value = value
        super.init()
    }
    deinit { value.release() }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let s = Subscriber.make(sink, sender: false)
        s.sendLast(value.retained())
        return s
    }
}

/// Completes at once.
public final class EmptySignal: Signal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let s = Subscriber.make(sink, sender: false)
        s.sendCompleted()
        return s
    }
}

/// Fails at once.
public final class ErrorSignal: Signal {
    let error: RippleError
    public init(_ error: RippleError) {
        self.error = error
        super.init()
    }
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let s = Subscriber.make(sink, sender: false)
        s.sendError(error)
        return s
    }
}

/// Never sends anything.
public final class NeverSignal: Signal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let s = Subscriber.make(sink, sender: false)
        return s
    }
}

/// Builds the signal to subscribe to at each subscription.
public final class DeferSignal: Signal {
    let factory: () -> Signal?
    public init(_ factory: @escaping () -> Signal?) {
        self.factory = factory
        super.init()
    }
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        if let inner = factory() { return inner.subscribe(sink) }
        let s = Subscriber.make(sink, sender: false)
        s.sendError(.runtime(.callback, "defer: the factory returned no signal"))
        return s
    }
}
