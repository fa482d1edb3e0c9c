/* rpl_callback_fail (rules 24 and 27): the one failure channel
   of operator callbacks. Inside a per-subscription operator callback it fails
   that operator once the callback returns (the return value discarded, the
   error downstream, upstream disposed); anywhere else it is refused. */
#include "recorder.h"
#include <unistd.h>

#define FAIL_CODE 42

static rpl_error_t *test_error(void) { return rpl_error_create("test", FAIL_CODE, "callback failed"); }

/* A boxed value whose destructor counts, to see a discarded return released. */
static int dtors;
static void count_dtor(void *p) { (void)p; dtors++; }

/* Callbacks that fail on the value 2. */
static int status_inside;  /* what rpl_callback_fail returned inside */
static rpl_value map_fail(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_int(v) == 2) {
        status_inside = rpl_callback_fail(test_error());
        return rpl_pointer(NULL, count_dtor);  /* discarded: must be released */
    }
    return rpl_value_copy(v);
}
static bool pred_fail(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_int(v) == 2) status_inside = rpl_callback_fail(test_error());
    return true;
}
static rpl_value reduce_fail(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_int(v) == 2) {
        status_inside = rpl_callback_fail(test_error());
        return rpl_pointer(NULL, count_dtor);
    }
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}
static void do_next_fail(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_int(v) == 2) status_inside = rpl_callback_fail(test_error());
}
static void do_error_fail(void *ctx, const rpl_error_t *e) {
    (void)ctx; (void)e;
    status_inside = rpl_callback_fail(test_error());
}
static void do_completed_fail(void *ctx) {
    (void)ctx;
    status_inside = rpl_callback_fail(test_error());
}

/* A signal whose release counts: a discarded returned signal is released. */
static int signal_releases;
static void count_signal_release(void *ctx) { (void)ctx; signal_releases++; }
static rpl_disposable_t *never_body(void *ctx, rpl_subscriber_t *s) { (void)ctx; (void)s; return NULL; }
static rpl_signal_t *counted_signal(void) { return rpl_signal_create(never_body, NULL, count_signal_release); }

static rpl_signal_t *flat_fail(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_int(v) == 2) {
        status_inside = rpl_callback_fail(test_error());
        return counted_signal();
    }
    return rpl_signal_return(rpl_value_copy(v));
}
static rpl_signal_t *bind_fail(void *ctx, const rpl_value *v, bool *stop) {
    (void)stop;
    return flat_fail(ctx, v);
}
static rpl_signal_t *catch_fail(void *ctx, const rpl_error_t *e) {
    (void)ctx; (void)e;
    status_inside = rpl_callback_fail(test_error());
    return counted_signal();
}

enum { OP_MAP, OP_FILTER, OP_SCAN, OP_TAKE_WHILE, OP_SKIP_WHILE, OP_DO_NEXT, OP_FLATTEN_MAP, OP_BIND, OP_COUNT };
static const char *op_names[OP_COUNT] = {"map", "filter", "scan", "take_while", "skip_while", "do_next",
                                         "flatten_map", "bind"};
static int ctx_releases;
static void count_ctx_release(void *ctx) { (void)ctx; ctx_releases++; }

static rpl_signal_t *make_op(int op, rpl_signal_t *src) {
    switch (op) {
    case OP_MAP: return rpl_signal_map(src, map_fail, NULL, count_ctx_release);
    case OP_FILTER: return rpl_signal_filter(src, pred_fail, NULL, count_ctx_release);
    case OP_SCAN: return rpl_signal_scan(src, rpl_int(0), reduce_fail, NULL, count_ctx_release);
    case OP_TAKE_WHILE: return rpl_signal_take_while(src, pred_fail, NULL, count_ctx_release);
    case OP_SKIP_WHILE: return rpl_signal_skip_while(src, pred_fail, NULL, count_ctx_release);
    case OP_DO_NEXT: return rpl_signal_do_next(src, do_next_fail, NULL, count_ctx_release);
    case OP_FLATTEN_MAP: return rpl_signal_flatten_map(src, flat_fail, NULL, count_ctx_release);
    case OP_BIND: return rpl_signal_bind(src, bind_fail, NULL, count_ctx_release);
    }
    return NULL;
}

/* For each value operator: values before the failing one pass, the failure
   arrives as the error, nothing after it, the source is disposed (the
   subject has no subscriber left), a discarded return value is released. */
