// The subscriptions a marble signal or subject has had, each from when it was
// made until it ended (by a dispose or a terminal event, as in RxJS).

public final class MarbleSubscriptionLog: @unchecked Sendable {
    private let lock = Lock()
    /// Scheduler time at frame 0 (the marble's creation).
    let origin: UInt64
    private var spans: [(subscribe: UInt64, unsubscribe: UInt64?)] = []

    init(origin: UInt64) { self.origin = origin }

    /// Logs a subscription made now, and returns what logs its end (a
    /// resource of that subscription).
    func subscribed(on scheduler: SchedulerRef) -> Disposable {
        let now = scheduler.scheduler?.now ?? origin
        let n = lock.withLock {
            spans.append((now, nil))
            return spans.count - 1
        }
        return ActionDisposable { [self] in
            guard let end = scheduler.scheduler?.now else { return }
            lock.withLock { spans[n].unsubscribe = end }
        }
    }

    /// One line per subscription, in the order they were made.
    public var lines: [String] {
        let copy = lock.withLock { spans }
        return copy.map { s in
            MarbleDrawing.subscription(Int64(s.subscribe &- origin), s.unsubscribe.map { Int64($0 &- origin) })
        }
    }
}
