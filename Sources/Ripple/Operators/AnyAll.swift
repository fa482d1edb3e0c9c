import RippleSupport

// any, all: one bool per subscription, then completed (RAC's any: and all:).

/// `any`: true at the first value passing the predicate (then completed,
/// the source disposed), false when the source ends without one.
/// `all`: false at the first value failing it (then completed, the source
/// disposed), true when the source completes. As in RAC, an error of the
/// source ends the result with false, then completed (the error is not
/// passed on); a predicate that fails through `rpl_callback_fail` fails the
/// result with its error.
public final class AnyAllSignal: CallbackOperatorSignal<PredicateFunction> {
    let all: Bool

    public init(_ source: Signal, _ predicate: Callback<PredicateFunction>, all: Bool) {
        self.all = all
        super.init(source, predicate)
    }

    override func makeSink(_ downstream: consuming Sink) -> Sink { AnyAllSink(callback, all: all, downstream) }
}

final class AnyAllSink: CallbackSink<PredicateFunction> {
    /// all: the answer when no value decides it (at completion).
    let all: Bool

    init(_ call: Callback<PredicateFunction>, all: Bool, _ downstream: Sink) {
        self.all = all
        super.init(call, downstream)
    }

    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        let (pass, failed) = call.test(value)
        if failed, let failure = takeFailure() { return stop(failure) }
        if pass == all { return }  // undecided: any saw a failing value, all a passing one
        downstream.onNext(.bool(!all))
        stop()
    }

    /// The source ended undecided: `result`, then completed.
    private func conclude(_ result: Bool) {
        if stopped { return }
        stopped = true
        downstream.onNext(.bool(result))
        terminate(nil)
    }

    override func onCompleted() { conclude(all) }
    override func onError(_ error: RippleError) { conclude(false) }  // RAC: the error becomes NO
}

extension Signal {
    /// Whether some value passes `predicate`.
    public func any(_ predicate: Callback<PredicateFunction>) -> Signal {
        AnyAllSignal(self, predicate, all: false)
    }
    /// Whether every value passes `predicate`.
    public func all(_ predicate: Callback<PredicateFunction>) -> Signal {
        AnyAllSignal(self, predicate, all: true)
    }
}
