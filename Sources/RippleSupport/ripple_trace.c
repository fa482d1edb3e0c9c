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

/* sys/sdt.h names a probe's semaphore <provider>_<name>_semaphore and expects
   it in the .probes section, where tracers look for it. The five sit side by
   side in one record, in the order of ripple_trace.h's RIPPLE_TRACE_* kinds,
   so that ripple_trace_any_on reads them in two loads; each name is set to
   its word of the record. */
volatile unsigned short ripple_semaphores[5] __attribute__((section(".probes"), used, aligned(8))) = {0};
#define RIPPLE_SEMAPHORE(n, offset) \
    __asm__(".globl ripple_" #n "_semaphore\n\t.hidden ripple_" #n "_semaphore\n\t" \
            ".type ripple_" #n "_semaphore, @object\n\t.size ripple_" #n "_semaphore, 2\n\t" \
            ".set ripple_" #n "_semaphore, ripple_semaphores + " #offset)
RIPPLE_SEMAPHORE(subscribe, 0);
RIPPLE_SEMAPHORE(next, 2);
RIPPLE_SEMAPHORE(error, 4);
RIPPLE_SEMAPHORE(completed, 6);
RIPPLE_SEMAPHORE(dispose, 8);

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

/* Puts h in the slot; the caller holds set_lock. */
static void replace_locked(hook *h) {
    hook *old = __atomic_exchange_n(&current, h, __ATOMIC_ACQ_REL);
    __atomic_store_n(&ripple_trace_hook_on, h != 0, __ATOMIC_RELEASE);
    if (old) {
        old->retired = retired;
        retired = old;
    }
}

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
    replace_locked(h);
    pthread_mutex_unlock(&set_lock);
}

void ripple_trace_unset(ripple_trace_fn fn) {
    pthread_mutex_lock(&set_lock);
    if (current && current->fn == fn) replace_locked(0);
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

/* ---- the live-object count (see ripple_trace.h) ---- */

__thread ripple_live_slot ripple_live_tls __attribute__((tls_model("initial-exec"), visibility("hidden")));
static ripple_live_slot *live_threads;  /* registered slots, under live_lock */
static intptr_t live_retired;           /* counts of exited threads, and of late frees */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t live_key;

/* The thread is exiting: fold its count in and stop reading its slot. */
static void live_thread_exit(void *p) {
    ripple_live_slot *s = p;
    pthread_mutex_lock(&live_lock);
    if (s->prev) s->prev->next = s->next; else live_threads = s->next;
    if (s->next) s->next->prev = s->prev;
    __atomic_add_fetch(&live_retired, s->count, __ATOMIC_RELAXED);
    s->count = 0;
    s->state = 2;
    pthread_mutex_unlock(&live_lock);
}

void ripple_live_slow(intptr_t delta) {
    ripple_live_slot *s = &ripple_live_tls;
    if (s->state == 0) {
        pthread_mutex_lock(&live_lock);
        s->next = live_threads;
        s->prev = 0;
        if (live_threads) live_threads->prev = s;
        live_threads = s;
        s->state = 1;
        pthread_mutex_unlock(&live_lock);
        pthread_setspecific(live_key, s);  /* for live_thread_exit */
        __atomic_store_n(&s->count, s->count + delta, __ATOMIC_RELAXED);
        return;
    }
    /* Freed by a later thread-exit destructor, after ours ran. */
    __atomic_add_fetch(&live_retired, delta, __ATOMIC_RELAXED);
}

intptr_t ripple_live_get(void) {
    pthread_mutex_lock(&live_lock);
    intptr_t n = __atomic_load_n(&live_retired, __ATOMIC_RELAXED);
    for (ripple_live_slot *s = live_threads; s; s = s->next) n += __atomic_load_n(&s->count, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&live_lock);
    return n;
}

/* fork: the lock is held across it, so the child gets it free; in the
   child only the forking thread exists, and the others' TLS may be reused by
   new threads, so their counts are folded in and their slots dropped. */
static void live_prepare(void) { pthread_mutex_lock(&live_lock); }
static void live_parent(void) { pthread_mutex_unlock(&live_lock); }
static void live_child(void) {
    ripple_live_slot *mine = &ripple_live_tls;
    for (ripple_live_slot *s = live_threads; s; s = s->next)
        if (s != mine) live_retired += s->count;
    live_threads = 0;
    if (mine->state == 1) {
        mine->next = mine->prev = 0;
        live_threads = mine;
    }
    pthread_mutex_unlock(&live_lock);
}

__attribute__((constructor)) static void live_init(void) {
    pthread_key_create(&live_key, live_thread_exit);
    pthread_atfork(live_prepare, live_parent, live_child);
}
