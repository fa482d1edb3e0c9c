// rpl_value constructors, accessors, copy/release/equality, and events.
import CRipple
import Glibc
import Ripple

@inline(__always) func cnil() -> rpl_value { toC(.nil) }

@c @implementation public func rpl_nil() -> rpl_value { cnil() }
@c @implementation public func rpl_bool(_ b: Bool) -> rpl_value { toC(.bool(b)) }
@c @implementation public func rpl_int(_ i: Int64) -> rpl_value { toC(.int(i)) }
@c @implementation public func rpl_double(_ d: Double) -> rpl_value { toC(.double(d)) }

@c @implementation
public func rpl_string(_ utf8: UnsafePointer<CChar>?) -> rpl_value {
    guard let utf8 else { return cnil() }
    return toC(.string(bytes: UnsafeRawBufferPointer(start: utf8, count: strlen(utf8))))
}

@c @implementation
public func rpl_string_n(_ utf8: UnsafePointer<CChar>?, _ len: Int) -> rpl_value {
    guard let utf8 else {
        if len != 0 { setError(RPL_ERR_NULL, "rpl_string_n: utf8 is NULL with a non-zero length") }
        return len == 0 ? toC(.string(bytes: UnsafeRawBufferPointer(start: nil, count: 0))) : cnil()
    }
    return toC(.string(bytes: UnsafeRawBufferPointer(start: utf8, count: len)))
}

@c @implementation
public func rpl_bytes(_ data: UnsafeRawPointer?, _ len: Int) -> rpl_value {
    if data == nil && len != 0 {
        setError(RPL_ERR_NULL, "rpl_bytes: data is NULL with a non-zero length")
        return cnil()
    }
    return toC(.bytes(UnsafeRawBufferPointer(start: data, count: len)))
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
    // Rule 19a: one refused item refuses the tuple; every item is consumed.
    for i in 0..<count where !isListed(items[i]) {
        refuseValue(items[i].type, "rpl_tuple", what: "an item")
        for j in 0..<count { dropValue(items[j]) }
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
    guard let value = valueAt(v, fn), value.type == type, let box = value.bytesBox else { return nil }
    lenOut?.pointee = box.count
    return box.base
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
