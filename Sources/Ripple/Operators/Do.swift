import RippleSupport

// do_next, do_error, do_completed: side effects run before the event is
// forwarded (RAC's doNext:, doError:, doCompleted:), once per subscription.
// finally (Lifetime.swift) uses do_completed's sink, also run on an error.

/// Calls `action(ctx, v)` for each value, then forwards it.
public final class DoNextSignal: CallbackOperatorSignal<ValueAction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { DoNextSink(callback, downstream) }
}

final class DoNextSink: CallbackSink<ValueAction> {
    override func onNext(_ value: borrowing Value) {
        if call.run(value), let failure = takeFailure() { return stop(failure) }  // the value is not forwarded
        downstream.onNext(value)
    }
}

/// Calls `action(ctx, error)` on an error, then forwards it.
public final class DoErrorSignal: CallbackOperatorSignal<ErrorAction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { DoErrorSink(callback, downstream) }
}

final class DoErrorSink: CallbackSink<ErrorAction> {
    override func onError(_ error: RippleError) {
        if let failure = call.run(error) { return stop(failure) }  // fails with the callback's error
        super.onError(error)
    }
}

/// Calls `action(ctx)` on completion, then forwards it.
public final class DoCompletedSignal: CallbackOperatorSignal<RawCallback> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { DoTerminalSink(callback, onError: false, downstream) }
}

/// do_completed and finally: `fn(ctx)` on completion and, with `onError`
/// (finally), on an error too, before the event is forwarded.
/// `rpl_callback_fail` inside it sends that error in place of the event.
final class DoTerminalSink: CallbackSink<RawCallback> {
    let runsOnError: Bool

    init(_ call: Callback<RawCallback>, onError: Bool, _ downstream: Sink) {
        runsOnError = onError
        super.init(call, downstream)
    }

    override func onError(_ error: RippleError) {
        if runsOnError, let failure = call.run() { return stop(failure) }
        super.onError(error)
    }

    override func onCompleted() {
        if let failure = call.run() { return stop(failure) }  // fails instead of completing
        super.onCompleted()
    }
}

extension Signal {
    public func doNext(_ action: Callback<ValueAction>) -> Signal { DoNextSignal(self, action) }
    public func doError(_ action: Callback<ErrorAction>) -> Signal { DoErrorSignal(self, action) }
    public func doCompleted(_ action: Callback<RawCallback>) -> Signal { DoCompletedSignal(self, action) }
}
