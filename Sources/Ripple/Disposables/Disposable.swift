import Synchronization

/// Something that can be disposed once. Subclasses define what disposing does.
open class Disposable: RippleObject {
    public override init(kind: ObjectKind = .disposable) { super.init(kind: kind) }

    /// Idempotent and thread-safe.
    open func dispose() {}
    open var isDisposed: Bool { false }

    /// The consumer of the subscription holding this (as a resource) has
    /// let go of its handle (docs/behaviour.md#lifetime-handle): a hold on
    /// an upstream turns weak. Nothing else changes for other resources.
    open func letGo() {}
}
