/* Higher-order operators: bind, flatten_map, flatten, switch_to_latest. */
#include "ops2_support.h"
#include <pthread.h>

static void send_signal(src_t *src, int i, rpl_signal_t *s) {
    rpl_subscriber_send_next(src->subs[i], rpl_signal_value(s));
}

/* ------------------------------------------------------------------- bind */
typedef struct {
    int calls;
    int64_t stop_at;     /* set *stop at this value (0: never) */
    int64_t nil_at;      /* return NULL at this value (0: never) */
    int64_t error_at;    /* return a failing signal at this value */
    int64_t bad_at;      /* return a non-signal handle at this value */
    rpl_signal_t *inner; /* if set, returned (retained) instead of return(v*10) */
} bind_ctx;

static rpl_signal_t *binder(void *ctx, const rpl_value *v, bool *stop) {
    bind_ctx *b = ctx;
    int64_t x = rpl_value_int(v);
    b->calls++;
    if (x == b->stop_at) *stop = true;
    if (x == b->nil_at) return NULL;
    if (x == b->error_at) {
        rpl_error_t *e = test_error(x);
        rpl_signal_t *s = rpl_signal_error(e);
        rpl_release(e);
        return s;
    }
    if (x == b->bad_at) return (rpl_signal_t *)rpl_error_create(NULL, 0, "not a signal");
    if (b->inner) return rpl_retain(b->inner);
    return rpl_signal_return(rpl_int(x * 10));
}

static void test_bind(void) {
    src_t a, in;
    rec_t r;
    bind_ctx b = {0};
    ctx_releases = 0;

    /* Maps each value to a signal and passes its values on. */
    rpl_signal_t *sa = src_make(&a, "1 2 3 C");
    rpl_signal_t *s = rpl_signal_bind(sa, binder, &b, count_release);
    CHECK_STR(rec_run(s, &r), "10 20 30 C");
    CHECK_EQ_INT(r.released, 1);
    /* stop with a signal: the signal is subscribed, then the source disposed. */
    b.stop_at = 2;
    CHECK_STR(rec_run(s, &r), "10 20 C");
    /* NULL stops the source at once. */
    b.stop_at = 0;
    b.nil_at = 2;
    b.calls = 0;
    CHECK_STR(rec_run(s, &r), "10 C");
    CHECK_EQ_INT(b.calls, 2);
    /* An inner error ends everything; later source values are not bound. */
    b.nil_at = 0;
    b.error_at = 1;
    b.calls = 0;
    CHECK_STR(rec_run(s, &r), "E1");
    CHECK_EQ_INT(b.calls, 1);
    /* A non-signal handle from the callback fails with RPL_ERROR_CALLBACK. */
    b.error_at = 0;
    b.bad_at = 2;
    CHECK_STR(rec_run(s, &r), "10 E3");
    CHECK_EQ_INT(r.error_code, RPL_ERROR_CALLBACK);
    b.bad_at = 0;
    rpl_release(s);
    rpl_release(sa);
    src_drop(&a);
    CHECK_EQ_INT(ctx_releases, 1);

    /* Hot source and hot inners: inners run concurrently; completion waits
       for the source and every inner; stop leaves running inners alone. */
    ctx_releases = 0;
    sa = src_make(&a, NULL);
    rpl_signal_t *sin = src_make(&in, NULL);
    b.inner = sin;
    s = rpl_signal_bind(sa, binder, &b, count_release);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 2");
    CHECK_EQ_INT(in.nsubs, 2);
    src_send(&in, 1, "20");
    src_send(&in, 0, "10");
    src_send(&a, 0, "C");
    src_send(&in, 0, "C");
    CHECK_STR(r.log, "20 10");
    src_send(&in, 1, "21 C");
    CHECK_STR(r.log, "20 10 21 C");
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(in.disposed, 2);
    src_round_end(d, &a, &in);

    b.stop_at = 2;
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 2");
    CHECK_EQ_INT(a.disposed, 2);  /* the source is stopped */
    src_send(&a, 0, "3");
    CHECK_EQ_INT(in.nsubs, 2);
    src_send(&in, 0, "5 C");
    src_send(&in, 1, "6");
    CHECK_STR(r.log, "5 6");
    src_send(&in, 1, "C");
    CHECK_STR(r.log, "5 6 C");
    src_round_end(d, &a, &in);
    b.stop_at = 0;

    /* Source error, inner error: everything disposed. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1");
    src_send(&a, 0, "E4");
    CHECK_STR(r.log, "E4");
    CHECK_EQ_INT(in.disposed, 5);
    src_round_end(d, &a, &in);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 2");
    src_send(&in, 1, "E5");
    CHECK_STR(r.log, "E5");
    CHECK_EQ_INT(a.disposed, 4);
    CHECK_EQ_INT(in.disposed, 7);
    src_round_end(d, &a, &in);

    /* Disposal disposes the source and every inner. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 2");
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 5);
    CHECK_EQ_INT(in.disposed, 9);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, &in);

    /* Rule 6a: no cycle once the sources are gone. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1");
    src_round_end(d, &a, NULL);
    CHECK_EQ_INT(r.released, 0);  /* the inner can still send */
    src_send(&in, 0, "8");
    src_drop(&in);
    CHECK_STR(r.log, "8");
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(ctx_releases, 0);
    rpl_release(s);
    CHECK_EQ_INT(ctx_releases, 1);
    rpl_release(sa);
    rpl_release(sin);
    CHECK_EQ_INT(a.released, 1);
    CHECK_EQ_INT(in.released, 1);

    CHECK_CALLBACK_BAD_INPUT(rpl_signal_bind, binder, &b);
}

