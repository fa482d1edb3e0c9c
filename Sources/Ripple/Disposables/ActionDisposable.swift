import Synchronization

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
