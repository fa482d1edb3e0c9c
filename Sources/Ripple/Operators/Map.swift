import RippleSupport

// map and filter: stateless, one callback per value.

/// `next fn(v)` for every value; terminal events pass through.
public final class MapSignal: UnaryOperatorSignal {
    let fn: MapFunction
    let context: CallbackContext

    public init(_ source: Signal, _ fn: MapFunction, _ context: CallbackContext) {
        self.fn = fn
        self.context = context
        super.init(source)
    }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        source.subscribe(MapSink(fn, context, sink))
    }
}

final class MapSink: ForwardingSink {
    let fn: MapFunction
    let ctx: UnsafeMutableRawPointer?
    let context: CallbackContext  // keeps ctx alive

    init(_ fn: MapFunction, _ context: CallbackContext, _ downstream: Sink) {
        self.fn = fn
        self.ctx = context.ctx
        self.context = context
        super.init(downstream)
    }

    override func onNext(_ value: borrowing Value) {
        let mapped = Value(c: withCValue(value) { fn(ctx, $0) })
        downstream.onNext(mapped)
        mapped.release()
    }
}

/// Passes the values for which `predicate` returns true.
public final class FilterSignal: UnaryOperatorSignal {
    let predicate: PredicateFunction
    let context: CallbackContext

    public init(_ source: Signal, _ predicate: PredicateFunction, _ context: CallbackContext) {
        self.predicate = predicate
        self.context = context
        super.init(source)
    }

    public override func subscribe(_ sink: Sink) -> Subscriber {
        source.subscribe(FilterSink(predicate, context, sink))
    }
}

final class FilterSink: ForwardingSink {
    let predicate: PredicateFunction
    let ctx: UnsafeMutableRawPointer?
    let context: CallbackContext

    init(_ predicate: PredicateFunction, _ context: CallbackContext, _ downstream: Sink) {
        self.predicate = predicate
        self.ctx = context.ctx
        self.context = context
        super.init(downstream)
    }

    override func onNext(_ value: borrowing Value) {
        if withCValue(value, { predicate(ctx, $0) }) { downstream.onNext(value) }
    }
}

extension Signal {
    /// `next fn(ctx, v)` for every value; the result is owned by the runtime.
    public func map(_ fn: MapFunction, _ context: CallbackContext) -> Signal { MapSignal(self, fn, context) }
    /// The values for which `predicate(ctx, v)` is true.
    public func filter(_ predicate: PredicateFunction, _ context: CallbackContext) -> Signal {
        FilterSignal(self, predicate, context)
    }
}