static void test_value_operators_fail(void) {
    for (int op = 0; op < OP_COUNT; op++) {
        fprintf(stderr, "    %s\n", op_names[op]);
        rpl_subject_t *s = rpl_subject_create();
        rpl_signal_t *sig = make_op(op, (rpl_signal_t *)s);
        rec_t r;
        status_inside = 1;
        dtors = 0;
        signal_releases = 0;
        ctx_releases = 0;
        rpl_disposable_t *d = rec_subscribe(sig, &r);
        for (int i = 1; i <= 3; i++) CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(i)), RPL_OK);
        CHECK_EQ_INT(status_inside, RPL_OK);
        CHECK_FAILED(r, FAIL_CODE);
        CHECK(strcmp(r.error_domain, "test") == 0);
        /* skip_while drops 1 (the predicate is true); the others pass it on */
        CHECK_EQ_INT(r.n, op == OP_SKIP_WHILE ? 0 : 1);
        if (r.n == 1) CHECK_EQ_INT(r.ints[0], 1);
        CHECK_EQ_INT(r.after_terminal, 0);
        CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
        CHECK_EQ_INT(r.released, 1);
        if (op == OP_MAP || op == OP_SCAN) CHECK_EQ_INT(dtors, 1);
        if (op == OP_FLATTEN_MAP || op == OP_BIND) CHECK_EQ_INT(signal_releases, 1);
        rpl_release(d);
        rpl_release(sig);
        CHECK_EQ_INT(ctx_releases, 1);
        rpl_release(s);
    }
}

/* do_error and do_completed send the callback's error in place of their
   event; catch fails with it instead of subscribing the returned signal. */
static void test_terminal_callbacks_fail(void) {
    rpl_error_t *orig = rpl_error_create("orig", 7, "original");
    rpl_signal_t *err = rpl_signal_error(orig);
    rpl_signal_t *empty = rpl_signal_empty();
    rpl_signal_t *sigs[3] = {
        rpl_signal_do_error(err, do_error_fail, NULL, NULL),
        rpl_signal_do_completed(empty, do_completed_fail, NULL, NULL),
        rpl_signal_catch(err, catch_fail, NULL, NULL),
    };
    for (int i = 0; i < 3; i++) {
        rec_t r;
        status_inside = 1;
        signal_releases = 0;
        rpl_disposable_t *d = rec_subscribe(sigs[i], &r);
        CHECK_EQ_INT(status_inside, RPL_OK);
        CHECK_FAILED(r, FAIL_CODE);
        CHECK_EQ_INT(r.completed, 0);
        CHECK_EQ_INT(r.released, 1);
        if (i == 2) CHECK_EQ_INT(signal_releases, 1);
        rpl_release(d);
        rpl_release(sigs[i]);
    }
    rpl_release(err);
    rpl_release(orig);  /* rpl_signal_error borrows it */
    rpl_release(empty);
}

/* NULL is a generic ripple-domain error. */
static rpl_value map_fail_null(void *ctx, const rpl_value *v) {
    (void)ctx;
    status_inside = rpl_callback_fail(NULL);
    return rpl_value_copy(v);
}
static void test_null_error_is_generic(void) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *m = rpl_signal_map((rpl_signal_t *)s, map_fail_null, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(m, &r);
    rpl_subject_send_next(s, rpl_int(1));
    CHECK_EQ_INT(status_inside, RPL_OK);
    CHECK_FAILED(r, RPL_ERROR_GENERIC);
    CHECK(strcmp(r.error_domain, RPL_ERROR_DOMAIN) == 0);
    CHECK_EQ_INT(r.n, 0);
    rpl_release(d);
    rpl_release(m);
    rpl_release(s);
}

