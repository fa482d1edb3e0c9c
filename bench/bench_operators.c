/* Single-input operator rows of `make bench` (issue 4): 10M ints sent into a
   subject, through map(+1) -> filter(even) -> scan(sum) -> a C subscriber, in
   ns per source event, with heap allocations per event; next to it the same
   subject with no operator, the subject through buffer(16) (a tuple per 16
   events), and the chain fed by a cold signal's send loop.
   Callbacks read ints with v->as.i, as the other bench rows do. Best of 3. */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>

#define EVENTS (10 * 1000 * 1000L)

static void on_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }
static rpl_value plus1(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(v->as.i + 1); }
static bool even(void *ctx, const rpl_value *v) { (void)ctx; return (v->as.i & 1) == 0; }
static rpl_value sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return rpl_int(acc->as.i + v->as.i);
}

/* map(+1) -> filter(even) -> scan(sum) over src (+1). */
static rpl_signal_t *chain(rpl_signal_t *src) {
    rpl_signal_t *m = rpl_signal_map(src, plus1, NULL, NULL);
    rpl_signal_t *f = rpl_signal_filter(m, even, NULL, NULL);
    rpl_signal_t *s = rpl_signal_scan(f, rpl_int(0), sum, NULL, NULL);
    rpl_release(f);
    rpl_release(m);
    return s;
}

/* Sends `events` ints into a fresh subject observed through `build` (or
   directly when NULL) by `on_next`; ns per source event, *allocs per event. */
static double subject_run_to(rpl_signal_t *(*build)(rpl_signal_t *), void (*on_next)(void *ctx, const rpl_value *v),
                             long events, int64_t *result, double *allocs) {
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        rpl_subject_t *subject = rpl_subject_create();
        rpl_signal_t *sig = build ? build((rpl_signal_t *)subject) : rpl_retain((rpl_signal_t *)subject);
        int64_t total = 0;
        rpl_disposable_t *d = rpl_signal_subscribe_next(sig, on_next, &total);
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        for (long i = 0; i < events; i++) rpl_subject_send_next(subject, rpl_int(i));
        double ns = (bench_now() - t0) * 1e9 / (double)events;
        uint64_t a1 = bench_allocations();
        if (ns < best) {
            best = ns;
            *allocs = (double)(a1 - a0) / (double)events;
        }
        *result = total;
        rpl_release(d);
        rpl_release(sig);
        rpl_release(subject);
    }
    return best;
}

static double subject_run(rpl_signal_t *(*build)(rpl_signal_t *), long events, int64_t *result, double *allocs) {
    return subject_run_to(build, on_int, events, result, allocs);
}

/* buffer(16): one tuple per 16 source events; the subscriber adds up the
   tuples' sizes. */
#define BUFFER_COUNT 16
static rpl_signal_t *buffered(rpl_signal_t *src) { return rpl_signal_buffer(src, BUFFER_COUNT); }
static void on_tuple(void *ctx, const rpl_value *v) { *(int64_t *)ctx += (int64_t)rpl_value_tuple_count(v); }

static rpl_disposable_t *send_ints(void *ctx, rpl_subscriber_t *s) {
    long n = *(const long *)ctx;
    for (long i = 0; i < n; i++) rpl_subscriber_send_next(s, rpl_int(i));
    rpl_subscriber_send_completed(s);
    return NULL;
}

void bench_operators(void) {
    long n = EVENTS;
    int64_t total = 0;
    double allocs = 0, ns;

    ns = subject_run(NULL, n, &total, &allocs);
    bench_row("subject -> C (no operator, 10M)", ns, "source event", allocs);

    ns = subject_run(chain, n, &total, &allocs);
    /* scan sends the running sum of the even values 2..n: the last one is
       (n/2)(n/2 + 1); on_int adds up every running sum, so only check it is
       positive and the chain ran. */
    if (total <= 0) fprintf(stderr, "bench_operators: the chain produced nothing\n");
    bench_row("subject -> map -> filter -> scan -> C (10M)", ns, "source event", allocs);

    ns = subject_run_to(buffered, on_tuple, n, &total, &allocs);
    if (total != n - n % BUFFER_COUNT) fprintf(stderr, "bench_operators: buffer delivered %lld values\n", (long long)total);
    bench_row("subject -> buffer(16) -> C (10M)", ns, "source event", allocs);

    /* The same chain over a cold signal whose subscribe callback loops. */
    rpl_signal_t *src = rpl_signal_create(send_ints, &n, NULL);
    rpl_signal_t *c = chain(src);
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        rpl_disposable_t *d = rpl_signal_subscribe_next(c, on_int, &total);
        double t = (bench_now() - t0) * 1e9 / (double)n;
        uint64_t a1 = bench_allocations();
        rpl_release(d);
        if (t < best) {
            best = t;
            allocs = (double)(a1 - a0) / (double)n;
        }
    }
    bench_row("cold loop -> map -> filter -> scan -> C (10M)", best, "source event", allocs);
    rpl_release(c);
    rpl_release(src);
}
