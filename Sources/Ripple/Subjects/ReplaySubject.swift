/// A replay subject: a subscriber first gets the last `capacity` values,
/// then the terminal event if there was one, then live events (rule 10).
public final class ReplaySubject: Subject, @unchecked Sendable {
    /// Int.max: unlimited.
    public let capacity: Int

    /// `capacity` must be at least 1 (Int.max: unlimited).
    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        super.init(hub: SubjectHub(replay: capacity))
    }
}
