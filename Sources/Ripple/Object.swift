// The root of every runtime object that can cross into another language as an
// opaque handle. The kind tag lets an entry point reject a handle of the wrong
// kind with a clear error instead of misusing it; its values are unlikely bit
// patterns, so a stray pointer is rarely mistaken for an object.

/// What a runtime object is.
public enum ObjectKind: UInt32, Sendable {
    case signal = 0x5250_0001
    case subject = 0x5250_0002
    case subscriber = 0x5250_0003
    case disposable = 0x5250_0004
    case connection = 0x5250_0005
    case scheduler = 0x5250_0006
    case error = 0x5250_0007
    case box = 0x5250_0008
}

/// Base class of every runtime object.
open class RippleObject {
    /// Fixed at creation; read without synchronization.
    public final let kind: ObjectKind

    public init(kind: ObjectKind) { self.kind = kind }
}
