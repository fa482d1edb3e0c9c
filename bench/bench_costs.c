/* Flat-cost rows of `make bench` (rule 23, issue 9): each cost
 * beside a large amount of unrelated state, next to the same cost beside
 * none, so a cost that grows with the state shows as a ratio between the two
 * rows.
 *
 * Some of these costs are linear in the state on runtimes that break rule 23,
 * so every measurement and every build of the state has a time budget: the
 * row then names how far it got (e.g. "beside 31k of 100k") instead of letting
 * `make bench` run for minutes. Times are the best chunk (other processes on
 * the machine can only make a chunk slower). */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>

#define OTHERS (100 * 1000L)
#define INNERS (20 * 1000L)
#define BUILD_BUDGET_S 8.0   /* building the unrelated state */
#define MEASURE_BUDGET_S 0.5 /* one row's measurement */

static void on_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }
static int64_t sink;

/* Runs op(ctx) in chunks of `chunk` for up to `max` operations or the budget;
   the best chunk's ns per operation (allocations per operation, over all
   chunks, in last_allocs). */
static double last_allocs;
static double best_chunk(void (*op)(void *ctx), void *ctx, long chunk, long max) {
    double best = 1e12, start = bench_now();
    uint64_t a0 = bench_allocations();
    long done = 0;
    while (done < max) {
        double t0 = bench_now();
        for (long i = 0; i < chunk; i++) op(ctx);
        double ns = (bench_now() - t0) * 1e9 / (double)chunk;
        done += chunk;
        if (ns < best) best = ns;
        if (bench_now() - start > MEASURE_BUDGET_S) break;
    }
    last_allocs = (double)(bench_allocations() - a0) / (double)done;
    return best;
}

/* A row whose name says how much state there was: fmt has one %s for "100k",
   or "31744/100k!" when the budget cut the build short. */
static void row_beside(const char *fmt, long built, long wanted, double ns, const char *unit) {
    char count[32], name[96];
    if (built == wanted) snprintf(count, sizeof count, "%ldk", built / 1000);
    else snprintf(count, sizeof count, "%ld/%ldk!", built, wanted / 1000);
    snprintf(name, sizeof name, fmt, count);
    bench_row(name, ns, unit, last_allocs);
}

/* ---- Subject: subscribe + dispose + release beside 0 and 100k subscribers --- */
static void subject_pair(void *ctx) {
    rpl_disposable_t *d = rpl_signal_subscribe_next(rpl_subject_as_signal(ctx), on_int, &sink);
    rpl_disposable_dispose(d);
    rpl_release(d);
}
/* Subscribes up to `want` subscribers within the budget; their handles go
   into ds (released, not disposed, by the caller: the subject's end frees
   them all at once). */
static long fill_subject(rpl_subject_t *s, rpl_disposable_t **ds, long want) {
    double start = bench_now();
    long n = 0;
    while (n < want) {
        ds[n] = rpl_signal_subscribe_next(rpl_subject_as_signal(s), on_int, &sink);
        n++;
        if ((n & 1023) == 0 && bench_now() - start > BUILD_BUDGET_S) break;
    }
    return n;
}
static void release_all(rpl_disposable_t **ds, long n) {
    for (long i = 0; i < n; i++) rpl_release(ds[i]);
}

static void subject_rows(void) {
    rpl_subject_t *s = rpl_subject_create();
    double ns = best_chunk(subject_pair, s, 1000, 300 * 1000L);
    bench_row("subject: subscribe + dispose, 0 others (best)", ns, "pair", last_allocs);
    rpl_release(s);

    s = rpl_subject_create();
    rpl_disposable_t **ds = malloc(sizeof *ds * OTHERS);
    long n = fill_subject(s, ds, OTHERS);
    row_beside("  same, beside %s subscribers", n, OTHERS, best_chunk(subject_pair, s, 100, 300 * 1000L), "pair");
    release_all(ds, n);
    rpl_release(s);

    /* A send to 1 subscriber, fresh, and after 100k subscribers came and went
       (a send costs O(live subscribers), not O(all that ever subscribed)). */
    for (int after = 0; after < 2; after++) {
        s = rpl_subject_create();
        long gone = 0;
        if (after) {
            double start = bench_now();
            while (gone < OTHERS && (gone & 1023 || bench_now() - start < BUILD_BUDGET_S)) {
                subject_pair(s);
                gone++;
            }
        }
        rpl_disposable_t *d = rpl_signal_subscribe_next(rpl_subject_as_signal(s), on_int, &sink);
        double best = 1e12;
        uint64_t a0 = bench_allocations();
        for (int round = 0; round < 10; round++) {
            double t0 = bench_now();
            for (long i = 0; i < 100 * 1000L; i++) rpl_subject_send_next(s, rpl_int(i));
            double ns = (bench_now() - t0) * 1e9 / 1e5;
            if (ns < best) best = ns;
        }
        last_allocs = (double)(bench_allocations() - a0) / 1e6;
        if (!after) bench_row("subject -> 1 subscriber, fresh (best)", best, "delivery", last_allocs);
        else row_beside("  same, after %s came and went", gone, OTHERS, best, "delivery");
        rpl_release(d);
        rpl_release(s);
    }
    free(ds);
}

