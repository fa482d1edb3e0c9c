import Glibc
import Synchronization

// Signal names (RAC's `name`): a name set by the user, or a default built
// from the signal's origin the first time somebody asks (rpl_signal_name, a
// trace). Building it costs string work, so it is never done when a signal
// is created or on the event path: an operator only records its origin.
//
// The name is a C string in a malloc'd block (a link to the block it
// replaced, then the characters). rpl_signal_name lends the characters for
// as long as the signal lives, so a name replaced by set_name is kept (on the
// block's link) until the signal is freed; one compare-exchange publishes a
// block, so readers on any thread see a whole name.
//
// A subject's name lives on its subscribe-only side (`asSource`), which is
// what operators keep: the subject, its handle and every operator over it
// see one name, and the name outlives the subject as long as anything can
// still subscribe.

/// The label of an origin (`-map:`, `+return:`): a string literal, kept as
/// the one word that points at its NUL-terminated characters. (A
/// StaticString is 17 bytes; every signal carries an origin holding one.)
public struct OriginLabel: ExpressibleByStringLiteral, @unchecked Sendable {
    let start: UnsafePointer<UInt8>
    /// `s` is ASCII (every label is), so its characters are stored, with a NUL.
    public init(_ s: StaticString) { start = s.utf8Start }
    public init(stringLiteral s: StaticString) { self.init(s) }
    var text: String { String(cString: start) }
}

/// How a signal came to be, for its default name.
public enum SignalOrigin {
    /// Unknown: the name is the runtime type's.
    case none
    /// A constructor: `+empty`.
    case constructor(OriginLabel)
    /// A constructor with a number: `+interval: 1000000`.
    case constructorArg(OriginLabel, UInt64)
    /// An operator on its `source` (only a UnaryOperatorSignal's origin):
    /// `[source] -map:`. The input is read from `source`, so the origin
    /// holds no second reference to it.
    case onSource(OriginLabel)
    /// The same with a number: `[source] -take: 3`.
    case onSourceArg(OriginLabel, UInt64)
    /// An operator on one signal, for an operator that is no
    /// UnaryOperatorSignal: `[input] -logAll`.
    case unary(Signal, OriginLabel)
    /// The same with a number: `[input] -write: 3`.
    case unaryArg(Signal, OriginLabel, UInt64)
    /// An operator on two signals: `[a] -concat: [b]`.
    case binary(Signal, OriginLabel, Signal)
    /// A constructor over a list: `+merge: ([a], [b])`.
    case list(OriginLabel, [Signal])
}

extension SignalOrigin {
    /// The same origin keeping its inputs' subscribe-only sides: a name
    /// never keeps a subject as a sender (docs/behaviour.md#lifetime-subject).
    @usableFromInline var subscribeOnly: SignalOrigin {
        switch self {
        case .none, .constructor, .constructorArg, .onSource, .onSourceArg: self
        case .unary(let s, let n): .unary(s.asSource, n)
        case .unaryArg(let s, let n, let a): .unaryArg(s.asSource, n, a)
        case .binary(let a, let n, let b): .binary(a.asSource, n, b.asSource)
        case .list(let n, let l): .list(n, l.map(\.asSource))
        }
    }
}

/// Names embedded in another signal's default name are cut to this many
/// bytes, so a long chain's names grow linearly, not quadratically.
private let embeddedNameLimit = 256

extension Signal {
    /// The name as a C string (never NULL), valid while the signal lives.
    public final var cName: UnsafePointer<CChar> {
        let holder = asSource
        if let block = holder.nameBlock.load(ordering: .acquiring) { return Signal.characters(block) }
        return holder.buildDefaultName()
    }

    /// Records what the default name is built from (before the signal is
    /// handed out).
    /// The signal's depth becomes one more than its deepest input's; the
    /// inputs are kept by their subscribe-only sides (a name never keeps a
    /// subject as a sender, docs/behaviour.md#lifetime-subject).
    @inlinable @inline(__always)
    public final func setOrigin(_ o: __owned SignalOrigin) {
        switch o {
        case .none, .constructor, .constructorArg:
            // No input: nothing to convert. (A subject's name lives on its
            // subscribe-only side.)
            if let holder = subscribeOnlySide {
                holder.replaceOrigin(o)
                holder.depth = max(holder.depth, 1)
            } else {
                replaceOrigin(o)
                if depth < 1 { depth = 1 }
            }
        case .onSource, .onSourceArg:
            // The usual operator: its input is its `source`, kept already;
            // an operator is its own subscribe-only side.
            depth = max(depth, operatorSource.depth + 1)
            replaceOrigin(o)
        default:
            let holder = asSource
            holder.replaceOrigin(o.subscribeOnly)
            holder.depth = max(holder.depth, holder.inputDepth + 1)
        }
    }

    /// The input of an `.onSource` origin: the signal's `source` (only a
    /// UnaryOperatorSignal takes that origin).
    @usableFromInline @inline(__always)
    final var operatorSource: Signal { unsafeDowncast(self, to: UnaryOperatorSignal.self).source }

