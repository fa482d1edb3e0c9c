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
// Descriptors: epoll takes a descriptor once per set, while a program may
// read and write one socket through two sources (chat_server's read_lines
// and write). So a watcher keeps one registration per descriptor (an
// `FdEntry`) carrying the watches on it, each with the events it is armed
// for; the registration waits for their union, and a report goes to the
// watches it concerns (an error or hangup to all armed ones), as libuv's
// one io watcher per descriptor.
//
// Slots: each entry has a slot in a table with a free list, found from its
// descriptor through a dictionary, and the epoll token is (generation,
// slot): registering and removing cost O(1) whatever else is watched, and a
// token read by epoll_wait just before its slot was freed (or reused) is
// recognised as stale instead of reaching a freed entry.

/// Something registered in a watcher.
open class Watch: Job, @unchecked Sendable {
    /// The watched descriptor.
    public let fd: Int32
    /// Its descriptor's registration while registered (under the watcher's lock).
    @exclusivity(unchecked) var entry: FdEntry?
    /// The events it waits for now; 0 while disarmed (under the watcher's lock).
    @exclusivity(unchecked) var armed: UInt32 = 0

    public init(fd: Int32) {
        self.fd = fd
        super.init()
    }

    /// The descriptor is ready (`events`, epoll bits). Runs on the
    /// harvesting thread, outside the watcher's lock; the watch is disarmed
    /// until `Watcher.rearm`.
    open func fire(_ events: UInt32) {}
}

/// One descriptor's registration and the watches on it.
final class FdEntry {
    let fd: Int32
    let slot: Int32
    var watches: [Watch] = []
    /// The file it registered was closed under its watches (the kernel
    /// dropped the registration) and the number now names another: its
    /// watches fail with EBADF at their next re-arm and it leaves `byFd`
    /// (docs/behaviour.md#os-closed-descriptor).
    var orphaned = false
    init(fd: Int32, slot: Int32) {
        self.fd = fd
        self.slot = slot
    }
    /// What the registration waits for: the union of the armed watches.
    var union: UInt32 { watches.reduce(0) { $0 | $1.armed } }
}

/// One epoll set and the watches registered in it.
public final class Watcher: @unchecked Sendable {
    let epfd: Int32
    private let lock = Lock()
    @exclusivity(unchecked) private var slots: [FdEntry?] = []
    @exclusivity(unchecked) private var generations: [UInt32] = []
    @exclusivity(unchecked) private var freeSlots: [Int32] = []
    @exclusivity(unchecked) private var byFd: [Int32: FdEntry] = [:]
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

    private func token(_ e: FdEntry) -> UInt64 { UInt64(generations[Int(e.slot)]) << 32 | UInt64(UInt32(e.slot)) }

    /// Under `lock`: makes the registration wait for the union again.
    private func update(_ e: FdEntry) -> Int32 {
        ripple_io_epoll_mod(epfd, e.fd, e.union | UInt32(RIPPLE_IO_ONESHOT), token(e)) == 0 ? 0 : ripple_io_errno()
    }

    /// Registers `watch` for `events` (one-shot). 0, or the errno.
    public func add(_ watch: Watch, events: UInt32) -> Int32 {
        if inert { return ECHILD }
        lock.lock()
        defer { lock.unlock() }
        if let e = byFd[watch.fd] {
            watch.armed = events
            e.watches.append(watch)
            let err = update(e)
            if err == 0 {
                watch.entry = e
                live.wrappingAdd(1, ordering: .relaxed)
                return 0
            }
            e.watches.removeLast()
            watch.armed = 0
            guard err == ENOENT else { return err }
            // The registration is gone: the file was closed under its
            // watches and the number reused. Those watches stay with the old
            // file; this one gets a registration of its own.
            e.orphaned = true
            byFd[e.fd] = nil
        }
        let s: Int32
        if let f = freeSlots.popLast() {
            s = f
        } else {
            s = Int32(slots.count)
            slots.append(nil)
            generations.append(0)
        }
        let e = FdEntry(fd: watch.fd, slot: s)
        if ripple_io_epoll_add(epfd, watch.fd, events | UInt32(RIPPLE_IO_ONESHOT), token(e)) != 0 {
            let err = ripple_io_errno()
            freeSlots.append(s)
            return err
        }
        watch.armed = events
        watch.entry = e
        e.watches.append(watch)
        slots[Int(s)] = e
        byFd[watch.fd] = e
        live.wrappingAdd(1, ordering: .relaxed)
        return 0
    }

    /// Arms `watch` again for `events`. 0; the errno when the descriptor is
    /// no longer valid (closed under the watch); ECANCELED when the watch
    /// was removed meanwhile (nothing to do).
    public func rearm(_ watch: Watch, events: UInt32) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard let e = watch.entry, !inert else { return ECANCELED }
        if e.orphaned { return EBADF }
        watch.armed = events
        return update(e)
    }

    /// Removes `watch`'s registration (idempotent). When this returns, the
    /// watcher will not fire it again.
    public func remove(_ watch: Watch) {
        lock.lock()
        guard let e = watch.entry else {
            lock.unlock()
            return
        }
        watch.entry = nil
        watch.armed = 0
        if let i = e.watches.firstIndex(where: { $0 === watch }) { e.watches.remove(at: i) }
        if e.watches.isEmpty {
            if !e.orphaned {
                if !inert { _ = ripple_io_epoll_del(epfd, e.fd) }
                byFd[e.fd] = nil
            }
            release(e)
        } else if !e.orphaned && !inert {
            _ = update(e)
        }
        live.wrappingSubtract(1, ordering: .relaxed)
        lock.unlock()
        // The entry's reference to the watch goes here, outside the lock (the
        // watch's deinit may release a subscription).
    }

    /// Under `lock`: frees an entry's slot.
    private func release(_ e: FdEntry) {
        slots[Int(e.slot)] = nil
        generations[Int(e.slot)] &+= 1
        freeSlots.append(e.slot)
    }

    /// Disposes every watch (a run loop being freed: nothing can deliver
    /// its sources' work any more, as for its other pending jobs).
    public func cancelAll() {
        lock.lock()
        var all: [Watch] = []
        for case let e? in slots {
            if !e.orphaned && !inert { _ = ripple_io_epoll_del(epfd, e.fd) }
            for w in e.watches {
                w.entry = nil
                w.armed = 0
                all.append(w)
            }
            release(e)
        }
        byFd.removeAll()
        live.store(0, ordering: .relaxed)
        lock.unlock()
        for w in all { w.dispose() }
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
        let failure = UInt32(RIPPLE_IO_ERR) | UInt32(RIPPLE_IO_HUP)
        lock.lock()
        withUnsafeBytes(of: &tokens) { t in
            withUnsafeBytes(of: &events) { ev in
                for i in 0..<n {
                    let token = t.load(fromByteOffset: i * 8, as: UInt64.self)
                    let s = Int(UInt32(truncatingIfNeeded: token))
                    guard s < slots.count && generations[s] == UInt32(token >> 32), let e = slots[s] else { continue }
                    let got = ev.load(fromByteOffset: i * 4, as: UInt32.self)
                    for w in e.watches where w.armed != 0 && (w.armed & got != 0 || got & failure != 0) {
                        w.armed = 0
                        batch.append((w, got))
                    }
                    // The report disarmed the whole descriptor: the watches
                    // it did not concern wait on.
                    if e.union != 0 { _ = update(e) }
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
