import Synchronization

// The one way a subscription holds what it consumes (an upstream
// subscription, an inner one, a connection's source subscription): strongly
// while its own consumer holds it, weakly once that consumer lets go
// (docs/behaviour.md#lifetime-handle, #lifetime-unreachable). The upstream's
// sinks hold the downstream strongly (a producer that can still send keeps
// the subscription alive), so the strong hold is a cycle that lasts exactly
// as long as the consumer's handle: letting go breaks it, and a dispose or a
// terminal event (which disposes the holds) breaks it too.

/// Disposes its target, which it keeps alive until `letGo`.
public final class UpstreamHold: Disposable {
    weak var target: Disposable?
    /// The strong reference (+1), until `letGo` or `dispose`.
    private let strong: Atomic<Unmanaged<Disposable>?>

    public init(_ target: Disposable, strong: Bool) {
        self.target = target
        self.strong = Atomic(strong ? Unmanaged.passRetained(target) : nil)
        super.init()
    }

    /// Freed while still holding: its consumer is gone, so the target's
    /// consumer lets go (else the target's own strong holds would keep it in
    /// a cycle with its upstreams).
    deinit {
        if let s = strong.exchange(nil, ordering: .acquiringAndReleasing) {
            s._withUnsafeGuaranteedRef { $0.letGo() }  // (our +1 keeps it: no retain)
            s.release()
        }
    }

    private func dropStrong() { strong.exchange(nil, ordering: .acquiringAndReleasing)?.release() }

    public override func dispose() {
        let t = target
        dropStrong()
        t?.dispose()
    }

    /// The consumer let go: so does this hold's target's consumer (this
    /// hold), and the hold turns weak.
    public override func letGo() {
        target?.letGo()
        dropStrong()
    }

    public override var isDisposed: Bool { target?.isDisposed ?? true }
}

extension Subscriber {
    /// A hold on `upstream` for this subscription, strong while its consumer
    /// holds it. Put it where the subscription keeps it, then call
    /// `settle(_:)`.
    public func makeHold(_ upstream: Disposable) -> UpstreamHold {
        UpstreamHold(upstream, strong: isConsumerHeld)
    }

    /// Call after storing `hold`: if the consumer let go meanwhile (its
    /// `letGo` may have missed the new hold), the hold lets go now.
    public func settle(_ hold: UpstreamHold) {
        if !isConsumerHeld { hold.letGo() }
    }

    /// Makes `upstream` end with this subscription (rule 3a: operators call
    /// it from their upstream sink's `attach`, before the upstream's
    /// subscribe callback runs). Returns the hold, or nil if `upstream` has
    /// already ended.
    @discardableResult
    public func hold(_ upstream: Disposable) -> UpstreamHold? {
        if upstream.isDisposed { return nil }
        let h = makeHold(upstream)
        addResource(h)  // disposes it at once if we have ended; lets it go if the consumer has
        return h
    }

    /// Holds `upstream` in `slot` (an operator that swaps its upstream:
    /// repeat, switch, a connection) and returns what the slot held.
    @discardableResult
    public func hold(_ upstream: Disposable, in slot: SerialDisposable) -> Disposable? {
        let h = makeHold(upstream)
        let old = slot.swap(h)
        settle(h)
        return old
    }
}
