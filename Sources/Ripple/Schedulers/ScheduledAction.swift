import Synchronization

/// One-shot or repeating work with a closure. Disposing it before it starts
/// cancels it; disposing it while it runs lets the run finish and stops any
/// repetition. The closure (and what it captured, e.g. a C context) is
/// dropped exactly once: after a one-shot run, on cancel, or when the last
/// reference goes (a scheduler freed with the job pending).
public final class ScheduledAction: Job, @unchecked Sendable {
    static let running: UInt8 = 1
    static let disposed: UInt8 = 2
    static let finished: UInt8 = 4

    private let state = Atomic<UInt8>(0)
    /// Read and dropped only by whoever the state machine designates.
    @exclusivity(unchecked) private var action: (() -> Void)?
    /// The C form, `function(context)` then `release(context)` once: one
    /// allocation per item instead of a closure and a context box.
    @exclusivity(unchecked) private var function: RawCallback?
    @exclusivity(unchecked) private var context: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var release: RawCallback?
    let interval: UInt64
    /// Due time of the next occurrence (scheduler clock).
    @exclusivity(unchecked) var deadline: UInt64 = 0
    /// Cancelled before it ran: an empty husk that a timer heap may hold
    /// until its due time or its next sweep (bounded, rule 23). It holds no
    /// work and no resources, so it is no leak: rpl_live_objects leaves it out.
    @exclusivity(unchecked) private var husk = false

    /// Not yet enqueued: pass it to `enqueue` (set `deadline` first for a
    /// timed one).
    public init(_ action: @escaping () -> Void, interval: UInt64 = 0) {
        self.action = action
        self.interval = interval
        super.init()
    }

    /// A C callback; `release(context)` runs exactly once when the action is
    /// dropped (after a one-shot run, on cancel, or when freed unrun).
    public init(function: RawCallback, context: UnsafeMutableRawPointer?, release: RawCallback?,
                interval: UInt64 = 0) {
        self.function = function
        self.context = context
        self.release = release
        self.interval = interval
        super.init()
    }

    deinit {
        drop()
        if husk { includeInLiveCount() }  // RippleObject's deinit counts it out
    }

    @inline(__always)
    private func invoke() {
        if let function { function(context) } else { action.unsafelyUnwrapped() }
    }

    /// Drops the work (closure or C context); idempotent.
    private func drop() {
        action = nil
        function = nil
        if let r = release {
            release = nil
            r(context)
        }
    }

    public override func run(on scheduler: Scheduler) {
        var s = state.load(ordering: .acquiring)
        while true {
            if s & (ScheduledAction.disposed | ScheduledAction.finished) != 0 { return }
            let (ok, cur) = state.compareExchange(expected: s, desired: s | ScheduledAction.running,
                                                  ordering: .acquiringAndReleasing)
            if ok { break }
            s = cur
        }
        invoke()
        // A next occurrence past the end of the clock never falls due: end
        // here. (Saturating it at UInt64.max would make it due again at
        // once, and a test scheduler advanced to the top would never return.)
        let (next, pastEnd) = deadline.addingReportingOverflow(interval)
        if interval == 0 || pastEnd {
            // One-shot: nobody else drops the closure once RUNNING was set.
            state.bitwiseOr(ScheduledAction.finished, ordering: .acquiringAndReleasing)
            drop()
            return
        }
        // Repeating: clear RUNNING; if disposed meanwhile, the drop is ours.
        let old = state.bitwiseAnd(~ScheduledAction.running, ordering: .acquiringAndReleasing).oldValue
        if old & ScheduledAction.disposed != 0 {
            drop()
            return
        }
        deadline = next
        scheduler.enqueue(self, at: deadline)
    }

    public override func dispose() {
        var s = state.load(ordering: .acquiring)
        while true {
            if s & ScheduledAction.disposed != 0 { return }
            let (ok, cur) = state.compareExchange(expected: s, desired: s | ScheduledAction.disposed,
                                                  ordering: .acquiringAndReleasing)
            if ok { break }
            s = cur
        }
        // Neither running nor finished: the closure will never run, drop it now.
        if s & (ScheduledAction.running | ScheduledAction.finished) == 0 {
            drop()
            husk = true
            excludeFromLiveCount()
        }
    }

    /// True once cancelled, or once a one-shot action has run.
    public override var isDisposed: Bool {
        state.load(ordering: .acquiring) & (ScheduledAction.disposed | ScheduledAction.finished) != 0
    }
}
