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
    func disposeResources(leavingHub: Bool = true) { disposeResourcesInline(leavingHub: leavingHub, keeping: true) }

    /// `disposeResources`, inlined into `dispose` (the hub's leave with it).
    /// `keeping` false only from its deinit (see `disposeHeldResources`).
    @inline(__always)
    func disposeResourcesInline(leavingHub: Bool, keeping: Bool) {
        let old = flags.bitwiseOr(Subscriber.resourcesClosed, ordering: .sequentiallyConsistent).oldValue
        disposeClosedResources(old, leavingHub: leavingHub, keeping: keeping)
    }

    /// The rest of `disposeResourcesInline` once the caller has set
    /// `resourcesClosed` by a read-modify-write that read `old` (`dispose`
    /// sets it with DONE).
    @inline(__always)
    func disposeClosedResources(_ old: UInt32, leavingHub: Bool, keeping: Bool) {
        if old & (Subscriber.resourcesClosed | Subscriber.hasResources) != 0 {
            if old & Subscriber.resourcesClosed != 0 { return }
            disposeHeldResources(keeping: keeping)
        }
        if leavingHub, let hub = hubRef {
            hub._withUnsafeGuaranteedRef { $0.postMembership(self, joining: false) }
        }
    }

    /// The resources added so far, disposed (each once). A resource may drop
    /// the last reference to this subscriber while a call is still running
    /// on it further up the stack: a producer's disposable releasing the
    /// subscriber it kept, while that producer's send or dispose ended the
    /// subscription. So it keeps itself until its finish, which gives the
    /// reference back last (docs/behaviour.md#lifetime-call); rare: only a
    /// subscription that had resources pays it, once.
    @inline(never)
    private func disposeHeldResources(keeping: Bool) {
        // Kept only while it has not finished (set only then, so a finish
        // that sees the bit knows the reference is its to give back);
        // finished already (on another thread), this call gives it back.
        var keptHere = false
        if keeping {
            _ = Unmanaged.passUnretained(self).retain()
            var f = flags.load(ordering: .relaxed)
            while f & Subscriber.finished == 0 {
                let (ok, cur) = flags.compareExchange(expected: f, desired: f | Subscriber.keptForFinish,
                                                      ordering: .acquiringAndReleasing)
                if ok { break }
                f = cur
            }
            keptHere = f & Subscriber.finished != 0
        }
        let lock = slowLock
        lock.lock()
        let taken = locked?.resources.takeAll() ?? []
        lock.unlock()
        for d in taken { d.dispose() }
        if keptHere { Unmanaged.passUnretained(self).release() }
    }
}
