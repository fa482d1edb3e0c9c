import RippleSupport

// Swift closures as operator callbacks: the closure lives in a box that the
// callback's context owns, and a non-capturing @convention(c) trampoline calls
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
        map(Callback({ ctx, v in cValue(unbox(ctx, ((Value) -> Value).self)(Value(c: v.pointee))) },
            retaining: ClosureBox(transform)))
    }

    public func filter(_ predicate: @escaping (Value) -> Bool) -> Signal {
        filter(Callback({ ctx, v in unbox(ctx, ((Value) -> Bool).self)(Value(c: v.pointee)) },
            retaining: ClosureBox(predicate)))
    }

    /// `initial` is consumed.
    public func scan(_ initial: Value, _ reduce: @escaping (Value, Value) -> Value) -> Signal {
        scan(initial, Callback({ ctx, a, v in cValue(unbox(ctx, ((Value, Value) -> Value).self)(Value(c: a.pointee), Value(c: v.pointee))) },
            retaining: ClosureBox(reduce)))
    }

    /// `initial` is consumed.
    public func aggregate(_ initial: Value, _ reduce: @escaping (Value, Value) -> Value) -> Signal {
        aggregate(initial, Callback({ ctx, a, v in cValue(unbox(ctx, ((Value, Value) -> Value).self)(Value(c: a.pointee), Value(c: v.pointee))) },
            retaining: ClosureBox(reduce)))
    }

    public func takeWhile(_ predicate: @escaping (Value) -> Bool) -> Signal {
        takeWhile(Callback({ ctx, v in unbox(ctx, ((Value) -> Bool).self)(Value(c: v.pointee)) },
            retaining: ClosureBox(predicate)))
    }

    public func skipWhile(_ predicate: @escaping (Value) -> Bool) -> Signal {
        skipWhile(Callback({ ctx, v in unbox(ctx, ((Value) -> Bool).self)(Value(c: v.pointee)) },
            retaining: ClosureBox(predicate)))
    }

    public func doNext(_ action: @escaping (Value) -> Void) -> Signal {
        doNext(Callback({ ctx, v in unbox(ctx, ((Value) -> Void).self)(Value(c: v.pointee)) },
            retaining: ClosureBox(action)))
    }

    public func doError(_ action: @escaping (RippleError) -> Void) -> Signal {
        doError(Callback({ ctx, e in
            unbox(ctx, ((RippleError) -> Void).self)(Unmanaged<RippleError>.fromOpaque(UnsafeRawPointer(e)).takeUnretainedValue())
        }, retaining: ClosureBox(action)))
    }

    public func doCompleted(_ action: @escaping () -> Void) -> Signal {
        doCompleted(Callback({ ctx in unbox(ctx, (() -> Void).self)() }, retaining: ClosureBox(action)))
    }
}
