/* The 0.2 transforming, testing and lifetime operators: map_replace, ignore,
   ignore_values, reduce_each, combine_previous, distinct_until_changed_with,
   buffer, not, and, or, any, all, default_if_empty, initially, finally,
   do_dispose. Each gets: values, completion, error, disposal reaching the
   source, release of ctx, rpl_callback_fail from its callback, bad input
   (NULL and wrong-kind handles, NULL fn, count 0, an unlisted value type),
   its default name, and the rule-27 decisions that concern it. */
#include "ops_common.h"
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define FAIL_CODE 77
static rpl_error_t *fail_error(void) { return rpl_error_create("test", FAIL_CODE, "callback failed"); }

/* A value of a type ripple.h does not list (rule 19a); its payload is no box. */
static rpl_value forged(void) {
    rpl_value v;
    memset(&v, 0, sizeof v);
    v.type = 99u;
    v.as.i = 0x5EED;
    return v;
}

/* The last error is `status` and its message names `fn`. */
static int last_error_is(rpl_status status, const char *fn) {
    return rpl_last_error() == status && strncmp(rpl_last_error_message(), fn, strlen(fn)) == 0;
}

/* ---- Value makers (used through rpl_signal_map) ---------------------------- */
/* i -> (i, 10 i) */
static rpl_value to_pair(void *ctx, const rpl_value *v) {
    (void)ctx;
    int64_t i = rpl_value_int(v);
    rpl_value items[2] = { rpl_int(i), rpl_int(10 * i) };
    return rpl_tuple(items, 2);
}
/* i -> (bit 0 of i, bit 1 of i) as bools */
static rpl_value to_bools(void *ctx, const rpl_value *v) {
    (void)ctx;
    int64_t i = rpl_value_int(v);
    rpl_value items[2] = { rpl_bool(i & 1), rpl_bool(i & 2) };
    return rpl_tuple(items, 2);
}
static rpl_value to_bool(void *ctx, const rpl_value *v) { (void)ctx; return rpl_bool(rpl_value_int(v) != 0); }
/* bool -> 1 / 0; anything else -> -1 */
static rpl_value bool_to_int(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_type(v) != RPL_TYPE_BOOL) return rpl_int(-1);
    return rpl_int(rpl_value_bool(v) ? 1 : 0);
}
/* 0 -> nil, others unchanged */
static rpl_value zero_to_nil(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_value_int(v) == 0 ? rpl_nil() : rpl_value_copy(v);
}
static rpl_value to_string(void *ctx, const rpl_value *v) {
    (void)ctx;
    char buf[32];
    snprintf(buf, sizeof buf, "s%lld", (long long)rpl_value_int(v));
    return rpl_string(buf);
}

/* f(map(src, m)): the map is released (the operator retains it). */
static rpl_signal_t *over_map(rpl_signal_t *src, rpl_map_fn m, rpl_signal_t *(*f)(rpl_signal_t *)) {
    rpl_signal_t *mapped = rpl_signal_map(src, m, NULL, NULL);
    if (!mapped) return f(src);  /* bad input: f reports it */
    rpl_signal_t *r = f(mapped);
    rpl_release(mapped);
    return r;
}
/* op, then bools mapped to ints so the recorder can compare them. */
static rpl_signal_t *as_ints(rpl_signal_t *op) {
    rpl_signal_t *r = rpl_signal_map(op, bool_to_int, NULL, NULL);
    rpl_release(op);
    return r;
}

/* CHECK_RUN(op, "1 2 C"): subscribes to op (then releases it) and checks the log. */
#define CHECK_RUN(op, expected) do { \
    rec_t cr_r_; \
    rpl_signal_t *cr_op_ = (op); \
    rec_run(cr_op_, &cr_r_); \
    CHECK_LOG(&cr_r_, expected); \
    rec_clear(&cr_r_); \
    rpl_release(cr_op_); \
} while (0)

/* CHECK_CALLBACK_FAILS(op, "1 E77"): op's callback fails through rpl_callback_fail
   (which returns RPL_OK there) and the run logs `expected`; op is released. */
#define CHECK_CALLBACK_FAILS(op, expected) do { \
    status_inside = -99; \
    CHECK_RUN(op, expected); \
    CHECK_EQ_INT(status_inside, RPL_OK); \
} while (0)

/* op over p's signal (p set up by the caller): the run logs `expected`. */
static void check_over(src_t *p, rpl_signal_t *(*op)(rpl_signal_t *), const char *expected) {
    rpl_signal_t *s = src_signal(p);
    CHECK_RUN(op(s), expected);
    rpl_release(s);
}

/* The default name of op (released here) is `expected`, with the source named "src". */
static void check_name(rpl_signal_t *op, const char *expected) {
    CHECK(op != NULL);
    if (!op) return;
    CHECK_STR(rpl_signal_name(op), expected);
    rpl_release(op);
}
static rpl_signal_t *named_src(void) {
    rpl_signal_t *s = rpl_signal_never();
    rpl_signal_set_name(s, "src");
    return s;
}
/* CHECK_NAME(rpl_signal_not(n), "[src] -not"): call is made over n, a source named "src". */
#define CHECK_NAME(call, expected) do { \
    rpl_signal_t *n = named_src(); \
    check_name((call), (expected)); \
    rpl_release(n); \
} while (0)

/* A source of one subscription the test drives: a subject. Its subscriber
   count shows whether the operator disposed its upstream. */
typedef struct {
    rpl_subject_t *subject;
    rec_t r;
    rpl_disposable_t *d;
} live_t;
static void live_start(live_t *l, rpl_signal_t *(*build)(rpl_signal_t *)) {
    l->subject = rpl_subject_create();
    rpl_signal_t *op = build((rpl_signal_t *)l->subject);
    l->d = rec_subscribe(op, &l->r);
    rpl_release(op);
}
static void live_send(live_t *l, int64_t i) { rpl_subject_send_next(l->subject, rpl_int(i)); }
static size_t live_upstream(live_t *l) { return rpl_subject_subscriber_count(l->subject); }
static void live_end(live_t *l) {
    rpl_release(l->d);
    rpl_release(l->subject);
    CHECK_EQ_INT(l->r.released, 1);
    rec_clear(&l->r);
}

