/* Transforming single-input operators: map, filter, scan, aggregate,
   distinct_until_changed, materialize, dematerialize, collect, do_next,
   do_error, do_completed. Each gets: values, completion, error propagation,
   disposal, release of ctx, restartability and bad input (ops_common.h). */
#include "ops_common.h"
#include <pthread.h>

/* ---- callbacks ---- */
static rpl_value add_k(void *ctx, const rpl_value *v) {
    fnctx_t *c = ctx;
    c->calls++;
    return rpl_int(rpl_value_int(v) + c->k);
}
static rpl_value to_string(void *ctx, const rpl_value *v) {
    (void)ctx;
    char buf[32];
    snprintf(buf, sizeof buf, "s%lld", (long long)rpl_value_int(v));
    return rpl_string(buf);
}
static rpl_value string_length(void *ctx, const rpl_value *v) {
    (void)ctx;
    size_t len = 0;
    rpl_value_string(v, &len);
    return rpl_int((int64_t)len);
}
static rpl_value zero_to_nil(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_value_int(v) == 0 ? rpl_nil() : rpl_value_copy(v);
}
static bool is_even(void *ctx, const rpl_value *v) {
    fnctx_t *c = ctx;
    if (c) c->calls++;
    return rpl_value_int(v) % 2 == 0;
}
static rpl_value sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    fnctx_t *c = ctx;
    if (c) c->calls++;
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}
/* Keeps the longer of two strings: the accumulator is boxed. */
static rpl_value longer(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    size_t a = 0, b = 0;
    rpl_value_string(acc, &a);
    rpl_value_string(v, &b);
    return rpl_value_copy(b >= a ? v : acc);
}

/* ---- make functions for the common checks ---- */
static rpl_signal_t *make_map(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_map(s, add_k, c, fnctx_release); }
static rpl_signal_t *make_filter(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_filter(s, is_even, c, fnctx_release); }
static rpl_signal_t *make_scan(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_scan(s, rpl_string("boxed initial"), sum, c, fnctx_release); }
static rpl_signal_t *make_aggregate(rpl_signal_t *s, fnctx_t *c) {
    return rpl_signal_aggregate(s, rpl_string("boxed initial"), sum, c, fnctx_release);
}
static rpl_signal_t *make_distinct(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_distinct_until_changed(s); }
static rpl_signal_t *make_materialize(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_materialize(s); }
static rpl_signal_t *make_dematerialize(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_dematerialize(s); }
static rpl_signal_t *make_collect(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_collect(s); }
static void count_next(void *ctx, const rpl_value *v) { (void)v; ((fnctx_t *)ctx)->calls++; }
static void count_error(void *ctx, const rpl_error_t *e) { (void)e; ((fnctx_t *)ctx)->calls++; }
static void count_completed(void *ctx) { ((fnctx_t *)ctx)->calls++; }
static rpl_signal_t *make_do_next(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_do_next(s, count_next, c, fnctx_release); }
static rpl_signal_t *make_do_error(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_do_error(s, count_error, c, fnctx_release); }
static rpl_signal_t *make_do_completed(rpl_signal_t *s, fnctx_t *c) {
    return rpl_signal_do_completed(s, count_completed, c, fnctx_release);
}

/* ---- map ---- */
static void test_map(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {10, 0, 0};
    rpl_signal_t *m = rpl_signal_map(s, add_k, &c, fnctx_release);
    CHECK(m != NULL);
    CHECK_TWICE(m, 11, 12, 13);
    CHECK_EQ_INT(c.calls, 6);
    CHECK_EQ_INT(p.subscriptions, 2);
    CHECK_EQ_INT(p.disposals, 2);
    rpl_release(m);
    CHECK_EQ_INT(c.released, 1);

    /* boxed values: int -> string -> length */
    rpl_signal_t *strs = rpl_signal_map(s, to_string, NULL, NULL);
    rpl_signal_t *lens = rpl_signal_map(strs, string_length, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(strs, &r);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.types[0], RPL_TYPE_STRING);
    CHECK(strcmp(rpl_value_string(&r.last, NULL), "s3") == 0);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    CHECK_TWICE(lens, 2, 2, 2);
    rpl_release(lens);
    rpl_release(strs);
    rpl_release(s);

    common_checks(make_map, 1);
    fnctx_t c2 = {0, 0, 0};
    CHECK_NULL_FN(rpl_signal_map(nf_s_, NULL, &c2, fnctx_release), c2);
}

