// rpl_value constructors, accessors, copy/release/equality, and events.
import CRipple
import Glibc
import Ripple
import RippleSupport

@inline(__always) func cnil() -> rpl_value { toC(.nil) }

@c @implementation public func rpl_nil() -> rpl_value { cnil() }
@c @implementation public func rpl_bool(_ b: Bool) -> rpl_value { toC(.bool(b)) }
@c @implementation public func rpl_int(_ i: Int64) -> rpl_value { toC(.int(i)) }
@c @implementation public func rpl_double(_ d: Double) -> rpl_value { toC(.double(d)) }

/// A string or bytes value copied from `len` bytes at `p`. size_t arrives as
/// Int, so a length above PTRDIFF_MAX is negative here: no object can be that
/// large, and it must not reach the buffer arithmetic.
private func copiedBytes(_ type: ValueType, _ p: UnsafeRawPointer?, _ len: Int, _ fn: StaticString) -> rpl_value {
    guard len >= 0 else {
        setError(RPL_ERR_INVALID, "\(fn): length \(UInt(bitPattern: len)) is larger than PTRDIFF_MAX")
        return cnil()
    }
    guard p != nil || len == 0 else {
        setError(RPL_ERR_NULL, "\(fn): the data pointer is NULL with a non-zero length")
        return cnil()
    }
    let buf = UnsafeRawBufferPointer(start: len == 0 ? nil : p, count: len)
    let v: Value = type == .string ? .string(bytes: buf) : .bytes(buf)
    if v.rawType == ValueType.nil.rawValue {
        setError(RPL_ERR_NOMEM, "\(fn): out of memory copying \(len) bytes")
    }
    return toC(v)
}

@c @implementation
public func rpl_string(_ utf8: UnsafePointer<CChar>?) -> rpl_value {
    guard let utf8 else { return cnil() }
    return copiedBytes(.string, utf8, strlen(utf8), "rpl_string")
}

@c @implementation
public func rpl_string_n(_ utf8: UnsafePointer<CChar>?, _ len: Int) -> rpl_value {
    copiedBytes(.string, utf8, len, "rpl_string_n")
}

@c @implementation
public func rpl_bytes(_ data: UnsafeRawPointer?, _ len: Int) -> rpl_value {
    copiedBytes(.bytes, data, len, "rpl_bytes")
}

@c @implementation
public func rpl_pointer(_ ptr: UnsafeMutableRawPointer?, _ dtor: rpl_release_fn?) -> rpl_value {
    toC(.pointer(ptr, destructor: dtor))
}

@c @implementation
public func rpl_tuple(_ items: UnsafeMutablePointer<rpl_value>?, _ count: Int) -> rpl_value {
    guard let items else {
        if count != 0 {
            setError(RPL_ERR_NULL, "rpl_tuple: items is NULL with a non-zero count")
            return cnil()
        }
        return toC(.tuple([]))
    }
    // size_t arrives as Int: a count no array of rpl_value can have (negative
    // here, or past the address space) is refused without reading items.
    guard count >= 0 && count <= Int.max / MemoryLayout<rpl_value>.stride else {
        setError(RPL_ERR_INVALID, "rpl_tuple: count \(UInt(bitPattern: count)) is larger than any array of rpl_value")
        return cnil()
    }
    // Rule 19a: one refused item refuses the tuple; every item is consumed.
    for i in 0..<count where !isListed(items[i]) {
        refuseValue(items[i].type, "rpl_tuple", what: "an item")
        for j in 0..<count { dropValue(items[j]) }
        return cnil()
    }
    // Swift's allocator aborts when it fails, and the header promises nil:
    // try the same amount with malloc first, so running out of memory is
    // reported (the items are still consumed).
    if count > 4096 && ripple_can_allocate(count * MemoryLayout<Value>.stride) == 0 {  // no overflow: checked above
        for i in 0..<count { toValue(items[i]).release() }
        setError(RPL_ERR_NOMEM, "rpl_tuple: out of memory for \(count) items")
        return cnil()
    }
    var list: [Value] = []
    list.reserveCapacity(count)
    for i in 0..<count { list.append(toValue(items[i])) }  // ownership moves in
    return toC(.tuple(list))
}

@c @implementation
public func rpl_signal_value(_ s: OpaquePointer?) -> rpl_value {
    guard let sig = signalArg(s, "rpl_signal_value") else { return cnil() }
    return toC(.signal(sig))
}

@c @implementation
public func rpl_value_type(_ v: UnsafePointer<rpl_value>?) -> rpl_type {
    valueAt(v, "rpl_value_type").map { rpl_type(rawValue: $0.rawType) } ?? RPL_TYPE_NIL
}

// Scalar accessors are called per event from callbacks: the right type is
// one compare; anything else (NULL, another type, rule 19a's refusal) goes
// through valueAt.
@c @implementation
public func rpl_value_bool(_ v: UnsafePointer<rpl_value>?) -> Bool {
    if let v, v.pointee.type == RPL_TYPE_BOOL.rawValue { return v.pointee.as.i != 0 }
    _ = valueAt(v, "rpl_value_bool")
    return false
}
@c @implementation
public func rpl_value_int(_ v: UnsafePointer<rpl_value>?) -> Int64 {
    if let v, v.pointee.type == RPL_TYPE_INT.rawValue { return v.pointee.as.i }
    _ = valueAt(v, "rpl_value_int")
    return 0
}
@c @implementation
public func rpl_value_double(_ v: UnsafePointer<rpl_value>?) -> Double {
    if let v, v.pointee.type == RPL_TYPE_DOUBLE.rawValue { return v.pointee.as.d }
    _ = valueAt(v, "rpl_value_double")
    return 0
}