/* As CHECK_NULL_FN (ops_common.h), and the error names fn. */
#define CHECK_NULL_FN_NAMED(call, fn_name) do { \
    rpl_signal_t *nf_s_ = rpl_signal_empty(); \
    fnctx_t nf_c_ = {0, 0, 0}; \
    (void)nf_s_; (void)nf_c_; \
    CHECK((call) == NULL); \
    CHECK(last_error_is(RPL_ERR_NULL, fn_name)); \
    CHECK_EQ_INT(nf_c_.released, 1); \
    rpl_release(nf_s_); \
} while (0)

/* ---- map_replace, ignore, ignore_values --------------------------------- */
static rpl_signal_t *make_map_replace(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_map_replace(s, rpl_string("boxed")); }
static rpl_signal_t *make_ignore(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_ignore(s, rpl_string("boxed")); }
static rpl_signal_t *make_ignore_values(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_ignore_values(s); }
static rpl_signal_t *make_default_if_empty(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_default_if_empty(s, rpl_string("boxed")); }

/* The common checks of an operator over (sig, v), then v's checks: consumed
   on failure, in the check order sig then v. */
static void check_value_operator(make_fn make, rpl_signal_t *(*f)(rpl_signal_t *, rpl_value), const char *fn_name) {
    common_checks(make, 0);
    pointer_dtor_calls = 0;
    CHECK(f(NULL, rpl_pointer(NULL, pointer_dtor)) == NULL);
    CHECK(last_error_is(RPL_ERR_NULL, fn_name));
    CHECK_EQ_INT(pointer_dtor_calls, 1);
    rpl_disposable_t *notsig = rpl_disposable_create(NULL, NULL);
    CHECK(f((rpl_signal_t *)notsig, rpl_pointer(NULL, pointer_dtor)) == NULL);
    CHECK(last_error_is(RPL_ERR_KIND, fn_name));
    CHECK_EQ_INT(pointer_dtor_calls, 2);
    rpl_release(notsig);
    rpl_signal_t *s = rpl_signal_empty();
    CHECK(f(s, forged()) == NULL);
    CHECK(last_error_is(RPL_ERR_INVALID, fn_name));
    rpl_release(s);
}

static void test_map_replace(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *m = rpl_signal_map_replace(s, rpl_int(7));
    CHECK_TWICE(m, 7, 7, 7);
    CHECK_EQ_INT(p.disposals, 2);
    rpl_release(m);
    /* a boxed value: each subscription holds it, also after the signal is freed */
    SRC_INIT(&p, SRC_OPEN, 1, 2, 3);
    p.keep = 1;
    pointer_dtor_calls = 0;
    rpl_signal_t *b = rpl_signal_map_replace(s, rpl_pointer(&p, pointer_dtor));
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(b, &r);
    rpl_release(b);
    CHECK_EQ_INT(pointer_dtor_calls, 0);
    rpl_subscriber_send_next(p.sub, rpl_int(9));
    CHECK_EQ_INT(r.n, 4);
    CHECK_EQ_INT(r.types[3], RPL_TYPE_POINTER);
    rec_clear(&r);
    rpl_disposable_dispose(d);
    rpl_release(d);
    src_clear(&p);
    CHECK_EQ_INT(pointer_dtor_calls, 1);
    rpl_release(s);

    check_value_operator(make_map_replace, rpl_signal_map_replace, "rpl_signal_map_replace");
    CHECK_NAME(rpl_signal_map_replace(n, rpl_nil()), "[src] -mapReplace:");
}

static void test_ignore(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 1, 3, 1);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *ig = rpl_signal_ignore(s, rpl_int(1));
    CHECK_TWICE(ig, 2, 3);
    rpl_release(ig);

    /* ignore nil drops nils (RAC); equality is by content for boxes */
    src_t q;
    SRC_INIT(&q, SRC_COMPLETE, 0, 1, 0, 2);
    rpl_signal_t *qs = src_signal(&q);
    rpl_signal_t *qn = rpl_signal_map(qs, zero_to_nil, NULL, NULL);
    rpl_signal_t *in = rpl_signal_ignore(qn, rpl_nil());
    CHECK_TWICE(in, 1, 2);
    rpl_release(in);
    rpl_release(qn);
    rpl_release(qs);
    rpl_signal_t *strs = rpl_signal_map(s, to_string, NULL, NULL);
    rpl_signal_t *is = rpl_signal_ignore(strs, rpl_string("s1"));
    CHECK_RUN(is, "s2 s3 C");
    rpl_release(strs);
    rpl_release(s);

    check_value_operator(make_ignore, rpl_signal_ignore, "rpl_signal_ignore");
    CHECK_NAME(rpl_signal_ignore(n, rpl_nil()), "[src] -ignore:");
}

static void test_ignore_values(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *iv = rpl_signal_ignore_values(s);
    rec_t r;
    rec_run(iv, &r);
    CHECK_LOG(&r, "C");
    CHECK_EQ_INT(p.disposals, 1);
    rec_clear(&r);
    rpl_release(iv);
    rpl_release(s);
    common_checks(make_ignore_values, 0);
    CHECK_NAME(rpl_signal_ignore_values(n), "[src] -ignoreValues");
}

/* ---- reduce_each ------------------------------------------------------------ */
static rpl_value sum_items(void *ctx, const rpl_value *items, size_t count) {
    fnctx_t *c = ctx;
    if (c) c->calls++;
    int64_t t = 0;
    for (size_t i = 0; i < count; i++) t += rpl_value_int(&items[i]);
    return rpl_int(t * 100 + (int64_t)count);  /* the count shows in the last two digits */
}
static int dtors;
static void count_dtor(void *p) { (void)p; dtors++; }
static int status_inside;
static rpl_value sum_items_fail(void *ctx, const rpl_value *items, size_t count) {
    if (count && rpl_value_int(&items[0]) == 2) {
        status_inside = rpl_callback_fail(fail_error());
        return rpl_pointer(NULL, count_dtor);  /* discarded: released */
    }
    return sum_items(ctx, items, count);
}
static rpl_signal_t *reduce_each_of(rpl_signal_t *s) { return rpl_signal_reduce_each(s, sum_items, NULL, NULL); }
static rpl_signal_t *reduce_each_fail_of(rpl_signal_t *s) { return rpl_signal_reduce_each(s, sum_items_fail, NULL, NULL); }
static rpl_signal_t *make_reduce_each(rpl_signal_t *s, fnctx_t *c) {
    rpl_signal_t *m = rpl_signal_map(s, to_pair, NULL, NULL);
    rpl_signal_t *r = rpl_signal_reduce_each(m ? m : s, sum_items, c, fnctx_release);
    rpl_release(m);
    return r;
}
static rpl_value empty_tuple(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return rpl_tuple(NULL, 0); }

