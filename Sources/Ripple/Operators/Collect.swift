// collect: every value as one tuple at completion.

/// At completion sends one tuple of every value (an empty tuple if there
/// were none), then completes; an error is forwarded alone (RAC).
public final class CollectSignal: UnaryOperatorSignal {
    public override init(_ source: Signal) { super.init(source) }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(CollectSink(sink))
    }
}

final class CollectSink: ForwardingSink {
    @exclusivity(unchecked) var items: [Value] = []  // each owned

    deinit { for v in items { v.release() } }

    override func onNext(_ value: borrowing Value) { items.append(value.retained()) }

    override func onCompleted() {
        let tuple = Value.tuple(items)  // takes the items
        items = []
        downstream.onNext(tuple)
        tuple.release()
        downstream.onCompleted()
    }
}

extension Signal {
    /// One tuple of every value, at completion.
    public func collect() -> Signal { CollectSignal(self) }
}
