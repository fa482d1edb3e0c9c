// delay: values and completion arrive `interval` ns later (on the
// scheduler); an error is forwarded at once and drops what is pending.
//
// On the timed relay (TimedRelay.swift): each value, and the completion,
// waits in a FIFO with its due time, taken when it reached the relay; one
// timer at a time, armed for the oldest, delivers everything due when it
// fires, then arms itself for the next. So order is kept even on a
// concurrent scheduler.

public final class DelaySignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        return subscribeTimed(source, DelayCore(sink, interval, scheduler)) {
            RelaySink($0, input: TimedInput.held)
        }
    }
}

final class DelayCore: TimedCore {
    /// What waits, oldest first: a value (owned) or the completion.
    @exclusivity(unchecked) var waiting = Fifo<(due: UInt64, event: Event)>()

    override func onValue(_ index: Int, _ value: borrowing Value) { push(.next(value.retained())) }

    /// The completion waits its turn like a value.
    override func onInputCompleted(_ index: Int) { push(.completed) }

    private func push(_ e: Event) {
        guard let scheduler = clock.scheduler else {
            e.release()  // a freed test scheduler or run loop: never delivered
            return
        }
        let due = Scheduler.add(scheduler.now, interval)
        let wasEmpty = waiting.isEmpty
        waiting.append((due, e))
        if wasEmpty { arm(at: due, on: scheduler) }
    }

    /// Delivers everything due, in order, then arms for the next one.
    override func onTimer() {
        guard let scheduler = clock.scheduler else { return }
        let now = scheduler.now
        while let head = waiting.first, head.due <= now {
            if relay.isDisposed { return }  // disposed from a callback: the rest is dropped
            _ = waiting.popFirst()
            switch head.event {
            case .next(let v):
                downstream.onNext(v)
                v.release()
            case .completed:
                relay.sendCompleted()  // behind this delivery; nothing waits after it
            case .error(let e):
                relay.sendError(e)
            }
        }
        if let head = waiting.first { arm(at: head.due, on: scheduler) }
    }

    override func dropState() {
        while let item = waiting.popFirst() { item.event.release() }
    }
}

extension Signal {
    /// Delays values and completion by `interval` ns on `scheduler`.
    public func delay(_ interval: UInt64, on scheduler: Scheduler) -> Signal {
        DelaySignal(self, interval, scheduler)
    }
}