static void test_reduce_each(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {0, 0, 0};
    rpl_signal_t *pairs = rpl_signal_map(s, to_pair, NULL, NULL);
    rpl_signal_t *re = rpl_signal_reduce_each(pairs, sum_items, &c, fnctx_release);
    CHECK_TWICE(re, 1102, 2202, 3302);
    CHECK_EQ_INT(c.calls, 6);
    rpl_release(re);
    CHECK_EQ_INT(c.released, 1);

    /* an empty tuple: count 0, items still a valid pointer */
    rpl_signal_t *empties = over_map(s, empty_tuple, reduce_each_of);
    CHECK_TWICE(empties, 0, 0, 0);
    rpl_release(empties);

    /* a value that is not a tuple: a type error, the source disposed */
    live_t l;
    live_start(&l, reduce_each_of);
    live_send(&l, 5);
    CHECK_FAILED(l.r, 4 /* RPL_ERROR_TYPE */);
    CHECK_STR(l.r.error_domain, RPL_ERROR_DOMAIN);
    CHECK_EQ_INT(live_upstream(&l), 0);
    live_end(&l);

    /* rpl_callback_fail: the error goes down, the result is released, upstream disposed */
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *f = over_map((rpl_signal_t *)subj, to_pair, reduce_each_fail_of);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(f, &r);
    dtors = 0;
    status_inside = -99;
    for (int i = 1; i <= 3; i++) rpl_subject_send_next(subj, rpl_int(i));
    CHECK_EQ_INT(status_inside, RPL_OK);
    CHECK_SEQ(r, 1102);
    CHECK_FAILED(r, FAIL_CODE);
    CHECK_EQ_INT(dtors, 1);
    CHECK_EQ_INT(rpl_subject_subscriber_count(subj), 0);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(f);
    rpl_release(subj);
    rpl_release(pairs);
    rpl_release(s);

    common_checks(make_reduce_each, 1);
    CHECK_NULL_FN_NAMED(rpl_signal_reduce_each(nf_s_, NULL, &nf_c_, fnctx_release), "rpl_signal_reduce_each");
    CHECK_NAME(rpl_signal_reduce_each(n, sum_items, NULL, NULL), "[src] -reduceEach:");
}

/* ---- combine_previous --------------------------------------------------------- */
/* previous * 10 + current; boxed previous values (strings) are concatenated. */
static rpl_value prev_cur(void *ctx, const rpl_value *prev, const rpl_value *cur) {
    fnctx_t *c = ctx;
    if (c) c->calls++;
    if (rpl_value_type(prev) == RPL_TYPE_STRING) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s-%s", rpl_value_string(prev, NULL), rpl_value_string(cur, NULL));
        return rpl_string(buf);
    }
    return rpl_int(rpl_value_int(prev) * 10 + rpl_value_int(cur));
}
static rpl_value prev_cur_fail(void *ctx, const rpl_value *prev, const rpl_value *cur) {
    if (rpl_value_int(cur) == 2) {
        status_inside = rpl_callback_fail(fail_error());
        return rpl_pointer(NULL, count_dtor);
    }
    return prev_cur(ctx, prev, cur);
}
static rpl_signal_t *make_combine_previous(rpl_signal_t *s, fnctx_t *c) {
    return rpl_signal_combine_previous(s, rpl_string("boxed start"), prev_cur, c, fnctx_release);
}

static void test_combine_previous(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {0, 0, 0};
    rpl_signal_t *cp = rpl_signal_combine_previous(s, rpl_int(0), prev_cur, &c, fnctx_release);
    CHECK_TWICE(cp, 1, 12, 23);  /* previous is the source's value, not the last result (RAC) */
    CHECK_EQ_INT(c.calls, 6);
    rpl_release(cp);
    CHECK_EQ_INT(c.released, 1);

    /* RAC's spec: [1, 2, 3] with start "1" gives "1-1", "1-2", "2-3" */
    rpl_signal_t *strs = rpl_signal_map(s, to_string, NULL, NULL);
    rpl_signal_t *sc = rpl_signal_combine_previous(strs, rpl_string("s1"), prev_cur, NULL, NULL);
    CHECK_RUN(sc, "s1-s1 s1-s2 s2-s3 C");
    rpl_release(strs);

    /* rpl_callback_fail: the discarded result is released */
    dtors = 0;
    CHECK_CALLBACK_FAILS(rpl_signal_combine_previous(s, rpl_int(0), prev_cur_fail, NULL, NULL), "1 E77");
    CHECK_EQ_INT(dtors, 1);
    rpl_release(s);

    common_checks(make_combine_previous, 1);
    CHECK_NULL_FN_NAMED(rpl_signal_combine_previous(nf_s_, rpl_int(0), NULL, &nf_c_, fnctx_release),
                  "rpl_signal_combine_previous");
    /* start is consumed on every failure, checked after sig and fn */
    fnctx_t c2 = {0, 0, 0};
    pointer_dtor_calls = 0;
    CHECK(rpl_signal_combine_previous(NULL, rpl_pointer(NULL, pointer_dtor), prev_cur, &c2, fnctx_release) == NULL);
    CHECK(last_error_is(RPL_ERR_NULL, "rpl_signal_combine_previous"));
    CHECK_EQ_INT(pointer_dtor_calls, 1);
    CHECK_EQ_INT(c2.released, 1);
    rpl_signal_t *e = rpl_signal_empty();
    fnctx_t c3 = {0, 0, 0};
    CHECK(rpl_signal_combine_previous(e, forged(), prev_cur, &c3, fnctx_release) == NULL);
    CHECK(last_error_is(RPL_ERR_INVALID, "rpl_signal_combine_previous"));
    CHECK_EQ_INT(c3.released, 1);
    rpl_release(e);
    CHECK_NAME(rpl_signal_combine_previous(n, rpl_nil(), prev_cur, NULL, NULL), "[src] -combinePreviousWithStart:reduce:");
}

