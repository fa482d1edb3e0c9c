import RippleSupport
import Synchronization

// The pieces every single-input operator shares: the C callback types, the
// context that owns a callback's `ctx`, and the sink that can end its
// subscription early.
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
/// `rpl_do_next_fn`.
public typealias ValueAction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ripple_value>) -> Void
/// `rpl_do_error_fn`: the error is a borrowed `RippleError` handle.
public typealias ErrorAction = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void

/// A callback's context and its release, run exactly once when the last
/// owner lets go. The operator signal owns one; each subscription's sink
/// retains it too, so `ctx` stays valid while a subscription can still call
/// the callback. The C shim wraps every context it is given in one, once its
/// argument checks have passed.
public final class CallbackContext: @unchecked Sendable {
    public let ctx: UnsafeMutableRawPointer?
    let release: RawCallback?

    public init(_ ctx: UnsafeMutableRawPointer?, release: RawCallback?) {
        self.ctx = ctx
        self.release = release
    }

    /// A context that keeps `object` alive (for Swift closures).
    public convenience init(retaining object: AnyObject) {
        self.init(Unmanaged.passRetained(object).toOpaque(), release: { p in
            if let p { Unmanaged<AnyObject>.fromOpaque(p).release() }
        })
    }

    deinit { release?(ctx) }
}

extension Value {
    @inline(__always) init(c: ripple_value) { self = unsafeBitCast(c, to: Value.self) }
}

/// Calls `body` with `value` seen as the C struct (borrowed, no copy of a
/// box): the one way the runtime and the C shim lend a value to C. The
/// pointer is only lent to the callback for the call, so the unprotected
/// variant is used: it spares every operator call a stack protector check.
@inlinable @inline(__always)
public func withCValue<R>(_ value: borrowing Value, _ body: (UnsafePointer<ripple_value>) -> R) -> R {
    _withUnprotectedUnsafePointer(to: value) { body(UnsafeRawPointer($0).assumingMemoryBound(to: ripple_value.self)) }
}

/// Base of the operator signals built on one source.
public class UnaryOperatorSignal: Signal {
    public let source: Signal
    init(_ source: Signal) {
        self.source = source
        super.init()
    }
}

/// A C predicate and its context, as a sink calls it per value. Holding the
/// context keeps `ctx` valid for as long as the sink lives.
struct PredicateCall {
    let function: PredicateFunction
    let ctx: UnsafeMutableRawPointer?
    let context: CallbackContext

    init(_ function: PredicateFunction, _ context: CallbackContext) {
        self.function = function
        self.ctx = context.ctx
        self.context = context
    }

    @inline(__always)
    func test(_ value: borrowing Value) -> Bool { withCValue(value) { function(ctx, $0) } }
}

/// Base of the operators with one C callback and its context (map, filter,
/// take_while, skip_while, do_*): each subscription gets a sink from
/// `makeSink`, which calls the function directly per value.
public class CallbackOperatorSignal<Function>: UnaryOperatorSignal {
    let function: Function
    let context: CallbackContext

    public init(_ source: Signal, _ function: Function, _ context: CallbackContext) {
        self.function = function
        self.context = context
        super.init(source)
    }

    func makeSink(_ downstream: Sink) -> Sink { fatalError("makeSink must be overridden") }

    public override func subscribe(_ sink: Sink) -> Subscriber { source.subscribe(makeSink(sink)) }
}

/// Base of the operators driven by a predicate (filter, take_while, skip_while).
public class PredicateOperatorSignal: CallbackOperatorSignal<PredicateFunction> {
    func makeSink(_ call: PredicateCall, _ downstream: Sink) -> Sink { fatalError("makeSink must be overridden") }

    override func makeSink(_ downstream: Sink) -> Sink { makeSink(PredicateCall(function, context), downstream) }
}

/// A sink that can end its subscription before the source does (take,
/// take_while, dematerialize).
///
/// `stop` marks the root subscriber done, sends the terminal event to the
/// sinks below this one, then disposes the subscription's resources (the
/// source): the order of semantics.md rule 5. Sinks above this one see no
/// terminal event, so a `do_completed` upstream of a `take` does not run, and
/// a value sent back into the source from the terminal callback is dropped by
/// the subscriber. If the root is already done because an upstream sink is
/// emitting from its own terminal event (`collect`, `take_last`,
/// `materialize`), this sink's terminal event is sent now and the upstream
/// one is ignored; if it is done because it was disposed, nothing is sent.
class StoppingSink: ForwardingSink {
    /// No more values go downstream.
    @exclusivity(unchecked) final var stopped = false
    /// The terminal event went downstream.
    @exclusivity(unchecked) final var terminated = false
    /// The subscriber at the head of the chain. Unowned: it owns this sink
    /// (a strong reference would be a cycle), and it is alive whenever it
    /// calls into the chain.
    @exclusivity(unchecked) final unowned(unsafe) var root: Subscriber?

    override func attach(_ subscriber: Subscriber) {
        root = subscriber
        downstream.attach(subscriber)
    }

    /// Ends the subscription with `error`, or with completion when nil.
    final func stop(_ error: RippleError? = nil) {
        if stopped { return }
        stopped = true
        guard let root else {
            terminate(error)  // never attached: nothing upstream to end
            return
        }
        if root.markDone() {
            terminate(error)
            root.disposeResources()
        } else if !root.resourcesAreDisposed {
            terminate(error)  // inside an upstream terminal event, which disposes the resources next
        }
    }

    @inline(__always)
    final func terminate(_ error: RippleError?) {
        if terminated { return }
        terminated = true
        if let error { downstream.onError(error) } else { downstream.onCompleted() }
    }

    /// Fails the subscription because `op`'s callback returned `value`, of
    /// a type ripple.h does not list (semantics.md rule 19a). The value is
    /// not released: it is not a box the runtime made.
    final func refuse(_ value: Value, _ op: StaticString) {
        stop(.runtime(.callback, "\(op): the callback returned a value of type \(value.rawType), which ripple.h does not list"))
    }

    override func onError(_ error: RippleError) {
        stopped = true
        terminate(error)
    }

    override func onCompleted() {
        stopped = true
        terminate(nil)
    }
}
