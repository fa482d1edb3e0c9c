// Flattening and choosing between signals (0.2): flatten_max, concat_map,
// concat_all, switch_if_empty, if, switch_cases.
import CRipple
import Ripple

@c @implementation
public func rpl_signal_flatten_max(_ sig: OpaquePointer?, _ maxConcurrent: Int) -> OpaquePointer? {
    countOperator(sig, maxConcurrent, "rpl_signal_flatten_max", "-flatten:") { source, n in
        BindSignal(source, flatMap: { $0.innerSignalOrFail("rpl_signal_flatten_max") }, limit: Int(clamping: n))
    }
}

@c @implementation
public func rpl_signal_concat_all(_ sig: OpaquePointer?) -> OpaquePointer? {
    plainOperator(sig, "rpl_signal_concat_all", "-concat") { source in
        BindSignal(source, flatMap: { $0.innerSignalOrFail("rpl_signal_concat_all") }, limit: 1)
    }
}

@c @implementation
public func rpl_signal_concat_map(_ sig: OpaquePointer?, _ fn: rpl_flatten_map_fn?, _ ctx: UnsafeMutableRawPointer?,
                                  _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_concat_map", "-concatMap:") { source, fn in
        BindSignal(source, flatMap: { v in
            withCValue(v) { failingReturnedSignal(fn.function(fn.ctx, cValue($0)), "rpl_signal_concat_map") }
        }, limit: 1)
    }
}

/// The signal a callback returned, for an operator that runs inners later:
/// nil for NULL; for a handle of another kind, nil after failing the
/// callback with an RPL_ERROR_CALLBACK error, so the result fails at once
/// rather than when the inner's turn comes.
private func failingReturnedSignal(_ p: OpaquePointer?, _ fn: StaticString) -> Signal? {
    switch takeReturned(p, .signal, .subject, as: Signal.self, what: "a signal", fn: fn) {
    case .none: return nil
    case .object(let s): return s
    case .wrongKind(let e):
        _ = failCurrentCallback(e)
        return nil
    }
}

@c @implementation
public func rpl_signal_switch_if_empty(_ sig: OpaquePointer?, _ other: OpaquePointer?) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_switch_if_empty"),
          let o = signalArg(other, "rpl_signal_switch_if_empty", what: "the other signal") else { return nil }
    return named(ConcatSignal(source, o, mode: .ifEmpty), .binary(source, "-switchIfEmpty:", o))
}

@c @implementation
public func rpl_signal_if(_ cond: OpaquePointer?, _ thenSig: OpaquePointer?, _ elseSig: OpaquePointer?) -> OpaquePointer? {
    guard let c = signalArg(cond, "rpl_signal_if", what: "the condition signal"),
          let t = signalArg(thenSig, "rpl_signal_if", what: "the then signal"),
          let e = signalArg(elseSig, "rpl_signal_if", what: "the else signal") else { return nil }
    return named(Signal.if(c, then: t, else: e), .list("+if:then:else:", [c, t, e]))
}

@c @implementation
public func rpl_signal_switch_cases(_ keySig: OpaquePointer?, _ keys: UnsafeMutablePointer<rpl_value>?,
                                    _ cases: UnsafePointer<OpaquePointer?>?, _ count: Int,
                                    _ defaultSig: OpaquePointer?) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_switch_cases"
    // The keys are consumed whatever happens: on failure, every one is
    // released (a count too large to read is not read).
    func fail() -> OpaquePointer? {
        if let keys, count > 0 { for i in 0..<count { dropValue(keys[i]) } }
        return nil
    }
    guard let key = signalArg(keySig, fn, what: "the key signal") else { return fail() }
    guard count >= 0 else {
        setError(RPL_ERR_INVALID, "\(fn): count \(UInt(bitPattern: count)) is too large")
        return nil
    }
    guard count == 0 || cases != nil else {
        setError(RPL_ERR_NULL, "\(fn): cases is NULL with a non-zero count")
        return fail()
    }
    var signals: [Signal] = []
    signals.reserveCapacity(count)
    for i in 0..<count {
        guard let p = cases![i] else {
            setError(RPL_ERR_NULL, "\(fn): cases[\(i)] is NULL")
            return fail()
        }
        guard let s = signalArg(p, fn, what: "a signal in cases") else { return fail() }
        signals.append(s)
    }
    var fallback: Signal? = nil
    if defaultSig != nil {
        guard let d = signalArg(defaultSig, fn, what: "the default signal") else { return fail() }
        fallback = d
    }
    guard count == 0 || keys != nil else {
        setError(RPL_ERR_NULL, "\(fn): keys is NULL with a non-zero count")
        return nil
    }
    for i in 0..<count where !isListed(keys![i]) {
        refuseValue(keys![i].type, fn, what: "a key")
        return fail()
    }
    let table = SwitchTable()
    for i in 0..<count where !table.add(toValue(keys![i]), signals[i]) {
        // keys[i] was released by add; table releases keys[0..<i]; the rest here.
        setError(RPL_ERR_INVALID, "\(fn): keys[\(i)] repeats an earlier key")
        for j in (i + 1)..<count { dropValue(keys![j]) }
        return nil
    }
    return named(Signal.switchCases(key, table, default: fallback),
                 .list("+switch:cases:default:", [key] + signals + (fallback.map { [$0] } ?? [])))
}
