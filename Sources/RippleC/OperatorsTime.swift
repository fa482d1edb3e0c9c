// Scheduling and time operators: subscribe_on, deliver_on, delay, throttle,
// timeout, interval.
import CRipple
import Ripple

@c @implementation
public func rpl_signal_subscribe_on(_ sig: OpaquePointer?, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_subscribe_on").flatMap { named(SubscribeOnSignal($0, $1), .onSource("-subscribeOn:")) }
}

@c @implementation
public func rpl_signal_deliver_on(_ sig: OpaquePointer?, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_deliver_on").flatMap { named(DeliverOnSignal($0, $1), .onSource("-deliverOn:")) }
}

@c @implementation
public func rpl_signal_deliver_on_bounded(_ sig: OpaquePointer?, _ s: OpaquePointer?, _ capacity: Int,
                                          _ policy: rpl_overflow) -> OpaquePointer? {
    let fn: StaticString = "rpl_signal_deliver_on_bounded"
    guard let (source, scheduler) = operands(sig, s, fn) else { return nil }
    guard capacity > 0 else {
        setError(RPL_ERR_INVALID, "\(fn): capacity \(UInt(bitPattern: capacity)) is not between 1 and SIZE_MAX/2")
        return nil
    }
    guard let p = OverflowPolicy(rawValue: policy.rawValue) else {
        setError(RPL_ERR_INVALID, "\(fn): policy \(policy.rawValue) is not an rpl_overflow")
        return nil
    }
    let bound = DeliveryBound(capacity: capacity, policy: p)
    return named(DeliverOnSignal(source, scheduler, bound: bound), .onSourceArg("-deliverOn: bounded", UInt64(capacity)))
}

@c @implementation
public func rpl_signal_delay(_ sig: OpaquePointer?, _ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_delay").flatMap { named(DelaySignal($0, ns, $1), .onSourceArg("-delay:", ns)) }
}

@c @implementation
public func rpl_signal_throttle(_ sig: OpaquePointer?, _ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_throttle", timers: true).flatMap { named(ThrottleIfSignal($0, ns, $1), .onSourceArg("-throttle:", ns)) }
}

@c @implementation
public func rpl_signal_timeout(_ sig: OpaquePointer?, _ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    operands(sig, s, "rpl_signal_timeout", timers: true).flatMap { named(TimeoutSignal($0, ns, $1), .onSourceArg("-timeout:", ns)) }
}

@c @implementation
public func rpl_signal_interval(_ ns: UInt64, _ s: OpaquePointer?) -> OpaquePointer? {
    guard let scheduler = schedulerArg(s, "rpl_signal_interval"),
          timerScheduler(scheduler, "rpl_signal_interval") else { return nil }
    guard ns > 0 else {
        setError(RPL_ERR_INVALID, "rpl_signal_interval: ns is 0")
        return nil
    }
    return named(IntervalSignal(ns, scheduler), .constructorArg("+interval:", ns))
}
