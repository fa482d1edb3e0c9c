/* Error handling and repetition: catch, catch_to, retry, repeat. */
#include "ops2_support.h"
#include <stdint.h>

/* ------------------------------------------------------------------ catch */
typedef struct {
    int calls;
    int64_t code;
    int mode;  /* 0: return(9), 1: NULL, 2: error(6), 3: not a signal, 4: `inner` */
    rpl_signal_t *inner;
} catch_ctx;

static rpl_signal_t *handler(void *ctx, const rpl_error_t *e) {
    catch_ctx *c = ctx;
    c->calls++;
    c->code = rpl_error_code(e);
    switch (c->mode) {
    case 0: return rpl_signal_return(rpl_int(9));
    case 1: return NULL;
    case 2: {
        rpl_error_t *e6 = test_error(6);
        rpl_signal_t *s = rpl_signal_error(e6);
        rpl_release(e6);
        return s;
    }
    case 3: return (rpl_signal_t *)rpl_disposable_create(NULL, NULL);
    default: return rpl_retain(c->inner);
    }
}

static void test_catch(void) {
    src_t a, b;
    rec_t r;
    catch_ctx c = {0};
    ctx_releases = 0;
    rpl_signal_t *sa = src_make(&a, "1 E5");
    rpl_signal_t *s = rpl_signal_catch(sa, handler, &c, count_release);
    CHECK_STR(rec_run(s, &r), "1 9 C");
    CHECK_EQ_INT(c.calls, 1);
    CHECK_EQ_INT(c.code, 5);
    c.mode = 1;  /* NULL passes the original error on */
    CHECK_STR(rec_run(s, &r), "1 E5");
    c.mode = 2;  /* the replacement's error is forwarded */
    CHECK_STR(rec_run(s, &r), "1 E6");
    c.mode = 3;
    CHECK_STR(rec_run(s, &r), "1 E3");
    CHECK_EQ_INT(r.error_code, RPL_ERROR_CALLBACK);
    rpl_release(s);
    rpl_release(sa);
    src_drop(&a);
    CHECK_EQ_INT(ctx_releases, 1);

    /* Completion passes, the handler is not called. */
    c.calls = 0;
    c.mode = 0;
    sa = src_make(&a, "1 C");
    s = rpl_signal_catch(sa, handler, &c, NULL);
    CHECK_STR(rec_run(s, &r), "1 C");
    CHECK_EQ_INT(c.calls, 0);
    rpl_release(s);
    rpl_release(sa);
    src_drop(&a);

    /* Hot: disposal reaches the source, then the replacement. */
    sa = src_make(&a, NULL);
    c.mode = 4;
    c.inner = src_make(&b, NULL);
    s = rpl_signal_catch(sa, handler, &c, NULL);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 1);
    rpl_release(d);
    d = rec_subscribe(s, &r);
    src_send(&a, 1, "1 E2");
    CHECK_EQ_INT(b.nsubs, 1);
    src_send(&b, 0, "2");
    CHECK_STR(r.log, "1 2");
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, &b);
    /* Rule 6a. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "E2");
    src_round_end(d, &a, NULL);
    CHECK_EQ_INT(r.released, 0);
    src_drop(&b);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(s);
    rpl_release(c.inner);
    rpl_release(sa);

    CHECK_CALLBACK_BAD_INPUT(rpl_signal_catch, handler, &c);
}

static void test_catch_to(void) {
    src_t a, b;
    rec_t r;
    rpl_signal_t *sa = src_make(&a, "1 E5");
    rpl_signal_t *sb = src_make(&b, "2 C");
    rpl_signal_t *s = rpl_signal_catch_to(sa, sb);
    CHECK_STR(rec_run(s, &r), "1 2 C");
    CHECK_STR(rec_run(s, &r), "1 2 C");
    CHECK_EQ_INT(b.nsubs, 2);
    rpl_release(s);
    src_drop(&a);
    src_drop(&b);
    rpl_release(sb);

    /* The replacement's error passes on; disposal reaches the replacement. */
    sb = src_make(&b, NULL);
    s = rpl_signal_catch_to(sa, sb);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    src_send(&b, 0, "3 E8");
    CHECK_STR(r.log, "1 3 E8");
    rpl_release(d);
    d = rec_subscribe(s, &r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(b.disposed, 2);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rpl_release(s);
    src_drop(&a);
    src_drop(&b);
    check_pair_bad_input(rpl_signal_catch_to);
    rpl_release(sa);
    rpl_release(sb);
    CHECK_EQ_INT(a.released, 1);
    CHECK_EQ_INT(b.released, 1);
}

/* ----------------------------------------------------------- retry/repeat */
/* Attempt k sends k, then fails while k < fail_until (retry), or completes
   while k < complete_until (repeat) and fails after. */
typedef struct {
    long attempts, fail_until, complete_until;
    int repeat_mode;
} flaky_t;

static rpl_disposable_t *flaky_subscribe(void *ctx, rpl_subscriber_t *s) {
    flaky_t *f = ctx;
    long k = f->attempts++;
    rpl_subscriber_send_next(s, rpl_int(k));
    bool fail = f->repeat_mode ? k >= f->complete_until : k < f->fail_until;
    if (fail) {
        rpl_error_t *e = test_error(5);
        rpl_subscriber_send_error(s, e);
        rpl_release(e);
    } else {
        rpl_subscriber_send_completed(s);
    }
    return NULL;
}

static rpl_signal_t *flaky(flaky_t *f, int repeat_mode, long until) {
    memset(f, 0, sizeof *f);
    f->repeat_mode = repeat_mode;
    if (repeat_mode) f->complete_until = until; else f->fail_until = until;
    return rpl_signal_create(flaky_subscribe, f, NULL);
}

