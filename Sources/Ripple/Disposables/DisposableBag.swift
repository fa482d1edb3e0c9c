/// Disposables in insertion order, with O(1) add and O(1) amortized remove
/// (rule 23). Not synchronized: its owner locks.
///
/// Removal leaves a hole that later compaction closes; a position index is
/// kept only once the bag is large enough for a scan to cost more than it.
struct DisposableBag {
    private var items: [Disposable?] = []
    private var holes = 0
    /// Position of each item, built lazily past `indexThreshold` items.
    private var index: [ObjectIdentifier: Int]? = nil
    private static let indexThreshold = 16
    /// Some item was added twice: removal scans (rare; never on the hot path).
    private var hasDuplicates = false

    var isEmpty: Bool { items.count == holes }

    mutating func add(_ d: Disposable) {
        items.append(d)
        if index != nil {
            let id = ObjectIdentifier(d)
            if index![id] != nil { hasDuplicates = true } else { index![id] = items.count - 1 }
        } else if items.count > DisposableBag.indexThreshold {
            buildIndex()
        }
    }

    /// Removes every occurrence of `d` without disposing it; false if absent.
    @discardableResult
    mutating func remove(_ d: Disposable) -> Bool {
        var found = false
        // The newest item (an inner that starts and ends while older ones
        // stay) is popped with the holes before it, so such churn keeps the
        // bag short and never builds the index.
        if let last = items.last, last === d {
            items.removeLast()
            while let l = items.last, l == nil {
                items.removeLast()
                holes -= 1
            }
            found = true
        }
        if index != nil && !hasDuplicates {
            let id = ObjectIdentifier(d)
            if found {
                index![id] = nil
            } else {
                guard let i = index![id] else { return false }
                index![id] = nil
                items[i] = nil
                holes += 1
            }
        } else {
            for i in items.indices where items[i] === d {
                items[i] = nil
                holes += 1
                found = true
            }
            if !found { return false }
            if index != nil { index![ObjectIdentifier(d)] = nil }
        }
        if holes == items.count {
            items.removeAll(keepingCapacity: items.count <= 64)
            holes = 0
            index = nil
            hasDuplicates = false
        } else if holes > 32 && holes * 2 > items.count {
            compact()
        }
        return true
    }

    /// Every item, in insertion order (the bag keeps them).
    var all: [Disposable] { items.compactMap { $0 } }

    /// Takes every item, in insertion order.
    mutating func takeAll() -> [Disposable] {
        let all = items.compactMap { $0 }
        items = []
        holes = 0
        index = nil
        hasDuplicates = false
        return all
    }

    private mutating func compact() {
        items = items.filter { $0 != nil }
        holes = 0
        if index != nil || items.count > DisposableBag.indexThreshold { buildIndex() } else { index = nil }
    }

    private mutating func buildIndex() {
        var m: [ObjectIdentifier: Int] = [:]
        m.reserveCapacity(items.count)
        hasDuplicates = false
        for (i, d) in items.enumerated() {
            guard let d else { continue }
            let id = ObjectIdentifier(d)
            if m[id] != nil { hasDuplicates = true } else { m[id] = i }
        }
        index = m
    }
}