/* Rule 19 (release once), docs/behaviour.md#lifetime-release (last): a map
   made without a release and one made with a release deliver alike, from two
   subscriptions at once; the release runs once, only after the signal and
   both subscriptions are gone (the one released first, the other disposed),
   and the context stays valid for the subscription left. */
static void test_map_release_once_and_last(void) {
    for (int with_release = 0; with_release < 2; with_release++) {
        rpl_subject_t *subj = rpl_subject_create();
        fnctx_t c = {100, 0, 0};
        rpl_signal_t *m = rpl_signal_map(rpl_subject_as_signal(subj), add_k, &c, with_release ? fnctx_release : NULL);
        CHECK(m != NULL);
        rec_t a, b;
        rpl_disposable_t *da = rec_subscribe(m, &a);
        rpl_disposable_t *db = rec_subscribe(m, &b);
        rpl_release(m);  /* the subscriptions hold the callback now */
        CHECK_EQ_INT(rpl_subject_send_next(subj, rpl_int(1)), RPL_OK);
        CHECK_EQ_INT(a.n, 1);
        CHECK_EQ_INT(b.n, 1);
        CHECK_EQ_INT(a.ints[0], 101);
        CHECK_EQ_INT(b.ints[0], 101);
        CHECK_EQ_INT(rpl_disposable_dispose(da), RPL_OK);
        rpl_release(da);
        CHECK_EQ_INT(c.released, 0);
        CHECK_EQ_INT(rpl_subject_send_next(subj, rpl_int(2)), RPL_OK);
        CHECK_EQ_INT(a.n, 1);
        CHECK_EQ_INT(b.n, 2);
        CHECK_EQ_INT(b.ints[1], 102);
        CHECK_EQ_INT(c.calls, 3);
        CHECK_EQ_INT(c.released, 0);
        rpl_release(db);  /* the subject still reaches the last subscription */
        CHECK_EQ_INT(c.released, 0);
        CHECK_EQ_INT(rpl_subject_send_completed(subj), RPL_OK);
        CHECK_COMPLETED(b);
        CHECK_EQ_INT(c.released, with_release);
        rpl_release(subj);
        CHECK_EQ_INT(c.released, with_release);
        CHECK_EQ_INT(a.released, 1);
        CHECK_EQ_INT(b.released, 1);
        rec_clear(&a);
        rec_clear(&b);
    }
}

/* ---- filter ---- */
static void test_filter(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4, 5, 6);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {0, 0, 0};
    rpl_signal_t *f = rpl_signal_filter(s, is_even, &c, fnctx_release);
    CHECK_TWICE(f, 2, 4, 6);
    CHECK_EQ_INT(c.calls, 12);
    rpl_release(f);
    CHECK_EQ_INT(c.released, 1);
    rpl_release(s);

    common_checks(make_filter, 1);
    fnctx_t c2 = {0, 0, 0};
    CHECK_NULL_FN(rpl_signal_filter(nf_s_, NULL, &c2, fnctx_release), c2);
}