/* ---- distinct_until_changed_with ------------------------------------------------ */
/* Equal when both are in the same decade: 11, 12 are equal; 12, 21 are not. */
static bool same_decade(void *ctx, const rpl_value *a, const rpl_value *b) {
    fnctx_t *c = ctx;
    if (c) c->calls++;
    return rpl_value_int(a) / 10 == rpl_value_int(b) / 10;
}
static bool equal_fail(void *ctx, const rpl_value *a, const rpl_value *b) {
    if (rpl_value_int(b) == 2) status_inside = rpl_callback_fail(fail_error());
    return same_decade(ctx, a, b);
}
static rpl_signal_t *make_distinct_with(rpl_signal_t *s, fnctx_t *c) {
    return rpl_signal_distinct_until_changed_with(s, same_decade, c, fnctx_release);
}
/* The last value passed is compared, not the last value seen. */
static bool close_to(void *ctx, const rpl_value *a, const rpl_value *b) {
    (void)ctx;
    int64_t d = rpl_value_int(a) - rpl_value_int(b);
    return d >= -1 && d <= 1;
}

static void test_distinct_with(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 11, 12, 21, 25, 13, 14);
    rpl_signal_t *s = src_signal(&p);
    fnctx_t c = {0, 0, 0};
    rpl_signal_t *dw = rpl_signal_distinct_until_changed_with(s, same_decade, &c, fnctx_release);
    CHECK_TWICE(dw, 11, 21, 13);
    CHECK_EQ_INT(c.calls, 10);  /* 5 per run: the first value passes without a call */
    rpl_release(dw);
    CHECK_EQ_INT(c.released, 1);

    src_t q;
    SRC_INIT(&q, SRC_COMPLETE, 1, 2, 3, 4, 6);
    rpl_signal_t *qs = src_signal(&q);
    rpl_signal_t *cl = rpl_signal_distinct_until_changed_with(qs, close_to, NULL, NULL);
    CHECK_TWICE(cl, 1, 3, 6);  /* 2 is close to 1, 3 is not (1 is the last passed), 4 is close to 3 */
    rpl_release(cl);

    rpl_signal_t *f = rpl_signal_distinct_until_changed_with(qs, equal_fail, NULL, NULL);
    CHECK_CALLBACK_FAILS(f, "1 E77");
    rpl_release(qs);
    rpl_release(s);

    common_checks(make_distinct_with, 1);
    CHECK_NULL_FN_NAMED(rpl_signal_distinct_until_changed_with(nf_s_, NULL, &nf_c_, fnctx_release),
                  "rpl_signal_distinct_until_changed_with");
    CHECK_NAME(rpl_signal_distinct_until_changed_with(n, same_decade, NULL, NULL), "[src] -distinctUntilChangedWith:");
}

/* ---- buffer ----------------------------------------------------------------------- */
static rpl_signal_t *make_buffer(rpl_signal_t *s, fnctx_t *c) { (void)c; return rpl_signal_buffer(s, 2); }
static rpl_signal_t *buffer_2(rpl_signal_t *s) { return rpl_signal_buffer(s, 2); }
static rpl_signal_t *buffer_3(rpl_signal_t *s) { return rpl_signal_buffer(s, 3); }

static void test_buffer(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4, 5);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *b = rpl_signal_buffer(s, 2);
    rec_t r;
    for (int round = 0; round < 2; round++) {
        rec_run(b, &r);
        CHECK_LOG(&r, "(1,2) (3,4) (5) C");
        CHECK_EQ_INT(r.released, 1);
        rec_clear(&r);
    }
    rpl_release(b);
    rpl_signal_t *b1 = rpl_signal_buffer(s, 1);
    CHECK_RUN(b1, "(1) (2) (3) (4) (5) C");
    rpl_signal_t *big = rpl_signal_buffer(s, SIZE_MAX);
    CHECK_RUN(big, "(1,2,3,4,5) C");
    rpl_signal_t *b5 = rpl_signal_buffer(s, 5);
    rec_run(b5, &r);
    CHECK_LOG(&r, "(1,2,3,4,5) C");  /* no empty tuple at completion */
    rec_clear(&r);
    rpl_release(b5);
    /* boxed items are kept (valgrind checks the counts) */
    rpl_signal_t *strs = rpl_signal_map(s, to_string, NULL, NULL);
    rpl_signal_t *bs = rpl_signal_buffer(strs, 3);
    CHECK_RUN(bs, "(s1,s2,s3) (s4,s5) C");
    rpl_release(strs);
    rpl_release(s);

    /* empty source: completion only; an error drops the partial tuple */
    src_t e;
    SRC_INIT_EMPTY(&e, SRC_COMPLETE);
    check_over(&e, buffer_3, "C");
    SRC_INIT(&e, SRC_FAIL, 1, 2, 3);
    check_over(&e, buffer_2, "(1,2) E42");

    common_checks(make_buffer, 0);
    rpl_signal_t *n = named_src();
    CHECK(rpl_signal_buffer(n, 0) == NULL);
    CHECK(last_error_is(RPL_ERR_INVALID, "rpl_signal_buffer"));
    CHECK(rpl_signal_buffer(NULL, 0) == NULL);  /* the signal is checked first */
    CHECK(last_error_is(RPL_ERR_NULL, "rpl_signal_buffer"));
    check_name(rpl_signal_buffer(n, 3), "[src] -buffer: 3");
    rpl_release(n);
}

/* ---- not, and, or ----------------------------------------------------------------- */
static rpl_signal_t *not_of(rpl_signal_t *s) { return rpl_signal_not(s); }
static rpl_signal_t *and_of(rpl_signal_t *s) { return rpl_signal_and(s); }
static rpl_signal_t *or_of(rpl_signal_t *s) { return rpl_signal_or(s); }
static rpl_signal_t *make_not(rpl_signal_t *s, fnctx_t *c) { (void)c; return over_map(s, to_bool, not_of); }
static rpl_signal_t *make_and(rpl_signal_t *s, fnctx_t *c) { (void)c; return over_map(s, to_bools, and_of); }
static rpl_signal_t *make_or(rpl_signal_t *s, fnctx_t *c) { (void)c; return over_map(s, to_bools, or_of); }
/* (true, 1): a tuple with an item that is not a bool */
static rpl_value mixed_tuple(void *ctx, const rpl_value *v) {
    (void)ctx; (void)v;
    rpl_value items[2] = { rpl_bool(true), rpl_int(1) };
    return rpl_tuple(items, 2);
}

/* op over values of the wrong type (made by m from a subject) fails with
   RPL_ERROR_TYPE and disposes the subject's subscription. */
