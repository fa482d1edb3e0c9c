import RippleSupport

// do_next, do_error, do_completed: side effects run before the event is
// forwarded (RAC's doNext:, doError:, doCompleted:), once per subscription.

/// Calls `action(ctx, v)` for each value, then forwards it.
public final class DoNextSignal: CallbackOperatorSignal<ValueAction> {
    override func makeSink(_ downstream: Sink) -> Sink { DoNextSink(callback, downstream) }
}

final class DoNextSink: CallbackSink<ValueAction> {
    override func onNext(_ value: borrowing Value) {
        if let failure = call.run(value) { return stop(failure) }  // the value is not forwarded
        downstream.onNext(value)
    }
}

/// Calls `action(ctx, error)` on an error, then forwards it.
public final class DoErrorSignal: CallbackOperatorSignal<ErrorAction> {
    override func makeSink(_ downstream: Sink) -> Sink { DoErrorSink(callback, downstream) }
}

final class DoErrorSink: CallbackSink<ErrorAction> {
    override func onError(_ error: RippleError) {
        if let failure = call.run(error) { return stop(failure) }  // fails with the callback's error
        super.onError(error)
    }
}

/// Calls `action(ctx)` on completion, then forwards it.
public final class DoCompletedSignal: CallbackOperatorSignal<RawCallback> {
    override func makeSink(_ downstream: Sink) -> Sink { DoCompletedSink(callback, downstream) }
}

final class DoCompletedSink: CallbackSink<RawCallback> {
    override func onCompleted() {
        if let failure = call.run() { return stop(failure) }  // fails instead of completing
        super.onCompleted()
    }
}

extension Signal {
    public func doNext(_ action: ValueAction, _ context: CallbackContext) -> Signal {
        DoNextSignal(self, action, context)
    }
    public func doError(_ action: ErrorAction, _ context: CallbackContext) -> Signal {
        DoErrorSignal(self, action, context)
    }
    public func doCompleted(_ action: RawCallback, _ context: CallbackContext) -> Signal {
        DoCompletedSignal(self, action, context)
    }
}
