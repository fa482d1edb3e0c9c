// Multicast connections: publish, multicast, connect, autoconnect, replay*.
import CRipple
import Ripple

@inline(__always)
func connectionArg(_ p: OpaquePointer?, _ fn: StaticString) -> MulticastConnection? {
    checked(p, .connection, what: "a connection", in: fn).map { unsafeDowncast($0, to: MulticastConnection.self) }
}

@c @implementation
public func rpl_signal_publish(_ sig: OpaquePointer?) -> OpaquePointer? {
    guard let signal = signalArg(sig, "rpl_signal_publish"), shallowEnough(signal, "rpl_signal_publish") else { return nil }
    let c = signal.publish()
    nameNow(c.subject, .unary(signal, "-publish"))
    return retainedHandle(c)
}

@c @implementation
public func rpl_signal_multicast(_ sig: OpaquePointer?, _ subject: OpaquePointer?) -> OpaquePointer? {
    guard let signal = signalArg(sig, "rpl_signal_multicast"),
          let s = subjectArg(subject, "rpl_signal_multicast"), shallowEnough(signal, "rpl_signal_multicast") else { return nil }
    if signal.asSource === s.asSource {
        setError(RPL_ERR_INVALID, "rpl_signal_multicast: a subject cannot be multicast through itself")
        return nil
    }
    return retainedHandle(signal.multicast(s))
}

@c @implementation
public func rpl_connection_signal(_ c: OpaquePointer?) -> OpaquePointer? {
    connectionArg(c, "rpl_connection_signal").map { handle($0.subject) }
}

@c @implementation
public func rpl_connection_connect(_ c: OpaquePointer?) -> OpaquePointer? {
    connectionArg(c, "rpl_connection_connect").map { retainedHandle($0.connect()) }
}

@c @implementation
public func rpl_connection_autoconnect(_ c: OpaquePointer?) -> OpaquePointer? {
    // Named after the subject's subscribe-only side: an origin is kept, and
    // the autoconnect signal's connecting side must not keep the subject.
    connectionArg(c, "rpl_connection_autoconnect").flatMap { named($0.autoconnect(), .unary($0.subject.asSource, "-autoconnect")) }
}

@c @implementation
public func rpl_signal_replay(_ sig: OpaquePointer?) -> OpaquePointer? {
    guard let signal = signalArg(sig, "rpl_signal_replay"), shallowEnough(signal, "rpl_signal_replay") else { return nil }
    return retainedHandle(nameNow(signal.replay(), .unary(signal, "-replay")))
}

@c @implementation
public func rpl_signal_replay_last(_ sig: OpaquePointer?) -> OpaquePointer? {
    guard let signal = signalArg(sig, "rpl_signal_replay_last"), shallowEnough(signal, "rpl_signal_replay_last") else { return nil }
    return retainedHandle(nameNow(signal.replayLast(), .unary(signal, "-replayLast")))
}

@c @implementation
public func rpl_signal_replay_lazily(_ sig: OpaquePointer?) -> OpaquePointer? {
    signalArg(sig, "rpl_signal_replay_lazily").flatMap { named($0.replayLazily(), .unary($0, "-replayLazily")) }
}
