import Synchronization

/// Something that can be disposed once. Subclasses define what disposing does.
open class Disposable: RippleObject {
    public override init(kind: ObjectKind = .disposable) { super.init(kind: kind) }

    /// Idempotent and thread-safe.
    open func dispose() {}
    open var isDisposed: Bool { false }
}
