// materialize and dematerialize: events as values, and back.

/// Sends each event as an event value: `next v` as `next Event(v)`,
/// completed as `next Event(C)` then completed, an error as
/// `next Event(E)` then completed (RAC).
public final class MaterializeSignal: UnaryOperatorSignal {
    public override init(_ source: Signal) { super.init(source) }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(MaterializeSink(sink))
    }
}

final class MaterializeSink: ForwardingSink {
    @inline(__always)
    func send(_ event: Event) {
        let v = Value.event(event)
        downstream.onNext(v)
        v.release()
    }

    override func onNext(_ value: borrowing Value) { send(.next(value.retained())) }

    override func onError(_ error: RippleError) {
        send(.error(error))
        downstream.onCompleted()
    }

    override func onCompleted() {
        send(.completed)
        downstream.onCompleted()
    }
}

/// The inverse of materialize: `Event(v)` sends v, `Event(C)` completes,
/// `Event(E)` fails with E; the source is disposed at the terminal event and
/// anything after it is ignored (RAC). A value that is not an event fails
/// the signal with a type error (domain "ripple", `RippleError.typeErrorCode`):
/// RAC treats it as a programming error and crashes; Ripple reports it.
public final class DematerializeSignal: UnaryOperatorSignal {
    public override init(_ source: Signal) { super.init(source) }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        source.subscribe(DematerializeSink(sink))
    }
}

final class DematerializeSink: StoppingSink {
    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        guard let event = value.eventValue else {
            return refuseType(value, expected: "an event", "rpl_signal_dematerialize")
        }
        switch event {
        case .next(let v): downstream.onNext(v)  // the box, borrowed from `value`, owns v
        case .error(let e): stop(e)
        case .completed: stop()
        }
    }
}

extension Signal {
    /// Each event as a value of type `.event`.
    public func materialize() -> Signal { MaterializeSignal(self) }
    /// Event values back into events.
    public func dematerialize() -> Signal { DematerializeSignal(self) }
}
