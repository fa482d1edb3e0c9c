import Glibc
import RippleSupport
import Synchronization

// Readiness of descriptors for the OS sources (Sources/Ripple/IO): one epoll
// set per watcher, not a thread per source. Serial and background
// schedulers share one process-wide watcher served by one thread
// ("ripple-io"); a run loop has a watcher of its own whose set sits inside
// the run loop's descriptor, so that descriptor becomes readable for its
// sources and the run loop collects them when it runs (RunLoopScheduler).
//
// Registrations are one-shot (EPOLLONESHOT): a ready descriptor is reported
// once, its source handles it as work on its scheduler and then re-arms it.
// So one subscription's events never overlap or reorder, on the background
// scheduler too, and a descriptor that stays ready is not reported again
// while its work is pending (level-triggered, as libdispatch's read sources).
//
// Slots: each registration has a slot in a table with a free list, and the
// epoll token is (generation, slot): registering and removing cost O(1)
// whatever else is watched, and a token read by epoll_wait just before its
// slot was freed (or reused) is recognised as stale instead of reaching a
// freed watch.

/// Something registered in a watcher.
open class Watch: Job, @unchecked Sendable {
    /// The watched descriptor.
    public let fd: Int32
    /// The slot in the watcher (-1: not registered). Under the watcher's lock.
    @exclusivity(unchecked) var slot: Int32 = -1

    public init(fd: Int32) {
        self.fd = fd
        super.init()
    }

    /// The descriptor is ready (`events`, epoll bits). Runs on the
    /// harvesting thread, outside the watcher's lock; the registration is
    /// disarmed until `Watcher.rearm`.
    open func fire(_ events: UInt32) {}
}

/// One epoll set and the watches registered in it.
public final class Watcher: @unchecked Sendable {
    let epfd: Int32
    private let lock = Lock()
    @exclusivity(unchecked) private var slots: [Watch?] = []
    @exclusivity(unchecked) private var generations: [UInt32] = []
    @exclusivity(unchecked) private var freeSlots: [Int32] = []
    /// Registered watches (read without the lock by a run loop deciding
    /// whether to collect).
    private let live = Atomic<Int>(0)
    /// The fork generation the set belongs to: in a forked child the set is
    /// shared with the parent, so the child leaves it alone (see
    /// docs/behaviour.md#os-fork).
    let forkGeneration = ripple_current_fork_generation()
    /// The harvesting thread's batch (one harvester at a time).
    @exclusivity(unchecked) private var batch: [(Watch, UInt32)] = []

    /// A new watcher; nil (errno set) if the epoll set cannot be created.
    public init?() {
        epfd = ripple_io_epoll_create()
        if epfd < 0 { return nil }
    }

    deinit { close(epfd) }

    /// Whether anything is registered.
    public var hasWatches: Bool { live.load(ordering: .relaxed) > 0 }

    var inert: Bool { ripple_current_fork_generation() != forkGeneration }

    /// Registers `watch` for `events` (one-shot). 0, or the errno.
    public func add(_ watch: Watch, events: UInt32) -> Int32 {
        if inert { return ECHILD }
        lock.lock()
        defer { lock.unlock() }
        let s: Int32
        if let f = freeSlots.popLast() {
            s = f
        } else {
            s = Int32(slots.count)
            slots.append(nil)
            generations.append(0)
        }
        let token = UInt64(generations[Int(s)]) << 32 | UInt64(UInt32(s))
        if ripple_io_epoll_add(epfd, watch.fd, events | UInt32(RIPPLE_IO_ONESHOT), token) != 0 {
            let e = ripple_io_errno()
            freeSlots.append(s)
            return e
        }
        slots[Int(s)] = watch
        watch.slot = s
        live.wrappingAdd(1, ordering: .relaxed)
        return 0
    }

