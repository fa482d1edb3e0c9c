import Glibc

// Events carry one dynamically typed value. Its layout (a 32-bit type, 32
// reserved bits, 64 payload bits) is the C `rpl_value`, so a value crosses the
// C boundary with no conversion. Scalars live in the payload. Every other type
// holds a reference to a runtime object, counted by hand: `retained()` adds a
// reference and `release()` drops one. The rules mirror the C API: a value
// passed by value is consumed, a value passed by `borrowing` is only read.
// Manual counting keeps the per-event path free of ARC traffic and
// allocation for scalars.

/// The type of a `Value`.
public enum ValueType: UInt32, Sendable {
    case `nil` = 0, bool, int, double, string, bytes, pointer, tuple, signal, event
}

/// A dynamically typed event value.
@frozen
public struct Value: Sendable {
    public var rawType: UInt32
    public var reserved: UInt32
    public var bits: UInt64

    @inlinable @inline(__always)
    init(rawType: UInt32, bits: UInt64) {
        self.rawType = rawType
        self.reserved = 0
        self.bits = bits
    }

    public static let `nil` = Value(rawType: ValueType.nil.rawValue, bits: 0)

    @inlinable @inline(__always)
    public static func bool(_ b: Bool) -> Value { Value(rawType: ValueType.bool.rawValue, bits: b ? 1 : 0) }
    @inlinable @inline(__always)
    public static func int(_ i: Int64) -> Value { Value(rawType: ValueType.int.rawValue, bits: UInt64(bitPattern: i)) }
    @inlinable @inline(__always)
    public static func double(_ d: Double) -> Value { Value(rawType: ValueType.double.rawValue, bits: d.bitPattern) }

