/* Shared helpers of the benchmark program (bench/bench_*.c). */
#ifndef RIPPLE_BENCH_H
#define RIPPLE_BENCH_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The floor: ns per call of a C function through a volatile function pointer,
   measured once (bench_core.c) and used for every ratio. */
double bench_floor_ns(void);
/* Heap allocations so far (malloc/calloc/realloc calls, counted by bench_alloc.c). */
uint64_t bench_allocations(void);
/* Heap bytes in use now (usable sizes of what is allocated and not freed). */
int64_t bench_live_bytes(void);
/* Prints the table header / one row: name, ns per unit, unit, allocations per unit. */
void bench_header(void);
void bench_row(const char *name, double ns, const char *unit, double allocs_per_unit);
/* A row that is not a time (bytes, counts): value and unit, no ratio. */
void bench_value_row(const char *name, double value, const char *unit);
/* map(+1) -> filter(even) -> scan(sum) over src (+1): the chain of the
   operator rows (bench_chain.c). */
struct rpl_signal;
struct rpl_signal *bench_chain(struct rpl_signal *src);
/* The chain's three callbacks (make bench-instructions' C reference of W3). */
struct rpl_value;
typedef struct bench_chain_fns {
    struct rpl_value (*map)(void *ctx, const struct rpl_value *v);
    bool (*filter)(void *ctx, const struct rpl_value *v);
    struct rpl_value (*scan)(void *ctx, const struct rpl_value *acc, const struct rpl_value *v);
} bench_chain_fns;
bench_chain_fns bench_chain_callbacks(void);
/* W7: return(1) -> map(+1) -> subscribe -> dispose, every handle released;
   the value (2) is added to *sum (bench_chain.c). */
void bench_pipeline_once(int64_t *sum);
#endif
