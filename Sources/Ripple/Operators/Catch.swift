/// On the source's error, subscribes the signal `handler` returns for it and
/// passes that signal's events on; the source's error is not forwarded. A nil
/// from `handler` forwards the original error.
public final class CatchSignal: Signal {
    public typealias Handler = (RippleError) -> Signal?
    let source: Signal
    let handler: Handler

    public init(_ source: Signal, _ handler: @escaping Handler) {
        self.source = source
        self.handler = handler
        super.init()
    }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        let relay = Subscriber(sink)
        _ = source.subscribe(CatchSink(relay, handler))
        return relay
    }
}

final class CatchSink: Sink {
    let relay: Subscriber
    let handler: CatchSignal.Handler
    init(_ relay: Subscriber, _ handler: @escaping CatchSignal.Handler) {
        self.relay = relay
        self.handler = handler
    }
    override func attach(_ subscriber: Subscriber) { relay.hold(subscriber) }
    override func onNext(_ value: borrowing Value) { relay.sendNext(value.retained()) }
    override func onCompleted() { relay.sendCompleted() }
    override func onError(_ error: RippleError) {
        if relay.isDisposed { return }
        guard let replacement = handler(error) else {
            relay.sendError(error)
            return
        }
        _ = replacement.subscribe(RelaySink(relay))
    }
}

extension Signal {
    /// On error, continues with the signal `handler` returns (nil: the error passes on).
    public func `catch`(_ handler: @escaping CatchSignal.Handler) -> Signal { CatchSignal(self, handler) }

    /// On error, continues with `replacement`.
    public func catchTo(_ replacement: Signal) -> Signal { CatchSignal(self) { _ in replacement } }
}
