// Handles are runtime objects passed as opaque pointers: a +1 handle is an
// `Unmanaged.passRetained` object, a borrowed one is read without touching the
// count. Every entry point checks the handle's kind before using it.
import CRipple
import Glibc
import Ripple
import RippleSupport

@inline(__always)
func object(_ p: UnsafeRawPointer) -> RippleObject {
    Unmanaged<RippleObject>.fromOpaque(p).takeUnretainedValue()
}

@inline(__always)
func handle(_ o: RippleObject) -> OpaquePointer { OpaquePointer(Unmanaged.passUnretained(o).toOpaque()) }

/// True when the handle `p` is one of two kinds: its magic word is theirs
/// (read without retaining; zeroed or freed memory is no kind).
@inline(__always)
func isKind(_ p: OpaquePointer, _ a: ObjectKind, _ b: ObjectKind? = nil) -> Bool {
    let m = RippleObject.magic(at: UnsafeRawPointer(p))
    return m == a.rawValue || m == b?.rawValue
}

/// Records why the handle `p`, not of the kind `fn` expected (`what`), is
/// refused: a freed object (RPL_ERR_MISUSE), another kind, or memory that
/// is no Ripple object at all (RPL_ERR_KIND).
@inline(never)
func refuseHandle(_ p: OpaquePointer, what: StaticString, in fn: StaticString) {
    let m = RippleObject.magic(at: UnsafeRawPointer(p))
    if m == ObjectKind.freedMagic {
        setError(RPL_ERR_MISUSE, "\(fn): \(what) was freed (a handle used after its last release)")
    } else if let k = ObjectKind(rawValue: m) {
        setError(RPL_ERR_KIND, "\(fn): expected \(what), got \(kindName(k))")
    } else {
        setError(RPL_ERR_KIND, "\(fn): expected \(what), got a pointer that is not a Ripple handle")
    }
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
    case .box, .bytes: "a value box"
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
    let m = RippleObject.magic(at: UnsafeRawPointer(p))
    guard kinds.contains(where: { $0.rawValue == m }) else {
        refuseHandle(p, what: what, in: fn)
        return nil
    }
    return object(UnsafeRawPointer(p))
}

@inline(__always)
func signalArg(_ p: OpaquePointer?, _ fn: StaticString, what: StaticString = "a signal") -> Signal? {
    guard let p else {
        setError(RPL_ERR_NULL, "\(fn): \(what) is NULL")
        return nil
    }
    guard isKind(p, .signal, .subject) else {
        refuseHandle(p, what: what, in: fn)
        return nil
    }
    // (A subject passed where a signal is expected stays the subject: the
    // runtime's constructors keep its subscribe-only side,
    // docs/behaviour.md#lifetime-subject.)
    return unsafeDowncast(object(UnsafeRawPointer(p)), to: Signal.self)
}

@inline(__always)
func disposableArg(_ p: OpaquePointer?, _ fn: StaticString) -> Disposable? {
    checked(p, .disposable, .subscriber, what: "a disposable", in: fn).map { unsafeDowncast($0, to: Disposable.self) }
}

@inline(__always)
func errorArg(_ p: OpaquePointer?, _ fn: StaticString) -> RippleError? {
    checked(p, .error, what: "an error", in: fn).map { unsafeDowncast($0, to: RippleError.self) }
}

// MARK: Callback contexts and returned handles (one policy for every entry point)
//
// Every entry point checks its arguments in one order: handles first, then
// callbacks, then the other arguments. A context it was given becomes the
// runtime's `Callback` only once every check passed; a failed check hands it
// to `rejected`, which runs release(ctx) then and there.

