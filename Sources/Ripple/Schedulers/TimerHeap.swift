/// A min-heap of jobs by (time, sequence): FIFO among equal times. Jobs
/// pushed `ahead` take their sequence numbers from a lower range, so they run
/// before every other job due at the same time (FIFO among themselves).
struct TimerHeap {
    struct Entry {
        let time: UInt64
        let seq: UInt64
        let job: Job
        @inline(__always) func before(_ o: Entry) -> Bool { time < o.time || (time == o.time && seq < o.seq) }
    }
    private var items: [Entry] = []
    private var nextSeq: UInt64 = 1 << 63
    private var nextAheadSeq: UInt64 = 0
    /// Size at which cancelled entries are swept out.
    private var sweepAt = 64

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var earliest: UInt64? { items.first?.time }

    mutating func push(_ job: Job, at time: UInt64, ahead: Bool = false) {
        if items.count >= sweepAt { sweepCancelled() }
        let seq: UInt64
        if ahead {
            seq = nextAheadSeq
            nextAheadSeq &+= 1
        } else {
            seq = nextSeq
            nextSeq &+= 1
        }
        items.append(Entry(time: time, seq: seq, job: job))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if !items[i].before(items[p]) { break }
            items.swapAt(i, p)
            i = p
        }
    }

    /// Drops cancelled jobs (their work was already freed at cancellation;
    /// this frees the entries), so a heap holds at most about twice the
    /// live timers however many were cancelled (rule 23). Amortized O(1)
    /// per push: the next sweep waits until the heap has doubled again.
    private mutating func sweepCancelled() {
        let live = items.filter { !$0.job.isDisposed }
        if live.count != items.count {
            items = live
            // Heapify bottom-up: the order among equal times stays by `seq`.
            var i = items.count / 2
            while i > 0 {
                i -= 1
                siftDown(i)
            }
        }
        sweepAt = max(64, items.count * 2)
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count && items[l].before(items[m]) { m = l }
            if r < items.count && items[r].before(items[m]) { m = r }
            if m == i { return }
            items.swapAt(i, m)
            i = m
        }
    }

    /// Removes every entry and returns the jobs.
    mutating func removeAll() -> [Job] {
        let jobs = items.map(\.job)
        items = []
        return jobs
    }

    /// Drops cancelled jobs from the top, so `earliest` is a live timer's.
    mutating func dropCancelledTop() {
        while let top = items.first, top.job.isDisposed { _ = pop(dueBy: .max) }
    }

    /// Removes the earliest entry if its time is <= `limit`.
    mutating func pop(dueBy limit: UInt64) -> Entry? {
        guard let top = items.first, top.time <= limit else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            siftDown(0)
        }
        return top
    }
}
