/* Single-input operator chains (issue 4): 10M ints from one source through
   map(+1) -> filter(even) -> scan(sum) -> a C subscriber, in ns per source
   event, with heap allocations per event. The source is a created signal whose
   subscribe callback sends the ints in a loop (one subscriber, uncontended).
   Each row is the best of three runs. */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>

#define EVENTS 10000000L

static volatile int64_t bench_sink;

static rpl_disposable_t *send_loop(void *ctx, rpl_subscriber_t *s) {
    long n = *(const long *)ctx;
    for (long i = 0; i < n; i++) rpl_subscriber_send_next(s, rpl_int(i));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static void on_next(void *ctx, const rpl_value *v) { (void)ctx; bench_sink = rpl_value_int(v); }
static rpl_value plus1(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(rpl_value_int(v) + 1); }
static bool even(void *ctx, const rpl_value *v) { (void)ctx; return (rpl_value_int(v) & 1) == 0; }
static rpl_value sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}

/* Subscribes a C on_next to sig (which sends `events` values synchronously);
   returns ns per source event and sets *allocs to allocations per event. */
static double run(rpl_signal_t *sig, long events, double *allocs) {
    double best = 1e30, best_allocs = 0;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        rpl_disposable_t *d = rpl_signal_subscribe_next(sig, on_next, NULL);
        double t = bench_now() - t0;
        uint64_t a1 = bench_allocations();
        rpl_release(d);
        if (t < best) {
            best = t;
            best_allocs = (double)(a1 - a0) / (double)events;
        }
    }
    *allocs = best_allocs;
    return best * 1e9 / (double)events;
}

void bench_operators(void) {
    long n = EVENTS;
    rpl_signal_t *src = rpl_signal_create(send_loop, &n, NULL);
    double allocs, ns;

    ns = run(src, n, &allocs);
    bench_row("send -> C subscriber (no operator)", ns, "source event", allocs);

    rpl_signal_t *m = rpl_signal_map(src, plus1, NULL, NULL);
    rpl_signal_t *f = rpl_signal_filter(m, even, NULL, NULL);
    rpl_signal_t *s = rpl_signal_scan(f, rpl_int(0), sum, NULL, NULL);
    ns = run(s, n, &allocs);
    bench_row("map(+1) -> filter(even) -> scan(sum) -> C (10M)", ns, "source event", allocs);

    rpl_signal_t *t = rpl_signal_take(s, (size_t)n);
    rpl_signal_t *dc = rpl_signal_distinct_until_changed(t);
    ns = run(dc, n, &allocs);
    bench_row("... -> take(n) -> distinct_until_changed -> C", ns, "source event", allocs);

    rpl_release(dc);
    rpl_release(t);
    rpl_release(s);
    rpl_release(f);
    rpl_release(m);
    rpl_release(src);
}
