// Plain, compound and serial disposables.
import CRipple
import Ripple

@c @implementation
public func rpl_disposable_create(_ on_dispose: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                  _ ctx: UnsafeMutableRawPointer?) -> OpaquePointer? {
    retainedHandle(ActionDisposable(function: on_dispose, context: ctx))
}

@c @implementation
public func rpl_disposable_create_with_release(_ on_dispose: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                              _ ctx: UnsafeMutableRawPointer?,
                                              _ release: rpl_release_fn?) -> OpaquePointer? {
    retainedHandle(ActionDisposable(function: on_dispose, context: ctx, release: release))
}

@c @implementation
public func rpl_disposable_dispose(_ d: OpaquePointer?) -> rpl_status {
    guard let d, isKind(d, .disposable, .subscriber) else { return rejectDispose(d) }
    borrowed(d, as: Disposable.self) { $0.dispose() }
    return rpl_status(RPL_OK)
}

/// rpl_disposable_dispose's refusal, out of line: the entry point keeps no
/// frame of its own.
@inline(never)
private func rejectDispose(_ d: OpaquePointer?) -> rpl_status {
    _ = disposableArg(d, "rpl_disposable_dispose")
    return rpl_last_error()
}

@c @implementation
public func rpl_disposable_is_disposed(_ d: OpaquePointer?) -> Bool {
    disposableArg(d, "rpl_disposable_is_disposed")?.isDisposed ?? false
}

@c @implementation
public func rpl_compound_disposable_create() -> OpaquePointer? { retainedHandle(CompoundDisposable()) }

private func compoundArg(_ c: OpaquePointer?, _ fn: StaticString) -> CompoundDisposable? {
    guard let d = disposableArg(c, fn) else { return nil }
    guard let compound = d as? CompoundDisposable else {
        setError(RPL_ERR_KIND, "\(fn): expected a compound disposable")
        return nil
    }
    return compound
}

@c @implementation
public func rpl_compound_disposable_add(_ c: OpaquePointer?, _ d: OpaquePointer?) -> rpl_status {
    guard let compound = compoundArg(c, "rpl_compound_disposable_add"),
          let item = disposableArg(d, "rpl_compound_disposable_add") else { return rpl_last_error() }
    if item === compound {
        setError(RPL_ERR_INVALID, "rpl_compound_disposable_add: a compound cannot contain itself")
        return rpl_last_error()
    }
    compound.add(item)
    return rpl_status(RPL_OK)
}

@c @implementation
public func rpl_compound_disposable_remove(_ c: OpaquePointer?, _ d: OpaquePointer?) -> rpl_status {
    guard let compound = compoundArg(c, "rpl_compound_disposable_remove"),
          let item = disposableArg(d, "rpl_compound_disposable_remove") else { return rpl_last_error() }
    compound.remove(item)
    return rpl_status(RPL_OK)
}

@c @implementation
public func rpl_serial_disposable_create() -> OpaquePointer? { retainedHandle(SerialDisposable()) }

@c @implementation
public func rpl_serial_disposable_swap(_ s: OpaquePointer?, _ d: OpaquePointer?) -> OpaquePointer? {
    guard let sd = disposableArg(s, "rpl_serial_disposable_swap") else { return nil }
    guard let serial = sd as? SerialDisposable else {
        setError(RPL_ERR_KIND, "rpl_serial_disposable_swap: expected a serial disposable")
        return nil
    }
    var item: Disposable?
    if d != nil {
        guard let x = disposableArg(d, "rpl_serial_disposable_swap") else { return nil }
        if x === serial {
            setError(RPL_ERR_INVALID, "rpl_serial_disposable_swap: a serial disposable cannot contain itself")
            return nil
        }
        item = x
    }
    return serial.swap(item).map(retainedHandle)
}
