/// A first-in first-out queue: append and take-first in O(1) amortized. The
/// one queue of the runtime: the schedulers' ready jobs, a limited flatten's
/// waiting inner signals, zip's values, delay's pending events, deliver_on's
/// hand-off and write's chunks wait in one. (A bounded "last n values" is a
/// `ReplayBuffer`.)
///
/// A ring buffer of `Element` (not `Element?`: a taken slot is moved out and
/// left uninitialized, so nothing is written back to clear it), grown by
/// doubling. Noncopyable because it owns its buffer: it moves with its owner,
/// and `takeAll` moves the contents out.
struct Fifo<Element>: ~Copyable {
    /// `capacity` slots (a power of two, or 0 with no buffer); the elements
    /// are the `count` slots from `head` on, wrapping around.
    private var buffer: UnsafeMutablePointer<Element>? = nil
    private var capacity = 0
    private var head = 0
    private(set) var count = 0

    /// A drained queue keeps a buffer up to this size for the next burst and
    /// frees a larger one.
    private static var keptCapacity: Int { 1024 }

    init() {}

    deinit {
        guard let buffer else { return }
        let tail = min(count, capacity &- head)
        (buffer + head).deinitialize(count: tail)
        buffer.deinitialize(count: count &- tail)
        buffer.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The first element, left in place.
    var first: Element? { count == 0 ? nil : buffer.unsafelyUnwrapped[head] }

    @inline(__always)
    mutating func append(_ e: consuming Element) {
        if count == capacity { grow() }
        (buffer.unsafelyUnwrapped + ((head &+ count) & (capacity &- 1))).initialize(to: e)
        count &+= 1
    }

    @inline(__always)
    mutating func popFirst() -> Element? {
        guard count != 0 else { return nil }
        let e = (buffer.unsafelyUnwrapped + head).move()
        count &-= 1
        head = (head &+ 1) & (capacity &- 1)
        if count == 0 && capacity > Fifo.keptCapacity { release() }
        return e
    }

    /// Takes everything that waits, in order, leaving this queue empty.
    mutating func takeAll() -> Fifo {
        var all = Fifo()
        swap(&self, &all)
        return all
    }

    /// Full: moves the elements, in order, to the front of a buffer twice as
    /// large.
    @inline(never)
    private mutating func grow() {
        let size = capacity == 0 ? 16 : capacity &* 2
        let new = UnsafeMutablePointer<Element>.allocate(capacity: size)
        if let old = buffer {
            let tail = capacity &- head  // full: the elements run to the end, then wrap
            new.moveInitialize(from: old + head, count: tail)
            (new + tail).moveInitialize(from: old, count: head)
            old.deallocate()
        }
        buffer = new
        capacity = size
        head = 0
    }

    /// Empty: frees the buffer.
    @inline(never)
    private mutating func release() {
        buffer.unsafelyUnwrapped.deallocate()
        buffer = nil
        capacity = 0
        head = 0
    }
}
