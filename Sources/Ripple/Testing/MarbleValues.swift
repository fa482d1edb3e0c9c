// The value table of a marble test: which value each character stands for,
// and back, which character draws a value.

/// Characters a diagram gives a meaning of its own; none is a value.
let marbleSyntax: Set<Unicode.Scalar> = ["-", " ", "(", ")", "|", "#", "^", "!"]

/// Characters and their values. Without an entry, a digit stands for that
/// int and any other character for a one-character string.
public struct MarbleValues {
    public struct Entry {
        public let key: Unicode.Scalar
        public let value: Value
        public init(key: Unicode.Scalar, value: Value) {
            self.key = key
            self.value = value
        }
    }
    public let entries: [Entry]
    /// Whether the table owns its values (released by `release`).
    let owned: Bool

    /// Why an entry is refused: its index and the reason.
    public struct Refusal: Error {
        public let index: Int
        public let reason: String
    }

    /// A table over `entries`; `owned`: it takes their references. Refuses a
    /// key that is syntax, a repeated key, or a value of an unlisted type.
    public init(_ entries: [Entry], owned: Bool) throws(Refusal) {
        var seen = Set<Unicode.Scalar>()
        for (n, e) in entries.enumerated() {
            if !e.value.isListed { throw Refusal(index: n, reason: "has type \(e.value.rawType), which ripple.h does not list") }
            if marbleSyntax.contains(e.key) || e.key == "\0" {
                throw Refusal(index: n, reason: "has the key '\(e.key == "\0" ? "\\0" : String(e.key))', which a diagram cannot use as a value")
            }
            if !seen.insert(e.key).inserted { throw Refusal(index: n, reason: "repeats the key '\(e.key)'") }
        }
        self.entries = entries
        self.owned = owned
    }

    /// Drops the table's references, if it owns them.
    public func release() {
        if owned { for e in entries { e.value.release() } }
    }

    /// The value `c` stands for (+1).
    public func value(for c: Unicode.Scalar) -> Value {
        if let e = entries.first(where: { $0.key == c }) { return e.value.retained() }
        if ("0"..."9").contains(c) { return .int(Int64(c.value - 48)) }
        return .string(String(c))
    }

    /// The character that draws `v`: its table key, else its digit (an int
    /// 0...9) or character (a one-character string no table key or syntax
    /// claims), else `?`.
    public func draw(_ v: borrowing Value) -> Unicode.Scalar {
        for e in entries where Value.equal(e.value, v) { return e.key }
        if v.type == .int, (0...9).contains(v.intValue) { return Unicode.Scalar(UInt8(48 + v.intValue)) }
        if let s = v.stringValue, s.unicodeScalars.count == 1, let c = s.unicodeScalars.first,
           !marbleSyntax.contains(c), !("0"..."9").contains(c), !entries.contains(where: { $0.key == c }) {
            return c
        }
        return "?"
    }
}
