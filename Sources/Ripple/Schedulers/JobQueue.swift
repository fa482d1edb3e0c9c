/// A FIFO of jobs (array plus head index; compacts as it drains).
struct JobQueue {
    private var items: [Job?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }

    mutating func append(_ j: Job) { items.append(j) }

    mutating func popFirst() -> Job? {
        guard head < items.count else { return nil }
        let j = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return j
    }

    /// Takes every job, leaving the queue empty.
    mutating func takeAll() -> [Job?] {
        if head > 0 { items.removeFirst(head); head = 0 }
        let all = items
        items = []
        return all
    }
}