    /// Wraps `object` (+1, consumed) as a boxed value of `type`.
    @inlinable
    static func boxed(_ type: ValueType, _ object: RippleObject) -> Value {
        Value(rawType: type.rawValue, bits: UInt64(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())))
    }

    /// A value of `type` borrowing `object`'s reference (not retained): to
    /// lend (`Subscriber.sendNext(lent:)`) while the caller holds `object`.
    @inlinable @inline(__always)
    static func lent(_ type: ValueType, _ object: RippleObject) -> Value {
        Value(rawType: type.rawValue, bits: UInt64(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())))
    }

    public static func string(_ s: String) -> Value {
        var copy = s
        return copy.withUTF8 { buf in .string(bytes: UnsafeRawBufferPointer(buf)) }
    }
    /// nil when the copy cannot be allocated.
    public static func string(bytes: UnsafeRawBufferPointer) -> Value {
        BytesBox(copying: bytes).map { .boxed(.string, $0) } ?? .nil
    }
    /// nil when the copy cannot be allocated.
    public static func bytes(_ bytes: UnsafeRawBufferPointer) -> Value {
        BytesBox(copying: bytes).map { .boxed(.bytes, $0) } ?? .nil
    }
    public static func pointer(_ p: UnsafeMutableRawPointer?, destructor: RawCallback?) -> Value {
        .boxed(.pointer, PointerBox(p, destructor))
    }
    /// A tuple owning `items` (each consumed).
    public static func tuple(_ items: [Value]) -> Value { .boxed(.tuple, TupleBox(items)) }
    /// A signal value keeps the signal's subscribe-only side (a value never
    /// keeps a subject as a sender, docs/behaviour.md#lifetime-subject).
    public static func signal(_ s: Signal) -> Value { .boxed(.signal, s.asSource) }
    /// A materialized event (consumes `event`).
    public static func event(_ event: Event) -> Value { .boxed(.event, EventBox(event)) }

    @inlinable
    public var type: ValueType { ValueType(rawValue: rawType) ?? .nil }

    /// Whether the type is one ripple.h lists (rule 19a).
    @inlinable @inline(__always)
    public var isListed: Bool { rawType <= ValueType.event.rawValue }

    @inlinable @inline(__always)
    public var isBoxed: Bool { rawType >= ValueType.string.rawValue && rawType <= ValueType.event.rawValue }

    @inlinable @inline(__always)
    var objectPointer: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: UInt(bits)) }

    /// The boxed object, borrowed (nil for scalars).
    @inlinable
    public var object: RippleObject? {
        guard isBoxed, let p = objectPointer else { return nil }
        return Unmanaged<RippleObject>.fromOpaque(p).takeUnretainedValue()
    }

    /// Adds a reference (for boxed values) and returns the same value.
    /// Inlined, a scalar costs one compare and branch: the box's pointer is
    /// tested out of line, so the two tests are not merged into flag
    /// arithmetic on the per-event path.
    @inlinable @inline(__always)
    public func retained() -> Value {
        if _slowPath(isBoxed) { retainBox() }
        return self
    }

    /// Drops this value's reference (for boxed values); inlined as
    /// `retained`.
    @inlinable @inline(__always)
    public func release() {
        if _slowPath(isBoxed) { releaseBox() }
    }

    @usableFromInline @inline(never)
    func retainBox() {
        if let p = objectPointer { _ = Unmanaged<RippleObject>.fromOpaque(p).retain() }
    }

    @usableFromInline @inline(never)
    func releaseBox() {
        if let p = objectPointer { Unmanaged<RippleObject>.fromOpaque(p).release() }
    }

    // Accessors: no conversion, as in the C API.
    public var boolValue: Bool { rawType == ValueType.bool.rawValue && bits != 0 }
    public var intValue: Int64 { rawType == ValueType.int.rawValue ? Int64(bitPattern: bits) : 0 }
    public var doubleValue: Double { rawType == ValueType.double.rawValue ? Double(bitPattern: bits) : 0 }
    /// The box of a string or bytes value. Its kind word says it is a
    /// BytesBox (one load, no cast); another box under a string or bytes
    /// type (a value forged from C) is none.
    @inlinable @inline(__always)
    var bytesBoxPointer: UnsafeMutableRawPointer? {
        guard rawType == ValueType.string.rawValue || rawType == ValueType.bytes.rawValue, let p = objectPointer,
              RippleObject.magic(at: p) == ObjectKind.bytes.rawValue else { return nil }
        return p
    }
    public var bytesBox: BytesBox? { bytesBoxPointer.map { Unmanaged<BytesBox>.fromOpaque($0).takeUnretainedValue() } }
    /// The bytes of a string or bytes value, borrowed from it (valid while
    /// the value is): no reference counting, for the per-event accessors.
    @inlinable @inline(__always)
    public var borrowedBytes: UnsafeBufferPointer<UInt8>? {
        bytesBoxPointer.map { Unmanaged<BytesBox>.fromOpaque($0)._withUnsafeGuaranteedRef { $0.buffer } }
    }
    public var stringValue: String? {
        guard rawType == ValueType.string.rawValue, let b = borrowedBytes else { return nil }
        return String(decoding: b, as: UTF8.self)
    }
    public var tupleItems: [Value]? { rawType == ValueType.tuple.rawValue ? (object as? TupleBox)?.items : nil }
    public var signalValue: Signal? { rawType == ValueType.signal.rawValue ? object as? Signal : nil }
    public var eventValue: Event? { rawType == ValueType.event.rawValue ? (object as? EventBox)?.event : nil }
    public var pointerValue: UnsafeMutableRawPointer? {
        rawType == ValueType.pointer.rawValue ? (object as? PointerBox)?.pointer : nil
    }

    /// Structural equality (see `rpl_value_equal`).
    public static func equal(_ a: borrowing Value, _ b: borrowing Value) -> Bool {
        guard a.rawType == b.rawType else { return false }
        switch a.type {
        case .nil: return true
        case .bool: return (a.bits != 0) == (b.bits != 0)
        case .int: return a.bits == b.bits
        case .double: return Double(bitPattern: a.bits) == Double(bitPattern: b.bits)
        case .string, .bytes:
            guard let x = a.borrowedBytes, let y = b.borrowedBytes else { return a.bits == b.bits }
            return x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
        case .pointer: return a.pointerValue == b.pointerValue
        case .tuple:
            // Nested tuples are compared with a work list, not recursion:
            // their depth is the caller's. The items stay alive through a
            // and b (tuples are immutable), so they are not retained here.
            var work: [(Value, Value)] = [(copy a, copy b)]
            while let (x, y) = work.popLast() {
                guard x.rawType == y.rawType else { return false }
                guard x.rawType == ValueType.tuple.rawValue else {
                    if !equal(x, y) { return false }
                    continue
                }
                if x.bits == y.bits { continue }
                guard let xs = x.tupleItems, let ys = y.tupleItems, xs.count == ys.count else { return false }
                for i in 0..<xs.count { work.append((xs[i], ys[i])) }
            }
            return true
        case .signal, .event: return a.bits == b.bits
        }
    }
}