/* ---- Compound disposable: add + remove beside 0 and 100k others ----------- */
typedef struct { rpl_disposable_t *compound, *d; } compound_ctx;
static void compound_pair(void *ctx) {
    compound_ctx *c = ctx;
    rpl_compound_disposable_add(c->compound, c->d);
    rpl_compound_disposable_remove(c->compound, c->d);
}
static void compound_rows(void) {
    compound_ctx c = { rpl_compound_disposable_create(), rpl_disposable_create(NULL, NULL) };
    double ns = best_chunk(compound_pair, &c, 1000, 1000 * 1000L);
    bench_row("compound: add + remove, 0 others (best)", ns, "pair", last_allocs);
    rpl_release(c.compound);

    c.compound = rpl_compound_disposable_create();
    double start = bench_now();
    long n = 0;
    while (n < OTHERS) {
        rpl_disposable_t *other = rpl_disposable_create(NULL, NULL);
        rpl_compound_disposable_add(c.compound, other);
        rpl_release(other);  /* the compound keeps it */
        n++;
        if ((n & 1023) == 0 && bench_now() - start > BUILD_BUDGET_S) break;
    }
    row_beside("  same, beside %s others", n, OTHERS, best_chunk(compound_pair, &c, 100, 1000 * 1000L),
               "pair");
    rpl_release(c.compound);
    rpl_release(c.d);
}

/* ---- flatten: one inner subscribed and completed, beside 0 and 20k live ---- */
static void inner_cycle(void *ctx) {
    rpl_subject_t *inner = rpl_subject_create();
    rpl_subject_send_next(ctx, rpl_signal_value(rpl_subject_as_signal(inner)));
    rpl_subject_send_completed(inner);
    rpl_release(inner);
}
static void flatten_rows(void) {
    for (int live = 0; live < 2; live++) {
        rpl_subject_t *outer = rpl_subject_create();
        rpl_signal_t *flat = rpl_signal_flatten(rpl_subject_as_signal(outer));
        rpl_disposable_t *d = rpl_signal_subscribe_next(flat, on_int, &sink);
        rpl_subject_t **inners = NULL;
        long n = 0;
        if (live) {
            inners = malloc(sizeof *inners * INNERS);
            double start = bench_now();
            while (n < INNERS) {
                inners[n] = rpl_subject_create();
                rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(inners[n])));
                n++;
                if ((n & 1023) == 0 && bench_now() - start > BUILD_BUDGET_S) break;
            }
        }
        double ns = best_chunk(inner_cycle, outer, live ? 100 : 1000, 200 * 1000L);
        if (!live) bench_row("flatten: 1 inner in + completed, 0 live (best)", ns, "inner", last_allocs);
        else row_beside("  same, beside %s live inners", n, INNERS, ns, "inner");
        for (long i = 0; i < n; i++) rpl_release(inners[i]);
        free(inners);
        rpl_release(d);
        rpl_release(flat);
        rpl_release(outer);
    }
}

/* ---- Cancelled scheduled work frees what it holds at cancellation --------
   1,000 items due in an hour on a serial scheduler, each disposed: the cost of
   a cancel, how many contexts were released by the time the disposes returned,
   and the heap bytes the cancelled items still hold (about 0 when cancelled
   work is freed at cancellation, not at its due time). The same for timeout:
   1,000 subscriptions to timeout(never, 1 h), disposed. Each batch runs twice
   and the second is measured, so tables that grew for the first (and keep
   their capacity) do not count. */
static long released_contexts;
static void count_release(void *ctx) { (void)ctx; __atomic_fetch_add(&released_contexts, 1, __ATOMIC_SEQ_CST); }
static void never_runs(void *ctx) { (void)ctx; }
enum { ITEMS = 1000 };
static const uint64_t HOUR_NS = 3600ULL * 1000 * 1000 * 1000;
static rpl_scheduler_t *cancel_sched;

