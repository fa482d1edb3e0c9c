/// What receives a subscription's events.
///
/// Sinks form a chain: single-input operators (map, filter, scan, take, ...)
/// wrap the downstream sink and subscribe the wrapper upstream, so a chain of
/// operators on one source has one `Subscriber` at the source and runs as
/// direct calls. The subscriber guarantees that one chain's methods never run
/// concurrently, and that `finish` runs exactly once, last.
///
/// Values are borrowed: a sink that keeps one calls `retained()`.
open class Sink {
    public init() {}

    /// A C function with the same effect as `onNext`, taking the value by
    /// pointer. A sink that is nothing but such a call (the C observer)
    /// returns it here; the subscriber at the head of a chain asks once and
    /// then calls the function directly, saving a dispatch per event.
    public typealias DirectNext = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer) -> Void
    open func directNext() -> (function: DirectNext, context: UnsafeMutableRawPointer?)? { nil }

    open func onNext(_ value: borrowing Value) {}
    open func onError(_ error: RippleError) {}
    open func onCompleted() {}

    /// A value from input `index` of a multi-input operator (the head of its
    /// relay overrides these; `Message.input` carries them).
    open func onInput(_ index: Int, _ value: borrowing Value) { onNext(value) }
    /// Input `index` of a multi-input operator completed.
    open func onInputCompleted(_ index: Int) {}

    /// Called once when the chain's subscriber is created (before any event
    /// and before any upstream subscription), with that subscriber. Sinks that end a subscription early (take) keep
    /// it; sinks that wrap another pass it on.
    open func attach(_ subscriber: Subscriber) {}

    /// Called exactly once when the subscription has ended (terminal event or
    /// disposal) and no callback of it is running.
    open func finish() {}
}

/// The end of a chain that calls the user's callbacks. Operators upstream may
/// still emit after the user disposed the subscription from inside a callback
/// (take_last, collect, aggregate and materialize emit from the source's
/// terminal event, when the subscription is already ending); this end drops
/// every event once `dispose` was called, so no callback runs after
/// `dispose` returns (rule 6), whatever the operators above do.
open class ObserverSink: Sink {
    /// The subscription (it owns this sink, so it outlives every call), held
    /// unretained: reading it per event costs no reference counting.
    @usableFromInline @exclusivity(unchecked) final var subscriptionRef: Unmanaged<Subscriber>?

    public override init() {}

    open override func attach(_ subscriber: Subscriber) { subscriptionRef = Unmanaged.passUnretained(subscriber) }

    /// The subscription, once attached.
    public final var subscription: Subscriber? { subscriptionRef?.takeUnretainedValue() }

    /// True once the user disposed the subscription.
    @inlinable @inline(__always)
    public final var isCancelled: Bool { subscriptionRef?._withUnsafeGuaranteedRef { $0.isCancelled } ?? false }
}

/// A sink that forwards everything to a downstream sink; operator sinks
/// subclass it and override what they change.
open class ForwardingSink: Sink {
    public let downstream: Sink
    public init(_ downstream: Sink) { self.downstream = downstream }

    open override func onNext(_ value: borrowing Value) { downstream.onNext(value) }
    open override func onError(_ error: RippleError) { downstream.onError(error) }
    open override func onCompleted() { downstream.onCompleted() }
    open override func attach(_ subscriber: Subscriber) { downstream.attach(subscriber) }
    open override func finish() { downstream.finish() }
}

/// A sink built from closures: the simplest way to observe from Swift.
public final class ClosureSink: ObserverSink {
    let next: ((borrowing Value) -> Void)?
    let error: ((RippleError) -> Void)?
    let completed: (() -> Void)?
    let finished: (() -> Void)?

    public init(next: ((borrowing Value) -> Void)? = nil, error: ((RippleError) -> Void)? = nil,
                completed: (() -> Void)? = nil, finished: (() -> Void)? = nil) {
        self.next = next
        self.error = error
        self.completed = completed
        self.finished = finished
    }

    public override func onNext(_ value: borrowing Value) { if !isCancelled { next?(value) } }
    public override func onError(_ e: RippleError) { if !isCancelled { error?(e) } }
    public override func onCompleted() { if !isCancelled { completed?() } }
    public override func finish() { finished?() }
}
