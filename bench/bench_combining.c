/* Combining operators: flatten_map over 1M outer values. */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>

static long outer_count = 1000000;

/* The source: outer_count ints, sent synchronously at subscription. */
static rpl_disposable_t *count_up(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    for (long i = 0; i < outer_count; i++) rpl_subscriber_send_next(s, rpl_int(i));
    rpl_subscriber_send_completed(s);
    return NULL;
}

/* flatten_map callbacks: the inner signal for each outer value. */
static rpl_signal_t *to_return(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_signal_return(rpl_int(rpl_value_int(v)));
}

static rpl_disposable_t *send_one(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    rpl_subscriber_send_next(s, rpl_int(1));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static rpl_signal_t *one_created;
static rpl_signal_t *to_created(void *ctx, const rpl_value *v) {
    (void)ctx;
    (void)v;
    return rpl_retain(one_created);
}

static int64_t sink_sum;
static void sum_next(void *ctx, const rpl_value *v) { (void)ctx; sink_sum += rpl_value_int(v); }

static void run(const char *name, rpl_signal_t *(*fn)(void *, const rpl_value *), long n) {
    outer_count = n;
    rpl_signal_t *src = rpl_signal_create(count_up, NULL, NULL);
    rpl_signal_t *fm = rpl_signal_flatten_map(src, fn, NULL, NULL);
    sink_sum = 0;
    uint64_t a0 = bench_allocations();
    double t0 = bench_now();
    rpl_disposable_t *d = rpl_signal_subscribe_next(fm, sum_next, NULL);
    double t1 = bench_now();
    uint64_t a1 = bench_allocations();
    rpl_release(d);
    rpl_release(fm);
    rpl_release(src);
    bench_row(name, (t1 - t0) * 1e9 / (double)n, "outer value", (double)(a1 - a0) / (double)n);
}

/* The same source straight into the subscriber: what the operator adds to. */
static void run_floor(long n) {
    outer_count = n;
    rpl_signal_t *src = rpl_signal_create(count_up, NULL, NULL);
    uint64_t a0 = bench_allocations();
    double t0 = bench_now();
    rpl_disposable_t *d = rpl_signal_subscribe_next(src, sum_next, NULL);
    double t1 = bench_now();
    uint64_t a1 = bench_allocations();
    rpl_release(d);
    rpl_release(src);
    bench_row("source -> subscriber (no operator), 1M", (t1 - t0) * 1e9 / (double)n, "value", (double)(a1 - a0) / (double)n);
}

void bench_combining(void) {
    run_floor(1000000);
    run("flatten_map -> return (warm-up)", to_return, 100000);
    run("flatten_map -> return, 1M values", to_return, 1000000);
    one_created = rpl_signal_create(send_one, NULL, NULL);
    run("flatten_map -> created inner, 1M", to_created, 1000000);
    rpl_release(one_created);
}
