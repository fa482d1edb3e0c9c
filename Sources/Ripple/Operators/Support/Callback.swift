import RippleSupport
import Synchronization

// C callbacks as operators hold and call them: the function types, the one
// struct a signal holds and a sink calls (`Callback`), and the object that
// releases a callback's `ctx` when a release was given.
//
// Operators call C function pointers directly (no Swift closure in between):
// a sink stores the function and the raw `ctx`, so an event costs one
// indirect call, with no retain/release, no generic dispatch and no
// allocation for scalar values. Swift callers wrap closures into the same
// shape (ClosureOperators.swift).

/// `rpl_map_fn`: returns a new value owned by the caller (the runtime).
public typealias MapFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>) -> ripple_value
/// `rpl_predicate_fn`.
public typealias PredicateFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>) -> Bool
/// `rpl_reduce_fn`: `(ctx, accumulator, value)`, both borrowed; returns the
/// new accumulator, owned by the runtime.
public typealias ReduceFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>,
                                                  UnsafePointer<ripple_value>) -> ripple_value
/// `rpl_subscribe_fn`: `(ctx, subscriber)`, returns a disposable handle
/// (+1) or nil.
public typealias SubscribeFunction = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> OpaquePointer?
/// `rpl_do_next_fn`.
public typealias ValueAction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>) -> Void
/// `rpl_do_error_fn`: the error is a borrowed `RippleError` handle.
public typealias ErrorAction = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void

/// What runs a callback's release: `release(ctx)`, once, when the last
/// owner lets go (rule 19, docs/behaviour.md#lifetime-release). It exists
/// only when there is a release to run (`Callback.init`, the one factory):
/// the operator signal's `Callback` holds it, and so does every copy a
/// sink keeps, so `ctx` stays valid while a subscription can still call the
/// callback and the release runs after the signal and every such sink are
/// gone.
public final class CallbackContext: @unchecked Sendable {
    @usableFromInline let ctx: UnsafeMutableRawPointer?
    @usableFromInline let release: RawCallback

    @usableFromInline init(_ ctx: UnsafeMutableRawPointer?, release: RawCallback) {
        self.ctx = ctx
        self.release = release
    }

    deinit { release(ctx) }
}

extension Value {
    @inline(__always) init(c: ripple_value) { self = unsafeBitCast(c, to: Value.self) }

    /// The value as two words, for a copy lent by pointer: two 64-bit
    /// stores, where field by field the type and the reserved word are
    /// split apart and stored one by one.
    @usableFromInline @inline(__always) var words: (UInt64, UInt64) { unsafeBitCast(self, to: (UInt64, UInt64).self) }
}

/// Calls `body` with `value` seen as the C struct (borrowed, no copy of a
/// box): the one way the runtime and the C shim lend a value to C. The
/// pointer is only lent to the callback for the call, so the unprotected
/// variant is used: it spares every operator call a stack protector check.
@inlinable @inline(__always)
public func withCValue<R>(_ value: borrowing Value, _ body: (UnsafePointer<ripple_value>) -> R) -> R {
    _withUnprotectedUnsafePointer(to: value.words) { body(UnsafeRawPointer($0).assumingMemoryBound(to: ripple_value.self)) }
}

/// A C callback with its context, as a sink calls it: the function and the
/// raw `ctx` side by side (one indirect call per event), and the owner that
/// runs the release once and last, when one was given. Without a release
/// (the common case) there is no owner: a signal holds its callback inline
/// and a sink's copy touches no reference count.
public struct Callback<Function> {
    public let function: Function
    public let ctx: UnsafeMutableRawPointer?
    @usableFromInline let owner: CallbackContext?

    /// The one way a callback context is made: an owner only when there is
    /// a release to run. Called once the entry point's checks have passed
    /// (a failed check runs the release at once instead, rule 19).
    @inlinable
    public init(_ function: Function, ctx: UnsafeMutableRawPointer?, release: RawCallback?) {
        self.function = function
        self.ctx = ctx
        owner = release.map { CallbackContext(ctx, release: $0) }
    }

    /// `function` called with a context that keeps `object` alive (Swift
    /// closures).
    public init(_ function: Function, retaining object: AnyObject) {
        self.init(function, ctx: Unmanaged.passRetained(object).toOpaque(), release: { p in
            if let p { Unmanaged<AnyObject>.fromOpaque(p).release() }
        })
    }

    /// The same context with the function seen as `Other` (a C function
    /// type as the runtime's own, of the same signature).
    @inlinable
    public func cast<Other>(_ convert: (Function) -> Other) -> Callback<Other> {
        Callback<Other>(convert(function), ctx, owner)
    }

    @inlinable
    init(_ function: Function, _ ctx: UnsafeMutableRawPointer?, _ owner: CallbackContext?) {
        self.function = function
        self.ctx = ctx
        self.owner = owner
    }
}

/// Runs one per-subscription operator callback: `rpl_callback_fail` called
/// inside it (and not inside a delivery it starts) fails this call. Returns
/// the callback's result and that failure, if any (rule 24).
///
/// Per call it saves and sets the running level and, once the callback has
/// returned, tests one word: a failure is recorded with its level
/// (`failCurrentCallback`), so nothing needs clearing beforehand. This
/// rests on one operator callback never running inside another at the same
/// level: whatever a callback starts that could run one is a delivery, at a
/// deeper level (`initially`, which runs at subscribe time, takes a level of
/// its own too).
@inline(__always)
func withFailureChannel<R>(_ body: () -> R) -> (R, RippleError?) {
    let (result, failed) = inFailureChannel(body)
    if _fastPath(!failed) { return (result, nil) }
    return (result, takeFailure())
}