    /// The depth of the origin's deepest input (0 for a constructor).
    @usableFromInline final var inputDepth: Int32 {
        switch origin {
        case .none, .constructor, .constructorArg: return 0
        case .onSource, .onSourceArg: return operatorSource.depth
        case .unary(let s, _), .unaryArg(let s, _, _): return s.depth
        case .binary(let a, _, let b): return max(a.depth, b.depth)
        case .list(_, let l): return l.reduce(0) { max($0, $1.depth) }
        }
    }

    /// Stores `o` as the origin. The usual old origin is a new signal's
    /// `.none`, which holds nothing: it is overwritten, not destroyed (no
    /// call to the origin's destructor per signal made).
    @inlinable @inline(__always)
    final func replaceOrigin(_ o: __owned SignalOrigin) {
        guard case .none = origin else {
            origin = o
            return
        }
        withUnsafeMutablePointer(to: &origin) { $0.initialize(to: o) }
    }

    /// The name as a Swift string.
    public final var name: String { String(cString: cName) }

    /// Sets the name (a copy of `name`). A name lent earlier stays valid.
    public final func setName(_ name: UnsafePointer<CChar>) {
        let holder = asSource
        let block = Signal.makeBlock(name, strlen(name))
        var current = holder.nameBlock.load(ordering: .acquiring)
        while true {
            block.storeBytes(of: current, as: UnsafeMutableRawPointer?.self)
            let (done, seen) = holder.nameBlock.compareExchange(expected: current, desired: block,
                                                                ordering: .acquiringAndReleasing)
            if done { return }
            current = seen
        }
    }

    /// Frees every name block (deinit).
    final func freeNames() {
        var block = nameBlock.load(ordering: .acquiring)
        while let b = block {
            block = b.load(as: UnsafeMutableRawPointer?.self)
            free(b)
        }
    }

    private static func characters(_ block: UnsafeMutableRawPointer) -> UnsafePointer<CChar> {
        UnsafePointer((block + MemoryLayout<UnsafeMutableRawPointer?>.size).assumingMemoryBound(to: CChar.self))
    }

    private static func makeBlock(_ chars: UnsafePointer<CChar>, _ count: Int) -> UnsafeMutableRawPointer {
        let header = MemoryLayout<UnsafeMutableRawPointer?>.size
        let block = malloc(header + count + 1)!
        block.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
        memcpy(block + header, chars, count)
        (block + header + count).storeBytes(of: 0, as: CChar.self)
        return block
    }

    /// Publishes `name` unless a name is there already; returns the name.
    private func install(_ name: String) -> UnsafePointer<CChar> {
        let block = name.withCString { Signal.makeBlock($0, strlen($0)) }
        let (done, seen) = nameBlock.compareExchange(expected: nil, desired: block, ordering: .acquiringAndReleasing)
        if done { return Signal.characters(block) }
        free(block)
        return Signal.characters(seen!)
    }

    /// The single input whose name starts this one's, if any.
    private var primaryInput: Signal? {
        switch origin {
        case .onSource, .onSourceArg: operatorSource
        case .unary(let s, _), .unaryArg(let s, _, _), .binary(let s, _, _): s.asSource
        default: nil
        }
    }

    /// Builds the default names of this signal and of its unnamed inputs
    /// along the primary-input chain, bottom first (a loop, not recursion,
    /// however long the chain).
    @inline(never)
    private func buildDefaultName() -> UnsafePointer<CChar> {
        var chain: [Signal] = [self]
        while let input = chain.last!.primaryInput, input.nameBlock.load(ordering: .acquiring) == nil {
            chain.append(input)
        }
        var result: UnsafePointer<CChar>? = nil
        for s in chain.reversed() { result = s.install(s.defaultName()) }
        return result!
    }

    private static func embedded(_ s: Signal) -> String {
        let n = s.name
        if n.utf8.count <= embeddedNameLimit { return "[" + n + "]" }
        return "[" + String(decoding: n.utf8.prefix(embeddedNameLimit - 3), as: UTF8.self) + "...]"
    }

    /// The default name, from the origin.
    private func defaultName() -> String {
        switch origin {
        case .none:
            return "+" + String(describing: type(of: self))
        case .constructor(let l):
            return l.text
        case .constructorArg(let l, let n):
            return l.text + " " + String(n)
        case .onSource(let l):
            return Signal.embedded(operatorSource) + " " + l.text
        case .onSourceArg(let l, let n):
            return Signal.embedded(operatorSource) + " " + l.text + " " + String(n)
        case .unary(let s, let l):
            return Signal.embedded(s) + " " + l.text
        case .unaryArg(let s, let l, let n):
            return Signal.embedded(s) + " " + l.text + " " + String(n)
        case .binary(let a, let l, let b):
            return Signal.embedded(a) + " " + l.text + " " + Signal.embedded(b)
        case .list(let l, let inputs):
            return l.text + " (" + inputs.map(Signal.embedded).joined(separator: ", ") + ")"
        }
    }
}