static void check_wrong_type(rpl_signal_t *(*op)(rpl_signal_t *), rpl_map_fn m) {
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *sig = m ? over_map((rpl_signal_t *)subj, m, op) : op((rpl_signal_t *)subj);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(sig, &r);
    rpl_subject_send_next(subj, rpl_int(1));
    rpl_subject_send_next(subj, rpl_int(2));
    CHECK_EQ_INT(r.n, 0);
    CHECK_FAILED(r, 4 /* RPL_ERROR_TYPE */);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    CHECK_EQ_INT(rpl_subject_subscriber_count(subj), 0);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(sig);
    rpl_release(subj);
}

static void test_boolean(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 0, 1, 2, 3);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *nt = as_ints(make_not(s, NULL));
    CHECK_TWICE(nt, 1, 0, 0, 0);
    rpl_release(nt);
    rpl_signal_t *an = as_ints(make_and(s, NULL));
    CHECK_TWICE(an, 0, 0, 0, 1);
    rpl_release(an);
    rpl_signal_t *o = as_ints(make_or(s, NULL));
    CHECK_TWICE(o, 0, 1, 1, 1);
    rpl_release(o);
    rpl_release(s);

    /* wrong types: an int for not; an int, an empty tuple, a non-bool item for and/or */
    check_wrong_type(not_of, NULL);
    check_wrong_type(not_of, to_pair);
    check_wrong_type(and_of, NULL);
    check_wrong_type(and_of, empty_tuple);
    check_wrong_type(and_of, mixed_tuple);
    check_wrong_type(or_of, to_bool);
    check_wrong_type(or_of, empty_tuple);
    check_wrong_type(or_of, mixed_tuple);

    common_checks(make_not, 0);
    common_checks(make_and, 0);
    common_checks(make_or, 0);
    CHECK_NAME(rpl_signal_not(n), "[src] -not");
    CHECK_NAME(rpl_signal_and(n), "[src] -and");
    CHECK_NAME(rpl_signal_or(n), "[src] -or");
}

/* ---- any, all ------------------------------------------------------------------------ */
static bool above_k(void *ctx, const rpl_value *v) {
    fnctx_t *c = ctx;
    c->calls++;
    return rpl_value_int(v) > c->k;
}
static bool pred_fail(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_int(v) == 2) status_inside = rpl_callback_fail(fail_error());
    return false;
}
static rpl_signal_t *make_any(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_any(s, above_k, c, fnctx_release); }
static rpl_signal_t *make_all(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_all(s, above_k, c, fnctx_release); }

/* op with predicate `x > k` over the scripted source p: the log as ints. */
static void run_quantifier(rpl_signal_t *(*make)(rpl_signal_t *, fnctx_t *), src_t *p, int64_t k,
                           const char *expected, int calls) {
    rpl_signal_t *s = src_signal(p);
    fnctx_t c = {k, 0, 0};
    rpl_signal_t *op = as_ints(make(s, &c));
    rec_t r;
    rec_run(op, &r);
    CHECK_LOG(&r, expected);
    CHECK_EQ_INT(c.calls, calls);
    CHECK_EQ_INT(p->disposals, 1);
    rec_clear(&r);
    rpl_release(op);
    rpl_release(s);
    CHECK_EQ_INT(c.released, 1);
}

static void test_any_all(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    run_quantifier(make_any, &p, 1, "1 C", 2);   /* 2 passes: true, no more calls */
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    run_quantifier(make_any, &p, 9, "0 C", 4);   /* none passes */
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    run_quantifier(make_all, &p, 0, "1 C", 4);   /* every one passes */
    SRC_INIT(&p, SRC_COMPLETE, 1, 2, 3, 4);
    run_quantifier(make_all, &p, 2, "0 C", 1);   /* 1 fails: false at once */
    SRC_INIT_EMPTY(&p, SRC_COMPLETE);
    run_quantifier(make_any, &p, 0, "0 C", 0);
    SRC_INIT_EMPTY(&p, SRC_COMPLETE);
    run_quantifier(make_all, &p, 0, "1 C", 0);
    /* RAC: an error of the source becomes false, then completed */
    SRC_INIT(&p, SRC_FAIL, 1);
    run_quantifier(make_any, &p, 5, "0 C", 1);
    SRC_INIT(&p, SRC_FAIL, 1);
    run_quantifier(make_all, &p, 0, "0 C", 1);

    /* the short circuit disposes a source that never completes */
    src_t k;
    SRC_INIT(&k, SRC_OPEN, 1, 2, 3);
    k.keep = 1;
    rpl_signal_t *ks = src_signal(&k);
    fnctx_t c = {1, 0, 0};
    rpl_signal_t *a = as_ints(make_any(ks, &c));
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(a, &r);
    CHECK_LOG(&r, "1 C");
    CHECK_EQ_INT(k.disposals, 1);
    CHECK_EQ_INT(c.calls, 2);
    rpl_subscriber_send_next(k.sub, rpl_int(9));  /* ignored */
    CHECK_EQ_INT(c.calls, 2);
    rpl_release(d);
    rec_clear(&r);
    src_clear(&k);
    rpl_release(a);
    rpl_release(ks);

    /* rpl_callback_fail fails the result (not swallowed like a source error) */
    for (int all = 0; all < 2; all++) {
        src_t q;
        SRC_INIT(&q, SRC_COMPLETE, 1, 2, 3);
        rpl_signal_t *qs = src_signal(&q);
        rpl_signal_t *f = all ? rpl_signal_all(qs, pred_fail, NULL, NULL) : rpl_signal_any(qs, pred_fail, NULL, NULL);
        status_inside = -99;
        rec_run(f, &r);
        if (all) CHECK_LOG(&r, "<type 1> C");  /* all: 1 fails the predicate first */
        else {
            CHECK_EQ_INT(status_inside, RPL_OK);
            CHECK_LOG(&r, "E77");
            CHECK_EQ_INT(q.disposals, 1);
        }
        rec_clear(&r);
        rpl_release(f);
        rpl_release(qs);
    }
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *af = rpl_signal_all((rpl_signal_t *)subj, pred_fail, NULL, NULL);
    d = rec_subscribe(af, &r);
    status_inside = -99;
    rpl_subject_send_next(subj, rpl_int(2));
    CHECK_EQ_INT(status_inside, RPL_OK);
    CHECK_LOG(&r, "E77");
    CHECK_EQ_INT(rpl_subject_subscriber_count(subj), 0);
    rpl_release(d);
    rec_clear(&r);
    rpl_release(af);
    rpl_release(subj);

    common_has_ctx = 1;
    common_dispose(make_any);
    common_release_without_dispose(make_any);
    common_bad_signal(make_any);
    common_dispose(make_all);
    common_release_without_dispose(make_all);
    common_bad_signal(make_all);
    CHECK_NULL_FN_NAMED(rpl_signal_any(nf_s_, NULL, &nf_c_, fnctx_release), "rpl_signal_any");
    CHECK_NULL_FN_NAMED(rpl_signal_all(nf_s_, NULL, &nf_c_, fnctx_release), "rpl_signal_all");
    CHECK_NAME(rpl_signal_any(n, pred_fail, NULL, NULL), "[src] -any:");
    CHECK_NAME(rpl_signal_all(n, pred_fail, NULL, NULL), "[src] -all:");
}