/// A C-style callback taking a context pointer.
public typealias RawCallback = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// Immutable bytes with a trailing NUL, for string and bytes values.
public final class BytesBox: RippleObject {
    @exclusivity(unchecked) public private(set) var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) public private(set) var count: Int
    /// Bytes allocated at `base` (at least count + 1).
    @exclusivity(unchecked) private var capacity: Int

    /// Fails when the buffer cannot be allocated: malloc, because Swift's own
    /// allocator aborts the process on failure and the C API promises nil.
    @usableFromInline
    init?(copying bytes: UnsafeRawBufferPointer) {
        let (size, overflow) = bytes.count.addingReportingOverflow(1)
        guard !overflow, let p = malloc(size) else { return nil }
        count = bytes.count
        capacity = size
        base = p.bindMemory(to: UInt8.self, capacity: size)
        if let src = bytes.baseAddress, count > 0 { memcpy(base, src, count) }
        base[count] = 0
        super.init(kind: .bytes)
    }
    deinit { free(base) }
    public var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Takes new contents. Only for a box nothing else references (the
    /// caller checked `isKnownUniquelyReferenced`): a source sending value
    /// after value reuses the box of one its receiver let go, and no value
    /// anyone can still see changes. False when memory runs out.
    func reuse(copying bytes: UnsafeRawBufferPointer) -> Bool {
        let n = bytes.count
        if n >= capacity {
            let size = max(n + 1, capacity * 2)
            guard let p = realloc(base, size) else { return false }
            base = p.bindMemory(to: UInt8.self, capacity: size)
            capacity = size
        }
        if let src = bytes.baseAddress, n > 0 { memcpy(base, src, n) }
        base[n] = 0
        count = n
        return true
    }
}

/// A user pointer whose destructor runs with the last reference.
public final class PointerBox: RippleObject {
    public let pointer: UnsafeMutableRawPointer?
    let destructor: RawCallback?
    init(_ pointer: UnsafeMutableRawPointer?, _ destructor: RawCallback?) {
        self.pointer = pointer
        self.destructor = destructor
        super.init(kind: .box)
    }
    deinit { destructor?(pointer) }
}

/// An immutable list of owned values.
public final class TupleBox: RippleObject {
    public let items: [Value]
    init(_ items: [Value]) {
        self.items = items
        super.init(kind: .box)
    }
    /// Items are dropped last first, depth first (see `Value.releaseNested`);
    /// `items` is read in place (a copy to pop from would cost an allocation
    /// per freed tuple), and the work list allocates only when a nested
    /// tuple or event is freed with this one.
    deinit {
        var work: [Value] = []
        for v in items.reversed() {
            Value.drop(v, onto: &work)
            while let w = work.popLast() { Value.drop(w, onto: &work) }
        }
    }
}

extension Value {
    /// Drops this value's reference, in constant stack however deeply
    /// tuples and events nest in it (a depth the program chooses, rule 19):
    /// a tuple or event this drops the last reference to has its own values
    /// moved onto a local work list before it is freed, so its deinit only
    /// drops references that are not the last.
    public func releaseNested() {
        var work: [Value] = []
        Value.drop(self, onto: &work)
        while let w = work.popLast() { Value.drop(w, onto: &work) }
    }

    /// Releases `v`; if it is a tuple or an event this was the last reference
    /// to, its values are retained onto `work` first, so freeing it frees
    /// nothing else.
    @inline(__always)
    fileprivate static func drop(_ v: Value, onto work: inout [Value]) {
        let isTuple = v.rawType == ValueType.tuple.rawValue
        guard isTuple || v.rawType == ValueType.event.rawValue, let p = v.objectPointer else {
            v.release()
            return
        }
        var child = Unmanaged<RippleObject>.fromOpaque(p).takeRetainedValue()  // v's reference
        guard isKnownUniquelyReferenced(&child) else { return }
        if let t = child as? TupleBox {
            for item in t.items { work.append(item.retained()) }
        } else if let e = child as? EventBox, case .next(let x) = e.event {
            work.append(x.retained())
        }
    }
}

/// A signal event as a value: what `materialize` sends.
public enum Event {
    case next(Value)   // owns its value
    case error(RippleError)
    case completed

    /// Drops the value a `.next` owns.
    @inlinable
    public func release() { if case .next(let v) = self { v.release() } }
}

public final class EventBox: RippleObject {
    public let event: Event
    init(_ event: Event) {
        self.event = event
        super.init(kind: .box)
    }
    /// A `.next` value nested any depth is freed in constant stack.
    deinit { if case .next(let v) = event { v.releaseNested() } }
}