/* ---- scan / aggregate ---- */
static void test_scan(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {0, 0, 0};
    rpl_signal_t *sc = rpl_signal_scan(s, rpl_int(0), sum, &c, fnctx_release);
    CHECK_TWICE(sc, 1, 3, 6, 10);  /* RAC: [1,2,3,4] with 0,+ -> [1,3,6,10]; each run starts at 0 */
    CHECK_EQ_INT(c.calls, 8);
    rpl_release(sc);
    CHECK_EQ_INT(c.released, 1);

    /* a boxed accumulator and boxed values (valgrind checks their counts) */
    rpl_signal_t *strs = rpl_signal_map(s, to_string, NULL, NULL);
    rpl_signal_t *lg = rpl_signal_scan(strs, rpl_string(""), longer, NULL, NULL);
    rpl_signal_t *lens = rpl_signal_map(lg, string_length, NULL, NULL);
    CHECK_TWICE(lens, 2, 2, 2, 2);
    rpl_release(lens);
    rpl_release(lg);
    rpl_release(strs);

    /* empty source: nothing but completion */
    src_t e;
    SRC_INIT_EMPTY(&e, SRC_COMPLETE);
    rpl_signal_t *es = src_signal(&e);
    rpl_signal_t *esc = rpl_signal_scan(es, rpl_int(5), sum, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(esc, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(esc);
    rpl_release(es);
    rpl_release(s);

    common_checks(make_scan, 1);
    fnctx_t c2 = {0, 0, 0};
    pointer_dtor_calls = 0;
    CHECK_NULL_FN(rpl_signal_scan(nf_s_, rpl_pointer(&c2, pointer_dtor), NULL, &c2, fnctx_release), c2);
    CHECK_EQ_INT(pointer_dtor_calls, 1);  /* the initial value is consumed on failure */
    fnctx_t c3 = {0, 0, 0};
    CHECK(rpl_signal_scan(NULL, rpl_pointer(&c3, pointer_dtor), sum, &c3, fnctx_release) == NULL);
    CHECK_EQ_INT(pointer_dtor_calls, 2);
    CHECK_EQ_INT(c3.released, 1);
}

static void test_aggregate(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {0, 0, 0};
    rpl_signal_t *ag = rpl_signal_aggregate(s, rpl_int(0), sum, &c, fnctx_release);
    CHECK_TWICE(ag, 10);
    rpl_release(ag);
    CHECK_EQ_INT(c.released, 1);
    rpl_release(s);

    /* an empty source gives the initial value (RAC) */
    src_t e;
    SRC_INIT_EMPTY(&e, SRC_COMPLETE);
    rpl_signal_t *es = src_signal(&e);
    rpl_signal_t *eag = rpl_signal_aggregate(es, rpl_int(7), sum, NULL, NULL);
    CHECK_TWICE(eag, 7);
    rpl_release(eag);

    /* no value before completion */
    src_t k;
    SRC_INIT(&k, SRC_OPEN, 5, 6);
    k.keep = 1;
    rpl_signal_t *ks = src_signal(&k);
    rpl_signal_t *kag = rpl_signal_aggregate(ks, rpl_int(0), sum, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(kag, &r);
    CHECK_EQ_INT(r.n, 0);
    rpl_subscriber_send_next(k.sub, rpl_int(7));
    CHECK_EQ_INT(r.n, 0);
    rpl_subscriber_send_completed(k.sub);
    CHECK_SEQ(r, 18);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&k);
    rpl_release(kag);
    rpl_release(ks);
    rpl_release(es);

    common_checks(make_aggregate, 1);
    fnctx_t c2 = {0, 0, 0};
    pointer_dtor_calls = 0;
    CHECK_NULL_FN(rpl_signal_aggregate(nf_s_, rpl_pointer(&c2, pointer_dtor), NULL, &c2, fnctx_release), c2);
    CHECK_EQ_INT(pointer_dtor_calls, 1);
}

/* ---- distinct_until_changed ---- */
static void test_distinct(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 2, 1, 1);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *dc = rpl_signal_distinct_until_changed(s);
    CHECK_TWICE(dc, 1, 2, 1);  /* RAC spec */
    rpl_release(dc);
    rpl_release(s);

    /* nil == nil counts as equal: [1,nil,nil,nil,1] -> [1,nil,1]; [nil,nil,1] -> [nil,1] */
    src_t q;
    SRC_INIT(&q, SRC_COMPLETE, 1, 0, 0, 0, 1);
    rpl_signal_t *qs = src_signal(&q);
    rpl_signal_t *nils = rpl_signal_map(qs, zero_to_nil, NULL, NULL);
    rpl_signal_t *qd = rpl_signal_distinct_until_changed(nils);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(qd, &r);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.types[0], RPL_TYPE_INT);
    CHECK_EQ_INT(r.types[1], RPL_TYPE_NIL);
    CHECK_EQ_INT(r.types[2], RPL_TYPE_INT);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(qd);
    rpl_release(nils);
    rpl_release(qs);

    src_t n;
    SRC_INIT(&n, SRC_COMPLETE, 0, 0, 1);
    rpl_signal_t *ns = src_signal(&n);
    rpl_signal_t *nn = rpl_signal_map(ns, zero_to_nil, NULL, NULL);
    rpl_signal_t *nd = rpl_signal_distinct_until_changed(nn);
    d = rec_subscribe(nd, &r);
    CHECK_EQ_INT(r.n, 2);
    CHECK_EQ_INT(r.types[0], RPL_TYPE_NIL);
    CHECK_EQ_INT(r.types[1], RPL_TYPE_INT);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(nd);
    rpl_release(nn);
    rpl_release(ns);

    /* boxed values compare by content: "s1","s1","s2" -> two values */
    src_t b;
    SRC_INIT(&b, SRC_COMPLETE, 1, 1, 2, 2, 1);
    rpl_signal_t *bs = src_signal(&b);
    rpl_signal_t *bstr = rpl_signal_map(bs, to_string, NULL, NULL);
    rpl_signal_t *bd = rpl_signal_distinct_until_changed(bstr);
    rpl_signal_t *blen = rpl_signal_map(bd, string_length, NULL, NULL);
    CHECK_TWICE(blen, 2, 2, 2);
    rpl_release(blen);
    rpl_release(bd);
    rpl_release(bstr);
    rpl_release(bs);

    common_checks(make_distinct, 0);
}

