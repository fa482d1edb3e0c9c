/// A behavior subject: a subscriber first gets the current value (the
/// initial one until something is sent), then live events; after
/// termination, only the terminal event (rule 9).
public final class BehaviorSubject: Subject, @unchecked Sendable {
    /// Starts with `initial` (consumed).
    public init(_ initial: Value) { super.init(hub: SubjectHub(replay: 1, behavior: initial)) }

    /// A copy (+1) of the current value.
    public func value() -> Value { parts.hub.value() }
}
