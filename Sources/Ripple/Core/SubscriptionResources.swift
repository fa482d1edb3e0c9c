// A subscription's resources: what ends with it (what its subscribe callback
// returned, upstream subscriptions, timers, a subject hub's registration).
// They live under the subscriber's stripe lock, in the gate's locked parts
// (made with the first one); a subscription that never had one pays one
// atomic read-modify-write when it ends, and no lock.

extension Subscriber {
    /// Adds a resource disposed when the subscription ends (at once if it
    /// already has). If the consumer has let go already, the resource is
    /// let go at once too (`letGo` may have run before it was added).
    public func addResource(_ d: Disposable?) {
        guard let d else { return }
        let lock = slowLock
        lock.lock()
        // Announce and look in one step: either disposeResources sees the
        // announcement and takes the lock, or we see that it has run and
        // dispose `d` ourselves.
        if flags.bitwiseOr(Subscriber.hasResources, ordering: .sequentiallyConsistent).oldValue
            & Subscriber.resourcesClosed != 0 {
            lock.unlock()
            d.dispose()
            return
        }
        madeLocked.resources.add(d)
        lock.unlock()
        if !isConsumerHeld { d.letGo() }
    }

    /// Removes a resource without disposing it.
    public func removeResource(_ d: Disposable) {
        let lock = slowLock
        lock.withLock { _ = locked?.resources.remove(d) }
    }

    /// Whether the resources have been disposed: after a dispose, or after a
    /// terminal event has been delivered (not while it is being delivered).
    var resourcesAreDisposed: Bool { flags.load(ordering: .acquiring) & Subscriber.resourcesClosed != 0 }

    /// Disposes every resource, once; a hub's subscriber then leaves its hub.
    /// A subscription that never had a resource (the common case) costs one
    /// atomic read-modify-write and no lock.
    func disposeResources(leavingHub: Bool = true) { disposeResourcesInline(leavingHub: leavingHub) }

    /// `disposeResources`, inlined into `dispose` (the hub's leave with it).
    @inline(__always)
    func disposeResourcesInline(leavingHub: Bool) {
        let old = flags.bitwiseOr(Subscriber.resourcesClosed, ordering: .sequentiallyConsistent).oldValue
        if old & (Subscriber.resourcesClosed | Subscriber.hasResources) != 0 {
            if old & Subscriber.resourcesClosed != 0 { return }
            disposeHeldResources()
        }
        if leavingHub, let hub = hubRef {
            hub._withUnsafeGuaranteedRef { $0.postMembership(self, joining: false) }
        }
    }

    /// The resources added so far, disposed (each once).
    @inline(never)
    private func disposeHeldResources() {
        let lock = slowLock
        lock.lock()
        let taken = locked?.resources.takeAll() ?? []
        lock.unlock()
        for d in taken { d.dispose() }
    }
}