static void test_retry(void) {
    flaky_t f;
    rec_t r;
    rpl_signal_t *src = flaky(&f, 0, 2);
    rpl_signal_t *s = rpl_signal_retry(src, 2);
    CHECK_STR(rec_run(s, &r), "0 1 2 C");  /* n retries after the first error */
    CHECK_EQ_INT(f.attempts, 3);
    rpl_release(s);
    f.attempts = 0;
    s = rpl_signal_retry(src, 1);
    CHECK_STR(rec_run(s, &r), "0 1 E5");
    rpl_release(s);
    f.attempts = 0;
    s = rpl_signal_retry(src, 0);  /* no retry */
    CHECK_STR(rec_run(s, &r), "0 E5");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(s);
    rpl_release(src);

    /* Without limit, synchronously: a loop, not a recursion. */
    long n = test_scale(200000, 3000);
    src = flaky(&f, 0, n);
    s = rpl_signal_retry(src, RPL_FOREVER_COUNT);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    CHECK_EQ_INT(r.n, n + 1);
    CHECK_EQ_INT(r.completed, 1);
    CHECK_EQ_INT(f.attempts, n + 1);
    rpl_release(d);
    rpl_release(s);
    rpl_release(src);

    /* Asynchronous failures resubscribe on the failing thread. */
    src_t a;
    rpl_signal_t *sa = src_make(&a, NULL);
    s = rpl_signal_retry(sa, 1);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 E4");
    CHECK_EQ_INT(a.nsubs, 2);
    CHECK_EQ_INT(a.disposed, 1);
    src_send(&a, 1, "2 E4");
    CHECK_STR(r.log, "1 2 E4");
    CHECK_EQ_INT(a.nsubs, 2);
    src_round_end(d, &a, NULL);
    /* Disposal reaches the running attempt and stops retrying. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "E4");
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 4);
    src_send(&a, 1, "E4");
    CHECK_EQ_INT(a.nsubs, 2);
    CHECK_STR(r.log, "");
    src_round_end(d, &a, NULL);
    /* Rule 6a. */
    d = rec_subscribe(s, &r);
    src_round_end(d, &a, NULL);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(s);
    rpl_release(sa);
    CHECK_EQ_INT(a.released, 1);

    CHECK(rpl_signal_retry(NULL, 1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_retry((rpl_signal_t *)e, 1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_signal_t *empty = rpl_signal_empty();
    CHECK(rpl_signal_catch_to((rpl_signal_t *)e, empty) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(empty);
    rpl_release(e);
}


static void test_repeat(void) {
    src_t a;
    rec_t r;
    rpl_signal_t *sa = src_make(&a, "1 C");
    rpl_signal_t *s = rpl_signal_repeat(sa, 3);
    CHECK_STR(rec_run(s, &r), "1 1 1 C");
    CHECK_EQ_INT(a.nsubs, 3);
    rpl_release(s);
    src_drop(&a);
    s = rpl_signal_repeat(sa, 1);
    CHECK_STR(rec_run(s, &r), "1 C");
    rpl_release(s);
    src_drop(&a);
    s = rpl_signal_repeat(sa, 0);  /* zero subscriptions: completes at once */
    CHECK_STR(rec_run(s, &r), "C");
    CHECK_EQ_INT(a.nsubs, 0);
    rpl_release(s);
    rpl_release(sa);

    /* An error ends it. */
    flaky_t f;
    rpl_signal_t *src = flaky(&f, 1, 2);
    s = rpl_signal_repeat(src, RPL_FOREVER_COUNT);
    CHECK_STR(rec_run(s, &r), "0 1 2 E5");
    rpl_release(s);
    rpl_release(src);

    /* Forever, synchronously: no stack growth. */
    long n = test_scale(200000, 3000);
    src = flaky(&f, 1, n);
    s = rpl_signal_repeat(src, RPL_FOREVER_COUNT);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    CHECK_EQ_INT(r.n, n + 1);
    CHECK_EQ_INT(r.errors, 1);
    rpl_release(d);
    rpl_release(s);
    rpl_release(src);

    /* Forever, stopped from inside a callback (via take_until). */
    src_t t;
    rpl_signal_t *st = src_make(&t, NULL);
    rpl_signal_t *one = rpl_signal_return(rpl_int(1));
    rpl_signal_t *rep = rpl_signal_repeat(one, RPL_FOREVER_COUNT);
    rpl_signal_t *tu = rpl_signal_take_until(rep, st);
    stopper_t stop;
    d = stopper_subscribe(tu, &stop, &t, 5);
    CHECK_STR(stop.rec.log, "1 1 1 1 1 C");
    CHECK_EQ_INT(stop.rec.released, 1);
    rpl_release(d);
    rpl_release(tu);
    rpl_release(rep);
    rpl_release(one);
    src_drop(&t);
    rpl_release(st);

    /* Asynchronous completions; disposal. */
    sa = src_make(&a, NULL);
    s = rpl_signal_repeat(sa, 2);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 C");
    src_send(&a, 1, "2 C");
    CHECK_STR(r.log, "1 2 C");
    CHECK_EQ_INT(a.nsubs, 2);
    src_round_end(d, &a, NULL);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "1 C");
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 4);
    CHECK_EQ_INT(r.released, 1);
    src_round_end(d, &a, NULL);
    rpl_release(s);
    rpl_release(sa);
    CHECK_EQ_INT(a.released, 1);

    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_repeat((rpl_signal_t *)e, 1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(e);
}

int main(void) {
    RUN(test_catch);
    RUN(test_catch_to);
    RUN(test_retry);
    RUN(test_repeat);
    CHECK_DONE();
}