/* The first failure of one call counts. */
static rpl_value map_fail_twice(void *ctx, const rpl_value *v) {
    (void)ctx;
    CHECK_EQ_INT(rpl_callback_fail(rpl_error_create("first", 1, "")), RPL_OK);
    CHECK_EQ_INT(rpl_callback_fail(rpl_error_create("second", 2, "")), RPL_OK);
    return rpl_value_copy(v);
}
static void test_first_failure_counts(void) {
    rpl_signal_t *src = rpl_signal_return(rpl_int(5));
    rpl_signal_t *m = rpl_signal_map(src, map_fail_twice, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(m, &r);
    CHECK_FAILED(r, 1);
    CHECK(strcmp(r.error_domain, "first") == 0);
    rpl_release(d);
    rpl_release(m);
    rpl_release(src);
}

/* Anywhere else: refused, the error consumed (ASan and valgrind see a leak
   otherwise), nothing changes. */
static int observer_status;
static void observer_fails(void *ctx, const rpl_value *v) {
    rec_next(ctx, v);
    observer_status = rpl_callback_fail(test_error());
}
static int job_status;
static void job_fails(void *ctx) { (void)ctx; job_status = rpl_callback_fail(test_error()); }
static rpl_value map_schedules(void *ctx, const rpl_value *v) {
    (void)ctx;
    /* immediate work runs inside this callback, but is not the callback */
    rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), job_fails, NULL, NULL));
    return rpl_value_copy(v);
}
static rpl_disposable_t *subscribe_fails(void *ctx, rpl_subscriber_t *s) {
    *(int *)ctx = rpl_callback_fail(test_error());
    rpl_subscriber_send_completed(s);
    return NULL;
}
static void test_refused_elsewhere(void) {
    CHECK_EQ_INT(rpl_callback_fail(test_error()), RPL_ERR_INVALID);
    CHECK(strstr(rpl_last_error_message(), "rpl_callback_fail") != NULL);
    CHECK_EQ_INT(rpl_callback_fail(NULL), RPL_ERR_INVALID);

    /* an observer callback */
    rpl_subject_t *s = rpl_subject_create();
    rec_t r;
    rpl_disposable_t *d = rec_subscribe_fn((rpl_signal_t *)s, &r, observer_fails);
    observer_status = 1;
    rpl_subject_send_next(s, rpl_int(1));
    rpl_subject_send_next(s, rpl_int(2));
    CHECK_EQ_INT(observer_status, RPL_ERR_INVALID);
    CHECK_EQ_INT(r.n, 2);
    CHECK_OPEN(r);
    rpl_disposable_dispose(d);
    rpl_release(d);

    /* scheduled work, even inside an operator callback (immediate scheduler) */
    rpl_signal_t *m = rpl_signal_map((rpl_signal_t *)s, map_schedules, NULL, NULL);
    d = rec_subscribe(m, &r);
    job_status = 1;
    rpl_subject_send_next(s, rpl_int(3));
    CHECK_EQ_INT(job_status, RPL_ERR_INVALID);
    CHECK_EQ_INT(r.n, 1);
    CHECK_OPEN(r);
    rpl_release(d);
    rpl_release(m);

    /* a signal's subscribe callback */
    int sub_status = 1;
    rpl_signal_t *c = rpl_signal_create(subscribe_fails, &sub_status, NULL);
    d = rec_subscribe(c, &r);
    CHECK_EQ_INT(sub_status, RPL_ERR_INVALID);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rpl_release(c);

    /* not an error handle: refused, and released (consumed) */
    rpl_signal_t *never = rpl_signal_never();
    CHECK_EQ_INT(rpl_callback_fail((rpl_error_t *)rpl_retain(never)), RPL_ERR_KIND);
    rpl_release(never);
    rpl_release(s);
}

/* A delivery a callback starts (it sends into another subject) is not that
   callback: an operator in the nested chain fails only its own
   subscription, and an observer there is refused. */
typedef struct { rpl_subject_t *inner; } forward_ctx;
static rpl_value map_forwards(void *ctx, const rpl_value *v) {
    forward_ctx *f = ctx;
    rpl_subject_send_next(f->inner, rpl_value_copy(v));
    return rpl_value_copy(v);
}
static void test_nested_delivery(void) {
    rpl_subject_t *outer = rpl_subject_create();
    forward_ctx f = {rpl_subject_create()};
    rpl_signal_t *outer_map = rpl_signal_map((rpl_signal_t *)outer, map_forwards, &f, NULL);
    rpl_signal_t *inner_map = rpl_signal_map((rpl_signal_t *)f.inner, map_fail, NULL, NULL);
    rec_t ro, ri, rn;
    rpl_disposable_t *dout = rec_subscribe(outer_map, &ro);
    rpl_disposable_t *din = rec_subscribe(inner_map, &ri);
    rpl_disposable_t *dn = rec_subscribe_fn((rpl_signal_t *)f.inner, &rn, observer_fails);
    observer_status = 1;
    for (int i = 1; i <= 3; i++) rpl_subject_send_next(outer, rpl_int(i));
    CHECK_FAILED(ri, FAIL_CODE);      /* the nested map failed itself */
    CHECK_EQ_INT(ri.n, 1);
    CHECK_OPEN(ro);                   /* the outer map did not fail */
    CHECK_EQ_INT(ro.n, 3);
    CHECK_EQ_INT(observer_status, RPL_ERR_INVALID);
    CHECK_EQ_INT(rn.n, 3);
    rpl_release(dout);
    rpl_release(din);
    rpl_release(dn);
    rpl_release(outer_map);
    rpl_release(inner_map);
    rpl_release(f.inner);
    rpl_release(outer);
}

