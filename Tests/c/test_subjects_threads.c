#define _DEFAULT_SOURCE
/* Subjects under threads: concurrent sends, subscribes and disposals with
   exact counts, replay order under concurrent sends, cross-thread sends
   between callbacks (no deadlock), and bounded subscribe time while others
   keep sending (no starvation). */
#include "check.h"
#define REC_LOG_RELEASE 1 /* logs end in "R": the release comes last */
#include "recorder.h"
#include <pthread.h>
#include <ripple.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

enum { THREADS = 4, SUBS = 4 };

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A watchdog: a deadlock fails the test instead of hanging it. */
static void *watchdog(void *p) {
    (void)p;
    sleep(240);
    fprintf(stderr, "FAIL: watchdog: a test did not finish (deadlock?)\n");
    _exit(3);
}

typedef enum { PLAIN, BEHAVIOR, REPLAY1, REPLAY_ALL } subject_kind;
static const char *kind_name[] = {"plain", "behavior", "replay(1)", "replay(unlimited)"};
static rpl_subject_t *make_subject(subject_kind k) {
    switch (k) {
    case PLAIN: return rpl_subject_create();
    case BEHAVIOR: return rpl_behavior_subject_create(rpl_int(-1));
    case REPLAY1: return rpl_replay_subject_create(1);
    default: return rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    }
}

/* --- concurrent senders: exact counts, serialized callbacks, per-thread order */
typedef struct {
    atomic_int busy;
    int overlaps, disorder;
    long count;
    long last[THREADS];
    int completed, released;
} counter_t;
static void counter_next(void *ctx, const rpl_value *v) {
    counter_t *c = ctx;
    if (atomic_exchange(&c->busy, 1)) c->overlaps++;
    int64_t x = rpl_value_int(v);
    if (x >= 0) {
        int t = (int)(x / 1000000);
        long i = (long)(x % 1000000);
        if (i <= c->last[t]) c->disorder++;
        c->last[t] = i;
        c->count++;
    }
    atomic_store(&c->busy, 0);
}
static void counter_completed(void *ctx) { ((counter_t *)ctx)->completed++; }
static void counter_release(void *ctx) { ((counter_t *)ctx)->released++; }
static rpl_disposable_t *counter_sub(rpl_subject_t *s, counter_t *c) {
    memset(c, 0, sizeof *c);
    for (int i = 0; i < THREADS; i++) c->last[i] = -1;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = counter_next;
    o.on_completed = counter_completed;
    o.release = counter_release;
    o.ctx = c;
    return rpl_signal_subscribe((rpl_signal_t *)s, &o);
}

typedef struct { rpl_subject_t *s; int id; long n; } sender_t;
static void *sender(void *p) {
    sender_t *a = p;
    for (long i = 0; i < a->n; i++) rpl_subject_send_next(a->s, rpl_int((int64_t)a->id * 1000000 + i));
    return NULL;
}

static void test_concurrent_senders(void) {
    long n = test_scale(20000, 500);
    for (subject_kind k = PLAIN; k <= REPLAY_ALL; k++) {
        rpl_subject_t *s = make_subject(k);
        counter_t c[SUBS];
        rpl_disposable_t *d[SUBS];
        for (int i = 0; i < SUBS; i++) d[i] = counter_sub(s, &c[i]);
        pthread_t t[THREADS];
        sender_t a[THREADS];
        for (int i = 0; i < THREADS; i++) {
            a[i] = (sender_t){s, i, n};
            pthread_create(&t[i], NULL, sender, &a[i]);
        }
        for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
        rpl_subject_send_completed(s);
        for (int i = 0; i < SUBS; i++) {
            if (c[i].count != THREADS * n || c[i].overlaps || c[i].disorder || c[i].completed != 1 || c[i].released != 1)
                fprintf(stderr, "    %s subscriber %d\n", kind_name[k], i);
            CHECK_EQ_INT(c[i].count, THREADS * n);
            CHECK_EQ_INT(c[i].overlaps, 0);
            CHECK_EQ_INT(c[i].disorder, 0);
            CHECK_EQ_INT(c[i].completed, 1);
            CHECK_EQ_INT(c[i].released, 1);
            rpl_release(d[i]);
        }
        rpl_release(s);
    }
}