/// Fails an entry point that was given a callback context: runs release(ctx)
/// at once (rule 19), keeping the error the failed check recorded, since a
/// release function may itself call into Ripple and fail. Returns nil for
/// the caller to return.
func rejected<T>(releasing ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> T? {
    if let release { keepingLastError { release(ctx) } }
    return nil
}

/// Checks the source and the callback of an operator taking (fn, ctx,
/// release), in that order, then the other arguments (`then`, which records
/// its own error); on failure runs release(ctx) and returns nil.
func checkedCallback<F>(_ sig: OpaquePointer?, _ fn: F?, _ ctx: UnsafeMutableRawPointer?,
                        _ release: rpl_release_fn?, _ name: StaticString, callback: StaticString = "fn",
                        then others: () -> Bool = { true }) -> (Signal, Callback<F>)? {
    guard let source = signalArg(sig, name) else { return rejected(releasing: ctx, release) }
    guard let fn else {
        setError(RPL_ERR_NULL, "\(name): \(callback) is NULL")
        return rejected(releasing: ctx, release)
    }
    guard others() else { return rejected(releasing: ctx, release) }
    return (source, Callback(fn, ctx: ctx, release: release))
}

/// What a callback that returns a handle (+1) returned.
enum Returned<T> {
    /// NULL.
    case none
    /// A handle of the kind asked for, now owned by the runtime.
    case object(T)
    /// A handle of another kind: released, and this error (domain "ripple",
    /// RPL_ERROR_CALLBACK, naming the entry point `fn`) stands for it.
    case wrongKind(RippleError)
}

/// Takes the +1 handle a callback returned, expecting kind `a` or `b` (two
/// kinds, not a list: bind and flatten_map call this per value).
func takeReturned<T: RippleObject>(_ p: OpaquePointer?, _ a: ObjectKind, _ b: ObjectKind, as: T.Type,
                                   what: StaticString, fn: StaticString) -> Returned<T> {
    guard let p else { return .none }
    let m = RippleObject.magic(at: UnsafeRawPointer(p))
    // Not an object at all (zeroed, freed): nothing to release.
    guard ObjectKind.isValid(m) else {
        return .wrongKind(.runtime(.callback, "\(fn): the callback returned a pointer that is not a live Ripple handle, not \(what)"))
    }
    let o = Unmanaged<RippleObject>.fromOpaque(UnsafeRawPointer(p)).takeRetainedValue()
    guard m == a.rawValue || m == b.rawValue else {
        return .wrongKind(.runtime(.callback, "\(fn): the callback returned \(kindName(o.kind)), not \(what)"))
    }
    return .object(unsafeDowncast(o, to: T.self))
}

/// The signal a callback returned (bind, flatten_map, catch, defer): nil for
/// NULL, a signal failing with an RPL_ERROR_CALLBACK error for a handle of
/// another kind.
func returnedSignal(_ p: OpaquePointer?, _ fn: StaticString) -> Signal? {
    switch takeReturned(p, .signal, .subject, as: Signal.self, what: "a signal", fn: fn) {
    case .none: nil
    case .object(let s): s
    case .wrongKind(let e): ErrorSignal(e)
    }
}

/// The disposable a subscribe callback returned: nil for NULL; for a handle
/// of another kind, nil after failing the subscription with an
/// RPL_ERROR_CALLBACK error.
func returnedDisposable(_ p: OpaquePointer?, failing s: Subscriber, _ fn: StaticString) -> Disposable? {
    switch takeReturned(p, .disposable, .subscriber, as: Disposable.self, what: "a disposable", fn: fn) {
    case .none: return nil
    case .object(let d): return d
    case .wrongKind(let e):
        s.sendError(e)
        return nil
    }
}

// MARK: Values across the boundary (same layout; see Value.swift)

@inline(__always) func toValue(_ v: rpl_value) -> Value { unsafeBitCast(v, to: Value.self) }
@inline(__always) func toC(_ v: Value) -> rpl_value { unsafeBitCast(v, to: rpl_value.self) }
@inline(__always) func borrowValue(_ p: UnsafePointer<rpl_value>) -> Value {
    UnsafeRawPointer(p).load(as: Value.self)
}
/// The runtime's view of a value lent to C (withCValue) as ripple.h's type.
@inline(__always) func cValue(_ p: UnsafePointer<ripple_value>) -> UnsafePointer<rpl_value> {
    UnsafeRawPointer(p).assumingMemoryBound(to: rpl_value.self)
}

// Rule 19a: a value whose type ripple.h does not list (built by hand, or a
// runtime marker forged from outside) is refused by every entry point that
// takes one. It is no box, so it is never released either.

/// True for a type ripple.h lists: one unsigned compare against the last
/// rpl_type (move it when the enum grows).
@inline(__always) func isListed(_ v: rpl_value) -> Bool { v.type <= RPL_TYPE_EVENT.rawValue }

/// Records the rule-19a refusal of a value of type `type` by `fn`.
@inline(never)
func refuseValue(_ type: UInt32, _ fn: StaticString, what: StaticString = "the value") {
    setError(RPL_ERR_INVALID, "\(fn): \(what) has type \(type), which ripple.h does not list")
}

/// Refuses the value sent to `fn` (rule 19a) after its handle passed its
/// checks, and consumes it (rule 19). Out of line, and apart from the
/// handle's refusal: a send's checks then stay a compare and a branch each.
@inline(never)
func refuseSent(_ v: rpl_value, _ fn: StaticString) -> rpl_status {
    refuseValue(v.type, fn)
    dropValue(v)
    return rpl_last_error()
}

/// A consumed (by-value) argument: the value, or nil after refusing it.
@inline(__always)
func valueArg(_ v: rpl_value, _ fn: StaticString, what: StaticString = "the value") -> Value? {
    guard isListed(v) else {
        refuseValue(v.type, fn, what: what)
        return nil
    }
    return toValue(v)
}

/// Drops a consumed argument of a failed call (rule 19); a value of an
/// unlisted type is not a box and is left alone.
@inline(__always) func dropValue(_ v: rpl_value) {
    if isListed(v) { toValue(v).release() }
}

/// A borrowed (by-pointer) argument: nil for NULL (no error) and, after
/// refusing it, for a value of an unlisted type.
@inline(__always)
func valueAt(_ p: UnsafePointer<rpl_value>?, _ fn: StaticString) -> Value? {
    guard let p else { return nil }
    guard isListed(p.pointee) else {
        refuseValue(p.pointee.type, fn)
        return nil
    }
    return borrowValue(p)
}

// MARK: Version, retain, release

@c @implementation
public func rpl_version() -> CUnsignedInt {
    CUnsignedInt(RPL_VERSION_MAJOR * 10000 + RPL_VERSION_MINOR * 100 + RPL_VERSION_PATCH)
}

@c @implementation
public func rpl_version_string() -> UnsafePointer<CChar> {
    staticCString("0.2.0")  // RPL_VERSION_STRING; the C tests check they agree
}

@c @implementation
public func rpl_retain(_ handle: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let handle else { return nil }
    guard ObjectKind.isValid(RippleObject.magic(at: handle)) else {
        refuseHandle(OpaquePointer(handle), what: "a handle", in: "rpl_retain")
        return nil
    }
    _ = Unmanaged<RippleObject>.fromOpaque(handle).retain()
    return handle
}

@c @implementation
public func rpl_release(_ handle: UnsafeMutableRawPointer?) {
    guard let handle else { return }
    // A freed handle (a double release, in the common case) or memory that
    // is no handle is refused, not released again.
    let magic = RippleObject.magic(at: handle)
    guard ObjectKind.isValid(magic) else {
        return refuseHandle(OpaquePointer(handle), what: "a handle", in: "rpl_release")
    }
    if magic == ObjectKind.disposable.rawValue && SpareSubscribers.isSubscriber(handle) {
        return SpareSubscribers.release(handle)
    }
    Unmanaged<RippleObject>.fromOpaque(handle).release()
}

@inline(__always)
func staticCString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
