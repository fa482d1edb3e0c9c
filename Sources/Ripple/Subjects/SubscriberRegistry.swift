/// A subject's live subscribers in subscription order, touched only by the
/// thread that owns the subject's hub, so a send reads it without any atomic
/// and no lock is held while callbacks run (rule 11).
///
/// Adding is O(1); removing leaves a hole (O(1)) and holes are closed by a
/// compaction once they outnumber the live entries, so a send costs
/// O(live subscribers) and subscribe/dispose cost O(1) amortized whatever
/// came and went before (rule 23). Messages sent from inside a callback are
/// queued by the hub, so the registry never changes during a send.
struct SubscriberRegistry {
    private(set) var slots: UnsafeMutablePointer<Unmanaged<Subscriber>?>
    private(set) var count = 0
    private var capacity: Int
    private(set) var holes = 0
    /// Non-zero while a send walks the slots (`beginWalk`, `endWalk`):
    /// removal leaves holes and compaction waits (slots must not move under
    /// the walk). The walks running, plus `holeLeft` once a removal left a
    /// hole meanwhile, so that ending a walk is one decrement and one test.
    private(set) var walking = 0
    private static let holeLeft = 1 << 32

    init() {
        capacity = 4
        slots = .allocate(capacity: capacity)
    }

    /// Frees the storage and drops every entry (the hub is gone).
    mutating func destroy() {
        for i in 0..<count { slots[i]?.release() }
        slots.deallocate()
        count = 0
        capacity = 0
    }

    var live: Int { count &- holes }

    @inline(__always)
    mutating func add(_ s: Subscriber) {
        if count == capacity { grow() }
        slots[count] = Unmanaged.passRetained(s)
        s.hubSlot = Int32(truncatingIfNeeded: count)
        count &+= 1
    }

    @inline(never)
    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Unmanaged<Subscriber>?>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: slots, count: count)
        slots.deallocate()
        slots = bigger
        capacity *= 2
    }

    /// Removes `s` if it is registered; returns the reference it held (+1).
    @inline(__always)
    mutating func remove(_ s: Subscriber) -> Unmanaged<Subscriber>? {
        let i = Int(s.hubSlot)
        guard i >= 0, i < count, let entry = slots[i], entry.toOpaque() == Unmanaged.passUnretained(s).toOpaque() else {
            return nil
        }
        slots[i] = nil
        s.hubSlot = -1
        holes &+= 1
        if walking != 0 {
            walking |= Self.holeLeft  // the walk's end closes the holes
        } else if holes == count {
            count = 0
            holes = 0
        } else {
            compactIfSparse()
        }
        return entry
    }

    @inline(__always)
    mutating func beginWalk() { walking &+= 1 }

    @inline(__always)
    mutating func endWalk() {
        walking &-= 1
        if walking != 0 { endWalkSlow() }
    }

    /// A walk ended with a hole left meanwhile (or inside another walk).
    @inline(never)
    private mutating func endWalkSlow() {
        if walking != Self.holeLeft { return }
        walking = 0
        if holes == count {
            count = 0
            holes = 0
        } else {
            compactIfSparse()
        }
    }

    /// Takes every entry (+1 each), in order, leaving the registry empty.
    mutating func takeAll() -> [Unmanaged<Subscriber>] {
        var out: [Unmanaged<Subscriber>] = []
        out.reserveCapacity(live)
        for i in 0..<count {
            if let e = slots[i] {
                e._withUnsafeGuaranteedRef { $0.hubSlot = -1 }
                out.append(e)
            }
        }
        count = 0
        holes = 0
        return out
    }

    /// Closes the holes once they outnumber the live entries (amortized O(1)),
    /// unless a walk is running.
    @inline(__always)
    private mutating func compactIfSparse() {
        if holes > 8 { compactIfSparseSlow() }
    }

    @inline(never)
    private mutating func compactIfSparseSlow() {
        if walking == 0 && holes * 2 > count { compact() }
    }

    private mutating func compact() {
        var j = 0
        for i in 0..<count {
            guard let e = slots[i] else { continue }
            slots[j] = e
            e._withUnsafeGuaranteedRef { $0.hubSlot = Int32(truncatingIfNeeded: j) }
            j += 1
        }
        count = j
        holes = 0
    }
}
