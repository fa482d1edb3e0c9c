// The root of every runtime object that can cross into another language as an
// opaque handle. The kind tag lets an entry point reject a handle of the wrong
// kind with a clear error instead of misusing it; its values are unlikely bit
// patterns, so a stray pointer is rarely mistaken for an object.
import RippleSupport

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

    /// Counted for rpl_live_objects: an add to this thread's counter here
    /// and in deinit (ripple_trace.h), nothing per event.
    public init(kind: ObjectKind) {
        self.kind = kind
        ripple_live_inc()
    }

    deinit { ripple_live_dec() }

    /// Takes a process-wide shared instance (a scheduler singleton) out of
    /// the live count: it is never freed, so a leak check that compares the
    /// count before and after a test must not see it. Call once, at creation.
    public final func excludeFromLiveCount() { ripple_live_dec() }
    /// Undoes `excludeFromLiveCount` (before a deinit that counts it out).
    public final func includeInLiveCount() { ripple_live_inc() }

    /// Runtime objects alive now (excluding the shared ones).
    public static var liveCount: Int { ripple_live_get() }
}
