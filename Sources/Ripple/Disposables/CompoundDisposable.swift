/// Holds disposables; disposing it disposes each of them, outside the lock.
/// Add and remove are O(1) whatever else it holds (rule 23).
public final class CompoundDisposable: Disposable {
    private let lock = Lock()
    @exclusivity(unchecked) private var items = DisposableBag()
    @exclusivity(unchecked) private var disposed = false

    public override init(kind: ObjectKind = .disposable) { super.init(kind: kind) }

    /// Adds `d`; disposes it at once if this compound is already disposed.
    public func add(_ d: Disposable) {
        lock.lock()
        if disposed {
            lock.unlock()
            d.dispose()
            return
        }
        items.add(d)
        lock.unlock()
    }

    /// Removes every occurrence of `d` without disposing it.
    public func remove(_ d: Disposable) {
        lock.withLock { _ = items.remove(d) }
    }

    public override func dispose() {
        lock.lock()
        if disposed { lock.unlock(); return }
        disposed = true
        let taken = items.takeAll()
        lock.unlock()
        for d in taken { d.dispose() }
    }

    public override var isDisposed: Bool { lock.withLock { disposed } }
}