/* ---- materialize / dematerialize ---- */
/* Encodes an event value as an int: next v -> v, error -> 1000 + code,
   completed -> 2000. */
static rpl_value encode_event(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_type(v) != RPL_TYPE_EVENT) return rpl_int(-1);
    switch (rpl_value_event_kind(v)) {
    case RPL_EVENT_NEXT: {
        rpl_value x = rpl_value_event_value(v);
        int64_t i = rpl_value_int(&x);
        rpl_value_release(&x);
        return rpl_int(i);
    }
    case RPL_EVENT_ERROR: return rpl_int(1000 + rpl_error_code(rpl_value_event_error(v)));
    case RPL_EVENT_COMPLETED: return rpl_int(2000);
    default: return rpl_int(-2);
    }
}
/* Negative ints become a completed event, 99 an error event, others next. */
static rpl_value to_event(void *ctx, const rpl_value *v) {
    (void)ctx;
    int64_t i = rpl_value_int(v);
    if (i < 0) return rpl_event_completed();
    if (i == 99) {
        rpl_error_t *e = rpl_error_create("test", 99, "from an event");
        rpl_value ev = rpl_event_error(e);
        rpl_release(e);
        return ev;
    }
    return rpl_event_next(rpl_value_copy(v));
}

static void test_materialize(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *m = rpl_signal_materialize(s);
    rpl_signal_t *enc = rpl_signal_map(m, encode_event, NULL, NULL);
    CHECK_TWICE(enc, 1, 2, 2000);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(m, &r);
    CHECK_EQ_INT(r.types[0], RPL_TYPE_EVENT);
    CHECK_EQ_INT(rpl_value_event_kind(&r.last), RPL_EVENT_COMPLETED);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(enc);
    rpl_release(m);
    rpl_release(s);

    /* an error becomes a value, then completion */
    src_t f;
    SRC_INIT(&f, SRC_FAIL, 5);
    rpl_signal_t *fs = src_signal(&f);
    rpl_signal_t *fm = rpl_signal_materialize(fs);
    rpl_signal_t *fenc = rpl_signal_map(fm, encode_event, NULL, NULL);
    CHECK_TWICE(fenc, 5, 1000 + SRC_ERROR_CODE);
    CHECK_EQ_INT(f.disposals, 2);
    rpl_release(fenc);
    rpl_release(fm);
    rpl_release(fs);

    common_has_ctx = 0;
    common_dispose(make_materialize);
    common_release_without_dispose(make_materialize);
    common_bad_signal(make_materialize);
}

