/// What a gate delivers: a signal event, or a message only the runtime makes.
///
/// Internal messages travel beside values, never as values: no `rpl_value`
/// a program builds can be mistaken for one (rule 19a).
public enum Message {
    case next(Value)          // owns its value
    case error(RippleError)
    case completed
    /// A value from input `index` of a multi-input operator (owns the value).
    case input(Int, Value)
    /// Input `index` of a multi-input operator completed.
    case inputCompleted(Int)
    /// A subject's hub: register a new subscriber (replaying to it first).
    case join(Subscriber)
    /// A subject's hub: a subscriber's subscription ended; unregister and finalize it.
    case leave(Subscriber)
    /// The source is gone: a subject's hub ends every subscription, a
    /// subscriber its own, without an event, after what was queued before.
    case close

    /// Drops what the message owns.
    @inlinable
    public func release() {
        switch self {
        case .next(let v), .input(_, let v): v.release()
        default: break
        }
    }

    @inlinable
    public init(_ event: Event) {
        switch event {
        case .next(let v): self = .next(v)
        case .error(let e): self = .error(e)
        case .completed: self = .completed
        }
    }
}