private func bytesOf(_ v: UnsafePointer<rpl_value>?, _ type: ValueType, _ lenOut: UnsafeMutablePointer<Int>?,
                     _ fn: StaticString) -> UnsafeMutablePointer<UInt8>? {
    lenOut?.pointee = 0
    guard let value = valueAt(v, fn), value.rawType == type.rawValue, let b = value.borrowedBytes else { return nil }
    lenOut?.pointee = b.count
    return UnsafeMutablePointer(mutating: b.baseAddress)
}

@c @implementation
public func rpl_value_string(_ v: UnsafePointer<rpl_value>?, _ len_out: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    bytesOf(v, .string, len_out, "rpl_value_string").map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
}

@c @implementation
public func rpl_value_bytes(_ v: UnsafePointer<rpl_value>?, _ len_out: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    bytesOf(v, .bytes, len_out, "rpl_value_bytes").map { UnsafeRawPointer($0) }
}

@c @implementation
public func rpl_value_pointer(_ v: UnsafePointer<rpl_value>?) -> UnsafeMutableRawPointer? {
    valueAt(v, "rpl_value_pointer")?.pointerValue
}

@c @implementation
public func rpl_value_tuple_count(_ v: UnsafePointer<rpl_value>?) -> Int {
    valueAt(v, "rpl_value_tuple_count")?.tupleItems?.count ?? 0
}

@c @implementation
public func rpl_value_tuple_at(_ v: UnsafePointer<rpl_value>?, _ i: Int) -> rpl_value {
    guard let v else {
        setError(RPL_ERR_NULL, "rpl_value_tuple_at: value is NULL")
        return cnil()
    }
    guard let value = valueAt(v, "rpl_value_tuple_at") else { return cnil() }
    guard let items = value.tupleItems else {
        setError(RPL_ERR_KIND, "rpl_value_tuple_at: the value is not a tuple")
        return cnil()
    }
    guard i >= 0 && i < items.count else {
        setError(RPL_ERR_INVALID, "rpl_value_tuple_at: index \(i) is out of range (count \(items.count))")
        return cnil()
    }
    return toC(items[i].retained())
}

@c @implementation
public func rpl_value_signal(_ v: UnsafePointer<rpl_value>?) -> OpaquePointer? {
    valueAt(v, "rpl_value_signal")?.signalValue.map(handle)
}

@c @implementation
public func rpl_value_copy(_ v: UnsafePointer<rpl_value>?) -> rpl_value {
    valueAt(v, "rpl_value_copy").map { toC($0.retained()) } ?? cnil()
}

@c @implementation
public func rpl_value_release(_ v: UnsafeMutablePointer<rpl_value>?) {
    // A refused value is left as it is: it is no box, there is nothing to drop.
    guard let v, let value = valueAt(v, "rpl_value_release") else { return }
    value.release()
    v.pointee = cnil()
}

@c @implementation
public func rpl_value_equal(_ a: UnsafePointer<rpl_value>?, _ b: UnsafePointer<rpl_value>?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    guard let x = valueAt(a, "rpl_value_equal"), let y = valueAt(b, "rpl_value_equal") else { return false }
    return Value.equal(x, y)
}

// MARK: Events

@c @implementation
public func rpl_event_next(_ v: rpl_value) -> rpl_value {
    valueArg(v, "rpl_event_next").map { toC(.event(.next($0))) } ?? cnil()
}

@c @implementation
public func rpl_event_error(_ e: OpaquePointer?) -> rpl_value {
    guard let err = errorOrGeneric(e, "rpl_event_error") else { return cnil() }
    return toC(.event(.error(err)))
}

@c @implementation
public func rpl_event_completed() -> rpl_value { toC(.event(.completed)) }

private func eventOf(_ v: UnsafePointer<rpl_value>?, _ fn: StaticString) -> Event? {
    guard let v else {
        setError(RPL_ERR_NULL, "\(fn): value is NULL")
        return nil
    }
    guard let value = valueAt(v, fn) else { return nil }
    guard let e = value.eventValue else {
        setError(RPL_ERR_KIND, "\(fn): the value is not an event")
        return nil
    }
    return e
}

@c @implementation
public func rpl_value_event_kind(_ v: UnsafePointer<rpl_value>?) -> Int32 {
    switch eventOf(v, "rpl_value_event_kind") {
    case .next?: Int32(RPL_EVENT_NEXT.rawValue)
    case .error?: Int32(RPL_EVENT_ERROR.rawValue)
    case .completed?: Int32(RPL_EVENT_COMPLETED.rawValue)
    case nil: -1
    }
}

@c @implementation
public func rpl_value_event_value(_ v: UnsafePointer<rpl_value>?) -> rpl_value {
    if case .next(let x)? = eventOf(v, "rpl_value_event_value") { return toC(x.retained()) }
    return cnil()
}

@c @implementation
public func rpl_value_event_error(_ v: UnsafePointer<rpl_value>?) -> OpaquePointer? {
    if case .error(let e)? = eventOf(v, "rpl_value_event_error") { return handle(e) }
    return nil
}
