// Creating and sharing, and time (0.2): from_array, range, timer,
// start_eagerly, start_lazily, share, delay_subscription, throttle_first,
// throttle_if, buffer_with_time.
import CRipple
import Ripple

@c @implementation
public func rpl_signal_from_array(_ values: UnsafeMutablePointer<rpl_value>?, _ count: Int) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_from_array"
    guard count >= 0 else {  // a size_t above SIZE_MAX / 2: no such array
        setError(RPL_ERR_INVALID, "\(fn): count \(UInt(bitPattern: count)) is too large")
        return nil
    }
    guard count > 0 else { return named(FromArraySignal([]), .constructorArg("+fromArray:", 0)) }
    guard let values else {
        setError(RPL_ERR_NULL, "\(fn): values is NULL with a non-zero count")
        return nil
    }
    let items = UnsafeBufferPointer(start: values, count: count)
    if let bad = items.firstIndex(where: { !isListed($0) }) {
        refuseValue(items[bad].type, fn, what: "a value in values")
        for v in items { dropValue(v) }  // consumed, also on failure (rule 19)
        return nil
    }
    return named(FromArraySignal(items.map(toValue)), .constructorArg("+fromArray:", UInt64(count)))
}

@c @implementation
public func rpl_signal_range(_ start: Int64, _ count: Int) -> OpaquePointer? {
    let n = UInt64(UInt(bitPattern: count))
    guard RangeSignal.fits(start: start, count: n) else {
        setError(RPL_ERR_INVALID, "rpl_signal_range: \(n) ints from \(start) go past INT64_MAX")
        return nil
    }
    let signal = RangeSignal(start: start, count: n)
    // A default name with both numbers, which SignalOrigin cannot say.
    "+range: \(start) count: \(n)".withCString { signal.setName($0) }
    return named(signal, .constructor("+range:count:"))
}

@c @implementation
public func rpl_signal_timer(_ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    guard let scheduler = schedulerArg(s, "rpl_signal_timer"),
          timerScheduler(scheduler, "rpl_signal_timer") else { return nil }
    return named(Signal.timer(ns, on: scheduler), .constructorArg("+timer:", ns))
}

/// start_eagerly and start_lazily: s, then fn; on failure release(ctx) runs.
private func startSignal(_ s: OpaquePointer?, _ fn: rpl_subscribe_fn?, _ ctx: UnsafeMutableRawPointer?,
                         _ release: rpl_release_fn?, _ name: StaticString, _ label: StaticString,
                         _ make: (Scheduler, CreateSignal) -> Signal) -> OpaquePointer? {
    guard let scheduler = schedulerArg(s, name) else { return rejected(releasing: ctx, release) }
    guard let fn else {
        setError(RPL_ERR_NULL, "\(name): fn is NULL")
        return rejected(releasing: ctx, release)
    }
    let body = CreateSignal(Callback(fn, ctx: ctx, release: release)) { $0.subscribe($1, name) }
    return named(make(scheduler, body), .constructor(OriginLabel(label)))
}

@c @implementation
public func rpl_signal_start_eagerly(_ s: OpaquePointer?, _ fn: rpl_subscribe_fn?, _ ctx: UnsafeMutableRawPointer?,
                                     _ release: rpl_release_fn?) -> OpaquePointer? {
    startSignal(s, fn, ctx, release, "rpl_signal_start_eagerly", "+startEagerlyWithScheduler:block:") {
        StartSignals.eagerly(on: $0, $1)
    }
}

@c @implementation
public func rpl_signal_start_lazily(_ s: OpaquePointer?, _ fn: rpl_subscribe_fn?, _ ctx: UnsafeMutableRawPointer?,
                                    _ release: rpl_release_fn?) -> OpaquePointer? {
    startSignal(s, fn, ctx, release, "rpl_signal_start_lazily", "+startLazilyWithScheduler:block:") {
        StartSignals.lazily(on: $0, $1)
    }
}

@c @implementation
public func rpl_signal_share(_ sig: OpaquePointer?, _ replay: Int) -> OpaquePointer? {
    // size_t imports as Int: RPL_REPLAY_UNLIMITED (SIZE_MAX) arrives as -1.
    countOperator(sig, replay, "rpl_signal_share", "-share:") { ShareSignal($0, replay: $1 >= UInt(Int.max) ? Int.max : Int($1)) }
}

@c @implementation
public func rpl_signal_delay_subscription(_ sig: OpaquePointer?, _ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_delay_subscription", timers: true).flatMap {
        named(DelaySubscriptionSignal($0, ns, $1), .onSourceArg("-delaySubscription:", ns))
    }
}

@c @implementation
public func rpl_signal_throttle_first(_ sig: OpaquePointer?, _ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_throttle_first").flatMap {
        named(ThrottleFirstSignal($0, ns, $1), .onSourceArg("-throttleFirst:", ns))
    }
}

@c @implementation
public func rpl_signal_throttle_if(_ sig: OpaquePointer?, _ ns: UInt64, _ s: OpaquePointer?, _ predicate: rpl_predicate_fn?,
                                   _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    let name: StaticString = "rpl_signal_throttle_if"
    // Handles, then the callback, then the scheduler's fitness.
    guard let source = signalArg(sig, name), let scheduler = schedulerArg(s, name) else {
        return rejected(releasing: ctx, release)
    }
    guard let predicate else {
        setError(RPL_ERR_NULL, "\(name): predicate is NULL")
        return rejected(releasing: ctx, release)
    }
    guard timerScheduler(scheduler, name) else { return rejected(releasing: ctx, release) }
    let signal = ThrottleIfSignal(source, ns, scheduler, Callback(predicateFunction(predicate), ctx: ctx, release: release))
    return named(signal, .onSourceArg("-throttle:valuesPassingTest:", ns))
}

@c @implementation
public func rpl_signal_buffer_with_time(_ sig: OpaquePointer?, _ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_buffer_with_time", timers: true).flatMap {
        named(BufferWithTimeSignal($0, ns, $1), .onSourceArg("-bufferWithTime:", ns))
    }
}