/* --- senders, subscribers and disposers at once */
typedef struct { rpl_subject_t *s; long n; long subs; atomic_long *released; } churn_t;
static void churn_release(void *ctx) { atomic_fetch_add((atomic_long *)ctx, 1); }
static void churn_next(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static void *churner(void *p) {
    churn_t *a = p;
    for (long i = 0; i < a->n; i++) {
        rpl_observer o = RPL_OBSERVER_INIT;
        o.on_next = churn_next;
        o.release = churn_release;
        o.ctx = a->released;
        rpl_disposable_t *d = rpl_signal_subscribe((rpl_signal_t *)a->s, &o);
        a->subs++;
        if (i % 3 != 0) rpl_disposable_dispose(d); /* others end with the subject */
        rpl_release(d);
    }
    return NULL;
}
static void test_churn(void) {
    long n = test_scale(1500, 100);
    for (subject_kind k = PLAIN; k <= REPLAY_ALL; k++) {
        rpl_subject_t *s = make_subject(k);
        atomic_long released = 0;
        counter_t steady;
        rpl_disposable_t *ds = counter_sub(s, &steady);
        pthread_t t[4];
        sender_t snd[2];
        churn_t ch[2];
        for (int i = 0; i < 2; i++) {
            snd[i] = (sender_t){s, i, n * 2};
            ch[i] = (churn_t){s, n, 0, &released};
            pthread_create(&t[i], NULL, sender, &snd[i]);
            pthread_create(&t[2 + i], NULL, churner, &ch[i]);
        }
        for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
        CHECK_EQ_INT(steady.count, 2 * 2 * n);
        CHECK_EQ_INT(steady.overlaps, 0);
        CHECK_EQ_INT(steady.disorder, 0);
        long subs = ch[0].subs + ch[1].subs;
        CHECK(atomic_load(&released) < subs);
        rpl_subject_send_completed(s);
        CHECK_EQ_INT(atomic_load(&released), subs); /* every subscription ended once */
        CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
        rpl_release(ds);
        rpl_release(s);
    }
}

/* --- a subject fed by sources on several threads (rpl_signal_subscribe_subject) */
typedef struct { int id; long n; } feed_t;
static rpl_disposable_t *feed_subscribe(void *ctx, rpl_subscriber_t *s) {
    feed_t *f = ctx;
    for (long i = 0; i < f->n; i++) rpl_subscriber_send_next(s, rpl_int((int64_t)f->id * 1000000 + i));
    return NULL; /* never completes */
}
typedef struct { rpl_subject_t *s; feed_t f; rpl_disposable_t *d; } feeder_t;
static void *feeder(void *p) {
    feeder_t *a = p;
    rpl_signal_t *src = rpl_signal_create(feed_subscribe, &a->f, NULL);
    a->d = rpl_signal_subscribe_subject(src, a->s);
    rpl_release(src);
    return NULL;
}
static void test_fed_from_threads(void) {
    long n = test_scale(20000, 500);
    for (subject_kind k = PLAIN; k <= REPLAY_ALL; k++) {
        rpl_subject_t *s = make_subject(k);
        counter_t c;
        rpl_disposable_t *dc = counter_sub(s, &c);
        pthread_t t[THREADS];
        feeder_t a[THREADS];
        for (int i = 0; i < THREADS; i++) {
            a[i] = (feeder_t){s, {i, n}, NULL};
            pthread_create(&t[i], NULL, feeder, &a[i]);
        }
        for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
        CHECK_EQ_INT(c.count, THREADS * n);
        CHECK_EQ_INT(c.overlaps, 0);
        CHECK_EQ_INT(c.disorder, 0);
        rpl_subject_send_completed(s);
        for (int i = 0; i < THREADS; i++) {
            CHECK(rpl_disposable_is_disposed(a[i].d)); /* the terminal disposed every source */
            rpl_release(a[i].d);
        }
        CHECK_EQ_INT(c.completed, 1);
        rpl_release(dc);
        rpl_release(s);
    }
}

/* --- replay order under concurrent sends (RAC: "should send values in the
   same order live as when replaying") */
typedef struct { int64_t *v; long n; int completed; } seq_t;
static void seq_next(void *ctx, const rpl_value *v) { seq_t *s = ctx; s->v[s->n++] = rpl_value_int(v); }
static void seq_completed(void *ctx) { ((seq_t *)ctx)->completed++; }
static rpl_disposable_t *seq_sub(rpl_subject_t *s, seq_t *q, long cap) {
    q->v = calloc((size_t)cap, sizeof(int64_t));
    q->n = 0;
    q->completed = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = seq_next;
    o.on_completed = seq_completed;
    o.ctx = q;
    return rpl_signal_subscribe((rpl_signal_t *)s, &o);
}
typedef struct { rpl_subject_t *s; seq_t *q; long cap; rpl_disposable_t *d; } joiner_t;
static void *join_midway(void *p) {
    joiner_t *j = p;
    usleep(1000);
    j->d = seq_sub(j->s, j->q, j->cap);
    return NULL;
}
static void test_replay_order(void) {
    long n = test_scale(10000, 300);
    long cap = THREADS * n + 1;
    rpl_subject_t *s = rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    seq_t live, mid, late;
    rpl_disposable_t *dl = seq_sub(s, &live, cap);
    pthread_t t[THREADS], tj;
    sender_t a[THREADS];
    joiner_t j = {s, &mid, cap, NULL};
    for (int i = 0; i < THREADS; i++) {
        a[i] = (sender_t){s, i, n};
        pthread_create(&t[i], NULL, sender, &a[i]);
    }
    pthread_create(&tj, NULL, join_midway, &j);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_join(tj, NULL);
    rpl_subject_send_completed(s);
    rpl_disposable_t *dt = seq_sub(s, &late, cap);
    CHECK_EQ_INT(live.n, THREADS * n);
    CHECK_EQ_INT(mid.n, THREADS * n);
    CHECK_EQ_INT(late.n, THREADS * n);
    CHECK(memcmp(live.v, late.v, (size_t)live.n * sizeof(int64_t)) == 0);
    CHECK(memcmp(live.v, mid.v, (size_t)live.n * sizeof(int64_t)) == 0);
    CHECK(live.completed == 1 && mid.completed == 1 && late.completed == 1);
    free(live.v);
    free(mid.v);
    free(late.v);
    rpl_release(dl);
    rpl_release(j.d);
    rpl_release(dt);
    rpl_release(s);

    /* capacity 1: a late joiner's first value is the latest at its join, and
       what follows is exactly the live order from there */
    s = rpl_replay_subject_create(1);
    dl = seq_sub(s, &live, cap);
    j = (joiner_t){s, &mid, cap, NULL};
    for (int i = 0; i < THREADS; i++) {
        a[i].s = s;
        pthread_create(&t[i], NULL, sender, &a[i]);
    }
    pthread_create(&tj, NULL, join_midway, &j);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_join(tj, NULL);
    rpl_subject_send_completed(s);
    CHECK(mid.n >= 1);
    long off = -1;
    for (long i = 0; i < live.n; i++) if (live.v[i] == mid.v[0]) { off = i; break; }
    CHECK(off >= 0);
    CHECK_EQ_INT(live.n - off, mid.n);
    if (off >= 0 && live.n - off == mid.n)
        CHECK(memcmp(live.v + off, mid.v, (size_t)mid.n * sizeof(int64_t)) == 0);
    free(live.v);
    free(mid.v);
    rpl_release(dl);
    rpl_release(j.d);
    rpl_release(s);
}

/* --- cross-thread sends between callbacks: no deadlock, nothing lost */
typedef struct { rpl_subject_t *other; atomic_long *delivered; } ping_t;
static void ping_next(void *ctx, const rpl_value *v) {
    ping_t *p = ctx;
    atomic_fetch_add(p->delivered, 1);
    int64_t x = rpl_value_int(v);
    if (x > 0) rpl_subject_send_next(p->other, rpl_int(x - 1));
}
typedef struct { rpl_subject_t *s; long n; int depth; } pinger_t;
static void *pinger(void *p) {
    pinger_t *a = p;
    for (long i = 0; i < a->n; i++) rpl_subject_send_next(a->s, rpl_int(a->depth));
    return NULL;
}
static void test_cross_thread(void) {
    long n = test_scale(5000, 200);
    int depth = 4;
    for (subject_kind k = PLAIN; k <= REPLAY_ALL; k += 2) { /* plain and replay(1) */
        rpl_subject_t *s1 = make_subject(k), *s2 = make_subject(k);
        atomic_long delivered = 0;
        ping_t p1 = {s2, &delivered}, p2 = {s1, &delivered};
        rpl_disposable_t *d1 = rpl_signal_subscribe_next((rpl_signal_t *)s1, ping_next, &p1);
        rpl_disposable_t *d2 = rpl_signal_subscribe_next((rpl_signal_t *)s2, ping_next, &p2);
        long base = atomic_load(&delivered); /* replay(1) subjects are empty: 0 */
        pthread_t t[2];
        pinger_t a[2] = {{s1, n, depth}, {s2, n, depth}};
        for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, pinger, &a[i]);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        /* each send of `depth` bounces depth times: depth + 1 deliveries */
        CHECK_EQ_INT(atomic_load(&delivered) - base, 2 * n * (depth + 1));
        rpl_release(d1);
        rpl_release(d2);
        rpl_release(s1);
        rpl_release(s2);
    }
}

