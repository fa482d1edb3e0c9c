/// Holds at most one disposable. Swapping does not dispose the previous one.
public final class SerialDisposable: Disposable {
    private let lock = Lock()
    @exclusivity(unchecked) private var inner: Disposable?
    @exclusivity(unchecked) private var disposed = false

    public override init(kind: ObjectKind = .disposable) { super.init(kind: kind) }

    /// Puts `d` in and returns the previous inner disposable. If this serial is
    /// disposed, `d` is disposed at once and nil is returned.
    @discardableResult
    public func swap(_ d: Disposable?) -> Disposable? {
        lock.lock()
        if disposed {
            lock.unlock()
            d?.dispose()
            return nil
        }
        let old = inner
        inner = d
        lock.unlock()
        return old
    }

    public override func dispose() {
        lock.lock()
        if disposed { lock.unlock(); return }
        disposed = true
        let old = inner
        inner = nil
        lock.unlock()
        old?.dispose()
    }

    public override var isDisposed: Bool { lock.withLock { disposed } }

    /// Passed on to the inner disposable (a hold on an upstream, for the
    /// operators that swap their upstream: repeat, switch, a connection).
    public override func letGo() { lock.withLock { inner }?.letGo() }
}