/* ------------------------------------------------------------ flatten_map */
typedef struct {
    rpl_signal_t *inner;  /* if set: returned (retained) for every value */
} fm_ctx;

static rpl_signal_t *plus_one_or_nil(void *ctx, const rpl_value *v) {
    fm_ctx *f = ctx;
    if (f && f->inner) return rpl_retain(f->inner);
    int64_t x = rpl_value_int(v);
    if (x % 2) return NULL;  /* odd: empty */
    if (x == 4) return rpl_signal_empty();
    if (x == 6) {             /* not a fast path */
        rpl_signal_t *one = rpl_signal_return(rpl_int(x + 1));
        rpl_signal_t *c = rpl_signal_concat(one, one);
        rpl_release(one);
        return c;
    }
    return rpl_signal_return(rpl_int(x + 1));
}

static void test_flatten_map(void) {
    src_t a, in;
    rec_t r;
    ctx_releases = 0;
    rpl_signal_t *sa = src_make(&a, "1 2 3 4 5 6 C");
    rpl_signal_t *s = rpl_signal_flatten_map(sa, plus_one_or_nil, NULL, count_release);
    CHECK_STR(rec_run(s, &r), "3 7 7 C");  /* NULL is empty: the source goes on */
    rpl_release(s);
    rpl_release(sa);
    src_drop(&a);
    CHECK_EQ_INT(ctx_releases, 1);

    /* Hot inners merge; completion after the source and every inner. */
    ctx_releases = 0;
    fm_ctx f = {0};
    sa = src_make(&a, NULL);
    f.inner = src_make(&in, NULL);
    s = rpl_signal_flatten_map(sa, plus_one_or_nil, &f, count_release);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 2 C");
    src_send(&in, 0, "1");
    src_send(&in, 1, "2 C");
    src_send(&in, 0, "3");
    CHECK_STR(r.log, "1 2 3");
    src_send(&in, 0, "C");
    CHECK_STR(r.log, "1 2 3 C");
    src_round_end(d, &a, &in);

    /* Inner error ends it; disposal disposes source and inners. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 2");
    src_send(&in, 0, "E8");
    CHECK_STR(r.log, "E8");
    CHECK_EQ_INT(in.disposed, 4);
    CHECK_EQ_INT(a.disposed, 2);
    src_round_end(d, &a, &in);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1");
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 3);
    CHECK_EQ_INT(in.disposed, 5);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, &in);

    /* Many inners that complete later: their tokens are dropped as they end. */
    d = rec_subscribe(s, &r);
    long n = test_scale(50, 50);  /* bounded by SRC_MAX_SUBS */
    for (long i = 0; i < n; i++) src_send(&a, 0, "1");
    for (long i = 0; i < n; i++) src_send(&in, (int)i, "C");
    src_send(&a, 0, "C");
    CHECK_STR(r.log, "C");
    src_round_end(d, &a, &in);

    rpl_release(s);
    CHECK_EQ_INT(ctx_releases, 1);
    rpl_release(f.inner);
    rpl_release(sa);

    /* Rule 3: the result ends while an endless synchronous inner is still
       inside its subscribe; the inner stops at once. */
    src_t t;
    rpl_signal_t *st = src_make(&t, NULL);
    rpl_signal_t *one = rpl_signal_return(rpl_int(1));
    f.inner = rpl_signal_repeat(one, RPL_FOREVER_COUNT);
    sa = rpl_signal_return(rpl_int(0));
    s = rpl_signal_flatten_map(sa, plus_one_or_nil, &f, NULL);
    rpl_signal_t *tu = rpl_signal_take_until(s, st);
    stopper_t stop;
    d = stopper_subscribe(tu, &stop, &t, 3);
    CHECK_STR(stop.rec.log, "1 1 1 C");
    CHECK_EQ_INT(stop.rec.released, 1);
    rpl_release(d);
    rpl_release(tu);
    rpl_release(s);
    rpl_release(sa);
    rpl_release(f.inner);
    rpl_release(one);
    src_drop(&t);
    rpl_release(st);

    CHECK_CALLBACK_BAD_INPUT(rpl_signal_flatten_map, plus_one_or_nil, NULL);
}