/* --- no starvation: subscribe returns in bounded time while others send */
typedef struct { rpl_subject_t *s; atomic_int *stop; } flood_t;
static void *flooder(void *p) {
    flood_t *f = p;
    int64_t i = 0;
    while (!atomic_load(f->stop)) rpl_subject_send_next(f->s, rpl_int(i++));
    return NULL;
}
static void slow_next(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static void test_no_starvation(void) {
    long rounds = test_scale(200, 20);
    for (subject_kind k = PLAIN; k <= REPLAY_ALL; k++) {
        rpl_subject_t *s = make_subject(k == REPLAY_ALL ? REPLAY1 : k);
        rpl_disposable_t *steady = rpl_signal_subscribe_next((rpl_signal_t *)s, slow_next, NULL);
        atomic_int stop = 0;
        flood_t f = {s, &stop};
        pthread_t t[3];
        for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, flooder, &f);
        double worst = 0;
        for (long r = 0; r < rounds; r++) {
            double t0 = now_s();
            rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, slow_next, NULL);
            rpl_subject_send_next(s, rpl_int(-1));
            double dt = now_s() - t0;
            if (dt > worst) worst = dt;
            rpl_disposable_dispose(d);
            rpl_release(d);
        }
        atomic_store(&stop, 1);
        for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
        if (worst >= 2.0) fprintf(stderr, "    %s: worst subscribe+send %.3f s\n", kind_name[k], worst);
        CHECK(worst < 2.0);
        rpl_release(steady);
        rpl_release(s);
    }
}

