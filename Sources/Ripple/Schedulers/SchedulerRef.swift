/// How operator signals and their per-subscription state hold a scheduler. A thread-backed
/// scheduler is held strongly: the subscription outlives the operator signal
/// (rule 6a) and must still be able to schedule. A driven scheduler is held
/// weakly: its pending jobs hold operator state and signals, so a strong
/// reference back would be a cycle that leaks once the program releases the
/// scheduler; and a freed driven scheduler could never run the work anyway.
/// A driven scheduler lives exactly as long as its owner's references.
public struct SchedulerRef {
    private let strong: Scheduler?
    private weak var weakRef: Scheduler?

    public init(_ s: Scheduler) {
        if s.isDriven {
            strong = nil
            weakRef = s
        } else {
            strong = s
        }
    }

    /// The scheduler, or nil if it was a driven scheduler now freed.
    @inline(__always)
    public var scheduler: Scheduler? { strong ?? weakRef }
}