/* ---- default_if_empty ------------------------------------------------------------------ */
static rpl_signal_t *default_9(rpl_signal_t *s) { return rpl_signal_default_if_empty(s, rpl_int(9)); }

static void test_default_if_empty(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2);
    rpl_signal_t *s = src_signal(&p);
    rpl_signal_t *di = rpl_signal_default_if_empty(s, rpl_int(9));
    CHECK_TWICE(di, 1, 2);
    rpl_release(di);
    rpl_release(s);
    src_t e;
    SRC_INIT_EMPTY(&e, SRC_COMPLETE);
    rpl_signal_t *es = src_signal(&e);
    rpl_signal_t *ed = rpl_signal_default_if_empty(es, rpl_int(9));
    CHECK_TWICE(ed, 9);
    rpl_release(ed);
    /* a boxed default; take(1) downstream ends with the default */
    rpl_signal_t *bd = rpl_signal_default_if_empty(es, rpl_string("none"));
    rpl_signal_t *t1 = rpl_signal_take(bd, 1);
    CHECK_RUN(t1, "none C");
    rpl_release(bd);
    rpl_release(es);
    /* an error alone: no default */
    SRC_INIT_EMPTY(&e, SRC_FAIL);
    check_over(&e, default_9, "E42");

    check_value_operator(make_default_if_empty, rpl_signal_default_if_empty, "rpl_signal_default_if_empty");
    CHECK_NAME(rpl_signal_default_if_empty(n, rpl_nil()), "[src] -defaultIfEmpty:");
}

/* ---- initially, finally, do_dispose ------------------------------------------------------- */
/* An order log: each side effect appends a letter. */
static char order[64];
static void mark(const char *s) { strncat(order, s, sizeof order - strlen(order) - 1); }

/* A source that logs "S" at subscription, then plays its script, and returns
   a disposable that logs "D". */
static void lsrc_dispose(void *ctx) { mark("D"); src_on_dispose(ctx); }
static rpl_disposable_t *lsrc_subscribe(void *ctx, rpl_subscriber_t *s) {
    src_t *p = ctx;
    mark("S");
    rpl_disposable_t *d = src_subscribe(ctx, s);
    rpl_release(d);
    return rpl_disposable_create(lsrc_dispose, p);
}
static rpl_signal_t *lsrc_signal(src_t *p) { return rpl_signal_create(lsrc_subscribe, p, src_release); }

static void side_initially(void *ctx) { mark("I"); ((fnctx_t *)ctx)->calls++; }
static void side_finally(void *ctx) { mark("F"); ((fnctx_t *)ctx)->calls++; }
static void side_dispose(void *ctx) {
    fnctx_t *c = ctx;
    mark("X");
    c->calls++;
    c->k = rpl_callback_fail(fail_error());  /* refused here: the subscription is over */
}
/* An observer that logs its events into `order` too. */
static void lobs_next(void *ctx, const rpl_value *v) { (void)ctx; char b[8]; snprintf(b, sizeof b, "%lld", (long long)rpl_value_int(v)); mark(b); }
static void lobs_error(void *ctx, const rpl_error_t *e) { (void)ctx; (void)e; mark("E"); }
static void lobs_completed(void *ctx) { (void)ctx; mark("C"); }
static void lobs_release(void *ctx) { (void)ctx; mark("R"); }
/* Subscribes the logging observer, then disposes the subscription if
   `dispose`; the order log. */
static const char *run_logged(rpl_signal_t *s, int dispose) {
    order[0] = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = lobs_next;
    o.on_error = lobs_error;
    o.on_completed = lobs_completed;
    o.release = lobs_release;
    rpl_disposable_t *d = rpl_signal_subscribe(s, &o);
    if (dispose) rpl_disposable_dispose(d);
    rpl_release(d);
    return order;
}

static rpl_signal_t *make_initially(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_initially(s, side_initially, c, fnctx_release); }
static rpl_signal_t *make_finally(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_finally(s, side_finally, c, fnctx_release); }
static rpl_signal_t *make_do_dispose(rpl_signal_t *s, fnctx_t *c) { return rpl_signal_do_dispose(s, side_dispose, c, fnctx_release); }

static void initially_fail(void *ctx) { (void)ctx; mark("I"); status_inside = rpl_callback_fail(fail_error()); }

static void test_initially(void) {
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2);
    rpl_signal_t *s = lsrc_signal(&p);
    fnctx_t c = {0, 0, 0};
    rpl_signal_t *in = rpl_signal_initially(s, side_initially, &c, fnctx_release);
    CHECK_STR(run_logged(in, 0), "IS12CDR");  /* rule 27: before the upstream subscription */
    CHECK_STR(run_logged(in, 0), "IS12CDR");  /* at each subscription */
    CHECK_EQ_INT(c.calls, 2);
    rpl_release(in);
    CHECK_EQ_INT(c.released, 1);
    /* rpl_callback_fail: that subscription fails, the source is not subscribed */
    rpl_signal_t *f = rpl_signal_initially(s, initially_fail, NULL, NULL);
    status_inside = -99;
    CHECK_STR(run_logged(f, 0), "IER");
    CHECK_EQ_INT(status_inside, RPL_OK);
    CHECK_EQ_INT(p.subscriptions, 2);
    rec_t r;
    rec_run(f, &r);
    CHECK_FAILED(r, FAIL_CODE);
    rec_clear(&r);
    rpl_release(f);
    rpl_release(s);

    /* a dispose reaches the source */
    src_t o;
    SRC_INIT(&o, SRC_OPEN, 1);
    rpl_signal_t *os = lsrc_signal(&o);
    rpl_signal_t *oi = rpl_signal_initially(os, side_initially, &c, NULL);
    CHECK_STR(run_logged(oi, 1), "IS1DR");
    CHECK_EQ_INT(o.disposals, 1);
    rpl_release(oi);
    rpl_release(os);

    /* fn runs only at subscription, so ctx may be released as soon as the
       operator signal is freed, before its subscriptions end: the common
       checks but the dispose one (which holds ctx to a subscription's end). */
    common_has_ctx = 1;
    common_error(make_initially);
    common_release_without_dispose(make_initially);
    common_bad_signal(make_initially);
    CHECK_NULL_FN_NAMED(rpl_signal_initially(nf_s_, NULL, &nf_c_, fnctx_release), "rpl_signal_initially");
    CHECK_NAME(rpl_signal_initially(n, side_initially, &c, NULL), "[src] -initially:");
}

