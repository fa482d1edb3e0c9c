/// A list whose entries go stale by themselves (a subscription that ended, a
/// weakly held object that was freed). Stale entries are swept when the list
/// has doubled since the last sweep, so an append costs amortized O(1)
/// whatever the list holds (rule 23). Not synchronized: its owner's lock
/// guards it.
struct SweptList<Entry: StaleEntry> {
    private(set) var entries: [Entry] = []
    private var sweepAt = 8

    mutating func append(_ entry: Entry) {
        if entries.count >= sweepAt {
            entries.removeAll { $0.isStale }
            sweepAt = max(8, entries.count * 2)
        }
        entries.append(entry)
    }

    /// Empties the list, returning what it held.
    mutating func takeAll() -> [Entry] {
        defer { entries = []; sweepAt = 8 }
        return entries
    }
}

/// An entry of a `SweptList`.
protocol StaleEntry {
    /// It will never be used again: its subscription ended, or what it held
    /// weakly was freed.
    var isStale: Bool { get }
}

extension UpstreamHold: StaleEntry {
    var isStale: Bool { isDisposed }
}
