import RippleSupport

// throttle_if (RAC's throttle:valuesPassingTest:), and throttle, which is
// throttle_if passing every value (RAC builds it the same way; Rx calls it
// debounce): values for which the
// predicate is true are throttled like throttle (each replaces the pending
// one and restarts the wait; the pending value is sent, on the scheduler,
// once `interval` ns pass without a newer one); a value for which it is
// false discards the pending value and is sent at once. Completion sends
// the pending value, then completes; an error drops it and passes at once.
// The predicate runs on the source's thread, once per value, and may fail
// the operator through rpl_callback_fail (semantics 24).

public final class ThrottleIfSignal: ScheduledOperatorSignal {
    /// nil: every value passes (throttle).
    let predicate: Callback<PredicateFunction>?

    public init(_ source: Signal, _ interval: UInt64, _ scheduler: Scheduler,
                _ predicate: Callback<PredicateFunction>) {
        self.predicate = predicate
        super.init(source, interval, scheduler)
    }

    /// throttle: every value is held back.
    public override init(_ source: Signal, _ interval: UInt64, _ scheduler: Scheduler) {
        predicate = nil
        super.init(source, interval, scheduler)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        let predicate = self.predicate
        return subscribeTimed(source, ThrottleIfCore(sink, interval, scheduler)) {
            ThrottleIfSourceSink($0, predicate)
        }
    }
}

/// Tests each value on the source's side and tells the core which it is.
final class ThrottleIfSourceSink: RelaySink {
    let predicate: Callback<PredicateFunction>?
    /// The predicate failed: later values (sent before the dispose reached
    /// the source) are not tested again.
    @exclusivity(unchecked) var failed = false

    init(_ relay: Subscriber, _ predicate: Callback<PredicateFunction>?) {
        self.predicate = predicate
        super.init(relay, input: TimedInput.held)
    }

    override func onNext(_ value: borrowing Value) {
        guard let predicate else { return relay.send(.input(TimedInput.held, value.retained())) }
        if failed { return }
        let (passes, callbackFailed) = predicate.test(value)
        if callbackFailed, let failure = takeFailure() {
            failed = true
            forwardError(failure)  // ends the relay, which disposes the source
            return
        }
        relay.send(.input(passes ? TimedInput.held : TimedInput.immediate, value.retained()))
    }
}

final class ThrottleIfCore: TimedCore {
    @exclusivity(unchecked) var pending: Value?

    override func onValue(_ index: Int, _ value: borrowing Value) {
        pending?.release()
        if index == TimedInput.held {
            pending = value.retained()
            arm()
        } else {
            pending = nil
            disarm()
            downstream.onNext(value)
        }
    }

    override func onTimer() { sendPending() }
    override func onSourceCompleted() { sendPending() }

    override func dropState() {
        pending?.release()
        pending = nil
    }

    private func sendPending() {
        guard let v = pending else { return }
        pending = nil
        downstream.onNext(v)
        v.release()
    }
}

extension Signal {
    /// Sends a value only after `interval` ns without a newer one.
    public func throttle(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        ThrottleIfSignal(self, interval, scheduler)
    }

    /// Throttles the values passing `predicate` (RAC's throttle:valuesPassingTest:).
    public func throttle(_ interval: UInt64, on scheduler: Scheduler,
                         valuesPassing predicate: Callback<PredicateFunction>) -> Signal {
        ThrottleIfSignal(self, interval, scheduler, predicate)
    }
}
