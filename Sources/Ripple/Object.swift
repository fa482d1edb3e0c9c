// The root of every runtime object that can cross into another language as an
// opaque handle. Its first word is a magic number, one per kind (SQLite's
// idea): an entry point reads it straight from the handle's memory, without
// touching the reference count, so a handle of the wrong kind, zero-filled
// memory or a stray pointer is refused with a clear error instead of being
// misused; `deinit` poisons it, so a handle used after it was freed is
// refused too, as long as its memory has not been reused.
import RippleSupport

/// What a runtime object is; the raw value is the kind's magic word.
public enum ObjectKind: UInt32, Sendable {
    case signal = 0x5250_0001
    case subject = 0x5250_0002
    case subscriber = 0x5250_0003
    case disposable = 0x5250_0004
    case connection = 0x5250_0005
    case scheduler = 0x5250_0006
    case error = 0x5250_0007
    case box = 0x5250_0008
    /// A string or bytes value's box (`BytesBox`): its own word, so an
    /// accessor tells it from other boxes with one load, no cast.
    case bytes = 0x5250_0009

    /// The magic word of a freed object.
    public static let freedMagic: UInt32 = 0x5250_DEAD

    /// True when `magic` is some kind's magic word: one subtract and compare.
    @inlinable @inline(__always)
    public static func isValid(_ magic: UInt32) -> Bool {
        magic &- ObjectKind.signal.rawValue <= ObjectKind.bytes.rawValue &- ObjectKind.signal.rawValue
    }
}

/// Base class of every runtime object.
open class RippleObject {
    /// The kind's magic word, written at creation and poisoned by `deinit`;
    /// entry points read it with `RippleObject.magic(at:)`.
    @exclusivity(unchecked) public final var magic: UInt32

    /// Where `magic` lives in a handle: right after the object header (the
    /// metadata pointer and the reference counts), as the root class's first
    /// stored property.
    public static let magicOffset = 16

    /// The magic word at handle `p`: a plain 4-byte load, no retain, so it is
    /// safe on memory that is not a live object (as safe as reading it is).
    @inlinable @inline(__always)
    public static func magic(at p: UnsafeRawPointer) -> UInt32 {
        p.load(fromByteOffset: magicOffset, as: UInt32.self)
    }

    /// Fixed at creation.
    @inlinable
    public final var kind: ObjectKind { ObjectKind(rawValue: magic).unsafelyUnwrapped }

    /// Counted for rpl_live_objects: an add to this thread's counter here
    /// and in deinit (ripple_trace.h), nothing per event.
    public init(kind: ObjectKind) {
        magic = kind.rawValue
        ripple_live_inc()
    }

    /// The last deinit of every object (subclasses' run first). The poison
    /// goes through a C store the optimizer cannot drop as dead.
    deinit { markFreed() }

    /// Reads as freed: the magic word poisoned, out of the live count. What
    /// deinit does last, and what retiring an object kept for reuse does
    /// (Subscriber.retire).
    @inline(__always)
    final func markFreed() {
        ripple_poison_magic(Unmanaged.passUnretained(self).toOpaque() + RippleObject.magicOffset, ObjectKind.freedMagic)
        ripple_live_dec()
    }

    /// Undoes `markFreed` for an object revived for reuse, as `kind`.
    @inline(__always)
    final func markRevived(kind: ObjectKind) {
        magic = kind.rawValue
        ripple_live_inc()
    }

    /// Takes a process-wide shared instance (a scheduler singleton) out of
    /// the live count: it is never freed, so a leak check that compares the
    /// count before and after a test must not see it. Call once, at creation.
    public final func excludeFromLiveCount() { ripple_live_dec() }
    /// Undoes `excludeFromLiveCount` (before a deinit that counts it out).
    public final func includeInLiveCount() { ripple_live_inc() }

    /// Runtime objects alive now (excluding the shared ones).
    public static var liveCount: Int { ripple_live_get() }
}
