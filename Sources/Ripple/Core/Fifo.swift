/// A first-in first-out queue: append and take-first in O(1) amortized (an
/// array and a head index, compacted as it drains). The one queue of the
/// runtime: the schedulers' ready jobs, a limited flatten's waiting inner
/// signals, zip's values, delay's pending events and write's chunks wait in
/// one. (A bounded "last n values" is a `ReplayBuffer`.)
struct Fifo<Element> {
    private var items: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }
    /// The first element, left in place.
    var first: Element? { head < items.count ? items[head] : nil }

    mutating func append(_ e: Element) { items.append(e) }

    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let e = items[head]
        head += 1
        if head == items.count {
            // Drained: keep a small buffer for the next burst, free a large one.
            items.removeAll(keepingCapacity: items.count <= 1024)
            head = 0
        } else {
            items[head - 1] = nil  // the queue no longer holds it
            if head >= 64 && head * 2 >= items.count {
                items.removeFirst(head)  // O(remaining), once per `head` pops
                head = 0
            }
        }
        return e
    }

    /// Takes everything that waits, in order, leaving the queue empty.
    mutating func takeAll() -> [Element?] {
        if head > 0 { items.removeFirst(head); head = 0 }
        let all = items
        items = []
        return all
    }
}
