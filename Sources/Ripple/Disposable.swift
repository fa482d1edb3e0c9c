import Synchronization

/// Something that can be disposed once. Subclasses define what disposing does.
open class Disposable: RippleObject {
    public override init(kind: ObjectKind = .disposable) { super.init(kind: kind) }

    /// Idempotent and thread-safe.
    open func dispose() {}
    open var isDisposed: Bool { false }
}

/// Runs an action on the first dispose. Releasing it does not dispose it.
public final class ActionDisposable: Disposable {
    private let disposed = Atomic<Bool>(false)
    private let function: RawCallback?
    private let release: RawCallback?
    private let context: UnsafeMutableRawPointer?
    private let action: (() -> Void)?

    public init(_ action: (() -> Void)? = nil) {
        self.action = action
        function = nil
        release = nil
        context = nil
        super.init()
    }

    /// A C-style action `function(context)`. `release(context)`, if given,
    /// runs exactly once: right after the action on the first dispose, or
    /// when the disposable is freed without having been disposed.
    public init(function: RawCallback?, context: UnsafeMutableRawPointer?, release: RawCallback? = nil) {
        self.function = function
        self.release = release
        self.context = context
        action = nil
        super.init()
    }

    deinit {
        if !disposed.load(ordering: .acquiring) { release?(context) }
    }

    public override func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let function { function(context) }
        action?()
        release?(context)
    }
    public override var isDisposed: Bool { disposed.load(ordering: .acquiring) }
}

/// Holds disposables; disposing it disposes each of them, outside the lock.
public final class CompoundDisposable: Disposable {
    private let lock = Lock()
    @exclusivity(unchecked) private var items: [Disposable] = []
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
        items.append(d)
        lock.unlock()
    }

    /// Removes every occurrence of `d` without disposing it.
    public func remove(_ d: Disposable) {
        lock.withLock { items.removeAll { $0 === d } }
    }

    public override func dispose() {
        lock.lock()
        if disposed { lock.unlock(); return }
        disposed = true
        let taken = items
        items = []
        lock.unlock()
        for d in taken { d.dispose() }
    }

    public override var isDisposed: Bool { lock.withLock { disposed } }
}

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
}
