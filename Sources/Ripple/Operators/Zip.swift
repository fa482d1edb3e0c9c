/// Tuples of the i-th values of every input. Each input's values wait in a
/// queue; completes as soon as an input has completed and its queue is empty
/// (so the shortest input decides), at once when there are no inputs. The
/// first error ends everything.
public final class ZipSignal: MultiInputSignal {
    override func makeCore(_ sink: Sink) -> InputCore { ZipCore(sink, count: sources.count) }
}

/// A FIFO of owned values.
struct ValueQueue {
    var items: [Value] = []
    var head = 0
    var isEmpty: Bool { head == items.count }
    mutating func push(_ v: Value) { items.append(v) }
    /// The oldest value, owned by the caller. The queue must not be empty.
    mutating func pop() -> Value {
        let v = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return v
    }
    mutating func releaseAll() {
        for i in head..<items.count { items[i].release() }
        items = []
        head = 0
    }
}

final class ZipCore: InputCore {
    var queues: [ValueQueue]
    var completed: [Bool]
    /// Inputs whose queue is empty.
    var empty: Int

    init(_ downstream: Sink, count: Int) {
        queues = Array(repeating: ValueQueue(), count: count)
        completed = Array(repeating: false, count: count)
        empty = count
        super.init(downstream)
    }

    override func onInput(_ index: Int, _ value: borrowing Value) {
        if queues[index].isEmpty { empty -= 1 }
        queues[index].push(value.retained())
        guard empty == 0 else { return }
        var items: [Value] = []
        items.reserveCapacity(queues.count)
        for i in queues.indices {
            items.append(queues[i].pop())
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
        for i in queues.indices { queues[i].releaseAll() }
        queues = []
        super.finish()
    }
}

extension Signal {
    public static func zip(_ signals: [Signal]) -> Signal { ZipSignal(signals) }
}