    /// Arms `watch` again for `events`. 0; the errno when the descriptor is
    /// no longer valid (closed under the watch); ECANCELED when the watch
    /// was removed meanwhile (nothing to do).
    public func rearm(_ watch: Watch, events: UInt32) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        let s = watch.slot
        if s < 0 || inert { return ECANCELED }
        let token = UInt64(generations[Int(s)]) << 32 | UInt64(UInt32(s))
        if ripple_io_epoll_mod(epfd, watch.fd, events | UInt32(RIPPLE_IO_ONESHOT), token) != 0 {
            return ripple_io_errno()
        }
        return 0
    }

    /// Removes `watch`'s registration (idempotent). When this returns, the
    /// watcher will not fire it again.
    public func remove(_ watch: Watch) {
        lock.lock()
        let s = watch.slot
        guard s >= 0 else {
            lock.unlock()
            return
        }
        watch.slot = -1
        if !inert { _ = ripple_io_epoll_del(epfd, watch.fd) }
        slots[Int(s)] = nil
        generations[Int(s)] &+= 1
        freeSlots.append(s)
        live.wrappingSubtract(1, ordering: .relaxed)
        lock.unlock()
        // The slot's reference goes here, outside the lock (the watch's
        // deinit may release a subscription).
    }

    /// Collects what is ready, waiting up to `timeoutMs` (-1: until
    /// something is), and fires each ready watch. Returns how many fired.
    /// One harvester at a time.
    @discardableResult
    public func harvest(timeoutMs: Int32) -> Int {
        if inert { return 0 }
        var tokens = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                      UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var events = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
                      UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        let n = withUnsafeMutableBytes(of: &tokens) { t in
            withUnsafeMutableBytes(of: &events) { e in
                Int(ripple_io_epoll_wait(epfd, t.baseAddress!.assumingMemoryBound(to: UInt64.self),
                                         e.baseAddress!.assumingMemoryBound(to: UInt32.self), 16, timeoutMs))
            }
        }
        if n <= 0 { return 0 }
        lock.lock()
        withUnsafeBytes(of: &tokens) { t in
            withUnsafeBytes(of: &events) { e in
                for i in 0..<n {
                    let token = t.load(fromByteOffset: i * 8, as: UInt64.self)
                    let s = Int(UInt32(truncatingIfNeeded: token))
                    if s < slots.count && generations[s] == UInt32(token >> 32), let w = slots[s] {
                        batch.append((w, e.load(fromByteOffset: i * 4, as: UInt32.self)))
                    }
                }
            }
        }
        lock.unlock()
        let fired = batch.count
        for (w, ev) in batch { w.fire(ev) }
        batch.removeAll(keepingCapacity: true)
        return fired
    }

    // MARK: The process-wide watcher

    private static let sharedLock = Lock()
    nonisolated(unsafe) private static var sharedWatcher: Watcher?

    /// The watcher of serial and background schedulers, with its thread
    /// started on first use (and again in a forked child). nil (errno set)
    /// if it cannot be made.
    public static func shared() -> Watcher? {
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let w = sharedWatcher, !w.inert { return w }
        // A forked child abandons its parent's watcher (its thread stayed in
        // the parent and its set is shared with the parent): a new one.
        guard let w = Watcher() else { return nil }
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        var tid = pthread_t()
        let rc = pthread_create(&tid, &attr, { p in
            let w = Unmanaged<Watcher>.fromOpaque(p!).takeUnretainedValue()
            _ = pthread_setname_np(pthread_self(), "ripple-io")
            while !w.inert { w.harvest(timeoutMs: -1) }
            return nil
        }, Unmanaged.passRetained(w).toOpaque())  // the thread's reference, never dropped
        pthread_attr_destroy(&attr)
        if rc != 0 {
            errno = rc
            return nil
        }
        sharedWatcher = w
        return w
    }

    /// The watcher for sources delivering on `scheduler`.
    public static func forScheduler(_ scheduler: Scheduler) -> Watcher? {
        if let r = scheduler as? RunLoopScheduler { return r.watcher() }
        return shared()
    }
}
