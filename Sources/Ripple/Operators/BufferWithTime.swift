// buffer_with_time (RAC's bufferWithTime:onScheduler:): the first value of
// a batch starts a timer; when it fires, the batch goes out as one tuple (in
// arrival order; nil values are kept) and the next value starts a new
// batch. No timer runs while nothing is buffered, so an interval without
// values sends nothing. Completion sends the batch (if not empty) at once,
// then completes; an error drops it and passes at once.

public final class BufferWithTimeSignal: ScheduledOperatorSignal {
    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        guard let scheduler = scheduler.scheduler else { return .ended(sink) }
        return subscribeTimed(source, BufferWithTimeCore(sink, interval, scheduler)) {
            RelaySink($0, input: TimedInput.held)
        }
    }
}

final class BufferWithTimeCore: TimedCore {
    @exclusivity(unchecked) var batch: [Value] = []  // each owned

    override func onValue(_ index: Int, _ value: borrowing Value) {
        if batch.isEmpty { arm() }
        batch.append(value.retained())
    }

    override func onTimer() { flush() }
    override func onSourceCompleted() { flush() }

    override func dropState() {
        for v in batch { v.release() }
        batch = []
    }

    private func flush() {
        if batch.isEmpty { return }
        let tuple = Value.tuple(batch)  // takes the values
        batch = []
        downstream.onNext(tuple)
        tuple.release()
    }
}

extension Signal {
    /// Batches of the values received within `interval` ns of each batch's
    /// first value, as tuples.
    public func buffer(withTime interval: UInt64, on scheduler: Scheduler) -> Signal {
        BufferWithTimeSignal(self, interval, scheduler)
    }
}
