/// RAC's `+if:then:else:` and `+switch:cases:default:`: a switchToLatest
/// over a key signal, each key value mapped to the signal to follow. A new
/// key disposes the signal followed so far, even when it maps to the same
/// signal (which is then subscribed again; RAC). Completes when the key
/// signal and the signal followed last have completed; errors of either end
/// everything.

extension RippleError {
    /// `RPL_ERROR_NO_MATCHING_CASE`: `switchCases` got a key without a case
    /// and has no default (RAC's RACSignalErrorNoMatchingCase).
    public static let noMatchingCaseCode: Int64 = 6
}

extension Signal {
    /// `then` while the latest condition value is true, `otherwise` while it
    /// is false. A value that is not a bool fails the result (type error).
    public static func `if`(_ condition: Signal, then: Signal, else otherwise: Signal) -> Signal {
        let then = then.asSource, otherwise = otherwise.asSource  // never senders
        return SwitchToLatestSignal(condition) { v in
            guard v.type == .bool else {
                return ErrorSignal(RippleError(domain: RippleError.runtimeDomain, code: RippleError.typeErrorCode,
                                               message: "if: the condition sent a value of type \(v.rawType), not a bool"))
            }
            return v.boolValue ? then : otherwise
        }
    }

    /// The case signal of the latest key (`cases[i]` for a key equal to
    /// `keys[i]`, by `Value.equal`), or `defaultCase` for another key; with
    /// no default, another key fails the result (`RippleError.noMatchingCaseCode`).
    /// Consumes `keys`, which must be distinct (see `SwitchTable`).
    public static func switchCases(_ key: Signal, _ table: SwitchTable, default defaultCase: Signal?) -> Signal {
        let defaultCase = defaultCase?.asSource  // never a sender
        return SwitchToLatestSignal(key) { v in
            if let s = table.lookup(v) ?? defaultCase { return s }
            return ErrorSignal(RippleError(domain: RippleError.runtimeDomain, code: RippleError.noMatchingCaseCode,
                                           message: "switch_cases: no case for the key (type \(v.rawType))"))
        }
    }
}

/// The cases of a switch: keys (owned) to signals, found in O(size of the key).
public final class SwitchTable {
    private var table: [SwitchKey: Signal] = [:]

    public init() {}

    deinit { for k in table.keys { k.value.release() } }

    /// Adds `key` (consumed) for `signal`; false, and the key released, if
    /// an equal key is there already.
    public func add(_ key: Value, _ signal: Signal) -> Bool {
        let k = SwitchKey(key)
        if table[k] != nil {
            key.release()
            return false
        }
        table[k] = signal.asSource
        return true
    }

    func lookup(_ v: borrowing Value) -> Signal? {
        if table.isEmpty { return nil }
        return table[SwitchKey(copy v)]  // borrowed: the key is only read
    }
}

/// A value as a dictionary key: equal as `Value.equal` says, hashed to match
/// (a double hashes by its numeric value, so 0.0 and -0.0 meet; a NaN key
/// never matches, as `equal` says).
struct SwitchKey: Hashable {
    let value: Value

    init(_ value: Value) { self.value = value }

    static func == (a: SwitchKey, b: SwitchKey) -> Bool { Value.equal(a.value, b.value) }

    func hash(into h: inout Hasher) {
        guard value.type == .tuple else { return SwitchKey.combine(value, into: &h) }
        // Nested tuples with a work list, not recursion (their depth is the caller's).
        var work: [Value] = [value]
        while let v = work.popLast() {
            guard v.type == .tuple else {
                SwitchKey.combine(v, into: &h)
                continue
            }
            let items = v.tupleItems ?? []
            h.combine(v.rawType)
            h.combine(items.count)
            work.append(contentsOf: items)
        }
    }

    /// Hashes a value that is not a tuple (no allocation).
    private static func combine(_ v: Value, into h: inout Hasher) {
        h.combine(v.rawType)
        switch v.type {
        case .nil, .tuple: break
        case .bool: h.combine(v.bits != 0)
        case .int, .signal, .event: h.combine(v.bits)
        case .double: h.combine(Double(bitPattern: v.bits))
        case .string, .bytes:
            if let b = v.bytesBox { h.combine(bytes: UnsafeRawBufferPointer(b.buffer)) } else { h.combine(v.bits) }
        case .pointer: h.combine(v.pointerValue)
        }
    }
}
