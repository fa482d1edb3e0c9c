/* Core rows of `make bench`: the floor, a cold signal sending 10M ints to one
   C callback, and subscribe + dispose.
 *
 * The machine is shared, so each measurement is also taken in short chunks and
 * the fastest chunk is reported next to the mean: preemption by other
 * processes inflates the mean, never the best chunk. */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>

#define EVENTS (10 * 1000 * 1000L)
#define CHUNK (100 * 1000L)
#define PAIRS (1000 * 1000L)
#define PAIR_CHUNK (10 * 1000L)

typedef struct {
    long n;
    double best_chunk_ns;  /* per event */
} send_ctx;

static void on_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }

static rpl_disposable_t *send_ints(void *ctx, rpl_subscriber_t *s) {
    send_ctx *c = ctx;
    double best = 1e9;
    for (long base = 0; base < c->n; base += CHUNK) {
        double t0 = bench_now();
        for (long i = base; i < base + CHUNK; i++) rpl_subscriber_send_next(s, rpl_int(i));
        double ns = (bench_now() - t0) * 1e9 / (double)CHUNK;
        if (ns < best) best = ns;
    }
    c->best_chunk_ns = best;
    rpl_subscriber_send_completed(s);
    return NULL;
}

static rpl_disposable_t *nothing(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    (void)s;
    return NULL;
}

/* Reference rows for the issue-9 budget (at most one atomic read-modify-write
   per send): one uncontended compare-and-swap alone, the floor's call plus
   one, and the call plus the two that take and release a subscriber today.
   `cas` is how many CAS each iteration pays (1 or 2; 2 always calls); `call`
   whether it also calls through the volatile pointer. Best 100k-iteration
   chunk. */
