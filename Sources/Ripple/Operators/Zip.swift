/// Tuples of the i-th values of every input. Each input's values wait in a
/// queue; completes as soon as an input has completed and its queue is empty
/// (so the shortest input decides), at once when there are no inputs. The
/// first error ends everything.
public final class ZipSignal: MultiInputSignal {
    override func makeCore(_ sink: Sink) -> InputCore { ZipCore(sink, count: sources.count) }
}

/// One input of a zip: its values (owned), oldest first.
final class ZipInput {
    var queue = Fifo<Value>()
    var completed = false
}

final class ZipCore: InputCore {
    var inputs: [ZipInput]
    /// Inputs whose queue is empty.
    var empty: Int

    init(_ downstream: Sink, count: Int) {
        inputs = (0..<count).map { _ in ZipInput() }
        empty = count
        super.init(downstream)
    }

    override func onInput(_ index: Int, _ value: borrowing Value) {
        let input = inputs[index]
        if input.queue.isEmpty { empty -= 1 }
        input.queue.append(value.retained())
        guard empty == 0 else { return }
        var items: [Value] = []
        items.reserveCapacity(inputs.count)
        for input in inputs {
            items.append(input.queue.popFirst().unsafelyUnwrapped)
            if input.queue.isEmpty { empty += 1 }
        }
        // The state is consistent before calling out: nested events are fine.
        let tuple = Value.tuple(items)
        downstream.onNext(tuple)
        tuple.release()
        checkDone()
    }

    override func onInputCompleted(_ index: Int) {
        inputs[index].completed = true
        checkDone()
    }

    /// Completes when an input has completed and its queue is used up.
    func checkDone() {
        for input in inputs where input.completed && input.queue.isEmpty {
            relay.sendCompleted()
            return
        }
    }

    override func finish() {
        for input in inputs { while let v = input.queue.popFirst() { v.release() } }
        inputs = []
        super.finish()
    }
}

extension Signal {
    public static func zip(_ signals: [Signal]) -> Signal { ZipSignal(signals) }
}