static void finally_fail(void *ctx) { (void)ctx; mark("F"); status_inside = rpl_callback_fail(fail_error()); }

static void test_finally(void) {
    fnctx_t c = {0, 0, 0};
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2);
    rpl_signal_t *s = lsrc_signal(&p);
    rpl_signal_t *fi = rpl_signal_finally(s, side_finally, &c, fnctx_release);
    CHECK_STR(run_logged(fi, 0), "S12FCDR");  /* before the completion is passed on */
    rpl_release(fi);
    rpl_release(s);
    src_t q;
    SRC_INIT(&q, SRC_FAIL, 1);
    rpl_signal_t *qs = lsrc_signal(&q);
    rpl_signal_t *qf = rpl_signal_finally(qs, side_finally, &c, fnctx_release);
    CHECK_STR(run_logged(qf, 0), "S1FEDR");  /* and before the error */
    rpl_release(qf);
    /* not on disposal (RAC), nor when a downstream take ends it */
    src_t o;
    SRC_INIT(&o, SRC_OPEN, 1, 2);
    rpl_signal_t *os = lsrc_signal(&o);
    rpl_signal_t *of = rpl_signal_finally(os, side_finally, &c, fnctx_release);
    CHECK_STR(run_logged(of, 1), "S12DR");
    rpl_signal_t *t = rpl_signal_take(of, 1);
    CHECK_STR(run_logged(t, 0), "S1CDR");
    rpl_release(t);
    rpl_release(of);
    rpl_release(os);
    CHECK_EQ_INT(c.calls, 2);
    CHECK_EQ_INT(c.released, 3);
    /* rpl_callback_fail: that error in place of the terminal event */
    rpl_signal_t *ff = rpl_signal_finally(qs, finally_fail, NULL, NULL);
    CHECK_CALLBACK_FAILS(ff, "1 E77");
    rpl_release(qs);
    src_t k;
    SRC_INIT(&k, SRC_COMPLETE, 5);
    rpl_signal_t *ks = src_signal(&k);
    rpl_signal_t *kf = rpl_signal_finally(ks, finally_fail, NULL, NULL);
    CHECK_RUN(kf, "5 E77");
    rpl_release(ks);

    common_checks(make_finally, 1);
    CHECK_NULL_FN_NAMED(rpl_signal_finally(nf_s_, NULL, &nf_c_, fnctx_release), "rpl_signal_finally");
    CHECK_NAME(rpl_signal_finally(n, side_finally, &c, NULL), "[src] -finally:");
}

/* Rule 27: fn runs after the source's own disposable was disposed, also
   when the source terminated inside its subscribe callback, and before the
   observer's release. */
static void test_do_dispose(void) {
    fnctx_t c = {0, 0, 0};
    /* completion inside the subscribe callback: after the source's disposable, before the release */
    src_t p;
    SRC_INIT(&p, SRC_COMPLETE, 1, 2);
    rpl_signal_t *s = lsrc_signal(&p);
    rpl_signal_t *dd = rpl_signal_do_dispose(s, side_dispose, &c, fnctx_release);
    CHECK_STR(run_logged(dd, 0), "S12CDXR");
    CHECK_EQ_INT(c.k, RPL_ERR_INVALID);  /* rpl_callback_fail is refused there */
    /* an error inside the subscribe callback */
    src_t q;
    SRC_INIT(&q, SRC_FAIL, 1);
    rpl_signal_t *qs = lsrc_signal(&q);
    rpl_signal_t *qd = rpl_signal_do_dispose(qs, side_dispose, &c, fnctx_release);
    CHECK_STR(run_logged(qd, 0), "S1EDXR");
    /* a dispose */
    src_t o;
    SRC_INIT(&o, SRC_OPEN, 1);
    rpl_signal_t *os = lsrc_signal(&o);
    rpl_signal_t *od = rpl_signal_do_dispose(os, side_dispose, &c, fnctx_release);
    CHECK_STR(run_logged(od, 1), "S1DXR");
    /* a downstream take, inside the subscribe callback */
    src_t m;
    SRC_INIT(&m, SRC_OPEN, 1, 2, 3);
    rpl_signal_t *ms = lsrc_signal(&m);
    rpl_signal_t *md = rpl_signal_do_dispose(ms, side_dispose, &c, fnctx_release);
    rpl_signal_t *mt = rpl_signal_take(md, 1);
    CHECK_STR(run_logged(mt, 0), "S1CDXR");
    CHECK_EQ_INT(m.disposals, 1);
    /* over merge and concat, whose inputs end inside their subscribe callbacks:
       after every input's disposable */
    rpl_signal_t *inputs[2] = { s, s };
    rpl_signal_t *merged = rpl_signal_merge(inputs, 2);
    rpl_signal_t *mgd = rpl_signal_do_dispose(merged, side_dispose, &c, fnctx_release);
    CHECK_STR(run_logged(mgd, 0), "S12DS12CDXR");
    rpl_release(mgd);
    rpl_release(merged);
    rpl_signal_t *cc = rpl_signal_concat(s, s);
    rpl_signal_t *ccd = rpl_signal_do_dispose(cc, side_dispose, &c, fnctx_release);
    CHECK_STR(run_logged(ccd, 0), "S12S12CDDXR");
    rpl_release(ccd);
    rpl_release(cc);
    /* through a fused map, once per subscription */
    rpl_signal_t *mm = rpl_signal_map(dd, zero_to_nil, NULL, NULL);
    CHECK_STR(run_logged(mm, 0), "S12CDXR");
    CHECK_STR(run_logged(mm, 1), "S12CDXR");
    CHECK_EQ_INT(c.calls, 8);
    rpl_release(mm);
    rpl_release(mt);
    rpl_release(md);
    rpl_release(ms);
    rpl_release(od);
    rpl_release(os);
    rpl_release(qd);
    rpl_release(qs);
    rpl_release(dd);
    rpl_release(s);
    CHECK_EQ_INT(c.released, 6);

    /* the sources being freed end it too (rule 6a) */
    src_t k;
    rpl_signal_t *ks = src_open_signal(&k);
    fnctx_t c2 = {0, 0, 0};
    rpl_signal_t *kd = rpl_signal_do_dispose(ks, side_dispose, &c2, fnctx_release);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(kd, &r);
    rpl_release(d);
    rpl_release(kd);
    rpl_release(ks);
    CHECK_EQ_INT(c2.calls, 0);
    src_clear(&k);
    CHECK_EQ_INT(c2.calls, 1);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(c2.released, 1);
    rec_clear(&r);

    common_checks(make_do_dispose, 1);
    CHECK_NULL_FN_NAMED(rpl_signal_do_dispose(nf_s_, NULL, &nf_c_, fnctx_release), "rpl_signal_do_dispose");
    CHECK_NAME(rpl_signal_do_dispose(n, side_dispose, &c, NULL), "[src] -doDispose:");
}

