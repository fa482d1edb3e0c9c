import RippleSupport

// initially, finally, do_dispose: side effects of a subscription's start and
// end, each a plain `fn(ctx)`.

/// Runs `fn(ctx)` before each subscription, then subscribes the source
/// (RAC's initially:, a defer; rule 27: before the upstream
/// subscription). `rpl_callback_fail` inside it fails that subscription with
/// the error, and the source is not subscribed.
public final class InitiallySignal: CallbackOperatorSignal<RawCallback> {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        // Outside a delivery the failure channel needs a level of its own:
        // the callback runs as if delivering, so a send it starts is nested.
        let t = ripple_thread()!
        t.pointee.delivering &+= 1
        let failure = callback.run()
        t.pointee.delivering &-= 1
        guard let failure else { return source.subscribe(sink) }
        let s = Subscriber.make(sink)
        s.sendError(failure)
        return s
    }
}

/// Runs `fn(ctx)` when the source errs or completes, before the event is
/// forwarded (RAC's finally:); not on disposal. `rpl_callback_fail` inside
/// it sends that error in place of the terminal event.
public final class FinallySignal: CallbackOperatorSignal<RawCallback> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { DoTerminalSink(callback, onError: true, downstream) }
}

/// Runs `fn(ctx)` once per subscription when it has ended for any reason
/// (error, completion, disposal, or its sources being freed), after its
/// upstream was disposed (the source's own disposable too, also when the
/// source terminated inside its subscribe callback) and before the
/// observer's release (Rx's do(onDispose:); rule 27). The
/// subscription is over by then, so `rpl_callback_fail` is refused there.
public final class DoDisposeSignal: CallbackOperatorSignal<RawCallback> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { DoDisposeSink(callback, downstream) }
}

// `finish` runs once the subscription's resources are disposed and every
// subscribe call made for it has returned, its disposable disposed: the
// source's own (Subscriber.finalize), and every input's of a relay
// (`Subscriber.whileSubscribing`).
final class DoDisposeSink: ForwardingSink {
    let call: Callback<RawCallback>

    init(_ call: Callback<RawCallback>, _ downstream: Sink) {
        self.call = call
        super.init(downstream)
    }

    override func finish() {
        outsideFailureChannel { call.function(call.ctx) }  // nothing is left to fail
        downstream.finish()
    }
}

extension Signal {
    /// `action(ctx)` before each subscription.
    public func initially(_ action: Callback<RawCallback>) -> Signal { InitiallySignal(self, action) }
    /// `action(ctx)` after an error or completion, before it is forwarded.
    public func finally(_ action: Callback<RawCallback>) -> Signal { FinallySignal(self, action) }
    /// `action(ctx)` when a subscription ends, for any reason.
    public func doDispose(_ action: Callback<RawCallback>) -> Signal { DoDisposeSignal(self, action) }
}