/* ---------------------------------------------------------------- flatten */
static void test_flatten(void) {
    src_t o, a, b;
    rec_t r;
    rpl_signal_t *so = src_make(&o, NULL);
    rpl_signal_t *sa = src_make(&a, NULL);
    rpl_signal_t *sb = src_make(&b, NULL);
    rpl_signal_t *f = rpl_signal_flatten(so);
    rpl_disposable_t *d = rec_subscribe(f, &r);
    send_signal(&o, 0, sa);
    send_signal(&o, 0, sb);
    rpl_subscriber_send_next(o.subs[0], rpl_nil());  /* nil: empty */
    src_send(&b, 0, "2");
    src_send(&a, 0, "1 C");
    src_send(&o, 0, "C");
    CHECK_STR(r.log, "2 1");
    src_send(&b, 0, "C");
    CHECK_STR(r.log, "2 1 C");
    src_round_end(d, &o, &a);
    src_drop(&b);

    /* A non-signal value fails the result; the inners are disposed. */
    d = rec_subscribe(f, &r);
    send_signal(&o, 0, sa);
    rpl_subscriber_send_next(o.subs[0], rpl_int(5));
    CHECK_STR(r.log, "E1");
    CHECK_EQ_INT(r.error_code, RPL_ERROR_GENERIC);
    CHECK_EQ_INT(a.disposed, 2);
    CHECK_EQ_INT(o.disposed, 2);
    src_round_end(d, &o, &a);

    /* Disposal. */
    d = rec_subscribe(f, &r);
    send_signal(&o, 0, sa);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 3);
    CHECK_EQ_INT(o.disposed, 3);
    src_round_end(d, &o, &a);
    rpl_release(f);

    CHECK(rpl_signal_flatten(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_flatten((rpl_signal_t *)e) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(e);
    rpl_release(so);
    rpl_release(sa);
    rpl_release(sb);
}

/* Inner subjects that start and end while others stay open (the shape the
   bench's w6 counts): each completed inner ends and is let go at once, its
   values are all delivered, later sends to it are not, and the result
   completes only when the outer and every inner have. Open inners end
   newest first, then oldest first (the flatten's holds are popped, then
   holed). Inners that terminated before they were sent (a replay subject
   with values, a plain one) replay and complete at once. */
static void test_flatten_inner_subjects(void) {
    enum { OPEN = 40, CHURN = 100 };
    rec_t r;
    rpl_subject_t *outer = rpl_subject_create();
    rpl_signal_t *f = rpl_signal_flatten(rpl_subject_as_signal(outer));
    rpl_disposable_t *d = rec_subscribe(f, &r);
    rpl_subject_t *open[OPEN];
    for (int i = 0; i < OPEN; i++) {
        open[i] = rpl_subject_create();
        CHECK_EQ_INT(rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(open[i]))), RPL_OK);
        CHECK_EQ_INT(rpl_subject_subscriber_count(open[i]), 1);
    }
    for (int k = 0; k < CHURN; k++) {
        rpl_subject_t *in = rpl_subject_create();
        rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(in)));
        rpl_subject_send_next(in, rpl_int(k));
        rpl_subject_send_completed(in);
        CHECK_EQ_INT(rpl_subject_subscriber_count(in), 0);
        rpl_subject_send_next(in, rpl_int(-1));  /* after its end: dropped */
        rpl_release(in);
    }
    CHECK_EQ_INT(r.n, CHURN);
    for (int k = 0; k < CHURN; k++) CHECK_EQ_INT(r.ints[k], k);

    rpl_subject_t *replay = rpl_replay_subject_create(2);
    rpl_subject_send_next(replay, rpl_int(500));
    rpl_subject_send_next(replay, rpl_int(501));
    rpl_subject_send_completed(replay);
    rpl_subject_t *ended = rpl_subject_create();
    rpl_subject_send_completed(ended);
    rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(replay)));
    rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(ended)));
    rpl_release(replay);
    rpl_release(ended);
    CHECK_EQ_INT(r.n, CHURN + 2);
    CHECK_EQ_INT(r.ints[CHURN], 500);
    CHECK_EQ_INT(r.ints[CHURN + 1], 501);

    rpl_subject_send_completed(outer);
    int order[OPEN], n = 0;
    for (int i = OPEN - 1; i >= OPEN / 2; i--) order[n++] = i;
    for (int i = 0; i < OPEN / 2; i++) order[n++] = i;
    for (int j = 0; j < OPEN; j++) {
        int i = order[j];
        CHECK_EQ_INT(r.completed, 0);
        rpl_subject_send_next(open[i], rpl_int(1000 + i));
        rpl_subject_send_completed(open[i]);
        CHECK_EQ_INT(r.ints[CHURN + 2 + j], 1000 + i);
        CHECK_EQ_INT(rpl_subject_subscriber_count(open[i]), 0);
        rpl_release(open[i]);
    }
    CHECK_EQ_INT(r.n, CHURN + 2 + OPEN);
    CHECK_EQ_INT(r.completed, 1);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(r.after_terminal, 0);
    rpl_release(d);
    rpl_release(f);
    rpl_release(outer);
}

