/// The last `capacity` values of a replay subject, oldest first; each held +1.
struct ReplayBuffer {
    let capacity: Int
    private var items: [Value] = []
    private var start = 0

    init(capacity: Int) { self.capacity = capacity }

    var isEmpty: Bool { items.isEmpty }

    /// Appends `v` (consumed); returns the value it pushed out, if any.
    mutating func append(_ v: Value) -> Value? {
        if items.count < capacity {
            items.append(v)
            return nil
        }
        let old = items[start]
        items[start] = v
        start += 1
        if start == capacity { start = 0 }
        return old
    }

    /// Calls `body` with each value in order, borrowed.
    func forEach(_ body: (borrowing Value) -> Void) {
        for i in 0..<items.count { body(items[(start + i) % items.count]) }
    }

    /// The newest value, borrowed.
    var last: Value? { items.isEmpty ? nil : items[(start + items.count - 1) % items.count] }

    mutating func releaseAll() {
        for v in items { v.release() }
        items = []
        start = 0
    }
}