/* A callback that failed and then starts a delivery: callbacks of that
   delivery neither take its failure nor lose their own, and it still fails
   with its own error once it returns. */
#define OUTER_CODE 7
static rpl_value fail_then_forward(void *ctx, const rpl_value *v) {
    forward_ctx *f = ctx;
    CHECK_EQ_INT(rpl_callback_fail(rpl_error_create("test", OUTER_CODE, "outer failed")), RPL_OK);
    rpl_subject_send_next(f->inner, rpl_value_copy(v));
    return rpl_value_copy(v);
}
static void test_failed_then_nested_delivery(void) {
    forward_ctx f = {rpl_subject_create()};
    rpl_subject_t *outer[2] = {rpl_subject_create(), rpl_subject_create()};
    rpl_signal_t *inner_map = rpl_signal_map((rpl_signal_t *)f.inner, map_fail, NULL, NULL);
    rec_t ri, ro[2];
    rpl_disposable_t *din = rec_subscribe(inner_map, &ri);
    rpl_signal_t *outer_map[2];
    rpl_disposable_t *dout[2];
    for (int i = 0; i < 2; i++) {
        outer_map[i] = rpl_signal_map((rpl_signal_t *)outer[i], fail_then_forward, &f, NULL);
        dout[i] = rec_subscribe(outer_map[i], &ro[i]);
    }
    /* 1: the nested map passes it (the outer failure is not its own) */
    rpl_subject_send_next(outer[0], rpl_int(1));
    CHECK_OPEN(ri);
    CHECK_EQ_INT(ri.n, 1);
    CHECK_FAILED(ro[0], OUTER_CODE);
    CHECK_EQ_INT(ro[0].n, 0);
    /* 2: the nested map fails too, with its own error */
    status_inside = 0;
    rpl_subject_send_next(outer[1], rpl_int(2));
    CHECK_EQ_INT(status_inside, RPL_OK);
    CHECK_FAILED(ri, FAIL_CODE);
    CHECK_EQ_INT(ri.n, 1);
    CHECK_FAILED(ro[1], OUTER_CODE);
    CHECK_EQ_INT(ro[1].n, 0);
    for (int i = 0; i < 2; i++) {
        rpl_release(dout[i]);
        rpl_release(outer_map[i]);
        rpl_release(outer[i]);
    }
    rpl_release(din);
    rpl_release(inner_map);
    rpl_release(f.inner);
}

/* Concurrent failures on several threads: each subscription fails with its
   own thread's error, once. */
#include <pthread.h>
typedef struct { rpl_subject_t *s; rec_t r; int64_t code; } thread_case;
static rpl_value map_fail_at_100(void *ctx, const rpl_value *v) {
    thread_case *tc = ctx;
    if (rpl_value_int(v) == 100) rpl_callback_fail(rpl_error_create("t", tc->code, ""));
    return rpl_value_copy(v);
}
static void *run_case(void *p) {
    thread_case *tc = p;
    for (int i = 0; i < 200; i++) rpl_subject_send_next(tc->s, rpl_int(i));
    return NULL;
}
static void test_threads(void) {
    thread_case cases[4];
    rpl_signal_t *maps[4];
    rpl_disposable_t *ds[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        cases[i].s = rpl_subject_create();
        cases[i].code = 100 + i;
        maps[i] = rpl_signal_map((rpl_signal_t *)cases[i].s, map_fail_at_100, &cases[i], NULL);
        ds[i] = rec_subscribe(maps[i], &cases[i].r);
    }
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, run_case, &cases[i]);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++) {
        CHECK_FAILED(cases[i].r, 100 + i);
        CHECK_EQ_INT(cases[i].r.n, 100);
        rpl_release(ds[i]);
        rpl_release(maps[i]);
        rpl_release(cases[i].s);
    }
}

int main(void) {
    alarm(60);  /* a hang fails instead of stalling CI */
    RUN(test_value_operators_fail);
    RUN(test_terminal_callbacks_fail);
    RUN(test_null_error_is_generic);
    RUN(test_first_failure_counts);
    RUN(test_refused_elsewhere);
    RUN(test_nested_delivery);
    RUN(test_failed_then_nested_delivery);
    RUN(test_threads);
    CHECK_DONE();
}
