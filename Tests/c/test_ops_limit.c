/* Limiting single-input operators: take, skip, take_last, take_while,
   skip_while. Each gets: values, completion, error propagation, disposal,
   release of ctx, restartability and bad input (ops_common.h); take also gets
   the never-completing source, re-entrant sends (rule 4) and
   concurrent senders. */
#include "ops_common.h"
#include <pthread.h>

static bool less_than_k(void *ctx, const rpl_value *v) {
    fnctx_t *c = ctx;
    c->calls++;
    return rpl_value_int(v) < c->k;
}
static bool at_most_1(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) <= 1; }
static bool below_3(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) < 3; }

static rpl_signal_t *make_take(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_take(s, 10); }
static rpl_signal_t *make_take1(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_take(s, 1); }
static rpl_signal_t *make_skip(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_skip(s, 2); }
static rpl_signal_t *make_take_last(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_take_last(s, 2); }
static rpl_signal_t *make_take_while(rpl_signal_t *s, fnctx_t *c) {
    c->k = 100;
    return rpl_signal_take_while(s, less_than_k, c, fnctx_release);
}
static rpl_signal_t *make_skip_while(rpl_signal_t *s, fnctx_t *c) {
    c->k = 100;
    return rpl_signal_skip_while(s, less_than_k, c, fnctx_release);
}

/* ---- take ---- */
static void test_take_values(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4, 5);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *t2 = rpl_signal_take(s, 2);
    CHECK_TWICE(t2, 1, 2);
    CHECK_EQ_INT(p.subscriptions, 2);
    CHECK_EQ_INT(p.disposals, 2);
    rpl_signal_t *t5 = rpl_signal_take(s, 5);
    CHECK_TWICE(t5, 1, 2, 3, 4, 5);
    rpl_signal_t *t9 = rpl_signal_take(s, 9);  /* n >= count: the source as it is */
    CHECK_TWICE(t9, 1, 2, 3, 4, 5);
    rpl_signal_t *tmax = rpl_signal_take(s, SIZE_MAX);
    CHECK_TWICE(tmax, 1, 2, 3, 4, 5);
    rpl_release(tmax);
    rpl_release(t9);
    rpl_release(t5);
    rpl_release(t2);

    /* take(0) completes at once without subscribing */
    int before = p.subscriptions;
    rpl_signal_t *t0 = rpl_signal_take(s, 0);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(t0, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_COMPLETED(r);
    CHECK_EQ_INT(r.released, 1);
    CHECK(rpl_disposable_is_disposed(d));
    CHECK_EQ_INT(p.subscriptions, before);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(t0);
    rpl_release(s);

    /* values then an error within n: the error passes */
    src_t f;
    SRC_INIT(&f, SRC_FAIL, 1, 2);
    rpl_signal_t *fs = src_signal(&f);
    rpl_signal_t *ft = rpl_signal_take(fs, 3);
    d = rec_subscribe(ft, &r);
    CHECK_SEQ(r, 1, 2);
    CHECK_FAILED(r, SRC_ERROR_CODE);
    rpl_release(d);
    rec_clear(&r);
    /* ... but not when take has completed first */
    rpl_signal_t *ft2 = rpl_signal_take(fs, 2);
    d = rec_subscribe(ft2, &r);
    CHECK_SEQ(r, 1, 2);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(ft2);
    rpl_release(ft);
    rpl_release(fs);

    common_checks(make_take, 0);
}

/* take(1) of a signal that never completes completes after the first value
   and disposes the source. */