/* --- subscriptions kept for reuse (test_subjects.c) across threads: one
   disposed on another thread while a third sends, then released and revived
   here; the ones a thread keeps are freed when it exits (the leak checkers
   see it). Each subscription's release runs once. */
static rpl_disposable_t *churn_sub(rpl_subject_t *s, atomic_long *released) {
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = churn_next;
    o.release = churn_release;
    o.ctx = released;
    return rpl_signal_subscribe((rpl_signal_t *)s, &o);
}
static void *disposer(void *p) {
    rpl_disposable_dispose(p);
    return NULL;
}
static void *reuse_and_exit(void *p) {
    churn_t *a = p;
    for (long i = 0; i < a->n; i++) {
        rpl_disposable_t *d[4];
        for (int k = 0; k < 4; k++) d[k] = churn_sub(a->s, a->released);
        for (int k = 0; k < 4; k++) {
            rpl_disposable_dispose(d[k]);
            rpl_release(d[k]);
        }
        a->subs += 4;
    }
    return NULL;
}
static void test_reuse_across_threads(void) {
    long n = test_scale(200, 20);
    size_t before = check_live_now();
    rpl_subject_t *s = rpl_subject_create();
    atomic_long released = 0;
    sender_t snd = {s, 0, n * 50};
    pthread_t ts, t;
    pthread_create(&ts, NULL, sender, &snd);
    for (long i = 0; i < n; i++) {
        rpl_disposable_t *d = churn_sub(s, &released);
        pthread_create(&t, NULL, disposer, d);
        pthread_join(t, NULL);
        rpl_release(d);
    }
    churn_t c = {s, n, 0, &released};
    pthread_create(&t, NULL, reuse_and_exit, &c);
    pthread_join(t, NULL);
    pthread_join(ts, NULL);
    CHECK_EQ_INT(atomic_load(&released), n + c.subs);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
    rpl_release(s);
    CHECK_EQ_INT(check_live_now(), before);
}

int main(void) {
    pthread_t w;
    pthread_create(&w, NULL, watchdog, NULL);
    pthread_detach(w);
    RUN(test_concurrent_senders);
    RUN(test_churn);
    RUN(test_fed_from_threads);
    RUN(test_replay_order);
    RUN(test_cross_thread);
    RUN(test_no_starvation);
    RUN(test_reuse_across_threads);
    CHECK_DONE();
}
