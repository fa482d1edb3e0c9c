/* Combining operators: merge, combine_latest, zip, concat, start_with, then,
   take_until. */
#include "ops2_support.h"
#include <pthread.h>

typedef rpl_signal_t *(*array_op)(rpl_signal_t *const *, size_t);

/* Bad input common to the array operators. */
static void check_array_bad_input(array_op op) {
    CHECK(op(NULL, 2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_signal_t *ok = rpl_signal_empty();
    rpl_signal_t *with_null[2] = {ok, NULL};
    CHECK(op(with_null, 2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_error_t *e = test_error(1);
    rpl_signal_t *wrong[2] = {ok, (rpl_signal_t *)e};
    CHECK(op(wrong, 2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(op(&ok, (size_t)-1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    rpl_release(e);
    rpl_release(ok);
}

/* Zero inputs complete at once (rule 20), also with a NULL array. */
static void check_array_empty(array_op op) {
    rec_t r;
    rpl_signal_t *m = op(NULL, 0);
    CHECK(m != NULL);
    CHECK_STR(rec_run(m, &r), "C");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(m);
}

/* Disposing the result disposes every input; release runs once. */
static void check_array_dispose(array_op op) {
    src_t a, b;
    rpl_signal_t *in[2] = {src_make(&a, NULL), src_make(&b, NULL)};
    rpl_signal_t *m = op(in, 2);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(m, &r);
    CHECK_EQ_INT(a.nsubs, 1);
    CHECK_EQ_INT(b.nsubs, 1);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    src_send(&a, 0, "1 C");  /* ignored after dispose */
    CHECK_STR(r.log, "");
    rpl_release(d);
    rpl_release(m);
    src_drop(&a);
    src_drop(&b);
    rpl_release(in[0]);
    rpl_release(in[1]);
    CHECK_EQ_INT(a.released, 1);
    CHECK_EQ_INT(b.released, 1);
}

/* An error of any input ends everything and disposes the others. */
static void check_array_error(array_op op) {
    src_t a, b;
    rpl_signal_t *in[2] = {src_make(&a, NULL), src_make(&b, NULL)};
    rpl_signal_t *m = op(in, 2);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(m, &r);
    src_send(&b, 0, "E5");
    CHECK_STR(r.log, "E5");
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    src_send(&a, 0, "1 2 C");
    CHECK_STR(r.log, "E5");
    rpl_release(d);
    rpl_release(m);
    src_drop(&a);
    src_drop(&b);
    rpl_release(in[0]);
    rpl_release(in[1]);

    /* Inputs after one that fails synchronously are not subscribed. */
    rpl_error_t *e = test_error(6);
    rpl_signal_t *in2[2] = {rpl_signal_error(e), src_make(&a, NULL)};
    m = op(in2, 2);
    CHECK_STR(rec_run(m, &r), "E6");
    CHECK_EQ_INT(a.nsubs, 0);
    rpl_release(m);
    rpl_release(in2[0]);
    rpl_release(in2[1]);
    rpl_release(e);
}

/* Rule 6a: releasing every handle without disposing frees the subscription
   (its release runs without a terminal event). */
static void check_array_no_cycle(array_op op) {
    src_t a, b;
    rpl_signal_t *in[2] = {src_make(&a, NULL), src_make(&b, NULL)};
    rpl_signal_t *m = op(in, 2);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(m, &r);
    rpl_release(d);
    rpl_release(m);
    rpl_release(in[0]);
    rpl_release(in[1]);
    CHECK_EQ_INT(r.released, 0);  /* the sources can still send */
    src_send(&a, 0, "1");
    src_drop(&a);
    CHECK_EQ_INT(r.released, 0);
    src_drop(&b);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(r.completed + r.errors, 0);
    CHECK_EQ_INT(a.released, 1);
    CHECK_EQ_INT(b.released, 1);
}

static void check_array_common(array_op op) {
    check_array_bad_input(op);
    check_array_empty(op);
    check_array_dispose(op);
    check_array_error(op);
    check_array_no_cycle(op);
}

/* ------------------------------------------------------------------ merge */
static void test_merge(void) {
    src_t a, b;
    rpl_signal_t *in[2] = {src_make(&a, "1 2 C"), rpl_signal_return(rpl_int(3))};
    rpl_signal_t *m = rpl_signal_merge(in, 2);
    rec_t r;
    CHECK_STR(rec_run(m, &r), "1 2 3 C");
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(a.disposed, 1);
    rpl_release(m);
    rpl_release(in[0]);
    rpl_release(in[1]);
    src_drop(&a);

    /* Interleaving; completes after all inputs. */
    rpl_signal_t *hot[2] = {src_make(&a, NULL), src_make(&b, NULL)};
    m = rpl_signal_merge(hot, 2);
    rpl_disposable_t *d = rec_subscribe(m, &r);
    src_send(&a, 0, "1");
    src_send(&b, 0, "2");
    src_send(&a, 0, "3 C");
    CHECK_STR(r.log, "1 2 3");
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(b.disposed, 0);
    src_send(&b, 0, "4 C");
    CHECK_STR(r.log, "1 2 3 4 C");
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    /* Each subscription is independent (cold). */
    d = rec_subscribe(m, &r);
    CHECK_EQ_INT(a.nsubs, 2);
    src_send(&a, 1, "7 C");
    src_send(&b, 1, "C");
    CHECK_STR(r.log, "7 C");
    rpl_release(d);
    rpl_release(m);
    src_drop(&a);
    src_drop(&b);
    rpl_release(hot[0]);
    rpl_release(hot[1]);

    check_array_common(rpl_signal_merge);
}

/* Rule 3: the result ends while an endless synchronous input is still
   inside its subscribe: it stops, and later inputs are not subscribed. */
static void test_merge_endless_input(void) {
    src_t t, b;
    rpl_signal_t *st = src_make(&t, NULL);
    rpl_signal_t *one = rpl_signal_return(rpl_int(1));
    rpl_signal_t *forever = rpl_signal_repeat(one, RPL_FOREVER_COUNT);
    rpl_signal_t *in[2] = {forever, src_make(&b, NULL)};
    rpl_signal_t *m = rpl_signal_merge(in, 2);
    rpl_signal_t *tu = rpl_signal_take_until(m, st);
    stopper_t stop;
    rpl_disposable_t *d = stopper_subscribe(tu, &stop, &t, 4);
    CHECK_STR(stop.rec.log, "1 1 1 1 C");
    CHECK_EQ_INT(b.nsubs, 0);
    rpl_release(d);
    rpl_release(tu);
    rpl_release(m);
    rpl_release(in[1]);
    rpl_release(forever);
    rpl_release(one);
    src_drop(&t);
    rpl_release(st);
}

/* Several threads feed different inputs: exact counts, callbacks never overlap. */
typedef struct {
    src_t src;
    long count;
    int64_t base;
} feeder_t;

static void *feed(void *arg) {
    feeder_t *f = arg;
    for (long i = 0; i < f->count; i++) rpl_subscriber_send_next(f->src.subs[0], rpl_int(f->base + i));
    rpl_subscriber_send_completed(f->src.subs[0]);
    return NULL;
}

typedef struct {
    atomic_int inside, overlap;
    long count, completed, released;
    int64_t sum;
} sum_t;

static void sum_next(void *ctx, const rpl_value *v) {
    sum_t *s = ctx;
    if (atomic_fetch_add(&s->inside, 1) != 0) atomic_store(&s->overlap, 1);
    s->count++;  /* unsynchronized on purpose: serialization makes it exact */
    s->sum += rpl_value_int(v);
    atomic_fetch_sub(&s->inside, 1);
}
static void sum_completed(void *ctx) { ((sum_t *)ctx)->completed++; }
static void sum_release(void *ctx) { ((sum_t *)ctx)->released++; }

static void test_merge_threads(void) {
    enum { N = 4 };
    long k = test_scale(200000, 5000);
    static feeder_t f[N];
    rpl_signal_t *in[N];
    for (int i = 0; i < N; i++) {
        in[i] = src_make(&f[i].src, NULL);
        f[i].count = k;
        f[i].base = (int64_t)i * 1000000000LL;
    }
    rpl_signal_t *m = rpl_signal_merge(in, N);
    sum_t s;
    memset(&s, 0, sizeof s);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = sum_next;
    o.on_completed = sum_completed;
    o.release = sum_release;
    o.ctx = &s;
    rpl_disposable_t *d = rpl_signal_subscribe(m, &o);
    pthread_t t[N];
    for (int i = 0; i < N; i++) pthread_create(&t[i], NULL, feed, &f[i]);
    for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
    int64_t want = 0;
    for (int i = 0; i < N; i++) want += f[i].base * k + (int64_t)k * (k - 1) / 2;
    CHECK_EQ_INT(s.count, N * k);
    CHECK(s.sum == want);
    CHECK_EQ_INT(s.completed, 1);
    CHECK_EQ_INT(s.released, 1);
    CHECK_EQ_INT(atomic_load(&s.overlap), 0);
    rpl_release(d);
    rpl_release(m);
    for (int i = 0; i < N; i++) {
        src_drop(&f[i].src);
        rpl_release(in[i]);
    }
}

/* Zip fed by two threads: tuples pair the i-th values, in order. */
typedef struct {
    atomic_int inside, overlap;
    long next, bad, completed;
} pairs_t;

static void pairs_next(void *ctx, const rpl_value *v) {
    pairs_t *p = ctx;
    if (atomic_fetch_add(&p->inside, 1) != 0) atomic_store(&p->overlap, 1);
    rpl_value a = rpl_value_tuple_at(v, 0), b = rpl_value_tuple_at(v, 1);
    if (rpl_value_int(&a) != p->next || rpl_value_int(&b) != p->next) p->bad++;
    p->next++;
    rpl_value_release(&a);
    rpl_value_release(&b);
    atomic_fetch_sub(&p->inside, 1);
}
static void pairs_completed(void *ctx) { ((pairs_t *)ctx)->completed++; }

static void test_zip_threads(void) {
    long k = test_scale(100000, 3000);
    static feeder_t f[2];
    rpl_signal_t *in[2];
    for (int i = 0; i < 2; i++) {
        in[i] = src_make(&f[i].src, NULL);
        f[i].count = k;
        f[i].base = 0;
    }
    rpl_signal_t *z = rpl_signal_zip(in, 2);
    pairs_t p;
    memset(&p, 0, sizeof p);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = pairs_next;
    o.on_completed = pairs_completed;
    o.ctx = &p;
    rpl_disposable_t *d = rpl_signal_subscribe(z, &o);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, feed, &f[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK_EQ_INT(p.next, k);
    CHECK_EQ_INT(p.bad, 0);
    CHECK_EQ_INT(p.completed, 1);
    CHECK_EQ_INT(atomic_load(&p.overlap), 0);
    rpl_release(d);
    rpl_release(z);
    for (int i = 0; i < 2; i++) {
        src_drop(&f[i].src);
        rpl_release(in[i]);
    }
}

/* --------------------------------------------------------- combine_latest */
static void test_combine_latest(void) {
    src_t a, b;
    rpl_signal_t *in[2] = {src_make(&a, NULL), src_make(&b, NULL)};
    rpl_signal_t *c = rpl_signal_combine_latest(in, 2);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(c, &r);
    src_send(&a, 0, "1");
    CHECK_STR(r.log, "");  /* waits for a value from every input */
    src_send(&b, 0, "10");
    src_send(&a, 0, "2");
    CHECK_STR(r.log, "(1,10) (2,10)");
    src_send(&a, 0, "C");
    CHECK_STR(r.log, "(1,10) (2,10)");  /* not until all complete */
    src_send(&b, 0, "11");
    src_send(&b, 0, "C");
    CHECK_STR(r.log, "(1,10) (2,10) (2,11) C");
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, &b);

    /* An input completing without a value: no tuples, completion at the end. */
    d = rec_subscribe(c, &r);
    src_send(&a, 0, "C");
    src_send(&b, 0, "5 6");
    CHECK_STR(r.log, "");
    src_send(&b, 0, "C");
    CHECK_STR(r.log, "C");
    rpl_release(d);
    rpl_release(c);
    src_drop(&a);
    src_drop(&b);
    rpl_release(in[0]);
    rpl_release(in[1]);

    /* The same signal twice; one input gives 1-tuples; strings are carried. */
    rpl_signal_t *one = rpl_signal_return(rpl_string("x"));
    rpl_signal_t *twice[2] = {one, one};
    c = rpl_signal_combine_latest(twice, 2);
    CHECK_STR(rec_run(c, &r), "(x,x) C");
    rpl_release(c);
    c = rpl_signal_combine_latest(&one, 1);
    CHECK_STR(rec_run(c, &r), "(x) C");
    rpl_release(c);
    rpl_release(one);

    check_array_common(rpl_signal_combine_latest);
}

/* -------------------------------------------------------------------- zip */
static void test_zip(void) {
    src_t a, b;
    rpl_signal_t *sync[2] = {src_make(&a, "1 2 3 C"), src_make(&b, "10 20 C")};
    rpl_signal_t *z = rpl_signal_zip(sync, 2);
    rec_t r;
    CHECK_STR(rec_run(z, &r), "(1,10) (2,20) C");
    rpl_release(z);
    src_drop(&a);
    src_drop(&b);
    rpl_release(sync[0]);
    rpl_release(sync[1]);

    rpl_signal_t *in[2] = {src_make(&a, NULL), src_make(&b, NULL)};
    z = rpl_signal_zip(in, 2);
    rpl_disposable_t *d = rec_subscribe(z, &r);
    src_send(&a, 0, "1 2");
    src_send(&b, 0, "10");
    CHECK_STR(r.log, "(1,10)");
    src_send(&b, 0, "11 12");
    CHECK_STR(r.log, "(1,10) (2,11)");
    /* a completed with its queue empty: done, b disposed. */
    src_send(&a, 0, "C");
    CHECK_STR(r.log, "(1,10) (2,11) C");
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, &b);

    /* a completes with values queued: waits until they are used up. */
    d = rec_subscribe(z, &r);
    src_send(&a, 0, "1 2 C");
    CHECK_STR(r.log, "");
    src_send(&b, 0, "10");
    CHECK_STR(r.log, "(1,10)");
    src_send(&b, 0, "20");
    CHECK_STR(r.log, "(1,10) (2,20) C");
    src_round_end(d, &a, &b);

    /* An error after completion is ignored; a queued value is released. */
    d = rec_subscribe(z, &r);
    src_send(&a, 0, "1 C");
    src_send(&b, 0, "2 E3");
    CHECK_STR(r.log, "(1,2) C");
    src_round_end(d, &a, &b);
    rpl_release(z);
    rpl_release(in[0]);
    rpl_release(in[1]);

    /* Queued boxed values are released when the subscription ends. */
    rpl_signal_t *s1 = rpl_signal_return(rpl_string("kept"));
    rpl_signal_t *never = rpl_signal_never();
    rpl_signal_t *pair[2] = {s1, never};
    z = rpl_signal_zip(pair, 2);
    CHECK_STR(rec_run(z, &r), "");
    rpl_release(z);
    rpl_release(s1);
    rpl_release(never);

    check_array_common(rpl_signal_zip);
}

/* ----------------------------------------------------------------- concat */
static void test_concat(void) {
    src_t a, b;
    rpl_signal_t *sa = src_make(&a, "1 2 C");
    rpl_signal_t *three = rpl_signal_return(rpl_int(3));
    rpl_signal_t *c = rpl_signal_concat(sa, three);
    rec_t r;
    CHECK_STR(rec_run(c, &r), "1 2 3 C");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(c);
    rpl_release(sa);
    src_drop(&a);

    /* b is subscribed only when a completes. */
    sa = src_make(&a, NULL);
    rpl_signal_t *sb = src_make(&b, NULL);
    c = rpl_signal_concat(sa, sb);
    rpl_disposable_t *d = rec_subscribe(c, &r);
    src_send(&a, 0, "1");
    CHECK_EQ_INT(b.nsubs, 0);
    src_send(&a, 0, "C");
    CHECK_EQ_INT(b.nsubs, 1);
    src_send(&b, 0, "2");
    CHECK_STR(r.log, "1 2");
    rpl_disposable_dispose(d);  /* disposes the running second input */
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, &b);

    /* Disposal while the first runs disposes it; b never starts. */
    d = rec_subscribe(c, &r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 2);
    src_send(&a, 0, "C");
    CHECK_EQ_INT(b.nsubs, 0);
    src_round_end(d, &a, NULL);

    /* An error of a ends it; b is never subscribed. */
    d = rec_subscribe(c, &r);
    src_send(&a, 0, "1 E4");
    CHECK_STR(r.log, "1 E4");
    CHECK_EQ_INT(b.nsubs, 0);
    src_round_end(d, &a, NULL);
    rpl_release(c);

    /* Concat of concats. */
    rpl_signal_t *c2 = rpl_signal_concat(three, three);
    rpl_signal_t *c3 = rpl_signal_concat(c2, c2);
    CHECK_STR(rec_run(c3, &r), "3 3 3 3 C");
    rpl_release(c2);
    rpl_release(c3);

    /* Rule 6a. */
    c = rpl_signal_concat(sa, sb);
    d = rec_subscribe(c, &r);
    rpl_release(d);
    rpl_release(c);
    src_send(&a, 0, "C");
    src_drop(&a);
    CHECK_EQ_INT(r.released, 0);
    src_drop(&b);
    CHECK_EQ_INT(r.released, 1);

    check_pair_bad_input(rpl_signal_concat);
    rpl_release(sa);
    rpl_release(sb);
    rpl_release(three);
}

/* ------------------------------------------------------------- start_with */
static void test_start_with(void) {
    src_t a;
    rpl_signal_t *sa = src_make(&a, "1 C");
    rpl_signal_t *s = rpl_signal_start_with(sa, rpl_int(0));
    rec_t r;
    CHECK_STR(rec_run(s, &r), "0 1 C");
    CHECK_STR(rec_run(s, &r), "0 1 C");  /* each subscriber gets it */
    rpl_release(s);
    src_drop(&a);

    s = rpl_signal_start_with(sa, rpl_string("first"));  /* boxed: each gets a reference */
    CHECK_STR(rec_run(s, &r), "first 1 C");
    rpl_release(s);
    src_drop(&a);
    rpl_release(sa);

    /* Disposal and errors pass through. */
    sa = src_make(&a, NULL);
    s = rpl_signal_start_with(sa, rpl_int(0));
    rpl_disposable_t *d = rec_subscribe(s, &r);
    src_send(&a, 0, "5 E2");
    CHECK_STR(r.log, "0 5 E2");
    rpl_release(d);
    d = rec_subscribe(s, &r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 2);
    rpl_release(d);
    rpl_release(s);
    src_drop(&a);

    /* Bad input consumes the value (valgrind checks the string is freed). */
    CHECK(rpl_signal_start_with(NULL, rpl_string("leak?")) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_start_with((rpl_signal_t *)e, rpl_string("leak?")) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(e);
    rpl_release(sa);
}

/* ------------------------------------------------------------------- then */
static void test_then(void) {
    src_t a, b;
    rpl_signal_t *sa = src_make(&a, "1 2 C");
    rpl_signal_t *nine = rpl_signal_return(rpl_int(9));
    rpl_signal_t *t = rpl_signal_then(sa, nine);
    rec_t r;
    CHECK_STR(rec_run(t, &r), "9 C");
    rpl_release(t);
    rpl_release(sa);
    src_drop(&a);

    sa = src_make(&a, NULL);
    rpl_signal_t *sb = src_make(&b, NULL);
    t = rpl_signal_then(sa, sb);
    rpl_disposable_t *d = rec_subscribe(t, &r);
    src_send(&a, 0, "1 E3");
    CHECK_STR(r.log, "E3");
    CHECK_EQ_INT(b.nsubs, 0);
    rpl_release(d);
    d = rec_subscribe(t, &r);
    src_send(&a, 1, "C");
    CHECK_EQ_INT(b.nsubs, 1);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(b.disposed, 1);
    rpl_release(d);
    rpl_release(t);
    src_drop(&a);
    src_drop(&b);

    check_pair_bad_input(rpl_signal_then);
    rpl_release(sa);
    rpl_release(sb);
    rpl_release(nine);
}

/* ------------------------------------------------------------- take_until */
static void test_take_until(void) {
    src_t a, t;
    rpl_signal_t *sa = src_make(&a, NULL);
    rpl_signal_t *st = src_make(&t, NULL);
    rpl_signal_t *tu = rpl_signal_take_until(sa, st);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(tu, &r);
    src_send(&a, 0, "1 2");
    src_send(&t, 0, "0");
    src_send(&a, 0, "3");
    CHECK_STR(r.log, "1 2 C");
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(t.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, &t);

    /* Trigger completion ends it too; a trigger error is ignored. */
    d = rec_subscribe(tu, &r);
    src_send(&t, 0, "E9");
    src_send(&a, 0, "1");
    CHECK_STR(r.log, "1");
    src_round_end(d, &a, &t);
    d = rec_subscribe(tu, &r);
    src_send(&a, 0, "1");
    src_send(&t, 0, "C");
    CHECK_STR(r.log, "1 C");
    src_round_end(d, &a, &t);

    /* Source completion or error ends it and disposes the trigger. */
    d = rec_subscribe(tu, &r);
    src_send(&a, 0, "4 C");
    CHECK_STR(r.log, "4 C");
    CHECK_EQ_INT(t.disposed, 4);
    src_round_end(d, &a, &t);
    d = rec_subscribe(tu, &r);
    src_send(&a, 0, "E2");
    CHECK_STR(r.log, "E2");
    rpl_release(d);
    /* Disposal disposes both. */
    src_drop(&a);
    src_drop(&t);
    d = rec_subscribe(tu, &r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 6);
    CHECK_EQ_INT(t.disposed, 6);
    rpl_release(d);
    rpl_release(tu);
    src_drop(&a);
    src_drop(&t);

    /* A trigger firing at subscription: the source is never subscribed. */
    rpl_signal_t *empty = rpl_signal_empty();
    int before = a.nsubs;
    tu = rpl_signal_take_until(sa, empty);
    CHECK_STR(rec_run(tu, &r), "C");
    CHECK_EQ_INT(a.nsubs, before);
    rpl_release(tu);

    check_pair_bad_input(rpl_signal_take_until);
    rpl_release(empty);
    rpl_release(sa);
    rpl_release(st);
    CHECK_EQ_INT(a.released, 1);
    CHECK_EQ_INT(t.released, 1);
}

int main(void) {
    RUN(test_merge);
    RUN(test_merge_endless_input);
    RUN(test_merge_threads);
    RUN(test_combine_latest);
    RUN(test_zip);
    RUN(test_zip_threads);
    RUN(test_concat);
    RUN(test_start_with);
    RUN(test_then);
    RUN(test_take_until);
    CHECK_DONE();
}