static void test_dematerialize(void) {
    /* round trip */
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *m = rpl_signal_materialize(s);
    rpl_signal_t *dm = rpl_signal_dematerialize(m);
    CHECK_TWICE(dm, 1, 2, 3);
    rpl_release(dm);
    rpl_release(m);
    rpl_release(s);

    src_t f;
    SRC_INIT(&f, SRC_FAIL, 4);
    rpl_signal_t *fs = src_signal(&f);
    rpl_signal_t *fm = rpl_signal_materialize(fs);
    rpl_signal_t *fdm = rpl_signal_dematerialize(fm);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(fdm, &r);
    CHECK_SEQ(r, 4);
    CHECK_FAILED(r, SRC_ERROR_CODE);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(fdm);
    rpl_release(fm);
    rpl_release(fs);

    /* Event(C) in the middle completes and disposes the source; later
       values are not delivered */
    src_t k;
    SRC_INIT(&k, SRC_COMPLETE, 1, 2, -1, 3);
    rpl_signal_t *ks = src_signal(&k);
    rpl_signal_t *kev = rpl_signal_map(ks, to_event, NULL, NULL);
    rpl_signal_t *kdm = rpl_signal_dematerialize(kev);
    CHECK_TWICE(kdm, 1, 2);
    CHECK_EQ_INT(k.disposals, 2);
    rpl_release(kdm);
    rpl_release(kev);
    rpl_release(ks);

    /* Event(E) fails with that error */
    src_t e;
    SRC_INIT(&e, SRC_COMPLETE, 1, 99, 3);
    rpl_signal_t *es = src_signal(&e);
    rpl_signal_t *eev = rpl_signal_map(es, to_event, NULL, NULL);
    rpl_signal_t *edm = rpl_signal_dematerialize(eev);
    d = rec_subscribe(edm, &r);
    CHECK_SEQ(r, 1);
    CHECK_FAILED(r, 99);
    CHECK_EQ_INT(e.disposals, 1);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(edm);
    rpl_release(eev);
    rpl_release(es);

    /* a value that is not an event is a type error, and the source is disposed */
    src_t t;
    SRC_INIT(&t, SRC_OPEN, 7);
    t.keep = 1;
    rpl_signal_t *ts = src_signal(&t);
    rpl_signal_t *tdm = rpl_signal_dematerialize(ts);
    d = rec_subscribe(tdm, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_FAILED(r, RPL_ERROR_TYPE);
    CHECK(strcmp(r.error_domain, RPL_ERROR_DOMAIN) == 0);
    CHECK_EQ_INT(t.disposals, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_subscriber_send_next(t.sub, rpl_event_completed());  /* ignored */
    CHECK_EQ_INT(r.completed, 0);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&t);
    rpl_release(tdm);
    rpl_release(ts);

    common_checks(make_dematerialize, 0);
}

/* ---- collect ---- */
static void test_collect(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *co = rpl_signal_collect(s);
    for (int round = 0; round < 2; round++) {
        rec_t r;
        rpl_disposable_t *d = rec_subscribe(co, &r);
        CHECK_EQ_INT(r.n, 1);
        CHECK_EQ_INT(r.types[0], RPL_TYPE_TUPLE);
        CHECK_EQ_INT(rpl_value_tuple_count(&r.last), 3);
        for (size_t i = 0; i < 3; i++) {
            rpl_value x = rpl_value_tuple_at(&r.last, i);
            CHECK_EQ_INT(rpl_value_int(&x), (int64_t)i + 1);
            rpl_value_release(&x);
        }
        CHECK_COMPLETED(r);
        rpl_release(d);
        rec_clear(&r);
    }
    rpl_release(co);

    /* boxed items are kept */
    rpl_signal_t *strs = rpl_signal_map(s, to_string, NULL, NULL);
    rpl_signal_t *sco = rpl_signal_collect(strs);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(sco, &r);
    CHECK_EQ_INT(rpl_value_tuple_count(&r.last), 3);
    rpl_value x = rpl_value_tuple_at(&r.last, 2);
    CHECK(strcmp(rpl_value_string(&x, NULL), "s3") == 0);
    rpl_value_release(&x);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(sco);
    rpl_release(strs);
    rpl_release(s);

    /* empty source: an empty tuple */
    src_t e;
    SRC_INIT_EMPTY(&e, SRC_COMPLETE);
    rpl_signal_t *es = src_signal(&e);
    rpl_signal_t *eco = rpl_signal_collect(es);
    d = rec_subscribe(eco, &r);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.types[0], RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(&r.last), 0);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(eco);
    rpl_release(es);

    /* values then an error: only the error */
    src_t f;
    SRC_INIT(&f, SRC_FAIL, 1, 2);
    rpl_signal_t *fs = src_signal(&f);
    rpl_signal_t *fco = rpl_signal_collect(fs);
    d = rec_subscribe(fco, &r);
    CHECK_EQ_INT(r.n, 0);
    CHECK_FAILED(r, SRC_ERROR_CODE);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(fco);
    rpl_release(fs);

    common_checks(make_collect, 0);
}

