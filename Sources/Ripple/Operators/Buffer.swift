// buffer: values in tuples of a fixed count.

/// Tuples of `count` values in order; at completion the rest (fewer than
/// `count`, only if there are any) as one last tuple, then completed. An
/// error is forwarded alone and the partial tuple dropped (ReactiveX's
/// buffer(count), as in RxJava; RAC only has bufferWithTime).
public final class BufferSignal: UnaryOperatorSignal {
    let count: UInt

    /// `count` must be positive (the C shim checks).
    public init(_ source: Signal, _ count: UInt) {
        precondition(count > 0, "buffer: count must be positive")
        self.count = count
        super.init(source)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber { source.subscribe(BufferSink(count, sink)) }
}

final class BufferSink: ForwardingSink {
    let count: Int
    @exclusivity(unchecked) var items: [Value] = []  // each owned

    init(_ count: UInt, _ downstream: Sink) {
        self.count = count > UInt(Int.max) ? Int.max : Int(count)
        super.init(downstream)
    }

    deinit { for v in items { v.release() } }

    /// The buffer as a tuple (taking the items), leaving an empty one that
    /// will hold the next tuple's items without growing.
    private func take() -> Value {
        let tuple = Value.tuple(items)
        items = []
        items.reserveCapacity(Swift.min(count, 1024))
        return tuple
    }

    override func onNext(_ value: borrowing Value) {
        items.append(value.retained())
        if items.count < count { return }
        let tuple = take()  // before sending: a nested delivery starts the next tuple
        downstream.onNext(tuple)
        tuple.release()
    }

    override func onCompleted() {
        if !items.isEmpty {
            let tuple = Value.tuple(items)
            items = []
            downstream.onNext(tuple)
            tuple.release()
        }
        downstream.onCompleted()
    }
}

extension Signal {
    /// Tuples of `count` values; the rest at completion.
    public func buffer(_ count: UInt) -> Signal { BufferSignal(self, count) }
}
