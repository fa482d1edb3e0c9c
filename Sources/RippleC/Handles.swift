// Handles are runtime objects passed as opaque pointers: a +1 handle is an
// `Unmanaged.passRetained` object, a borrowed one is read without touching the
// count. Every entry point checks the handle's kind before using it.
import CRipple
import Glibc
import Ripple

@inline(__always)
func object(_ p: UnsafeRawPointer) -> RippleObject {
    Unmanaged<RippleObject>.fromOpaque(p).takeUnretainedValue()
}

@inline(__always)
func handle(_ o: RippleObject) -> OpaquePointer { OpaquePointer(Unmanaged.passUnretained(o).toOpaque()) }

/// True when the handle `p` is one of two kinds; reads it without retaining.
@inline(__always)
func isKind(_ p: OpaquePointer, _ a: ObjectKind, _ b: ObjectKind? = nil) -> Bool {
    let k = Unmanaged<RippleObject>.fromOpaque(UnsafeRawPointer(p))._withUnsafeGuaranteedRef { $0.kind }
    return k == a || k == b
}

/// Calls `body` with the object of a checked, borrowed handle, without the
/// retain/release a strong reference would cost (hot entry points).
@inline(__always)
func borrowed<T: RippleObject, R>(_ p: OpaquePointer, as: T.Type, _ body: (T) -> R) -> R {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(p))._withUnsafeGuaranteedRef(body)
}

/// A new +1 handle for `o`.
@inline(__always)
func retainedHandle(_ o: RippleObject) -> OpaquePointer { OpaquePointer(Unmanaged.passRetained(o).toOpaque()) }

func kindName(_ k: ObjectKind) -> String {
    switch k {
    case .signal: "a signal"
    case .subject: "a subject"
    case .subscriber: "a subscriber"
    case .disposable: "a disposable"
    case .connection: "a connection"
    case .scheduler: "a scheduler"
    case .error: "an error"
    case .box: "a value box"
    }
}

/// Checks that `p` is a non-NULL handle of a kind in `kinds` and returns its
/// object, or records the error and returns nil.
@inline(__always)
func checked(_ p: OpaquePointer?, _ kinds: ObjectKind..., what: StaticString, in fn: StaticString) -> RippleObject? {
    guard let p else {
        setError(RPL_ERR_NULL, "\(fn): \(what) is NULL")
        return nil
    }
    let o = object(UnsafeRawPointer(p))
    guard kinds.contains(o.kind) else {
        setError(RPL_ERR_KIND, "\(fn): expected \(what), got \(kindName(o.kind))")
        return nil
    }
    return o
}

@inline(__always)
func signalArg(_ p: OpaquePointer?, _ fn: StaticString, what: StaticString = "a signal") -> Signal? {
    guard let p else {
        setError(RPL_ERR_NULL, "\(fn): \(what) is NULL")
        return nil
    }
    let o = object(UnsafeRawPointer(p))
    guard o.kind == .signal || o.kind == .subject else {
        setError(RPL_ERR_KIND, "\(fn): expected \(what), got \(kindName(o.kind))")
        return nil
    }
    return unsafeDowncast(o, to: Signal.self)
}

@inline(__always)
func disposableArg(_ p: OpaquePointer?, _ fn: StaticString) -> Disposable? {
    checked(p, .disposable, .subscriber, what: "a disposable", in: fn).map { unsafeDowncast($0, to: Disposable.self) }
}

@inline(__always)
func errorArg(_ p: OpaquePointer?, _ fn: StaticString) -> RippleError? {
    checked(p, .error, what: "an error", in: fn).map { unsafeDowncast($0, to: RippleError.self) }
}

/// Takes ownership of a +1 signal handle returned by a callback.
func takeSignal(_ p: OpaquePointer?, _ fn: StaticString) -> Signal? {
    guard let p else { return nil }
    let o = Unmanaged<RippleObject>.fromOpaque(UnsafeRawPointer(p)).takeRetainedValue()
    guard o.kind == .signal || o.kind == .subject else {
        setError(RPL_ERR_KIND, "\(fn): the callback returned \(kindName(o.kind)), not a signal")
        return nil
    }
    return unsafeDowncast(o, to: Signal.self)
}

/// Takes ownership of a +1 disposable handle returned by a callback.
func takeDisposable(_ p: OpaquePointer?) -> Disposable? {
    guard let p else { return nil }
    let o = Unmanaged<RippleObject>.fromOpaque(UnsafeRawPointer(p)).takeRetainedValue()
    return o as? Disposable
}

/// A C context with its release function, run when the owner is freed.
final class CContext: @unchecked Sendable {
    let ctx: UnsafeMutableRawPointer?
    let release: rpl_release_fn?
    init(_ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) {
        self.ctx = ctx
        self.release = release
    }
    deinit { release?(ctx) }
}

// MARK: Values across the boundary (same layout; see Value.swift)

@inline(__always) func toValue(_ v: rpl_value) -> Value { unsafeBitCast(v, to: Value.self) }
@inline(__always) func toC(_ v: Value) -> rpl_value { unsafeBitCast(v, to: rpl_value.self) }
@inline(__always) func borrowValue(_ p: UnsafePointer<rpl_value>) -> Value {
    UnsafeRawPointer(p).load(as: Value.self)
}
/// Lends a borrowed value to C as `const rpl_value *` for the call.
@inline(__always)
func withBorrowed<R>(_ v: borrowing Value, _ body: (UnsafePointer<rpl_value>) -> R) -> R {
    withUnsafePointer(to: v) { body(UnsafeRawPointer($0).assumingMemoryBound(to: rpl_value.self)) }
}

// MARK: Version, retain, release

@c @implementation
public func rpl_version() -> CUnsignedInt {
    CUnsignedInt(RPL_VERSION_MAJOR * 10000 + RPL_VERSION_MINOR * 100 + RPL_VERSION_PATCH)
}

@c @implementation
public func rpl_version_string() -> UnsafePointer<CChar> {
    staticCString("0.1.0")  // RPL_VERSION_STRING; the C tests check they agree
}

@c @implementation
public func rpl_retain(_ handle: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let handle else { return nil }
    _ = Unmanaged<RippleObject>.fromOpaque(handle).retain()
    return handle
}

@c @implementation
public func rpl_release(_ handle: UnsafeMutableRawPointer?) {
    guard let handle else { return }
    Unmanaged<RippleObject>.fromOpaque(handle).release()
}

@inline(__always)
func staticCString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
