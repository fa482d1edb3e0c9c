/* Subject rows of `make bench`: a plain subject to 1 and to 100 subscribers,
   and a replay subject of capacity 1 to 10 subscribers (ns per delivery),
   plus subscribe + dispose on a subject. */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>

static void on_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }

/* Sends `events` ints into s with `subs` subscribers; best of 3, in ns per
   delivery (one event to one subscriber). */
static void subject_row(const char *name, rpl_subject_t *s, int subs, long events) {
    int64_t sum = 0;
    rpl_disposable_t *d[128];
    for (int i = 0; i < subs; i++) d[i] = rpl_signal_subscribe_next((rpl_signal_t *)s, on_int, &sum);
    double best = 1e9, allocs = 0;
    long deliveries = events * subs;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        for (long i = 0; i < events; i++) rpl_subject_send_next(s, rpl_int(i));
        double ns = (bench_now() - t0) * 1e9 / (double)deliveries;
        allocs = (double)(bench_allocations() - a0) / (double)deliveries;
        if (ns < best) best = ns;
    }
    int64_t expect = 3 * (int64_t)subs * (int64_t)events * (events - 1) / 2;
    if (sum != expect) fprintf(stderr, "bench_subjects: %s: wrong sum %lld\n", name, (long long)sum);
    bench_row(name, best, "delivery", allocs);
    for (int i = 0; i < subs; i++) rpl_release(d[i]);
}

void bench_subjects(void) {
    rpl_subject_t *s = rpl_subject_create();
    subject_row("subject -> 1 subscriber (10M)", s, 1, 10 * 1000 * 1000L);
    rpl_release(s);

    s = rpl_subject_create();
    subject_row("subject -> 100 subscribers (100k x 100)", s, 100, 100 * 1000L);
    rpl_release(s);

    s = rpl_replay_subject_create(1);
    subject_row("replay(1) subject -> 10 subscribers (1M x 10)", s, 10, 1000 * 1000L);
    rpl_release(s);

    /* subscribe + dispose + release on a plain subject with 10 others. */
    s = rpl_subject_create();
    int64_t sum = 0;
    rpl_disposable_t *others[10];
    for (int i = 0; i < 10; i++) others[i] = rpl_signal_subscribe_next((rpl_signal_t *)s, on_int, &sum);
    const long pairs = 300 * 1000L;
    double best = 1e9, allocs = 0;
    for (int round = 0; round < 3; round++) {
        uint64_t a0 = bench_allocations();
        double t0 = bench_now();
        for (long i = 0; i < pairs; i++) {
            rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_int, &sum);
            rpl_disposable_dispose(d);
            rpl_release(d);
        }
        double ns = (bench_now() - t0) * 1e9 / (double)pairs;
        allocs = (double)(bench_allocations() - a0) / (double)pairs;
        if (ns < best) best = ns;
    }
    bench_row("subject: subscribe + dispose + release (300k)", best, "pair", allocs);
    for (int i = 0; i < 10; i++) rpl_release(others[i]);
    rpl_release(s);
}
