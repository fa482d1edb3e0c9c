// Subjects: plain, behavior and replay (rules 7-11).
import CRipple
import Ripple

@inline(__always)
func subjectArg(_ p: OpaquePointer?, _ fn: StaticString) -> Subject? {
    checked(p, .subject, what: "a subject", in: fn).map { unsafeDowncast($0, to: Subject.self) }
}

@c @implementation
public func rpl_subject_create() -> OpaquePointer? { named(Subject(), .constructor("+subject")) }

@c @implementation
public func rpl_behavior_subject_create(_ initial: rpl_value) -> OpaquePointer? {
    valueArg(initial, "rpl_behavior_subject_create", what: "initial").flatMap { named(BehaviorSubject($0), .constructor("+behaviorSubject:")) }
}

@c @implementation
public func rpl_replay_subject_create(_ capacity: Int) -> OpaquePointer? {
    // size_t imports as Int: RPL_REPLAY_UNLIMITED (SIZE_MAX) arrives as -1.
    let cap = UInt(bitPattern: capacity)
    guard cap != 0 else {
        setError(RPL_ERR_INVALID, "rpl_replay_subject_create: capacity 0 is invalid (use RPL_REPLAY_UNLIMITED for no limit)")
        return nil
    }
    return named(ReplaySubject(capacity: cap >= UInt(Int.max) ? Int.max : Int(cap)), .constructorArg("+replaySubject:", UInt64(cap)))
}

@c @implementation
public func rpl_subject_send_next(_ s: OpaquePointer?, _ v: rpl_value) -> rpl_status {
    // The hot path, as rpl_subscriber_send_next: a compare and a branch per
    // check. (The value check has its own refusal: sharing one, the compiler
    // computes both compares and branches once, three more instructions.)
    guard let s, isKind(s, .subject) else { return rejectSubjectSendNext(s, v) }
    guard isListed(v) else { return refuseSent(v, "rpl_subject_send_next") }
    let words = unsafeBitCast(v, to: (UInt64, UInt64).self)
    return subjectSendNext(UnsafeRawPointer(s), words.0, words.1)  // a jump: the same arguments
}

@inline(never)
private func rejectSubjectSendNext(_ s: OpaquePointer?, _ v: rpl_value) -> rpl_status {
    if subjectArg(s, "rpl_subject_send_next") != nil { refuseValue(v.type, "rpl_subject_send_next") }
    dropValue(v)  // rule 19: consumed even on failure
    return rpl_last_error()
}

@c @implementation
public func rpl_subject_send_error(_ s: OpaquePointer?, _ e: OpaquePointer?) -> rpl_status {
    guard let subject = subjectArg(s, "rpl_subject_send_error"),
          let err = errorOrGeneric(e, "rpl_subject_send_error") else { return rpl_last_error() }
    subject.sendError(err)
    return 0
}

@c @implementation
public func rpl_subject_send_completed(_ s: OpaquePointer?) -> rpl_status {
    guard let subject = subjectArg(s, "rpl_subject_send_completed") else { return rpl_last_error() }
    subject.sendCompleted()
    return 0
}

@c @implementation
public func rpl_subject_as_signal(_ s: OpaquePointer?) -> OpaquePointer? {
    // A compare and a branch; the refusal out of line keeps this frameless.
    guard let s, isKind(s, .subject) else { return rejectAsSignal(s) }
    return s
}

@inline(never)
private func rejectAsSignal(_ s: OpaquePointer?) -> OpaquePointer? {
    _ = subjectArg(s, "rpl_subject_as_signal")
    return nil
}

@c @implementation
public func rpl_signal_subscribe_subject(_ sig: OpaquePointer?, _ s: OpaquePointer?) -> OpaquePointer? {
    guard let signal = signalArg(sig, "rpl_signal_subscribe_subject"),
          let subject = subjectArg(s, "rpl_signal_subscribe_subject") else { return nil }
    if signal.asSource === subject.asSource {
        setError(RPL_ERR_INVALID, "rpl_signal_subscribe_subject: a subject cannot subscribe to itself")
        return nil
    }
    return retainedHandle(Subscription(subject.subscribe(to: signal)))
}

@c @implementation
public func rpl_subject_subscriber_count(_ s: OpaquePointer?) -> Int {
    subjectArg(s, "rpl_subject_subscriber_count")?.subscriberCount ?? 0
}

@c @implementation
public func rpl_subject_is_terminated(_ s: OpaquePointer?) -> Bool {
    subjectArg(s, "rpl_subject_is_terminated")?.isTerminated ?? false
}

@c @implementation
public func rpl_behavior_subject_value(_ s: OpaquePointer?, _ out: UnsafeMutablePointer<rpl_value>?) -> rpl_status {
    out?.pointee = cnil()
    // The handle, then out; whether the subject is a behavior subject comes
    // last (test_subjects.c holds a plain subject with a NULL out to
    // RPL_ERR_NULL).
    guard let subject = subjectArg(s, "rpl_behavior_subject_value") else { return rpl_last_error() }
    guard let out else {
        setError(RPL_ERR_NULL, "rpl_behavior_subject_value: out is NULL")
        return rpl_last_error()
    }
    guard let behavior = subject as? BehaviorSubject else {
        setError(RPL_ERR_KIND, "rpl_behavior_subject_value: expected a behavior subject")
        return rpl_last_error()
    }
    out.pointee = toC(behavior.value())
    return 0
}
