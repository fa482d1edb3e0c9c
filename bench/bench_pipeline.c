/* Rows of `make bench` for the cost of building things: a whole short
   pipeline (W7: return(1) -> map -> subscribe -> dispose, every handle
   released), and the heap an idle subscription to a subject, a fused
   operator in a chain and a live signal handle hold (bytes in use, from
   the counting allocator of bench_alloc.c). */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>

#define PIPELINES (300 * 1000L)
#define PIPE_CHUNK (10 * 1000L)
#define HELD (10 * 1000L)
#define CHAIN 500L /* maps in the chain row: below RPL_MAX_SIGNAL_DEPTH */

static int64_t sink;
static void on_int(void *ctx, const rpl_value *v) { (void)ctx; sink += v->as.i; }
static rpl_value plus1(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(v->as.i + 1); }

static void pipeline_row(void) {
    double best = 1e12;
    uint64_t a0 = bench_allocations();
    for (long base = 0; base < PIPELINES; base += PIPE_CHUNK) {
        double t0 = bench_now();
        for (long i = 0; i < PIPE_CHUNK; i++) bench_pipeline_once(&sink);
        double ns = (bench_now() - t0) * 1e9 / (double)PIPE_CHUNK;
        if (ns < best) best = ns;
    }
    double allocs = (double)(bench_allocations() - a0) / (double)PIPELINES;
    bench_row("W7 return(1) -> map -> subscribe -> dispose (best)", best, "pipeline", allocs);
    if (sink != 2 * PIPELINES) printf("  (W7: wrong result %lld)\n", (long long)sink);
}

/* Bytes in use per item while HELD items are alive. */
static void memory_rows(void) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_disposable_t **d = calloc(HELD, sizeof *d);
    int64_t b0 = bench_live_bytes();
    for (long i = 0; i < HELD; i++) d[i] = rpl_signal_subscribe_next(rpl_subject_as_signal(s), on_int, NULL);
    bench_value_row("memory: per idle subscription to a subject", (double)(bench_live_bytes() - b0) / HELD, "bytes");
    for (long i = 0; i < HELD; i++) {
        rpl_disposable_dispose(d[i]);
        rpl_release(d[i]);
    }

    /* A chain of CHAIN fused maps over the subject, subscribed once. */
    rpl_signal_t *chain = rpl_retain(rpl_subject_as_signal(s));
    int64_t c0 = bench_live_bytes();
    for (long i = 0; i < CHAIN; i++) {
        rpl_signal_t *m = rpl_signal_map(chain, plus1, NULL, NULL);
        rpl_release(chain);
        chain = m;
    }
    int64_t c1 = bench_live_bytes();
    rpl_disposable_t *sub = rpl_signal_subscribe_next(chain, on_int, NULL);
    int64_t c2 = bench_live_bytes();
    if (!chain || !sub) printf("  (memory: the chain of %ld maps was refused: %s)\n", CHAIN, rpl_last_error_message());
    bench_value_row("memory: per map signal in a chain (handle)", (double)(c1 - c0) / CHAIN, "bytes");
    bench_value_row("  and per map in its subscription", (double)(c2 - c1) / CHAIN, "bytes");
    rpl_disposable_dispose(sub);
    rpl_release(sub);
    rpl_release(chain);

    /* Live signal handles: HELD returns. */
    rpl_signal_t **sig = (rpl_signal_t **)d;
    int64_t r0 = bench_live_bytes();
    for (long i = 0; i < HELD; i++) sig[i] = rpl_signal_return(rpl_int(i));
    bench_value_row("memory: per live signal handle (return)", (double)(bench_live_bytes() - r0) / HELD, "bytes");
    for (long i = 0; i < HELD; i++) rpl_release(sig[i]);
    free(d);
    rpl_release(s);
}

void bench_pipeline(void) {
    pipeline_row();
    memory_rows();
}
