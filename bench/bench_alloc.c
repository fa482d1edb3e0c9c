/* Allocation counting for the benchmark, and the table printer.
 *
 * The bench program defines malloc and friends itself. libripple.so calls
 * them through the PLT, so the dynamic linker binds its calls to these
 * definitions (the executable comes first in the lookup order); each counts
 * and then calls glibc's own implementation (__libc_*). free is not counted as
 * an allocation, but every call keeps the bytes in use up to date (usable
 * sizes), for rows that check what an operation leaves allocated.
 */
#include "bench.h"
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static uint64_t allocations;  /* relaxed atomics: the bench may use threads */
static int64_t live_bytes;
static inline void count(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }
static inline void *track(void *p) {
    if (p) __atomic_fetch_add(&live_bytes, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
    return p;
}

void *malloc(size_t n) { count(); return track(__libc_malloc(n)); }
void *calloc(size_t n, size_t m) { count(); return track(__libc_calloc(n, m)); }
void *realloc(void *p, size_t n) {
    count();
    int64_t old = p ? (int64_t)malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, n);
    if (q || n == 0) __atomic_fetch_sub(&live_bytes, old, __ATOMIC_RELAXED);
    return track(q);
}
void *aligned_alloc(size_t align, size_t n) { count(); return track(__libc_memalign(align, n)); }
void *memalign(size_t align, size_t n) { count(); return track(__libc_memalign(align, n)); }
int posix_memalign(void **out, size_t align, size_t n) {
    count();
    if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
    void *p = track(__libc_memalign(align, n));
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
void free(void *p) {
    if (p) __atomic_fetch_sub(&live_bytes, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
    __libc_free(p);
}

uint64_t bench_allocations(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
int64_t bench_live_bytes(void) { return __atomic_load_n(&live_bytes, __ATOMIC_RELAXED); }

/* ---- The floor: a C call through a volatile function pointer ------------- */
static void floor_target(void *ctx, int64_t v) { *(volatile int64_t *)ctx += v; }

double bench_floor_ns(void) {
    static double floor_ns;
    if (floor_ns > 0) return floor_ns;
    void (*volatile fn)(void *, int64_t) = floor_target;
    volatile int64_t sink = 0;
    const long n = 10 * 1000 * 1000, chunk = 100 * 1000;
    /* The fastest 100k-call chunk: other processes on the machine can only
       make a chunk slower, so the minimum is the machine's real cost. */
    double best = 1e9;
    for (long base = 0; base < n; base += chunk) {
        double t0 = bench_now();
        for (long i = 0; i < chunk; i++) fn((void *)&sink, i);
        double ns = (bench_now() - t0) * 1e9 / (double)chunk;
        if (ns < best) best = ns;
    }
    floor_ns = best;
    return floor_ns;
}

/* ---- The table ---------------------------------------------------------- */
void bench_header(void) {
    printf("%-48s %12s %-10s %10s %14s\n", "benchmark", "ns", "per", "x floor", "allocs/unit");
    printf("%-48s %12s %-10s %10s %14s\n",
           "------------------------------------------------", "------------", "----------",
           "----------", "--------------");
}

void bench_value_row(const char *name, double value, const char *unit) {
    printf("%-48s %12.1f %-10s %10s %14s\n", name, value, unit, "-", "-");
    fflush(stdout);
}

void bench_row(const char *name, double ns, const char *unit, double allocs_per_unit) {
    printf("%-48s %12.2f %-10s %10.2f %14.3f\n", name, ns, unit, ns / bench_floor_ns(), allocs_per_unit);
    fflush(stdout);
}
