import RippleSupport

// do_next, do_error, do_completed: side effects run before the event is
// forwarded (RAC's doNext:, doError:, doCompleted:), once per subscription.

/// Calls `action(ctx, v)` for each value, then forwards it.
public final class DoNextSignal: CallbackOperatorSignal<ValueAction> {
    override func makeSink(_ downstream: Sink) -> Sink { DoNextSink(function, context, downstream) }
}

final class DoNextSink: ForwardingSink {
    let action: ValueAction
    let ctx: UnsafeMutableRawPointer?
    let context: CallbackContext

    init(_ action: ValueAction, _ context: CallbackContext, _ downstream: Sink) {
        self.action = action
        self.ctx = context.ctx
        self.context = context
        super.init(downstream)
    }

    override func onNext(_ value: borrowing Value) {
        withCValue(value) { action(ctx, $0) }
        downstream.onNext(value)
    }
}

/// Calls `action(ctx, error)` on an error, then forwards it.
public final class DoErrorSignal: CallbackOperatorSignal<ErrorAction> {
    override func makeSink(_ downstream: Sink) -> Sink { DoErrorSink(function, context, downstream) }
}

final class DoErrorSink: ForwardingSink {
    let action: ErrorAction
    let context: CallbackContext

    init(_ action: ErrorAction, _ context: CallbackContext, _ downstream: Sink) {
        self.action = action
        self.context = context
        super.init(downstream)
    }

    override func onError(_ error: RippleError) {
        action(context.ctx, OpaquePointer(Unmanaged.passUnretained(error).toOpaque()))
        downstream.onError(error)
    }
}

/// Calls `action(ctx)` on completion, then forwards it.
public final class DoCompletedSignal: CallbackOperatorSignal<RawCallback> {
    override func makeSink(_ downstream: Sink) -> Sink { DoCompletedSink(function, context, downstream) }
}

final class DoCompletedSink: ForwardingSink {
    let action: RawCallback
    let context: CallbackContext

    init(_ action: RawCallback, _ context: CallbackContext, _ downstream: Sink) {
        self.action = action
        self.context = context
        super.init(downstream)
    }

    override func onCompleted() {
        action(context.ctx)
        downstream.onCompleted()
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
