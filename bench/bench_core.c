/* Core rows of `make bench`: the floor, a cold signal sending 10M ints to one
   C callback, and subscribe + dispose. */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>

#define EVENTS (10 * 1000 * 1000L)
#define PAIRS (1000 * 1000L)

static void on_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }

static rpl_disposable_t *send_ints(void *ctx, rpl_subscriber_t *s) {
    long n = *(long *)ctx;
    for (long i = 0; i < n; i++) rpl_subscriber_send_next(s, rpl_int(i));
    rpl_subscriber_send_completed(s);
    return NULL;
}

static rpl_disposable_t *nothing(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    (void)s;
    return NULL;
}

void bench_core(void) {
    double floor_ns = bench_floor_ns();
    bench_row("floor: C call via volatile fn pointer (10M)", floor_ns, "call", 0);

    /* Cold signal, 10M ints to one C callback; best of 3 runs. */
    long n = EVENTS;
    rpl_signal_t *sig = rpl_signal_create(send_ints, &n, NULL);
    int64_t sum = 0;
    double best = 1e9, allocs = 0;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        rpl_disposable_t *d = rpl_signal_subscribe_next(sig, on_int, &sum);
        double ns = (bench_now() - t0) * 1e9 / (double)n;
        allocs = (double)(bench_allocations() - a0) / (double)n;
        rpl_release(d);
        if (ns < best) best = ns;
    }
    if (sum != 3 * (int64_t)n * (n - 1) / 2) fprintf(stderr, "bench_core: wrong sum %lld\n", (long long)sum);
    bench_row("cold signal: send_next int -> C callback (10M)", best, "event", allocs);
    rpl_release(sig);

    /* subscribe + dispose (+ release of the handle) on a cold signal. */
    rpl_signal_t *cold = rpl_signal_create(nothing, NULL, NULL);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_int;
    o.ctx = &sum;
    best = 1e9;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        for (long i = 0; i < PAIRS; i++) {
            rpl_disposable_t *d = rpl_signal_subscribe(cold, &o);
            rpl_disposable_dispose(d);
            rpl_release(d);
        }
        double ns = (bench_now() - t0) * 1e9 / (double)PAIRS;
        allocs = (double)(bench_allocations() - a0) / (double)PAIRS;
        if (ns < best) best = ns;
    }
    bench_row("subscribe + dispose + release (cold, 1M)", best, "pair", allocs);
    rpl_release(cold);
}
