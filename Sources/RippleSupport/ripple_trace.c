#define _SDT_HAS_SEMAPHORES 1
#include "ripple_trace.h"
#include <pthread.h>
#include <stdlib.h>
/* Without systemtap-sdt-dev the library builds without probes (the Makefile
   installs it; make check-probes fails if they are missing). */
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define RIPPLE_HAVE_SDT 1
#else
#define STAP_PROBE2(provider, name, a, b) ((void)(a), (void)(b))
#endif

int ripple_trace_hook_on;
intptr_t ripple_live_count;

/* sys/sdt.h names a probe's semaphore <provider>_<name>_semaphore and expects
   it in the .probes section, where tracers look for it. */
#define RIPPLE_SEMAPHORE(n) \
    volatile unsigned short ripple_##n##_semaphore __attribute__((section(".probes"), used)) = 0
RIPPLE_SEMAPHORE(subscribe);
RIPPLE_SEMAPHORE(next);
RIPPLE_SEMAPHORE(error);
RIPPLE_SEMAPHORE(completed);
RIPPLE_SEMAPHORE(dispose);

/* The hook and its context change together, so they live in one record that
   is swapped atomically. A replaced record is kept (reachable, on a list):
   another thread may be calling through it right now, and hooks are set a
   handful of times per process. */
typedef struct hook {
    ripple_trace_fn fn;
    void *ctx;
    struct hook *retired;
} hook;

static hook *current;
static hook *retired;
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t last_id;

void ripple_trace_set(ripple_trace_fn fn, void *ctx) {
    hook *h = 0;
    if (fn) {
        h = malloc(sizeof *h);
        if (!h) return;
        h->fn = fn;
        h->ctx = ctx;
        h->retired = 0;
    }
    pthread_mutex_lock(&set_lock);
    hook *old = __atomic_exchange_n(&current, h, __ATOMIC_ACQ_REL);
    __atomic_store_n(&ripple_trace_hook_on, fn != 0, __ATOMIC_RELEASE);
    if (old) {
        old->retired = retired;
        retired = old;
    }
    pthread_mutex_unlock(&set_lock);
}

void ripple_trace_emit(const void *event, int kind, const char *name, uint64_t id) {
    /* One probe site per event kind, each fired only while attached. */
#define RIPPLE_PROBE(n) if (ripple_##n##_semaphore) STAP_PROBE2(ripple, n, name, id); break
    switch (kind) {
    case RIPPLE_TRACE_SUBSCRIBE: RIPPLE_PROBE(subscribe);
    case RIPPLE_TRACE_NEXT: RIPPLE_PROBE(next);
    case RIPPLE_TRACE_ERROR: RIPPLE_PROBE(error);
    case RIPPLE_TRACE_COMPLETED: RIPPLE_PROBE(completed);
    default: RIPPLE_PROBE(dispose);
    }
#undef RIPPLE_PROBE
    hook *h = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    if (h) h->fn(h->ctx, event);
    /* The probe notes refer to _.stapsdt.base (tracers use its address to
       relocate a probe), but nothing loaded does, so the linker's section
       garbage collection would drop it: a no-op relocation from live code
       keeps it. */
#if RIPPLE_HAVE_SDT && defined(__x86_64__)
    __asm__ __volatile__(".reloc ., R_X86_64_NONE, _.stapsdt.base");
#elif RIPPLE_HAVE_SDT && defined(__aarch64__)
    __asm__ __volatile__(".reloc ., R_AARCH64_NONE, _.stapsdt.base");
#endif
}

uint64_t ripple_trace_new_id(void) { return __atomic_add_fetch(&last_id, 1, __ATOMIC_RELAXED); }