/* after(1 h) x ITEMS, then each disposed; ns per cancel. */
static double after_batch(void *ctx) {
    (void)ctx;
    rpl_disposable_t *ds[ITEMS];
    for (int i = 0; i < ITEMS; i++) ds[i] = rpl_scheduler_after(cancel_sched, HOUR_NS, never_runs, NULL, count_release);
    double t0 = bench_now();
    for (int i = 0; i < ITEMS; i++) rpl_disposable_dispose(ds[i]);
    double ns = (bench_now() - t0) * 1e9 / ITEMS;
    for (int i = 0; i < ITEMS; i++) rpl_release(ds[i]);
    return ns;
}
/* ITEMS subscriptions to the timeout signal ctx, each disposed at once. */
static double timeout_batch(void *ctx) {
    for (int i = 0; i < ITEMS; i++) {
        rpl_disposable_t *d = rpl_signal_subscribe_next(ctx, on_int, &sink);
        rpl_disposable_dispose(d);
        rpl_release(d);
    }
    return 0;
}
/* Runs batch twice; heap bytes per item the second run left behind. */
static double held_per_item(double (*batch)(void *), void *ctx, double *ns) {
    batch(ctx);
    int64_t base = bench_live_bytes();
    *ns = batch(ctx);
    return (double)(bench_live_bytes() - base) / ITEMS;
}

static void cancel_rows(void) {
    cancel_sched = rpl_scheduler_create_serial("bench.cancel");
    double ns;
    double held = held_per_item(after_batch, NULL, &ns);
    long freed = __atomic_load_n(&released_contexts, __ATOMIC_SEQ_CST);
    char name[96];
    snprintf(name, sizeof name, "after(1 h) cancel (%ld/%d ctx freed at once)", freed, 2 * ITEMS);
    bench_row(name, ns, "cancel", 0);
    bench_value_row("  heap still held per cancelled after(1 h)", held, "bytes");

    rpl_signal_t *never = rpl_signal_never();
    rpl_signal_t *t = rpl_signal_timeout(never, HOUR_NS, cancel_sched);
    bench_value_row("  heap still held per disposed timeout(1 h)", held_per_item(timeout_batch, t, &ns), "bytes");
    rpl_release(t);
    rpl_release(never);
    rpl_release(cancel_sched);
}

/* ---- group_by: a value of an existing group, beside 0 and 100k other groups -- */
static rpl_value key_identity(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(v->as.i); }
static void group_value(void *ctx) { rpl_subject_send_next(ctx, rpl_int(0)); }
static void group_rows(void) {
    for (int others = 0; others <= 1; others++) {
        rpl_subject_t *subj = rpl_subject_create();
        rpl_signal_t *op = rpl_signal_group_by(rpl_subject_as_signal(subj), key_identity, NULL, NULL);
        rpl_disposable_t *d = rpl_signal_subscribe_next(op, on_int, &sink);
        long built = 1, want = others ? OTHERS : 1;
        double start = bench_now();
        rpl_subject_send_next(subj, rpl_int(0));
        while (built < want && bench_now() - start < BUILD_BUDGET_S) rpl_subject_send_next(subj, rpl_int(built++));
        double ns = best_chunk(group_value, subj, 10000, 1000000);
        if (!others) bench_row("group_by: value of a known group, 1 group (best)", ns, "value", last_allocs);
        else row_beside("group_by: value of a known group, beside %s groups", built, want, ns, "value");
        rpl_release(d);
        rpl_release(op);
        rpl_release(subj);
    }
}

/* ---- multicast: a connection through a subject made and freed, beside 0
   and 100k live connections through the same subject (each is told when the
   subject gets its first subscriber and loses its last) ---- */
typedef struct { rpl_signal_t *source; rpl_subject_t *through; } multicast_ctx;
static void multicast_cycle(void *ctx) {
    multicast_ctx *c = ctx;
    rpl_release(rpl_signal_multicast(c->source, c->through));
}
static void multicast_rows(void) {
    multicast_ctx c = { rpl_signal_never(), rpl_subject_create() };
    double ns = best_chunk(multicast_cycle, &c, 1000, 1000 * 1000L);
    bench_row("multicast: connection made + freed, 0 others (best)", ns, "connection", last_allocs);
    rpl_connection_t **others = malloc(sizeof *others * OTHERS);
    double start = bench_now();
    long n = 0;
    while (n < OTHERS) {
        others[n++] = rpl_signal_multicast(c.source, c.through);
        if ((n & 1023) == 0 && bench_now() - start > BUILD_BUDGET_S) break;
    }
    row_beside("  same, beside %s live connections through the subject", n, OTHERS,
               best_chunk(multicast_cycle, &c, 100, 1000 * 1000L), "connection");
    for (long i = 0; i < n; i++) rpl_release(others[i]);
    free(others);
    rpl_release(c.through);
    rpl_release(c.source);
}

void bench_costs(void) {
    subject_rows();
    compound_rows();
    flatten_rows();
    cancel_rows();
    group_rows();
    multicast_rows();
}
