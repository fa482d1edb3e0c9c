import RippleSupport

// distinct_until_changed_with: distinct_until_changed with the caller's equality.

/// `rpl_equal_fn`: `(ctx, a, b)`, both borrowed.
public typealias EqualFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>,
                                                 UnsafePointer<ripple_value>) -> Bool

extension Callback where Function == EqualFunction {
    @inline(__always)
    func equal(_ a: borrowing Value, _ b: borrowing Value) -> (Bool, RippleError?) {
        let x = copy a, y = copy b  // 16 bytes each; boxes stay borrowed
        return withFailureChannel {
            withCValue(x) { px in withCValue(y) { py in function(ctx, px, py) } }
        }
    }
}

/// Passes a value unless `equal(last, v)` is true, where last is the last
/// value passed; the first value always passes, without a call (Rx's
/// distinctUntilChanged(_ comparer:)).
public final class DistinctUntilChangedWithSignal: CallbackOperatorSignal<EqualFunction> {
    override func makeSink(_ downstream: Sink) -> Sink { DistinctUntilChangedWithSink(callback, downstream) }
}

final class DistinctUntilChangedWithSink: StoppingSink {
    let call: Callback<EqualFunction>
    @exclusivity(unchecked) var last = Value.nil  // owned
    @exclusivity(unchecked) var hasLast = false

    init(_ call: Callback<EqualFunction>, _ downstream: Sink) {
        self.call = call
        super.init(downstream)
    }

    deinit { last.release() }

    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        if hasLast {
            let held = last.retained()  // kept for the call, whatever a nested delivery does
            let (same, failure) = call.equal(held, value)
            held.release()
            if let failure { return stop(failure) }
            if same { return }
        }
        let replaced = last
        last = value.retained()
        hasLast = true
        replaced.release()
        downstream.onNext(value)
    }
}

extension Signal {
    /// Drops each value `equal(ctx, last, v)` says equals the last value passed.
    public func distinctUntilChanged(_ equal: EqualFunction, _ context: CallbackContext) -> Signal {
        DistinctUntilChangedWithSignal(self, equal, context)
    }
}
