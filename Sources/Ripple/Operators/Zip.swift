/// Tuples of the i-th values of every input. Each input's values wait in a
/// queue; completes as soon as an input has completed and its queue is empty
/// (so the shortest input decides), at once when there are no inputs. The
/// first error ends everything.
public final class ZipSignal: MultiInputSignal {
    override func makeCore(_ sink: Sink) -> InputCore { ZipCore(sink, count: sources.count) }
}

final class ZipCore: InputCore {
    /// Each input's values (owned), oldest first.
    var queues: [Fifo<Value>]
    var completed: [Bool]
    /// Inputs whose queue is empty.
    var empty: Int

    init(_ downstream: Sink, count: Int) {
        queues = Array(repeating: Fifo(), count: count)
        completed = Array(repeating: false, count: count)
        empty = count
        super.init(downstream)
    }

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if queues[index].isEmpty { empty -= 1 }
        queues[index].append(value.retained())
        guard empty == 0 else { return }
        var items: [Value] = []
        items.reserveCapacity(queues.count)
        for i in queues.indices {
            items.append(queues[i].popFirst()!)
            if queues[i].isEmpty { empty += 1 }
        }
        // The state is consistent before calling out: nested events are fine.
        let tuple = Value.tuple(items)
        downstream.onNext(tuple)
        tuple.release()
        checkDone()
    }

    override func onInputCompleted(_ index: Int) {
        completed[index] = true
        checkDone()
    }

    /// Completes when an input has completed and its queue is used up.
    func checkDone() {
        for i in queues.indices where completed[i] && queues[i].isEmpty {
            relay.sendCompleted()
            return
        }
    }

    override func finish() {
        for i in queues.indices { while let v = queues[i].popFirst() { v.release() } }
        queues = []
        super.finish()
    }
}

extension Signal {
    public static func zip(_ signals: [Signal]) -> Signal { ZipSignal(signals) }
}
