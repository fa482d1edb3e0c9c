// The consumer's handle on a subscription (docs/behaviour.md#lifetime-handle,
// #lifetime-handle-kind): what `subscribe` hands out. It disposes the
// subscription and keeps it alive, but is never the producer's subscriber,
// so nothing can send through it. Releasing it lets the subscription go:
// it then lives as long as a producer can reach it.
//
// A subscription that was never a sender (it has a disposable's kind: a
// source that sends everything inside `subscribe`, or a subject's) and has
// already ended when `subscribe` returns (its resources are disposed) is its
// own handle: no producer can reach it, so letting go has nothing to do,
// and it refuses to be sent to like any handle.

public final class Subscription: Disposable {
    /// The subscription (+1, by hand: using it costs no retain/release).
    private let ref: Unmanaged<Subscriber>
    public var subscriber: Subscriber { ref.takeUnretainedValue() }

    public init(_ subscriber: __shared Subscriber) {
        ref = Unmanaged.passRetained(subscriber)
        super.init(kind: .disposable)
    }

    deinit {
        ref._withUnsafeGuaranteedRef { $0.letGo() }
        ref.release()
    }

    public override func dispose() { ref._withUnsafeGuaranteedRef { $0.dispose() } }
    public override var isDisposed: Bool { ref._withUnsafeGuaranteedRef { $0.isDisposed } }
}

extension Subscriber {
    /// Whether this subscription is its own consumer's handle (above).
    final var isOwnHandle: Bool { magic == ObjectKind.disposable.rawValue && resourcesAreDisposed }
}

extension Signal {
    /// Subscribes `sink` (consumed) and returns the consumer's handle.
    public func subscription(_ sink: consuming Sink) -> Disposable {
        let s = subscribe(sink)
        return s.isOwnHandle ? s : Subscription(s)
    }
}
