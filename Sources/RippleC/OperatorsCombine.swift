// Combining and higher-order operators: bind, flatten_map, flatten,
// switch_to_latest, concat, merge, combine_latest, zip, start_with, then,
// take_until, catch, catch_to, retry, repeat.
import CRipple
import Ripple
import RippleSupport

@c @implementation
public func rpl_signal_bind(_ sig: OpaquePointer?, _ bind: rpl_bind_fn?, _ ctx: UnsafeMutableRawPointer?,
                            _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let (source, bind) = checkedCallback(sig, bind, ctx, release, "rpl_signal_bind", callback: "bind") else { return nil }
    return named(BindSignal(source) { v, stop in
        withCValue(v) { p in
            withUnsafeMutablePointer(to: &stop) { returnedSignal(bind.function(bind.ctx, cValue(p), $0), "rpl_signal_bind") }
        }
    }, .onSource("-bind:"))
}

@c @implementation
public func rpl_signal_flatten_map(_ sig: OpaquePointer?, _ fn: rpl_flatten_map_fn?, _ ctx: UnsafeMutableRawPointer?,
                                   _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let (source, fn) = checkedCallback(sig, fn, ctx, release, "rpl_signal_flatten_map") else { return nil }
    return named(BindSignal(source, flatMap: { v in
        withCValue(v) { returnedSignal(fn.function(fn.ctx, cValue($0)), "rpl_signal_flatten_map") }
    }), .onSource("-flattenMap:"))
}

@c @implementation
public func rpl_signal_flatten(_ sig: OpaquePointer?) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_flatten") else { return nil }
    return named(BindSignal(source, flatMap: { v in v.innerSignal("rpl_signal_flatten") }), .onSource("-flatten"))
}

@c @implementation
public func rpl_signal_switch_to_latest(_ sig: OpaquePointer?) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_switch_to_latest") else { return nil }
    return named(SwitchToLatestSignal(source), .onSource("-switchToLatest"))
}

@c @implementation
public func rpl_signal_concat(_ a: OpaquePointer?, _ b: OpaquePointer?) -> OpaquePointer? {
    guard let first = signalArg(a, "rpl_signal_concat", what: "signal a"),
          let second = signalArg(b, "rpl_signal_concat", what: "signal b") else { return nil }
    return named(ConcatSignal(first, second), .binary(first, "-concat:", second))
}

@c @implementation
public func rpl_signal_merge(_ sigs: UnsafePointer<OpaquePointer?>?, _ count: Int) -> OpaquePointer? {
    signalArray(sigs, count, "rpl_signal_merge").flatMap { named(MergeSignal($0), .list("+merge:", $0)) }
}

@c @implementation
public func rpl_signal_combine_latest(_ sigs: UnsafePointer<OpaquePointer?>?, _ count: Int) -> OpaquePointer? {
    signalArray(sigs, count, "rpl_signal_combine_latest").flatMap { named(CombineLatestSignal($0), .list("+combineLatest:", $0)) }
}

@c @implementation
public func rpl_signal_zip(_ sigs: UnsafePointer<OpaquePointer?>?, _ count: Int) -> OpaquePointer? {
    signalArray(sigs, count, "rpl_signal_zip").flatMap { named(ZipSignal($0), .list("+zip:", $0)) }
}

@c @implementation
public func rpl_signal_start_with(_ sig: OpaquePointer?, _ v: rpl_value) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_start_with") else {
        dropValue(v)
        return nil
    }
    return valueArg(v, "rpl_signal_start_with").flatMap { named(StartWithSignal(source, $0), .onSource("-startWith:")) }
}

@c @implementation
public func rpl_signal_then(_ sig: OpaquePointer?, _ next: OpaquePointer?) -> OpaquePointer? {
    guard let first = signalArg(sig, "rpl_signal_then"),
          let second = signalArg(next, "rpl_signal_then", what: "the next signal") else { return nil }
    return named(ConcatSignal(first, second, ignoreFirstValues: true), .binary(first, "-then:", second))
}

@c @implementation
public func rpl_signal_take_until(_ sig: OpaquePointer?, _ trigger: OpaquePointer?) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_take_until"),
          let t = signalArg(trigger, "rpl_signal_take_until", what: "the trigger signal") else { return nil }
    return named(TakeUntilSignal(source, trigger: t), .binary(source, "-takeUntil:", t))
}

@c @implementation
public func rpl_signal_catch(_ sig: OpaquePointer?, _ fn: rpl_catch_fn?, _ ctx: UnsafeMutableRawPointer?,
                             _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let (source, fn) = checkedCallback(sig, fn, ctx, release, "rpl_signal_catch") else { return nil }
    return named(CatchSignal(source) { e in returnedSignal(fn.function(fn.ctx, handle(e)), "rpl_signal_catch") },
                 .onSource("-catch:"))
}

@c @implementation
public func rpl_signal_catch_to(_ sig: OpaquePointer?, _ replacement: OpaquePointer?) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_catch_to"),
          let r = signalArg(replacement, "rpl_signal_catch_to", what: "the replacement signal") else { return nil }
    return named(source.catchTo(r), .binary(source, "-catchTo:", r))
}

@c @implementation
public func rpl_signal_retry(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_retry") else { return nil }
    return named(RepeatSignal(source, .retry, limit: UInt(bitPattern: n)), .onSourceArg("-retry:", UInt64(UInt(bitPattern: n))))
}

@c @implementation
public func rpl_signal_repeat(_ sig: OpaquePointer?, _ n: Int) -> OpaquePointer? {
    guard let source = signalArg(sig, "rpl_signal_repeat") else { return nil }
    return named(RepeatSignal(source, .repeat, limit: UInt(bitPattern: n)), .onSourceArg("-repeat:", UInt64(UInt(bitPattern: n))))
}