/* ---- do_next / do_error / do_completed ---- */
/* A log of side effects and observer events, to check their order. */
static int64_t order_log[64];
static int order_n;
static void log_side_next(void *ctx, const rpl_value *v) {
    ((fnctx_t *)ctx)->calls++;
    order_log[order_n++] = 100 + rpl_value_int(v);
}
static void log_side_error(void *ctx, const rpl_error_t *e) {
    ((fnctx_t *)ctx)->calls++;
    order_log[order_n++] = 300 + rpl_error_code(e);
}
static void log_side_completed(void *ctx) {
    ((fnctx_t *)ctx)->calls++;
    order_log[order_n++] = 500;
}
static void log_obs_next(void *ctx, const rpl_value *v) { (void)ctx; order_log[order_n++] = rpl_value_int(v); }
static void log_obs_error(void *ctx, const rpl_error_t *e) { (void)ctx; order_log[order_n++] = 200 + rpl_error_code(e); }
static void log_obs_completed(void *ctx) { (void)ctx; order_log[order_n++] = 400; }

static void run_logged(rpl_signal_t *s) {
    order_n = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = log_obs_next;
    o.on_error = log_obs_error;
    o.on_completed = log_obs_completed;
    rpl_release(rpl_signal_subscribe(s, &o));
}
static int log_is(const int64_t *e, int n) {
    if (order_n != n) return 0;
    for (int i = 0; i < n; i++) if (order_log[i] != e[i]) return 0;
    return 1;
}
#define CHECK_ORDER(...) do { \
    const int64_t lg_e_[] = {__VA_ARGS__}; \
    CHECK(log_is(lg_e_, (int)(sizeof lg_e_ / sizeof lg_e_[0]))); \
} while (0)

