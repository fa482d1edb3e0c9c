/* Tracing and object counting: the global flags the event path reads, the
   trace hook's storage and the USDT probe sites. Internal: not installed.
   Kept in C so the flags are plain globals (a load through %rip, no lazy
   initialization check as a Swift global would have) and so the probes can
   use <sys/sdt.h>. */
#ifndef RIPPLE_TRACE_H
#define RIPPLE_TRACE_H
#include <stdint.h>

/* The event kinds, numbered as ripple.h's rpl_trace_kind. */
enum { RIPPLE_TRACE_SUBSCRIBE, RIPPLE_TRACE_NEXT, RIPPLE_TRACE_ERROR, RIPPLE_TRACE_COMPLETED, RIPPLE_TRACE_DISPOSE };

/* Non-zero while a trace hook is set (rpl_trace_set). */
extern int ripple_trace_hook_on __attribute__((visibility("hidden")));
/* The USDT semaphores: a tracer attached to a probe (perf, bpftrace,
   SystemTap) increments its semaphore, so nothing is computed for a probe
   nobody watches. */
extern volatile unsigned short ripple_subscribe_semaphore __attribute__((visibility("hidden")));
extern volatile unsigned short ripple_next_semaphore __attribute__((visibility("hidden")));
extern volatile unsigned short ripple_error_semaphore __attribute__((visibility("hidden")));
extern volatile unsigned short ripple_completed_semaphore __attribute__((visibility("hidden")));
extern volatile unsigned short ripple_dispose_semaphore __attribute__((visibility("hidden")));
/* The same five words, side by side in that order (ripple_trace.c). */
extern volatile unsigned short ripple_semaphores[5] __attribute__((visibility("hidden")));

/* The one check on the per-event path: is anybody watching values? Two plain
   loads (a relaxed atomic load is a plain one) and one branch; both words are almost never written, so the branch
   is predicted and the cache lines stay shared. */
static inline int ripple_trace_hook_set(void) { return __atomic_load_n(&ripple_trace_hook_on, __ATOMIC_RELAXED); }
static inline int ripple_trace_next_on(void) { return ripple_trace_hook_set() | ripple_next_semaphore; }

/* Is anybody watching any event (subscribe, terminal events, dispose)? */
static inline int ripple_trace_any_on(void) {
    /* The first four semaphores in one 8-byte load (the record is 8-aligned). */
    uint64_t first4 = *(volatile const uint64_t *)(volatile const void *)ripple_semaphores;
    return ripple_trace_hook_set() | (first4 != 0) | ripple_dispose_semaphore;
}

/* Sets the hook (fn NULL: off). fn is rpl_trace_set's function; `event` is
   an rpl_trace_event. */
typedef void (*ripple_trace_fn)(void *ctx, const void *event);
void ripple_trace_set(ripple_trace_fn fn, void *ctx) __attribute__((visibility("hidden")));

/* Sets the hook off if it is fn (the trace writer stopping leaves a hook
   set since with rpl_trace_set alone). */
void ripple_trace_unset(ripple_trace_fn fn) __attribute__((visibility("hidden")));

/* Reports one event: fires the probe of `kind` if attached, then calls the
   hook if set. `event` is an rpl_trace_event built by the caller. */
void ripple_trace_emit(const void *event, int kind, const char *name, uint64_t id)
    __attribute__((visibility("hidden")));

/* A new process-unique subscription id (1, 2, ...). */
uint64_t ripple_trace_new_id(void) __attribute__((visibility("hidden")));

/* Runtime objects alive now, counted per thread: a creation or destruction
   adds to this thread's own counter with a plain load and store (no locked
   instruction, no shared cache line), and rpl_live_objects sums the
   counters of all threads plus what exited threads left. An object freed on
   another thread than the one that made it makes the two counters differ
   from their true share; the sum is still exact. */
typedef struct ripple_live_slot {
    intptr_t count;   /* written by its thread only (relaxed), read by rpl_live_objects */
    int state;        /* 0: not yet registered, 1: registered, 2: its thread is exiting */
    struct ripple_live_slot *next;
    struct ripple_live_slot *prev;
} ripple_live_slot;
extern __thread ripple_live_slot ripple_live_tls
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
void ripple_live_slow(intptr_t delta) __attribute__((visibility("hidden")));
intptr_t ripple_live_get(void) __attribute__((visibility("hidden")));

static inline void ripple_live_add(intptr_t delta) {
    ripple_live_slot *s = &ripple_live_tls;
    if (__builtin_expect(s->state != 1, 0)) {
        ripple_live_slow(delta);
        return;
    }
    __atomic_store_n(&s->count, s->count + delta, __ATOMIC_RELAXED);
}
static inline void ripple_live_inc(void) { ripple_live_add(1); }
static inline void ripple_live_dec(void) { ripple_live_add(-1); }

#endif
