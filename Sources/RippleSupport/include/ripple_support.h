/* Per-thread state of the Ripple runtime. Internal: not installed. */
#ifndef RIPPLE_SUPPORT_H
#define RIPPLE_SUPPORT_H
#include <stdint.h>

typedef struct ripple_thread_state {
    /* Number of subscribers this thread is delivering to right now. A thread
       inside a callback must never block on another subscriber's lock. */
    uintptr_t delivering;
    /* The scheduler running the current job (rpl_scheduler_current). */
    void *scheduler;
    /* rpl_callback_fail: the `delivering` level at which a per-subscription
       operator callback is running (0: none). A callback of a nested delivery
       runs at a deeper level, so it cannot fail the operator that is calling
       out. */
    uintptr_t callback_level;
    /* The failure of the innermost operator callback that failed and has not
       returned yet (a +1 RippleError, or NULL), and that callback's level:
       an operator reads it only after its callback returns, and only as
       its own when the levels match. `callback_failures_aside` holds the
       failures of callbacks further out while a nested one fails too
       (Callback.swift). */
    void *callback_failure;
    uintptr_t callback_failure_level;
    void *callback_failures_aside;
    /* The thread's last-error record (RippleC's ThreadErrors, +1), made on
       first use and released by a pthread key's destructor when the thread
       exits. Kept here as well as in the key: a read is one load, and a leak
       checker that scans threads' static TLS (LeakSanitizer) sees what holds
       it (it does not see a pool thread's pthread_setspecific slots). */
    void *errors;
    /* C observers' subscribers to subjects that ended and were released on
       this thread, kept for the next such subscription (RippleC's
       SpareSubscribers.swift): a list linked through each one's context
       word, `spare_count` long, and whether this thread's exit will free
       them (its pthread key is set). */
    void *spare_subscribers;
    uint32_t spare_count;
    uint32_t spare_key_set;
} ripple_thread_state;

/* initial-exec: the address is %fs plus a constant, with no __tls_get_addr
   call. The state is small enough for glibc's static TLS surplus, so dlopen of
   libripple.so works. */
extern __thread ripple_thread_state ripple_tls
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

static inline ripple_thread_state *ripple_thread(void) { return &ripple_tls; }

/* The class (the first word of an instance) of RippleC's CObserverSubscriber,
   published by the first one made (NULL until then: nothing can be one).
   rpl_release tells one from the other disposables with a load and a
   compare, without a call to the class's metadata accessor
   (SpareSubscribers.swift). Relaxed atomics: each thread's first one may
   publish it, and all publish the same value. */
extern void *ripple_spare_class __attribute__((visibility("hidden")));
static inline void *ripple_spare_class_get(void) { return __atomic_load_n(&ripple_spare_class, __ATOMIC_RELAXED); }
static inline void ripple_spare_class_set(void *c) { __atomic_store_n(&ripple_spare_class, c, __ATOMIC_RELAXED); }

/* Poisons a freed object's magic word (Object.swift): a volatile store, so
   the optimizer cannot drop it as a dead store into memory being freed. */
static inline void ripple_poison_magic(void *at, uint32_t poison) { *(volatile uint32_t *)at = poison; }

/* A fixed table of mutex + condition pairs that subscribers share for their
   rarely used slow paths. Statically initialized, so using one costs no
   lazy-initialization check and no reference counting. */
#include <pthread.h>
#define RIPPLE_STRIPES 64
typedef struct ripple_stripe {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
} ripple_stripe;
extern ripple_stripe ripple_stripes[RIPPLE_STRIPES] __attribute__((visibility("hidden")));

/* The stripe of the object at address addr. */
static inline ripple_stripe *ripple_stripe_for(const void *addr) {
    uintptr_t a = (uintptr_t)addr;
    return &ripple_stripes[((a >> 4) ^ (a >> 10)) % RIPPLE_STRIPES];
}

/* The asymmetric fence of the delivery gate. A gate's owner lets go with a
   plain store and a plain load (no locked instruction); the rare other side
   (queueing for an owner, waiting for one, closing an owned gate) pays
   ripple_heavy_fence() instead, which makes every thread of the process run
   a full barrier (membarrier). Where membarrier is unavailable (old kernel,
   valgrind), ripple_light_release is 0 and the owner lets go with a full
   fence instead. */
extern int ripple_light_release __attribute__((visibility("hidden")));
void ripple_heavy_fence(void) __attribute__((visibility("hidden")));
/* Keeps the compiler from moving memory accesses across this point. */
static inline void ripple_compiler_barrier(void) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
static inline int ripple_light_release_ok(void) { return ripple_light_release; }

/* Incremented in the child of every fork(): the parent's threads do not
   exist there, so thread-backed state recorded under an older generation
   (a scheduler's worker counts) is stale. */
extern unsigned ripple_fork_generation __attribute__((visibility("hidden")));
static inline unsigned ripple_current_fork_generation(void) {
    return __atomic_load_n(&ripple_fork_generation, __ATOMIC_RELAXED);
}

/* Whether malloc can give n bytes right now (it is freed again). For callers
   about to make an allocation of that size through Swift, whose allocator
   aborts the process on failure. */
#include <stddef.h>
int ripple_can_allocate(size_t n) __attribute__((visibility("hidden")));

#endif