static void test_do(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2);
    rpl_signal_t *s = src_signal(&p);
    src_t f;
    SRC_INIT(&f, SRC_FAIL, 3);
    rpl_signal_t *fs = src_signal(&f);

    fnctx_t c = {0, 0, 0};
    rpl_signal_t *dn = rpl_signal_do_next(s, log_side_next, &c, fnctx_release);
    run_logged(dn);
    CHECK_ORDER(101, 1, 102, 2, 400);  /* the side effect runs before the value is forwarded */
    run_logged(dn);
    CHECK_ORDER(101, 1, 102, 2, 400);
    CHECK_EQ_INT(c.calls, 4);
    CHECK_TWICE(dn, 1, 2);
    rpl_release(dn);
    CHECK_EQ_INT(c.released, 1);

    fnctx_t ce = {0, 0, 0};
    rpl_signal_t *de = rpl_signal_do_error(fs, log_side_error, &ce, fnctx_release);
    run_logged(de);
    CHECK_ORDER(3, 300 + SRC_ERROR_CODE, 200 + SRC_ERROR_CODE);
    rpl_signal_t *de_ok = rpl_signal_do_error(s, log_side_error, &ce, NULL);
    CHECK_TWICE(de_ok, 1, 2);  /* no error: no side effect */
    CHECK_EQ_INT(ce.calls, 1);
    rpl_release(de_ok);
    rpl_release(de);
    CHECK_EQ_INT(ce.released, 1);

    fnctx_t cc = {0, 0, 0};
    rpl_signal_t *dc = rpl_signal_do_completed(s, log_side_completed, &cc, fnctx_release);
    run_logged(dc);
    CHECK_ORDER(1, 2, 500, 400);
    CHECK_TWICE(dc, 1, 2);
    CHECK_EQ_INT(cc.calls, 3);
    rpl_signal_t *dc_err = rpl_signal_do_completed(fs, log_side_completed, &cc, NULL);
    run_logged(dc_err);
    CHECK_ORDER(3, 200 + SRC_ERROR_CODE);
    CHECK_EQ_INT(cc.calls, 3);
    rpl_release(dc_err);
    rpl_release(dc);
    CHECK_EQ_INT(cc.released, 1);

    /* disposal runs none of them */
    src_t k;
    rpl_signal_t *ks = src_open_signal(&k);
    fnctx_t cd = {0, 0, 0};
    rpl_signal_t *chain = rpl_signal_do_completed(ks, count_completed, &cd, NULL);
    rpl_signal_t *chain2 = rpl_signal_do_error(chain, count_error, &cd, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(chain2, &r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(cd.calls, 0);
    CHECK_EQ_INT(k.disposals, 1);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&k);
    rpl_release(chain2);
    rpl_release(chain);
    rpl_release(ks);

    rpl_release(fs);
    rpl_release(s);

    common_checks(make_do_next, 1);
    common_checks(make_do_error, 1);
    common_checks(make_do_completed, 1);
    fnctx_t c2 = {0, 0, 0};
    CHECK_NULL_FN(rpl_signal_do_next(nf_s_, NULL, &c2, fnctx_release), c2);
    CHECK_NULL_FN(rpl_signal_do_error(nf_s_, NULL, &c2, fnctx_release), c2);
    CHECK_NULL_FN(rpl_signal_do_completed(nf_s_, NULL, &c2, fnctx_release), c2);
}

/* A chain of every transforming operator keeps boxed values balanced and
   runs under valgrind without leaks. */
