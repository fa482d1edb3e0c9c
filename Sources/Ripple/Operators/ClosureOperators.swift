import RippleSupport

// Swift closures as operator callbacks: the closure lives in a box that the
// callback context owns, and a non-capturing @convention(c) trampoline calls
// it. The per-event path is the same as for C callbacks plus one closure
// call. Values given to a closure are borrowed; a value a closure returns is
// owned by the runtime (return `v.retained()` to pass a boxed input on).

final class ClosureBox<F> {
    let fn: F
    init(_ fn: F) { self.fn = fn }
}

@inline(__always)
private func unbox<F>(_ ctx: UnsafeMutableRawPointer?, _: F.Type) -> F {
    Unmanaged<ClosureBox<F>>.fromOpaque(ctx.unsafelyUnwrapped).takeUnretainedValue().fn
}

@inline(__always)
private func cValue(_ v: Value) -> ripple_value { unsafeBitCast(v, to: ripple_value.self) }

extension Signal {
    public func map(_ transform: @escaping (Value) -> Value) -> Signal {
        map({ ctx, v in cValue(unbox(ctx, ((Value) -> Value).self)(Value(c: v.pointee))) },
            CallbackContext(retaining: ClosureBox(transform)))
    }

    public func filter(_ predicate: @escaping (Value) -> Bool) -> Signal {
        filter({ ctx, v in unbox(ctx, ((Value) -> Bool).self)(Value(c: v.pointee)) },
               CallbackContext(retaining: ClosureBox(predicate)))
    }

    /// `initial` is consumed.
    public func scan(_ initial: Value, _ reduce: @escaping (Value, Value) -> Value) -> Signal {
        scan(initial, { ctx, a, v in cValue(unbox(ctx, ((Value, Value) -> Value).self)(Value(c: a.pointee), Value(c: v.pointee))) },
             CallbackContext(retaining: ClosureBox(reduce)))
    }

    /// `initial` is consumed.
    public func aggregate(_ initial: Value, _ reduce: @escaping (Value, Value) -> Value) -> Signal {
        aggregate(initial, { ctx, a, v in cValue(unbox(ctx, ((Value, Value) -> Value).self)(Value(c: a.pointee), Value(c: v.pointee))) },
                  CallbackContext(retaining: ClosureBox(reduce)))
    }

    public func takeWhile(_ predicate: @escaping (Value) -> Bool) -> Signal {
        takeWhile({ ctx, v in unbox(ctx, ((Value) -> Bool).self)(Value(c: v.pointee)) },
                  CallbackContext(retaining: ClosureBox(predicate)))
    }

    public func skipWhile(_ predicate: @escaping (Value) -> Bool) -> Signal {
        skipWhile({ ctx, v in unbox(ctx, ((Value) -> Bool).self)(Value(c: v.pointee)) },
                  CallbackContext(retaining: ClosureBox(predicate)))
    }

    public func doNext(_ action: @escaping (Value) -> Void) -> Signal {
        doNext({ ctx, v in unbox(ctx, ((Value) -> Void).self)(Value(c: v.pointee)) },
               CallbackContext(retaining: ClosureBox(action)))
    }

    public func doError(_ action: @escaping (RippleError) -> Void) -> Signal {
        doError({ ctx, e in
            unbox(ctx, ((RippleError) -> Void).self)(Unmanaged<RippleError>.fromOpaque(UnsafeRawPointer(e)).takeUnretainedValue())
        }, CallbackContext(retaining: ClosureBox(action)))
    }

    public func doCompleted(_ action: @escaping () -> Void) -> Signal {
        doCompleted({ ctx in unbox(ctx, (() -> Void).self)() }, CallbackContext(retaining: ClosureBox(action)))
    }
}