static double cas_row(int cas, int call) {
    void (*volatile fn)(void *, const rpl_value *) = on_int;
    int64_t sum = 0;
    uint64_t word = 0, k = 0;
    rpl_value v = rpl_int(1);
    double best = 1e9;
    for (long base = 0; base < EVENTS; base += CHUNK) {
        double t0 = bench_now();
        for (long i = 0; i < CHUNK; i++) {
            if (cas == 1) {  /* k -> k + 1: every CAS succeeds, nothing else touches word */
                uint64_t expected = k;
                __atomic_compare_exchange_n(&word, &expected, k + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
                k++;
                if (call) fn(&sum, &v);
            } else {         /* take (0 -> 8), call, release (8 -> 0) */
                uint64_t expected = 0;
                __atomic_compare_exchange_n(&word, &expected, 8, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
                fn(&sum, &v);
                expected = 8;
                __atomic_compare_exchange_n(&word, &expected, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
            }
        }
        double ns = (bench_now() - t0) * 1e9 / (double)CHUNK;
        if (ns < best) best = ns;
    }
    return best;
}
static void cas_floor(void) {
    bench_row("  reference: 1 uncontended CAS (best)", cas_row(1, 0), "CAS", 0);
    bench_row("  reference: fn call + 1 uncontended CAS (best)", cas_row(1, 1), "call", 0);
    bench_row("  reference: fn call + 2 uncontended CAS (best)", cas_row(2, 1), "call", 0);
}

/* The least one handle the C API returns costs: a signal made by
   rpl_signal_return and freed by rpl_release (its allocation, its magic
   word, the release that frees it). Every subscription a subscribe call
   returns, and every signal an operator call returns, is such a handle:
   the bounds of docs/performance.md count this row once per handle a
   workload makes. Best 10k-handle chunk of 1M. */
static void handle_row(void) {
    rpl_value v = rpl_int(1);
    double best = 1e9;
    uint64_t a0 = bench_allocations();
    for (long base = 0; base < PAIRS; base += PAIR_CHUNK) {
        double t0 = bench_now();
        for (long i = 0; i < PAIR_CHUNK; i++) rpl_release(rpl_signal_return(v));
        double ns = (bench_now() - t0) * 1e9 / (double)PAIR_CHUNK;
        if (ns < best) best = ns;
    }
    double allocs = (double)(bench_allocations() - a0) / (double)PAIRS;
    bench_row("  reference: a handle made + freed (return, best)", best, "handle", allocs);
}

/* The handle check (issue 10): every entry point reads the handle's 32-bit
   magic word and compares it with its kind's. The row pairs a call whose
   work is little more than that check (rpl_error_code: check, one field
   load) with the same kind of call into the library that takes no handle
   (rpl_version: a constant), so the difference is the check plus the load.
   Best 100k-call chunk of 10M. */
static double call_row(int with_handle, rpl_error_t *e) {
    int64_t sum = 0;
    double best = 1e9;
    for (long base = 0; base < EVENTS; base += CHUNK) {
        double t0 = bench_now();
        if (with_handle)
            for (long i = 0; i < CHUNK; i++) sum += rpl_error_code(e);
        else
            for (long i = 0; i < CHUNK; i++) sum += rpl_version();
        double ns = (bench_now() - t0) * 1e9 / (double)CHUNK;
        if (ns < best) best = ns;
        __asm__ volatile("" : : "r"(sum) : "memory");
    }
    return best;
}
static void handle_check_rows(void) {
    rpl_error_t *e = rpl_error_create("bench", 7, "m");
    double plain = call_row(0, e), checked = call_row(1, e);
    bench_row("handle check: rpl_error_code(e) (magic word + 1 load, best)", checked, "call", 0);
    bench_row("  reference: rpl_version() (no handle, best)", plain, "call", 0);
    bench_row("  difference: the handle check and the load", checked - plain, "call", 0);
    rpl_release(e);
}

void bench_core(void) {
    double floor_ns = bench_floor_ns();
    bench_row("floor: C call via volatile fn pointer (10M, best)", floor_ns, "call", 0);
    cas_floor();
    handle_row();

    /* Cold signal, 10M ints to one C callback. */
    send_ctx c = { EVENTS, 0 };
    rpl_signal_t *sig = rpl_signal_create(send_ints, &c, NULL);
    int64_t sum = 0;
    double best = 1e9, best_chunk = 1e9, allocs = 0;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        rpl_disposable_t *d = rpl_signal_subscribe_next(sig, on_int, &sum);
        double ns = (bench_now() - t0) * 1e9 / (double)EVENTS;
        allocs = (double)(bench_allocations() - a0) / (double)EVENTS;
        rpl_release(d);
        if (ns < best) best = ns;
        if (c.best_chunk_ns < best_chunk) best_chunk = c.best_chunk_ns;
    }
    if (sum != 3 * (int64_t)EVENTS * (EVENTS - 1) / 2) fprintf(stderr, "bench_core: wrong sum %lld\n", (long long)sum);
    bench_row("cold signal: send_next int -> C callback (10M)", best, "event", allocs);
    bench_row("  same, best 100k-event chunk", best_chunk, "event", allocs);
    rpl_release(sig);

    /* subscribe + dispose (+ release of the handle) on a cold signal. */
    rpl_signal_t *cold = rpl_signal_create(nothing, NULL, NULL);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_int;
    o.ctx = &sum;
    best = 1e9;
    best_chunk = 1e9;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        for (long base = 0; base < PAIRS; base += PAIR_CHUNK) {
            double c0 = bench_now();
            for (long i = 0; i < PAIR_CHUNK; i++) {
                rpl_disposable_t *d = rpl_signal_subscribe(cold, &o);
                rpl_disposable_dispose(d);
                rpl_release(d);
            }
            double ns = (bench_now() - c0) * 1e9 / (double)PAIR_CHUNK;
            if (ns < best_chunk) best_chunk = ns;
        }
        double ns = (bench_now() - t0) * 1e9 / (double)PAIRS;
        allocs = (double)(bench_allocations() - a0) / (double)PAIRS;
        if (ns < best) best = ns;
    }
    bench_row("subscribe + dispose + release (cold, 1M)", best, "pair", allocs);
    bench_row("  same, best 10k-pair chunk", best_chunk, "pair", allocs);
    rpl_release(cold);
    handle_check_rows();
}
