/* Combining-operator rows of `make bench` (issue 4): flatten_map over 1M
   outer values, each mapped to rpl_signal_return (which takes the fast path
   for inners that end at once) or to a created signal (a full inner
   subscription), in ns per outer value with heap allocations per outer value;
   next to it the same source with no operator. concat_map rows: the same
   through the limited engine (one inner at a time, each queued first). Then
   the operators on a second signal: with_latest_from (1M source values
   against an other that sent once; a tuple each) and sample (1M sampler ticks
   re-sending one value), in ns per value sent. Best of 3. */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>

#define OUTER (1000 * 1000L)

/* The source: OUTER ints, sent synchronously at subscription. */
static rpl_disposable_t *count_up(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    for (long i = 0; i < OUTER; i++) rpl_subscriber_send_next(s, rpl_int(i));
    rpl_subscriber_send_completed(s);
    return NULL;
}

static rpl_signal_t *to_return(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_signal_return(rpl_int(v->as.i));
}

static rpl_disposable_t *send_one(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    rpl_subscriber_send_next(s, rpl_int(1));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static rpl_signal_t *to_created(void *ctx, const rpl_value *v) {
    (void)v;
    return rpl_retain(ctx);
}

static void on_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }

/* One timed subscription to sig: keeps the fastest (ns and allocations per
   OUTER unit) in *best / *allocs; true when on_next's total is expect. */
static int time_round(rpl_signal_t *sig, void (*on_next)(void *, const rpl_value *), int64_t expect,
                      double *best, double *allocs) {
    int64_t total = 0;
    uint64_t a0 = bench_allocations();
    double t0 = bench_now();
    rpl_disposable_t *d = rpl_signal_subscribe_next(sig, on_next, &total);
    double ns = (bench_now() - t0) * 1e9 / (double)OUTER;
    uint64_t a1 = bench_allocations();
    if (ns < *best) {
        *best = ns;
        *allocs = (double)(a1 - a0) / (double)OUTER;
    }
    rpl_release(d);
    return total == expect;
}

typedef rpl_signal_t *(*map_op)(rpl_signal_t *, rpl_flatten_map_fn, void *, rpl_release_fn);

/* Subscribes to op(source, fn) (or the bare source when fn is NULL) and
   reports the best of 3 runs. */
static void run(const char *name, map_op op, rpl_flatten_map_fn fn, void *ctx, int64_t expect) {
    double best = 1e30, allocs = 0;
    int ok = 1;
    for (int round = 0; round < 3; round++) {
        rpl_signal_t *src = rpl_signal_create(count_up, NULL, NULL);
        rpl_signal_t *sig = fn ? op(src, fn, ctx, NULL) : rpl_retain(src);
        ok = time_round(sig, on_int, expect, &best, &allocs) && ok;
        rpl_release(sig);
        rpl_release(src);
    }
    bench_row(name, best, "outer value", allocs);
    if (!ok) printf("  (%s: wrong result)\n", name);
}

/* ---- Operators on a second signal ----------------------------------------- */

/* Sends 1 and stays open (sample's source). */
static rpl_disposable_t *one_open(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    rpl_subscriber_send_next(s, rpl_int(1));
    return NULL;
}
static void count_value(void *ctx, const rpl_value *v) {
    (void)v;
    (*(int64_t *)ctx)++;
}

/* op(a, b) over the OUTER-value source and a one-value signal, as a row of ns
   per value that op sends (best of 3); `ticking_b`: the OUTER values are b's
   (sample's ticks), a sends one value and stays open. */
static void run_pair(const char *name, rpl_signal_t *(*op)(rpl_signal_t *, rpl_signal_t *), int ticking_b) {
    double best = 1e30, allocs = 0;
    int ok = 1;
    for (int round = 0; round < 3; round++) {
        rpl_signal_t *many = rpl_signal_create(count_up, NULL, NULL);
        rpl_signal_t *one = ticking_b ? rpl_signal_create(one_open, NULL, NULL) : rpl_signal_return(rpl_int(1));
        rpl_signal_t *sig = ticking_b ? op(one, many) : op(many, one);
        ok = time_round(sig, count_value, OUTER, &best, &allocs) && ok;
        rpl_release(sig);
        rpl_release(many);
        rpl_release(one);
    }
    bench_row(name, best, "value", allocs);
    if (!ok) printf("  (%s: wrong result)\n", name);
}

void bench_combining(void) {
    int64_t sum = (int64_t)OUTER * (OUTER - 1) / 2;
    run("1M ints from a cold signal, no operator", NULL, NULL, NULL, sum);
    run("flatten_map -> rpl_signal_return, 1M", rpl_signal_flatten_map, to_return, NULL, sum);
    rpl_signal_t *one = rpl_signal_create(send_one, NULL, NULL);
    run("flatten_map -> created inner, 1M", rpl_signal_flatten_map, to_created, one, OUTER);
    run("concat_map -> rpl_signal_return, 1M", rpl_signal_concat_map, to_return, NULL, sum);
    run("concat_map -> created inner, 1M", rpl_signal_concat_map, to_created, one, OUTER);
    rpl_release(one);
    run_pair("with_latest_from, 1M tuples", rpl_signal_with_latest_from, 0);
    run_pair("sample, 1M ticks", rpl_signal_sample, 1);
}