/// `withFailureChannel` up to the test: the result, and whether a failure
/// is recorded (`takeFailure` then tells whose, and takes it if it is this
/// call's). The per-value calls below return that flag, so that a sink
/// takes the failure out of line and its usual path keeps the callback's
/// result in registers.
@inline(__always)
func inFailureChannel<R>(_ body: () -> R) -> (R, Bool) {
    let t = ripple_thread()!
    assert(t.pointee.callback_failure == nil || t.pointee.callback_failure_level != t.pointee.delivering,
           "an operator callback runs inside another at the same delivery level")
    let savedLevel = t.pointee.callback_level
    t.pointee.callback_level = t.pointee.delivering
    let result = body()
    t.pointee.callback_level = savedLevel
    return (result, t.pointee.callback_failure != nil)
}

/// A failure is recorded on this thread: the returning callback's, if it
/// is of its level (the delivery level, the same again once the callback has
/// returned), taken (+1 to the caller); else it belongs to a callback further
/// out (which failed, then started the delivery this call runs in) and
/// stays.
@inline(never)
func takeFailure() -> RippleError? {
    let t = ripple_thread()!
    guard t.pointee.callback_failure_level == t.pointee.delivering, let failure = t.pointee.callback_failure else { return nil }
    // The failure of a callback further out, set aside while this one
    // failed, is pending again.
    if let aside = t.pointee.callback_failures_aside {
        let node = Unmanaged<FailureAside>.fromOpaque(aside).takeRetainedValue()
        t.pointee.callback_failure = node.failure
        t.pointee.callback_failure_level = node.level
        t.pointee.callback_failures_aside = node.next
    } else {
        t.pointee.callback_failure = nil
    }
    return Unmanaged<RippleError>.fromOpaque(failure).takeRetainedValue()
}

/// The recorded failure of a callback further out, while a callback of a
/// delivery it started fails too (rare: a linked list, one node each).
private final class FailureAside {
    let failure: UnsafeMutableRawPointer  // +1 RippleError
    let level: UInt
    let next: UnsafeMutableRawPointer?
    init(_ failure: UnsafeMutableRawPointer, _ level: UInt, _ next: UnsafeMutableRawPointer?) {
        self.failure = failure
        self.level = level
        self.next = next
    }
}

/// Runs `body` outside any failure channel (scheduled work, do_dispose's
/// callback): `rpl_callback_fail` inside it is refused, even when it runs
/// within an operator callback.
@inline(__always)
func outsideFailureChannel(_ body: () -> Void) {
    let t = ripple_thread()!
    let savedLevel = t.pointee.callback_level
    t.pointee.callback_level = 0
    body()
    t.pointee.callback_level = savedLevel
}

/// What `rpl_callback_fail` does: records `error` (consumed) as the failure
/// of the operator callback running on this thread. False when no such
/// callback is running here (observer callbacks, scheduled work, or a
/// delivery nested inside a callback).
public func failCurrentCallback(_ error: RippleError) -> Bool {
    let t = ripple_thread()!
    let level = t.pointee.callback_level
    guard level != 0 && level == t.pointee.delivering else { return false }
    if let pending = t.pointee.callback_failure {
        // The first failure counts; a later one in the same call is dropped.
        if t.pointee.callback_failure_level == level { return true }
        // A callback further out failed, then started this delivery: its
        // failure waits until this callback's is taken.
        t.pointee.callback_failures_aside = Unmanaged.passRetained(
            FailureAside(pending, t.pointee.callback_failure_level, t.pointee.callback_failures_aside)).toOpaque()
    }
    t.pointee.callback_failure = Unmanaged.passRetained(error).toOpaque()
    t.pointee.callback_failure_level = level
    return true
}

extension Callback where Function == MapFunction {
    /// The mapped value, owned by the caller, and whether a failure is
    /// recorded.
    @inline(__always)
    func map(_ value: borrowing Value) -> (Value, Bool) {
        let v = copy value  // 16 bytes; the box stays borrowed
        return inFailureChannel { Value(c: withCValue(v) { function(ctx, $0) }) }
    }
}

extension Callback where Function == PredicateFunction {
    /// The predicate's answer, and whether a failure is recorded.
    @inline(__always)
    func test(_ value: borrowing Value) -> (Bool, Bool) {
        let v = copy value
        return inFailureChannel { withCValue(v) { function(ctx, $0) } }
    }
}

extension Callback where Function == ReduceFunction {
    /// `reduce(acc, value)`, owned by the caller; both arguments borrowed;
    /// and whether a failure is recorded.
    @inline(__always)
    func reduce(_ acc: borrowing Value, _ value: borrowing Value) -> (Value, Bool) {
        let a = acc.words, v = value.words  // 16 bytes each; boxes stay borrowed
        return inFailureChannel {
            Value(c: _withUnprotectedUnsafePointer(to: a) { pa in
                _withUnprotectedUnsafePointer(to: v) { pv in
                    function(ctx, UnsafeRawPointer(pa).assumingMemoryBound(to: ripple_value.self),
                             UnsafeRawPointer(pv).assumingMemoryBound(to: ripple_value.self))
                }
            })
        }
    }
}

extension Callback where Function == ValueAction {
    /// Whether a failure is recorded.
    @inline(__always)
    func run(_ value: borrowing Value) -> Bool {
        let v = copy value
        return inFailureChannel { withCValue(v) { function(ctx, $0) } }.1
    }
}

extension Callback where Function == ErrorAction {
    @inline(__always)
    func run(_ error: RippleError) -> RippleError? {
        withFailureChannel { function(ctx, OpaquePointer(Unmanaged.passUnretained(error).toOpaque())) }.1
    }
}

extension Callback where Function == RawCallback {
    @inline(__always)
    func run() -> RippleError? { withFailureChannel { function(ctx) }.1 }
}