/* ---- Rule 19a: callbacks returning a value of an unlisted type ---------------- */
static rpl_value items_forge(void *ctx, const rpl_value *items, size_t count) {
    (void)ctx; (void)count;
    return rpl_value_int(&items[0]) == 2 ? forged() : rpl_int(1);
}
static rpl_value prev_forge(void *ctx, const rpl_value *prev, const rpl_value *cur) {
    (void)ctx; (void)prev;
    return rpl_value_int(cur) == 2 ? forged() : rpl_int(1);
}
static rpl_signal_t *reduce_each_forge_of(rpl_signal_t *s) { return rpl_signal_reduce_each(s, items_forge, NULL, NULL); }
static rpl_signal_t *combine_previous_forge_of(rpl_signal_t *s) {
    return rpl_signal_combine_previous(s, rpl_int(0), prev_forge, NULL, NULL);
}
static rpl_signal_t *reduce_each_forge_pairs(rpl_signal_t *s) { return over_map(s, to_pair, reduce_each_forge_of); }
static void test_forged_returns(void) {
    rpl_signal_t *(*builds[2])(rpl_signal_t *) = { reduce_each_forge_pairs, combine_previous_forge_of };
    for (int k = 0; k < 2; k++) {
        live_t l;
        live_start(&l, builds[k]);
        for (int i = 1; i <= 3; i++) live_send(&l, i);
        CHECK_SEQ(l.r, 1);  /* 1 passed, 2 failed it, 3 never arrives */
        CHECK_FAILED(l.r, RPL_ERROR_CALLBACK);
        CHECK_STR(l.r.error_domain, RPL_ERROR_DOMAIN);
        CHECK_EQ_INT(live_upstream(&l), 0);
        live_end(&l);
    }
}

/* ---- Threads ---------------------------------------------------------------------- */
/* Two threads send into one subject through buffer(4): every value arrives
   in a tuple, callbacks never overlap. */
static rpl_subject_t *thread_subject;
static void *send_500(void *arg) {
    (void)arg;
    for (int i = 0; i < 500; i++) rpl_subject_send_next(thread_subject, rpl_int(i));
    return NULL;
}
static atomic_int tuple_items;
static void count_items(void *ctx, const rpl_value *v) {
    rec_t *r = ctx;
    rec_enter(r);
    atomic_fetch_add(&tuple_items, (int)rpl_value_tuple_count(v));
    rec_leave(r);
}
static void test_buffer_threads(void) {
    thread_subject = rpl_subject_create();
    rpl_signal_t *b = rpl_signal_buffer((rpl_signal_t *)thread_subject, 4);
    rec_t r;
    atomic_store(&tuple_items, 0);
    rpl_disposable_t *d = rec_subscribe_fn(b, &r, count_items);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, send_500, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    rpl_subject_send_completed(thread_subject);
    CHECK_EQ_INT(tuple_items, 1000);
    CHECK_EQ_INT(r.overlap, 0);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rpl_release(b);
    rpl_release(thread_subject);
}

/* A dispose from another thread while on_next runs returns at once; do_dispose's
   fn runs when that callback returns, on its thread, before the release. */
static atomic_int in_next, let_go, dispose_calls;
static pthread_t dispose_thread;
static atomic_int dispose_on_sender;
static void gate_next(void *ctx, const rpl_value *v) {
    (void)ctx; (void)v;
    atomic_store(&in_next, 1);
    while (!atomic_load(&let_go)) thrd_yield();
}
static void note_dispose(void *ctx) {
    (void)ctx;
    atomic_fetch_add(&dispose_calls, 1);
    atomic_store(&dispose_on_sender, pthread_equal(pthread_self(), dispose_thread));
}
static void *send_one(void *arg) {
    rpl_subject_send_next(arg, rpl_int(1));
    return NULL;
}
static void test_do_dispose_threads(void) {
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *dd = rpl_signal_do_dispose((rpl_signal_t *)subj, note_dispose, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe_fn(dd, &r, gate_next);
    pthread_create(&dispose_thread, NULL, send_one, subj);
    while (!atomic_load(&in_next)) thrd_yield();
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);  /* does not wait for on_next */
    CHECK_EQ_INT(dispose_calls, 0);
    CHECK_EQ_INT(r.released, 0);
    atomic_store(&let_go, 1);
    pthread_join(dispose_thread, NULL);
    CHECK_EQ_INT(dispose_calls, 1);
    CHECK_EQ_INT(dispose_on_sender, 1);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(rpl_subject_subscriber_count(subj), 0);
    rpl_release(d);
    rpl_release(dd);
    rpl_release(subj);
}

int main(void) {
    alarm(60);  /* a deadlock fails the run instead of hanging it */
    RUN(test_map_replace);
    RUN(test_ignore);
    RUN(test_ignore_values);
    RUN(test_reduce_each);
    RUN(test_combine_previous);
    RUN(test_distinct_with);
    RUN(test_buffer);
    RUN(test_boolean);
    RUN(test_any_all);
    RUN(test_default_if_empty);
    RUN(test_initially);
    RUN(test_finally);
    RUN(test_do_dispose);
    RUN(test_forged_returns);
    RUN(test_buffer_threads);
    RUN(test_do_dispose_threads);
    CHECK_DONE();
}
