// The consumer's handle on a subscription (docs/behaviour.md#lifetime-handle,
// #lifetime-handle-kind): what `subscribe` hands out. It disposes the
// subscription and keeps it alive, but is never the producer's subscriber,
// so nothing can send through it. Releasing it lets the subscription go:
// it then lives as long as a producer can reach it.

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

extension Signal {
    /// Subscribes `sink` and returns the consumer's handle.
    public func subscription(_ sink: Sink) -> Subscription { Subscription(subscribe(sink)) }
}
