/// A sink that can end its subscription before the source does (take,
/// take_while, dematerialize).
///
/// `stop` marks the root subscriber done, sends the terminal event to the
/// sinks below this one, then disposes the subscription's resources (the
/// source): the order of rule 5. Sinks above this one see no
/// terminal event, so a `do_completed` upstream of a `take` does not run, and
/// a value sent back into the source from the terminal callback is dropped by
/// the subscriber. If the root is already done because an upstream sink is
/// emitting from its own terminal event (`collect`, `take_last`,
/// `materialize`), this sink's terminal event is sent now and the upstream
/// one is ignored; if it is done because it was disposed, nothing is sent.
class StoppingSink: ForwardingSink {
    /// No more values go downstream.
    @exclusivity(unchecked) final var stopped = false
    /// The terminal event went downstream.
    @exclusivity(unchecked) final var terminated = false
    /// The subscriber at the head of the chain. Unowned: it owns this sink
    /// (a strong reference would be a cycle), and it is alive whenever it
    /// calls into the chain.
    @exclusivity(unchecked) final unowned(unsafe) var root: Subscriber?

    override func attach(_ subscriber: Subscriber) {
        root = subscriber
        downstream.attach(subscriber)
    }

    /// Ends the subscription with `error`, or with completion when nil.
    final func stop(_ error: RippleError? = nil) {
        if stopped { return }
        stopped = true
        guard let root else {
            terminate(error)  // never attached: nothing upstream to end
            return
        }
        if root.markDone() {
            terminate(error)
            root.disposeResources()
        } else if !root.resourcesAreDisposed {
            terminate(error)  // inside an upstream terminal event, which disposes the resources next
        }
    }

    @inline(__always)
    final func terminate(_ error: RippleError?) {
        if terminated { return }
        terminated = true
        if let error { downstream.onError(error) } else { downstream.onCompleted() }
    }

    /// Fails the subscription because `op`'s callback returned `value`, of
    /// a type ripple.h does not list (rule 19a). The value is
    /// not released: it is not a box the runtime made.
    final func refuse(_ value: Value, _ op: StaticString) {
        stop(.runtime(.callback, "\(op): the callback returned a value of type \(value.rawType), which ripple.h does not list"))
    }

    /// Fails the subscription because `value`, of the wrong type, reached
    /// `op`, which takes `expected` (domain "ripple", `RPL_ERROR_TYPE`): RAC
    /// asserts there.
    final func refuseType(_ value: borrowing Value, expected: StaticString, _ op: StaticString) {
        stop(RippleError(domain: RippleError.runtimeDomain, code: RippleError.typeErrorCode,
                         message: "\(op): expected \(expected), got a value of type \(value.type)"))
    }

    /// Sends `result`, what an operator's callback returned (owned), unless
    /// the callback failed (`failed` says a failure is recorded, and
    /// `takeFailure` finds it is this callback's; rule 24: the result is
    /// discarded and the subscription fails) or returned a type ripple.h
    /// does not list (rule 19a: the subscription fails, naming `op`).
    @inline(__always)
    final func sendReturned(_ result: Value, failed: Bool, _ op: StaticString) {
        // A scalar needs nothing after the call: the rest, the failure taken
        // included, is out of line, so the caller keeps nothing across a call.
        if _fastPath(!failed && !result.isBoxed && result.isListed) { return downstream.onNext(result) }
        sendReturnedOther(result, failed, op)
    }

    @inline(never)
    final func sendReturnedOther(_ result: Value, _ failed: Bool, _ op: StaticString) {
        if failed, let failure = takeFailure() {
            if result.isListed { result.release() }
            return stop(failure)
        }
        if !result.isListed { return refuse(result, op) }
        downstream.onNext(result)
        result.release()
    }

    override func onError(_ error: RippleError) {
        stopped = true
        terminate(error)
    }

    override func onCompleted() {
        stopped = true
        terminate(nil)
    }
}

/// The sink of a fused operator with one C callback (map, filter, scan,
/// do_*, take_while, ...): the callback its signal holds, called directly
/// per event. Subclasses are final and name `Function`, so each is
/// specialized: one indirect call per event, no generic dispatch.
class CallbackSink<Function>: StoppingSink {
    final let call: Callback<Function>

    init(_ call: Callback<Function>, _ downstream: Sink) {
        self.call = call
        super.init(downstream)
    }
}
