// The 0.2 lifetime operators (ripple.h "Transforming, testing, and side
// effects of a subscription's life"): initially, finally, do_dispose.
import CRipple
import Ripple

@c @implementation
public func rpl_signal_initially(_ sig: OpaquePointer?, _ fn: rpl_do_completed_fn?, _ ctx: UnsafeMutableRawPointer?,
                                 _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_initially", "-initially:") { InitiallySignal($0, $1) }
}

@c @implementation
public func rpl_signal_finally(_ sig: OpaquePointer?, _ fn: rpl_do_completed_fn?, _ ctx: UnsafeMutableRawPointer?,
                               _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_finally", "-finally:") { FinallySignal($0, $1) }
}

@c @implementation
public func rpl_signal_do_dispose(_ sig: OpaquePointer?, _ fn: rpl_do_completed_fn?, _ ctx: UnsafeMutableRawPointer?,
                                  _ release: rpl_release_fn?) -> OpaquePointer? {
    callbackOperator(sig, fn, ctx, release, "rpl_signal_do_dispose", "-doDispose:") { DoDisposeSignal($0, $1) }
}