static void test_take_never_completing(void) {
    src_t p;
    rpl_signal_t *s = src_open_signal(&p);
    rpl_signal_t *t = rpl_signal_take(s, 1);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(t, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_OPEN(r);
    rpl_subscriber_send_next(p.sub, rpl_int(5));
    CHECK_SEQ(r, 5);
    CHECK_COMPLETED(r);
    CHECK_EQ_INT(p.disposals, 1);
    CHECK_EQ_INT(r.released, 1);
    CHECK(rpl_disposable_is_disposed(d));
    CHECK(rpl_subscriber_is_disposed(p.sub));
    rpl_subscriber_send_next(p.sub, rpl_int(6));  /* ignored */
    rpl_subscriber_send_completed(p.sub);
    CHECK_SEQ(r, 5);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&p);
    rpl_release(t);
    rpl_release(s);

    /* the same through rpl_signal_never: nothing, and disposal works */
    rpl_signal_t *nv = rpl_signal_never();
    rpl_signal_t *nt = rpl_signal_take(nv, 1);
    d = rec_subscribe(nt, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_OPEN(r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(nt);
    rpl_release(nv);
}

/* RAC's recursive take (rule 4): the subscriber sends v + 1 back
   into the source on each value v; take 3 and send 0 gives [0, 1, 2, C]. */
typedef struct {
    rec_t r;
    src_t *src;
    int sends;
} echo_t;
static void echo_next(void *ctx, const rpl_value *v) {
    echo_t *e = ctx;
    rec_next(&e->r, v);
    e->sends++;
    rpl_subscriber_send_next(e->src->sub, rpl_int(rpl_value_int(v) + 1));
}
static void echo_completed(void *ctx) {
    echo_t *e = ctx;
    rec_completed(&e->r);
    /* a send from the terminal callback does not reach anyone */
    rpl_subscriber_send_next(e->src->sub, rpl_int(-1));
}

static void test_take_recursive(void) {
    src_t p;
    rpl_signal_t *s = src_open_signal(&p);
    rpl_signal_t *t = rpl_signal_take(s, 3);
    for (int round = 0; round < 2; round++) {
        echo_t e;
        rec_init(&e.r);
        e.src = &p;
        e.sends = 0;
        rpl_observer o = rec_observer(&e.r);
        o.on_next = echo_next;
        o.on_completed = echo_completed;
        o.ctx = &e;
        o.release = NULL;
        rpl_disposable_t *d = rpl_signal_subscribe(t, &o);
        CHECK_EQ_INT(p.subscriptions, round + 1);
        rpl_subscriber_send_next(p.sub, rpl_int(0));
        CHECK_SEQ(e.r, 0, 1, 2);
        CHECK_COMPLETED(e.r);
        CHECK_EQ_INT(e.sends, 3);
        CHECK_EQ_INT(p.disposals, round + 1);
        rpl_release(d);
        rec_clear(&e.r);
    }
    src_clear(&p);
    rpl_release(t);
    rpl_release(s);
}

/* The same with a real subject, as rule 4 states it; a second
   subscriber of the subject that is not behind take sees every value sent. */
typedef struct {
    rec_t r;
    rpl_subject_t *subject;
} subject_echo_t;
static void subject_echo_next(void *ctx, const rpl_value *v) {
    subject_echo_t *e = ctx;
    rec_next(&e->r, v);
    rpl_subject_send_next(e->subject, rpl_int(rpl_value_int(v) + 1));
}
static void test_take_recursive_subject(void) {
    rpl_subject_t *subject = rpl_subject_create();
    rpl_signal_t *t = rpl_signal_take((rpl_signal_t *)subject, 3);
    subject_echo_t e;
    rec_init(&e.r);
    e.subject = subject;
    rpl_observer o = rec_observer(&e.r);
    o.on_next = subject_echo_next;
    o.ctx = &e;
    rpl_disposable_t *d = rpl_signal_subscribe(t, &o);
    rpl_subject_send_next(subject, rpl_int(0));
    CHECK_SEQ(e.r, 0, 1, 2);
    CHECK_COMPLETED(e.r);
    CHECK_EQ_INT(e.r.released, 1);
    CHECK(rpl_disposable_is_disposed(d));
    /* take's subscription left the subject */
    CHECK_EQ_INT(rpl_subject_subscriber_count(subject), 0);
    rpl_release(d);
    rec_clear(&e.r);

    /* take(1) of a subject that never completes */
    rec_t r;
    d = rec_subscribe(rpl_subject_as_signal(subject), &r);  /* a plain subscriber too */
    rpl_signal_t *t1 = rpl_signal_take((rpl_signal_t *)subject, 1);
    rec_t r1;
    rpl_disposable_t *d1 = rec_subscribe(t1, &r1);
    CHECK_EQ_INT(rpl_subject_subscriber_count(subject), 2);
    rpl_subject_send_next(subject, rpl_int(7));
    rpl_subject_send_next(subject, rpl_int(8));
    CHECK_SEQ(r1, 7);
    CHECK_COMPLETED(r1);
    CHECK_SEQ(r, 7, 8);
    CHECK_OPEN(r);
    CHECK_EQ_INT(rpl_subject_subscriber_count(subject), 1);
    rpl_release(d1);
    rec_clear(&r1);
    rpl_release(t1);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(t);
    rpl_release(subject);
}

/* Sinks above a take see no terminal event when take ends the subscription:
   a do_completed upstream of take does not run (the source did not
   complete), while one downstream does. */
static void count_completed(void *ctx) { ((fnctx_t *)ctx)->calls++; }
static void test_take_upstream_sees_no_completion(void) {
    src_t p;
    SRC_INIT(&p, SRC_OPEN, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t up = {0, 0, 0}, down = {0, 0, 0};
    rpl_signal_t *a = rpl_signal_do_completed(s, count_completed, &up, fnctx_release);
    rpl_signal_t *b = rpl_signal_take(a, 2);
    rpl_signal_t *c = rpl_signal_do_completed(b, count_completed, &down, fnctx_release);
    CHECK_TWICE(c, 1, 2);
    CHECK_EQ_INT(up.calls, 0);
    CHECK_EQ_INT(down.calls, 2);
    CHECK_EQ_INT(p.disposals, 2);
    rpl_release(c);
    rpl_release(b);
    rpl_release(a);
    rpl_release(s);
    CHECK_EQ_INT(up.released, 1);
    CHECK_EQ_INT(down.released, 1);
}

/* take after operators that emit from their own terminal event: the first
   terminal event wins and nothing follows it. */
static void test_take_after_terminal_emitters(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *tl = rpl_signal_take_last(s, 3);
    rpl_signal_t *t1 = rpl_signal_take(tl, 1);
    CHECK_TWICE(t1, 2);
    rpl_signal_t *t3 = rpl_signal_take(tl, 3);
    CHECK_TWICE(t3, 2, 3, 4);
    rpl_signal_t *col = rpl_signal_collect(s);
    rpl_signal_t *ct = rpl_signal_take(col, 1);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(ct, &r);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(rpl_value_tuple_count(&r.last), 4);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    /* materialize of an error, then take(1): one event, then completed */
    src_t f;
    SRC_INIT_EMPTY(&f, SRC_FAIL);
    rpl_signal_t *fs = src_signal(&f);
    rpl_signal_t *fm = rpl_signal_materialize(fs);
    rpl_signal_t *fmt = rpl_signal_take(fm, 1);
    d = rec_subscribe(fmt, &r);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(rpl_value_event_kind(&r.last), RPL_EVENT_ERROR);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(fmt);
    rpl_release(fm);
    rpl_release(fs);
    rpl_release(ct);
    rpl_release(col);
    rpl_release(t3);
    rpl_release(t1);
    rpl_release(tl);
    rpl_release(s);
}

/* Disposing from inside on_next of a take stops everything at once. */
typedef struct {
    rec_t r;
    rpl_disposable_t *d;
} self_dispose_t;
static void dispose_on_next(void *ctx, const rpl_value *v) {
    self_dispose_t *x = ctx;
    rec_next(&x->r, v);
    rpl_disposable_dispose(x->d);
}
static void test_take_dispose_in_callback(void) {
    src_t p;
    rpl_signal_t *s = src_open_signal(&p);
    rpl_signal_t *t = rpl_signal_take(s, 5);
    self_dispose_t x;
    rec_init(&x.r);
    rpl_observer o = rec_observer(&x.r);
    o.on_next = dispose_on_next;
    o.ctx = &x;
    o.release = rec_release;
    /* rec_release casts ctx to rec_t: x.r is the first member */
    x.d = rpl_signal_subscribe(t, &o);
    rpl_subscriber_send_next(p.sub, rpl_int(1));
    rpl_subscriber_send_next(p.sub, rpl_int(2));
    CHECK_SEQ(x.r, 1);
    CHECK_OPEN(x.r);
    CHECK_EQ_INT(x.r.released, 1);
    CHECK_EQ_INT(p.disposals, 1);
    rpl_release(x.d);
    rec_clear(&x.r);
    src_clear(&p);
    rpl_release(t);
    rpl_release(s);
}

/* Two threads send into one subscription through take: exactly n values,
   one completion, the source disposed once. */
static void test_take_threads(void) {
    long per_thread = test_scale(200000, 2000);
    size_t n = (size_t)per_thread;  /* half of what is sent */
    src_t p;
    rpl_signal_t *s = src_open_signal(&p);
    rpl_signal_t *t = rpl_signal_take(s, n);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(t, &r);
    send_from_two_threads(p.sub, per_thread);
    CHECK_EQ_INT(r.n, (long)n);
    CHECK_COMPLETED(r);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(p.disposals, 1);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&p);
    rpl_release(t);
    rpl_release(s);
}

/* ---- skip ---- */
static void test_skip(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *s2 = rpl_signal_skip(s, 2);
    CHECK_TWICE(s2, 3, 4);
    rpl_signal_t *s0 = rpl_signal_skip(s, 0);
    CHECK_TWICE(s0, 1, 2, 3, 4);
    rpl_signal_t *s9 = rpl_signal_skip(s, 9);  /* n > count: just completed */
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(s9, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    rpl_signal_t *smax = rpl_signal_skip(s, SIZE_MAX);
    d = rec_subscribe(smax, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(smax);
    rpl_release(s9);
    rpl_release(s0);
    rpl_release(s2);
    rpl_release(s);
    common_checks(make_skip, 0);
}

/* ---- take_last ---- */
static void test_take_last(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4, 5);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *l2 = rpl_signal_take_last(s, 2);
    CHECK_TWICE(l2, 4, 5);
    rpl_signal_t *l3 = rpl_signal_take_last(s, 3);
    CHECK_TWICE(l3, 3, 4, 5);
    rpl_signal_t *l9 = rpl_signal_take_last(s, 9);
    CHECK_TWICE(l9, 1, 2, 3, 4, 5);
    rpl_signal_t *lmax = rpl_signal_take_last(s, SIZE_MAX);  /* the buffer grows with the values */
    CHECK_TWICE(lmax, 1, 2, 3, 4, 5);
    rpl_signal_t *l0 = rpl_signal_take_last(s, 0);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(l0, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);

    /* nothing before completion */
    src_t k;
    SRC_INIT(&k, SRC_OPEN, 1, 2, 3);
    k.keep = 1;
    rpl_signal_t *ks = src_signal(&k);
    rpl_signal_t *kl = rpl_signal_take_last(ks, 2);
    d = rec_subscribe(kl, &r);
    CHECK_EQ_INT(r.n, 0);
    rpl_subscriber_send_next(k.sub, rpl_int(4));
    CHECK_EQ_INT(r.n, 0);
    rpl_subscriber_send_completed(k.sub);
    CHECK_SEQ(r, 3, 4);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&k);

    /* an error: only the error */
    src_t f;
    SRC_INIT(&f, SRC_FAIL, 1, 2);
    rpl_signal_t *fs = src_signal(&f);
    rpl_signal_t *fl = rpl_signal_take_last(fs, 1);
    d = rec_subscribe(fl, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_FAILED(r, SRC_ERROR_CODE);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(fl);
    rpl_release(fs);
    rpl_release(kl);
    rpl_release(ks);
    rpl_release(l0);
    rpl_release(lmax);
    rpl_release(l9);
    rpl_release(l3);
    rpl_release(l2);
    rpl_release(s);
    common_checks(make_take_last, 0);
}

/* ---- take_while / skip_while ---- */
static void test_take_while(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 0, 1, 2, 3, 0, 2, 4);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *tw = rpl_signal_take_while(s, at_most_1, NULL, NULL);
    CHECK_TWICE(tw, 0, 1);  /* RAC spec: while <= 1 -> [0, 1] */
    CHECK_EQ_INT(p.disposals, 2);
    fnctx_t c = {3, 0, 0};
    rpl_signal_t *tw3 = rpl_signal_take_while(s, less_than_k, &c, fnctx_release);
    CHECK_TWICE(tw3, 0, 1, 2);
    CHECK_EQ_INT(c.calls, 8);  /* stops asking at the first false */
    rpl_release(tw3);
    CHECK_EQ_INT(c.released, 1);

    /* a never-completing source is ended by the predicate */
    src_t k;
    rpl_signal_t *ks = src_open_signal(&k);
    rpl_signal_t *kt = rpl_signal_take_while(ks, below_3, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(kt, &r);
    for (int i = 1; i <= 5; i++) rpl_subscriber_send_next(k.sub, rpl_int(i));
    CHECK_SEQ(r, 1, 2);
    CHECK_COMPLETED(r);
    CHECK_EQ_INT(k.disposals, 1);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&k);
    rpl_release(kt);
    rpl_release(ks);
    rpl_release(tw);
    rpl_release(s);

    common_checks(make_take_while, 1);
    fnctx_t c2 = {0, 0, 0};
    CHECK_NULL_FN(rpl_signal_take_while(nf_s_, NULL, &c2, fnctx_release), c2);
}

static void test_skip_while(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 0, 1, 2, 3, 0, 2, 4);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {3, 0, 0};
    rpl_signal_t *sw = rpl_signal_skip_while(s, less_than_k, &c, fnctx_release);
    CHECK_TWICE(sw, 3, 0, 2, 4);  /* RAC spec: skip until >= 3 -> [3, 0, 2, 4] */
    CHECK_EQ_INT(c.calls, 8);     /* not asked again after the first false */
    rpl_signal_t *all = rpl_signal_skip_while(s, below_3, NULL, NULL);
    rpl_signal_t *none = rpl_signal_skip_while(s, at_most_1, NULL, NULL);
    CHECK_TWICE(none, 2, 3, 0, 2, 4);
    rpl_release(none);
    rpl_release(all);
    rpl_release(sw);
    CHECK_EQ_INT(c.released, 1);
    rpl_release(s);

    common_checks(make_skip_while, 1);
    fnctx_t c2 = {0, 0, 0};
    CHECK_NULL_FN(rpl_signal_skip_while(nf_s_, NULL, &c2, fnctx_release), c2);
}

int main(void) {
    RUN(test_take_values);
    RUN(test_take_never_completing);
    RUN(test_take_recursive);
    RUN(test_take_recursive_subject);
    RUN(test_take_upstream_sees_no_completion);
    RUN(test_take_after_terminal_emitters);
    RUN(test_take_dispose_in_callback);
    RUN(test_take_threads);
    RUN(test_skip);
    RUN(test_take_last);
    RUN(test_take_while);
    RUN(test_skip_while);
    /* take(1) also passes the checks with its first value arriving never */
    common_has_ctx = 0;
    common_dispose(make_take1);
    CHECK_DONE();
}
