/* Subject rows of `make bench`: a plain subject to 1 and to 100 subscribers
   (with, as a reference, the same walk over 100 written in C), and a replay
   subject of capacity 1 to 10 subscribers (ns per delivery), plus subscribe
   + dispose on a subject. */
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

/* A reference for the 100-subscriber row: the walk a subject's send needs
   for its guarantees, in C, with no Ripple code and the same callback. Per
   send: one CAS takes the gate (rule 4), a plain store lets it go. Per
   subscriber: its slot read afresh after every call (a callback may join
   or leave, which moves slots), an empty slot skipped (a leave empties its
   slot, so removal is O(1)), the closed check (rule 6: no value after a
   dispose) and the delivery count around the call (a callback may dispose
   and release its own subscription, which must outlive the call). The
   registry is a global, so the compiler reloads it after each call as
   Ripple must. Best of 3, ns per delivery. */
typedef struct {
    uint32_t state; /* bit 2: closed */
    int32_t deliveries;
    void (*next)(void *, const rpl_value *);
    void *ctx;
} walk_member;
static struct {
    walk_member **slots;
    long count;
    uint64_t gate;
} walk_registry;

static void walk_send(const rpl_value *v) {
    uint64_t expected = 0;
    if (!__atomic_compare_exchange_n(&walk_registry.gate, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    long n = walk_registry.count;
    for (long i = 0; i < n; i++) {
        walk_member *m = walk_registry.slots[i];
        if (!m) continue;
        m->deliveries++;
        if (!(m->state & 4)) m->next(m->ctx, v);
        m->deliveries--;
    }
    __atomic_store_n(&walk_registry.gate, 0, __ATOMIC_RELEASE);
}

static void walk_row(int subs, long events) {
    int64_t sum = 0;
    walk_member members[128];
    walk_member *slots[128];
    for (int i = 0; i < subs; i++) {
        members[i] = (walk_member){ 0, 0, on_int, &sum };
        slots[i] = &members[i];
    }
    walk_registry.slots = slots;
    walk_registry.count = subs;
    double best = 1e9;
    long deliveries = events * subs;
    for (int round = 0; round < 3; round++) {
        double t0 = bench_now();
        for (long i = 0; i < events; i++) {
            rpl_value v = rpl_int(i);
            walk_send(&v);
        }
        double ns = (bench_now() - t0) * 1e9 / (double)deliveries;
        if (ns < best) best = ns;
    }
    int64_t expect = 3 * (int64_t)subs * (int64_t)events * (events - 1) / 2;
    if (sum != expect) fprintf(stderr, "bench_subjects: the C walk: wrong sum %lld\n", (long long)sum);
    bench_row("  reference: the same walk in C (best)", best, "delivery", 0);
}

void bench_subjects(void) {
    rpl_subject_t *s = rpl_subject_create();
    subject_row("subject -> 1 subscriber (10M)", s, 1, 10 * 1000 * 1000L);
    rpl_release(s);

    s = rpl_subject_create();
    subject_row("subject -> 100 subscribers (100k x 100)", s, 100, 100 * 1000L);
    rpl_release(s);
    walk_row(100, 100 * 1000L);

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