static void test_chain(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4, 5, 6);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {1, 0, 0};
    rpl_signal_t *a = rpl_signal_map(s, add_k, &c, NULL);           /* 2..7 */
    rpl_signal_t *b = rpl_signal_filter(a, is_even, NULL, NULL);     /* 2 4 6 */
    rpl_signal_t *sc = rpl_signal_scan(b, rpl_int(0), sum, NULL, NULL); /* 2 6 12 */
    rpl_signal_t *m = rpl_signal_materialize(sc);
    rpl_signal_t *dm = rpl_signal_dematerialize(m);
    rpl_signal_t *dc = rpl_signal_distinct_until_changed(dm);
    CHECK_TWICE(dc, 2, 6, 12);
    rpl_signal_t *ag = rpl_signal_aggregate(dc, rpl_int(0), sum, NULL, NULL);
    CHECK_TWICE(ag, 20);
    rpl_release(ag);
    rpl_release(dc);
    rpl_release(dm);
    rpl_release(m);
    rpl_release(sc);
    rpl_release(b);
    rpl_release(a);
    rpl_release(s);
}

/* Two threads send into one subscription through map -> filter -> scan:
   the subscriber serializes them, so the accumulator sees every value once. */
static void test_chain_threads(void) {
    long per_thread = test_scale(200000, 2000);
    src_t p;
    rpl_signal_t *s = src_open_signal(&p);
    fnctx_t c = {1, 0, 0};
    rpl_signal_t *a = rpl_signal_map(s, add_k, &c, NULL);             /* 2 */
    rpl_signal_t *b = rpl_signal_filter(a, is_even, NULL, NULL);       /* all pass */
    rpl_signal_t *sc = rpl_signal_scan(b, rpl_int(0), sum, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(sc, &r);
    send_from_two_threads(p.sub, per_thread);
    rpl_subscriber_send_completed(p.sub);
    CHECK_EQ_INT(r.n, 2 * per_thread);
    CHECK_EQ_INT(rpl_value_int(&r.last), 4 * per_thread);
    CHECK_EQ_INT(c.calls, 2 * per_thread);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&p);
    rpl_release(sc);
    rpl_release(b);
    rpl_release(a);
    rpl_release(s);
}

/* Two live subscriptions of one operator signal keep separate state
   (RAC: operators are restartable and interleavable). */
static void test_interleaved(void) {
    rpl_subject_t *subject = rpl_subject_create();
    rpl_signal_t *sc = rpl_signal_scan((rpl_signal_t *)subject, rpl_int(0), sum, NULL, NULL);
    rpl_signal_t *dc = rpl_signal_distinct_until_changed((rpl_signal_t *)subject);
    rec_t a, b, da, db;
    rpl_disposable_t *d1 = rec_subscribe(sc, &a);
    rpl_disposable_t *d3 = rec_subscribe(dc, &da);
    rpl_subject_send_next(subject, rpl_int(1));
    rpl_disposable_t *d2 = rec_subscribe(sc, &b);
    rpl_disposable_t *d4 = rec_subscribe(dc, &db);
    rpl_subject_send_next(subject, rpl_int(1));
    rpl_subject_send_next(subject, rpl_int(3));
    rpl_subject_send_completed(subject);
    CHECK_SEQ(a, 1, 2, 5);
    CHECK_SEQ(b, 1, 4);
    CHECK_SEQ(da, 1, 3);
    CHECK_SEQ(db, 1, 3);  /* its first value always passes */
    CHECK_COMPLETED(a);
    CHECK_COMPLETED(b);
    rpl_release(d1);
    rpl_release(d2);
    rpl_release(d3);
    rpl_release(d4);
    rec_clear(&a);
    rec_clear(&b);
    rec_clear(&da);
    rec_clear(&db);
    rpl_release(dc);
    rpl_release(sc);
    rpl_release(subject);
}

int main(void) {
    RUN(test_map);
    RUN(test_map_release_once_and_last);
    RUN(test_filter);
    RUN(test_scan);
    RUN(test_aggregate);
    RUN(test_distinct);
    RUN(test_materialize);
    RUN(test_dematerialize);
    RUN(test_collect);
    RUN(test_do);
    RUN(test_chain);
    RUN(test_chain_threads);
    RUN(test_interleaved);
    CHECK_DONE();
}
