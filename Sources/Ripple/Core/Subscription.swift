// The consumer's handle on a subscription (docs/behaviour.md#lifetime-handle,
// #lifetime-handle-kind): what `subscribe` hands out. It disposes the
// subscription and keeps it alive, but is never the producer's subscriber,
// so nothing can send through it. Releasing it lets the subscription go:
// it then lives as long as a producer can reach it.

public final class Subscription: Disposable {
    public let subscriber: Subscriber

    public init(_ subscriber: Subscriber) {
        self.subscriber = subscriber
        super.init(kind: .disposable)
    }

    deinit { subscriber.letGo() }

    public override func dispose() { subscriber.dispose() }
    public override var isDisposed: Bool { subscriber.isDisposed }
}

extension Signal {
    /// Subscribes `sink` and returns the consumer's handle.
    public func subscription(_ sink: Sink) -> Subscription { Subscription(subscribe(sink)) }
}
