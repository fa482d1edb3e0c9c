// A C observer's subscriber to a subject (CObserverSubscriber), kept for
// reuse once it is over and its handle's last reference is released: the
// next such subscription on the same thread revives it instead of
// allocating (libdispatch keeps continuations per thread the same way).
// Subscribing to a subject and disposing costs no allocation and no free,
// which are most of that subscription's cost in Swift (the runtime's
// allocation, its slow release to zero and its deallocation around malloc
// and free; docs/performance.md, W4).
//
// A released handle reads as freed while it waits (its magic word
// poisoned, out of rpl_live_objects), as after a free: using it is refused
// until a later subscription gets the same address, as malloc could give it
// (docs/behaviour.md#magic-word).
// Only a subscriber that ended without ever needing its locked parts (no
// queue, no waiter, no trace record) and that nothing else references is
// kept, so a revived one is what a new one would be. None is ever referred to
// weakly (it is only ever a consumer's handle), which the uniqueness check
// relies on. Each thread keeps at most `limit`; the rest are freed, and a
// thread's are freed when it exits. The main thread's stay until the
// process ends (reachable from its thread state, as a cache).
import CRipple
import Glibc
import Ripple
import RippleSupport

enum SpareSubscribers {
    /// The most a thread keeps: enough for a burst of subscriptions ended
    /// together, little memory (each is 104 bytes).
    static let limit: UInt32 = 16

    /// A subscriber for `o` on `subject` (+1): this thread's last spare,
    /// revived, or a new one.
    @inline(__always)
    static func take(_ o: rpl_observer, _ subject: Subject) -> Unmanaged<CObserverSubscriber> {
        let t = ripple_thread()!
        guard let p = t.pointee.spare_subscribers else { return made(o, subject) }
        let s = Unmanaged<CObserverSubscriber>.fromOpaque(p)
        s._withUnsafeGuaranteedRef {
            t.pointee.spare_subscribers = $0.retiredLink
            t.pointee.spare_count &-= 1
            $0.revive(o, subject)
        }
        return s
    }

    /// A new one, its class published for `isSubscriber` (the first time).
    @inline(never)
    private static func made(_ o: rpl_observer, _ subject: Subject) -> Unmanaged<CObserverSubscriber> {
        let s = Unmanaged.passRetained(CObserverSubscriber(o, subject))
        if ripple_spare_class_get() == nil {
            ripple_spare_class_set(UnsafeRawPointer(s.toOpaque()).load(as: UnsafeMutableRawPointer.self))
        }
        return s
    }

    /// True when the disposable at `handle` is a C observer's subscriber:
    /// its class word is the one `made` published (a load and a compare,
    /// where a cast calls the class's metadata accessor).
    @inline(__always)
    static func isSubscriber(_ handle: UnsafeMutableRawPointer) -> Bool {
        handle.load(as: UInt.self) == UInt(bitPattern: ripple_spare_class_get())
    }

    /// rpl_release of a C observer's subscriber (`isSubscriber`): kept as a
    /// spare when the reference released is its only one and it can be
    /// reused (`Subscriber.isReusable`), else released.
    @inline(never)
    static func release(_ handle: UnsafeMutableRawPointer) {
        release(Unmanaged<CObserverSubscriber>.fromOpaque(handle).takeRetainedValue())
    }

    /// Takes the handle's reference: released at the end, unless kept.
    @inline(__always)
    private static func release(_ subscriber: consuming CObserverSubscriber) {
        var s = subscriber
        let t = ripple_thread()!
        guard t.pointee.spare_count < limit, isKnownUniquelyReferenced(&s), s.isReusable else { return }
        if t.pointee.spare_key_set == 0 {
            t.pointee.spare_key_set = 1
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        }
        s.retire(link: t.pointee.spare_subscribers)
        t.pointee.spare_subscribers = Unmanaged.passRetained(consume s).toOpaque()
        t.pointee.spare_count &+= 1
    }

    /// Frees this thread's spares when it exits (its destructor); set on
    /// the thread's first spare.
    static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { _ in SpareSubscribers.freeAll() }
        return k
    }()

    /// Frees this thread's spares. Each is counted back in first: its
    /// deinit counts it out again.
    static func freeAll() {
        let t = ripple_thread()!
        t.pointee.spare_key_set = 0
        while let p = t.pointee.spare_subscribers {
            let s = Unmanaged<CObserverSubscriber>.fromOpaque(p)
            s._withUnsafeGuaranteedRef {
                t.pointee.spare_subscribers = $0.retiredLink
                $0.includeInLiveCount()
            }
            s.release()
        }
        t.pointee.spare_count = 0
    }
}
