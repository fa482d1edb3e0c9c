import RippleSupport

// map and filter: stateless, one callback per value.

/// `next fn(v)` for every value; terminal events pass through.
public final class MapSignal: CallbackOperatorSignal<MapFunction> {
    override func makeSink(_ downstream: Sink) -> Sink { MapSink(function, context, downstream) }
}

final class MapSink: StoppingSink {
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
        if !mapped.isListed { return refuse(mapped, "rpl_signal_map") }
        downstream.onNext(mapped)
        mapped.release()
    }
}

/// Passes the values for which `predicate` returns true.
public final class FilterSignal: PredicateOperatorSignal {
    override func makeSink(_ call: PredicateCall, _ downstream: Sink) -> Sink { FilterSink(call, downstream) }
}

final class FilterSink: ForwardingSink {
    let call: PredicateCall
    init(_ call: PredicateCall, _ downstream: Sink) {
        self.call = call
        super.init(downstream)
    }

    override func onNext(_ value: borrowing Value) {
        if call.test(value) { downstream.onNext(value) }
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
