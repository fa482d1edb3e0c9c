import RippleSupport

// map and filter: stateless, one callback per value.

/// `next fn(v)` for every value; terminal events pass through.
public final class MapSignal: CallbackOperatorSignal<MapFunction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { MapSink(callback, downstream) }
}

final class MapSink: CallbackSink<MapFunction> {
    override func onNext(_ value: borrowing Value) {
        let (mapped, failed) = call.map(value)
        sendReturned(mapped, failed: failed, "rpl_signal_map")
    }
}

/// Passes the values for which `predicate` returns true.
public final class FilterSignal: CallbackOperatorSignal<PredicateFunction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { FilterSink(callback, downstream) }
}

final class FilterSink: CallbackSink<PredicateFunction> {
    override func onNext(_ value: borrowing Value) {
        let (pass, failed) = call.test(value)
        if failed, let failure = takeFailure() { return stop(failure) }
        if pass { downstream.onNext(value) }
    }
}

extension Signal {
    /// `next fn(ctx, v)` for every value; the result is owned by the runtime.
    public func map(_ fn: Callback<MapFunction>) -> Signal { MapSignal(self, fn) }
    /// The values for which `predicate(ctx, v)` is true.
    public func filter(_ predicate: Callback<PredicateFunction>) -> Signal { FilterSignal(self, predicate) }
}
