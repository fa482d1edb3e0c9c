/// On the source's error, subscribes the signal `handler` returns for it and
/// passes that signal's events on; the source's error is not forwarded. A nil
/// from `handler` forwards the original error.
public final class CatchSignal: UnaryOperatorSignal {
    public typealias Handler = (RippleError) -> Signal?
    let handler: Handler

    public init(_ source: Signal, _ handler: @escaping Handler) {
        self.handler = handler
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let relay = Subscriber.make(sink, subscribing: true)
        relay.subscribeUpstream(source, CatchSink(relay, handler), held: true)
        return relay
    }
}

final class CatchSink: RelaySink {
    let handler: CatchSignal.Handler
    init(_ relay: Subscriber, _ handler: @escaping CatchSignal.Handler) {
        self.handler = handler
        super.init(relay)
    }
    override func onError(_ error: RippleError) {
        if relay.isDisposed { return }
        let (signal, failure) = withFailureChannel { handler(error) }
        if let failure {
            relay.sendError(failure)  // the returned signal, if any, is dropped (rule 24)
            return
        }
        guard let replacement = signal else {
            relay.sendError(error)
            return
        }
        relay.subscribeUpstream(replacement, RelaySink(relay))
    }
}

extension Signal {
    /// On error, continues with the signal `handler` returns (nil: the error passes on).
    public func `catch`(_ handler: @escaping CatchSignal.Handler) -> Signal { CatchSignal(self, handler) }

    /// On error, continues with `replacement`.
    public func catchTo(_ replacement: Signal) -> Signal {
        let r = replacement.asSource  // never a sender
        return CatchSignal(self) { _ in r }
    }
}