/* ------------------------------------------------------- switch_to_latest */
static void test_switch_to_latest(void) {
    src_t o, a, b;
    rec_t r;
    rpl_signal_t *so = src_make(&o, NULL);
    rpl_signal_t *sa = src_make(&a, NULL);
    rpl_signal_t *sb = src_make(&b, NULL);
    rpl_signal_t *sw = rpl_signal_switch_to_latest(so);
    rpl_disposable_t *d = rec_subscribe(sw, &r);
    send_signal(&o, 0, sa);
    src_send(&a, 0, "1");
    send_signal(&o, 0, sb);
    CHECK_EQ_INT(a.disposed, 1);  /* the previous inner is cut */
    src_send(&a, 0, "2");
    src_send(&b, 0, "3");
    src_send(&o, 0, "C");
    CHECK_STR(r.log, "1 3");     /* outer done, latest inner still running */
    src_send(&b, 0, "4 C");
    CHECK_STR(r.log, "1 3 4 C");
    src_round_end(d, &o, &a);
    src_drop(&b);

    /* Outer completes while the latest inner never does: no completion. A
       completed older inner does not count. */
    d = rec_subscribe(sw, &r);
    send_signal(&o, 0, sa);
    send_signal(&o, 0, sb);
    src_send(&a, 0, "C");
    src_send(&o, 0, "C");
    CHECK_STR(r.log, "");
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(b.disposed, 2);
    src_round_end(d, &o, &a);
    src_drop(&b);

    /* Synchronous inners are delivered; nil is an empty inner. */
    rpl_signal_t *one = rpl_signal_return(rpl_int(1));
    d = rec_subscribe(sw, &r);
    send_signal(&o, 0, one);
    send_signal(&o, 0, sa);
    rpl_subscriber_send_next(o.subs[0], rpl_nil());
    CHECK_EQ_INT(a.disposed, 3);
    src_send(&o, 0, "C");
    CHECK_STR(r.log, "1 C");
    src_round_end(d, &o, &a);

    /* Errors: the latest inner's, the outer's, a non-signal value. */
    d = rec_subscribe(sw, &r);
    send_signal(&o, 0, sa);
    src_send(&a, 0, "E2");
    CHECK_STR(r.log, "E2");
    CHECK_EQ_INT(o.disposed, 4);
    src_round_end(d, &o, &a);
    d = rec_subscribe(sw, &r);
    send_signal(&o, 0, sa);
    src_send(&o, 0, "E3");
    CHECK_STR(r.log, "E3");
    CHECK_EQ_INT(a.disposed, 5);
    src_round_end(d, &o, &a);
    d = rec_subscribe(sw, &r);
    rpl_subscriber_send_next(o.subs[0], rpl_string("no"));
    CHECK_STR(r.log, "E1");
    src_round_end(d, &o, NULL);

    /* Disposal disposes the outer and the current inner; rule 6a. */
    d = rec_subscribe(sw, &r);
    send_signal(&o, 0, sa);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(o.disposed, 7);
    CHECK_EQ_INT(a.disposed, 6);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &o, &a);
    d = rec_subscribe(sw, &r);
    send_signal(&o, 0, sa);
    src_round_end(d, &o, NULL);
    CHECK_EQ_INT(r.released, 0);
    src_drop(&a);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(sw);

    CHECK(rpl_signal_switch_to_latest(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_switch_to_latest((rpl_signal_t *)e) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_flatten_map((rpl_signal_t *)e, plus_one_or_nil, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(e);
    rpl_release(one);
    rpl_release(so);
    rpl_release(sa);
    rpl_release(sb);
    CHECK_EQ_INT(o.released, 1);
    CHECK_EQ_INT(a.released, 1);
}

/* ------------------------------------------ flatten_map across threads */
/* Each inner signal hands its subscriber to a new thread, which sends one
   value and completes, racing with flatten_map holding the inner. */
#define RACE_MAX 4000
static pthread_t race_threads[RACE_MAX];
static atomic_int race_count;

static void *race_body(void *arg) {
    rpl_subscriber_t *s = arg;
    rpl_subscriber_send_next(s, rpl_int(1));
    rpl_subscriber_send_completed(s);
    rpl_release(s);
    return NULL;
}
static rpl_disposable_t *race_subscribe(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    int i = atomic_fetch_add(&race_count, 1);
    pthread_create(&race_threads[i], NULL, race_body, rpl_retain(s));
    return NULL;
}
static rpl_signal_t *to_racer(void *ctx, const rpl_value *v) {
    (void)v;
    return rpl_retain(ctx);
}

typedef struct {
    atomic_int inside, overlap, count, completed, released;
} tally_t;
static void tally_next(void *ctx, const rpl_value *v) {
    tally_t *t = ctx;
    (void)v;
    if (atomic_fetch_add(&t->inside, 1) != 0) atomic_store(&t->overlap, 1);
    atomic_fetch_add(&t->count, 1);
    atomic_fetch_sub(&t->inside, 1);
}
static void tally_completed(void *ctx) { atomic_fetch_add(&((tally_t *)ctx)->completed, 1); }
static void tally_release(void *ctx) { atomic_fetch_add(&((tally_t *)ctx)->released, 1); }

static void test_flatten_map_threads(void) {
    long n = test_scale(2000, 200);
    if (n > RACE_MAX) n = RACE_MAX;
    atomic_store(&race_count, 0);
    src_t a;
    rpl_signal_t *sa = src_make(&a, NULL);
    rpl_signal_t *racer = rpl_signal_create(race_subscribe, NULL, NULL);
    rpl_signal_t *fm = rpl_signal_flatten_map(sa, to_racer, racer, NULL);
    tally_t t;
    memset(&t, 0, sizeof t);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = tally_next;
    o.on_completed = tally_completed;
    o.release = tally_release;
    o.ctx = &t;
    rpl_disposable_t *d = rpl_signal_subscribe(fm, &o);
    for (long i = 0; i < n; i++) src_send(&a, 0, "1");
    src_send(&a, 0, "C");
    for (int i = 0; i < atomic_load(&race_count); i++) pthread_join(race_threads[i], NULL);
    CHECK_EQ_INT(atomic_load(&race_count), n);
    CHECK_EQ_INT(atomic_load(&t.count), n);
    CHECK_EQ_INT(atomic_load(&t.completed), 1);
    CHECK_EQ_INT(atomic_load(&t.released), 1);
    CHECK_EQ_INT(atomic_load(&t.overlap), 0);
    rpl_release(d);
    rpl_release(fm);
    rpl_release(racer);
    rpl_release(sa);
    src_drop(&a);
}

int main(void) {
    RUN(test_bind);
    RUN(test_flatten_map);
    RUN(test_flatten_map_threads);
    RUN(test_flatten);
    RUN(test_flatten_inner_subjects);
    RUN(test_switch_to_latest);
    CHECK_DONE();
}
