/* Time and scheduling operators on the test scheduler: subscribe_on,
   deliver_on, delay, throttle, timeout, interval. Nothing sleeps. */
#include "sched_util.h"

#define MS 1000000ull

/* --- delay ------------------------------------------------------------------ */
static void test_delay_values_and_completion(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_delay(f.sig, 10 * MS, f.ts));
    src_next(&f.s, 1);
    rpl_test_scheduler_advance_by(f.ts, 4 * MS);
    src_next(&f.s, 2);
    src_complete(&f.s);
    CHECK_EQ_INT(f.r.n, 0);
    rpl_test_scheduler_advance_by(f.ts, 6 * MS - 1);
    CHECK_EQ_INT(f.r.n, 0);
    rpl_test_scheduler_advance_by(f.ts, 1);
    CHECK_EQ_INT(f.r.n, 1);
    CHECK_EQ_INT(f.r.ints[0], 1);
    CHECK_EQ_INT(f.r.at[0], 10 * MS);
    CHECK(f.r.current[0] == f.ts);
    CHECK_EQ_INT(f.r.completed, 0);
    rpl_test_scheduler_advance_by(f.ts, 4 * MS);
    CHECK_EQ_INT(f.r.n, 2);
    CHECK_EQ_INT(f.r.at[1], 14 * MS);
    CHECK_EQ_INT(f.r.completed, 1);   /* completion delayed too */
    CHECK_EQ_INT(f.r.end_at, 14 * MS);
    CHECK_EQ_INT(f.r.released, 1);
    src_op_close(&f);
}

static void test_delay_error_not_delayed(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_delay(f.sig, 10 * MS, f.ts));
    src_next(&f.s, 1);
    rpl_test_scheduler_advance_by(f.ts, 5 * MS);
    src_fail(&f.s, 42);
    CHECK_EQ_INT(f.r.errors, 1);        /* at once */
    CHECK_EQ_INT(f.r.error_code, 42);
    CHECK_EQ_INT(f.r.n, 0);
    rpl_test_scheduler_advance_by(f.ts, 100 * MS);
    CHECK_EQ_INT(f.r.n, 0);             /* the pending value was dropped */
    CHECK_EQ_INT(f.r.released, 1);
    src_op_close(&f);
}

static void test_delay_dispose_cancels(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_delay(f.sig, 10 * MS, f.ts));
    rpl_value str = rpl_string("boxed");  /* a boxed value: a leak would show */
    rpl_subscriber_send_next(f.s.sub, str);
    src_next(&f.s, 2);
    rpl_disposable_dispose(f.sub);
    CHECK_EQ_INT(f.r.released, 1);
    CHECK_EQ_INT(f.s.disposed, 1);     /* upstream disposed too */
    rpl_test_scheduler_advance_by(f.ts, 100 * MS);
    CHECK_EQ_INT(f.r.n, 0);
    src_op_close(&f);
}

/* Disposing after upstream completed (its completion still delayed)
   cancels the delivery too. */
static void test_delay_dispose_after_upstream_completed(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_delay(f.sig, 10, f.ts));
    rpl_subscriber_send_next(f.s.sub, rpl_string("x"));
    src_complete(&f.s);
    rpl_disposable_dispose(f.sub);
    CHECK_EQ_INT(f.r.released, 1);
    rpl_test_scheduler_advance_by(f.ts, 100);
    CHECK_EQ_INT(f.r.n, 0);
    CHECK_EQ_INT(f.r.completed, 0);
    src_op_close(&f);
}

/* --- throttle ---------------------------------------------------------------- */
static void test_throttle(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_throttle(f.sig, 10 * MS, f.ts));
    src_next(&f.s, 1);
    rpl_test_scheduler_advance_by(f.ts, 5 * MS);
    src_next(&f.s, 2);                          /* replaces 1, restarts the wait */
    rpl_test_scheduler_advance_by(f.ts, 9 * MS);
    CHECK_EQ_INT(f.r.n, 0);
    rpl_test_scheduler_advance_by(f.ts, 1 * MS);  /* t = 15: 10 ms of quiet */
    CHECK_EQ_INT(f.r.n, 1);
    CHECK_EQ_INT(f.r.ints[0], 2);
    CHECK_EQ_INT(f.r.at[0], 15 * MS);
    CHECK(f.r.current[0] == f.ts);
    src_next(&f.s, 3);
    rpl_test_scheduler_advance_by(f.ts, 20 * MS);
    CHECK_EQ_INT(f.r.n, 2);
    CHECK_EQ_INT(f.r.ints[1], 3);
    src_next(&f.s, 4);
    src_complete(&f.s);                         /* flushes 4 at once, then C */
    CHECK_EQ_INT(f.r.n, 3);
    CHECK_EQ_INT(f.r.ints[2], 4);
    CHECK_EQ_INT(f.r.completed, 1);
    rpl_test_scheduler_advance_by(f.ts, 20 * MS);
    CHECK_EQ_INT(f.r.n, 3);
    CHECK_EQ_INT(f.r.released, 1);
    src_op_close(&f);
}

static void test_throttle_error_and_dispose(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_throttle(f.sig, 10 * MS, f.ts));
    src_next(&f.s, 1);
    src_fail(&f.s, 7);
    CHECK_EQ_INT(f.r.errors, 1);
    rpl_test_scheduler_advance_by(f.ts, 20 * MS);
    CHECK_EQ_INT(f.r.n, 0);      /* dropped */
    rpl_release(f.sub);
    src_cleanup(&f.s);

    rec_t r2 = {0};
    f.sub = rec_attach(f.op, &r2);
    rpl_subscriber_send_next(f.s.sub, rpl_string("pending"));
    rpl_disposable_dispose(f.sub);
    rpl_test_scheduler_advance_by(f.ts, 20 * MS);
    CHECK_EQ_INT(r2.n, 0);     /* disposal cancelled the pending send */
    CHECK_EQ_INT(r2.released, 1);
    src_op_close(&f);
}

/* --- timeout ----------------------------------------------------------------- */
static void test_timeout_fires(void) {
    src_op f;
    src_op_open(&f);
    rpl_test_scheduler_advance_by(f.ts, 3 * MS);   /* the deadline runs from subscription */
    src_op_subscribe(&f, rpl_signal_timeout(f.sig, 10 * MS, f.ts));
    rpl_test_scheduler_advance_by(f.ts, 5 * MS);
    src_next(&f.s, 1);                             /* values do not reset it */
    rpl_test_scheduler_advance_by(f.ts, 4 * MS);
    CHECK_EQ_INT(f.r.errors, 0);
    rpl_test_scheduler_advance_by(f.ts, 1 * MS);   /* t = 13 */
    CHECK_EQ_INT(f.r.n, 1);
    CHECK_EQ_INT(f.r.errors, 1);
    CHECK_EQ_INT(f.r.end_at, 13 * MS);
    CHECK_EQ_INT(f.r.error_code, RPL_ERROR_TIMEOUT);
    CHECK(strcmp(f.r.error_domain, RPL_ERROR_DOMAIN) == 0);
    CHECK_EQ_INT(f.s.disposed, 1);                 /* the source was disposed */
    src_next(&f.s, 2);
    CHECK_EQ_INT(f.r.n, 1);
    CHECK_EQ_INT(f.r.released, 1);
    src_op_close(&f);
}

/* A source that can never send (never): its subscription is freed at once,
   but the timer can still fail the result, so the timeout must fire. Also
   through a released disposable handle, and on the background scheduler. */
static void test_timeout_of_never(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *never = rpl_signal_never();
    rpl_signal_t *t = rpl_signal_timeout(never, 10 * MS, ts);
    rec_t r = {0};
    rpl_disposable_t *sub = rec_attach(t, &r);
    rpl_release(sub);
    rpl_test_scheduler_advance_by(ts, 10 * MS);
    CHECK_EQ_INT(r.errors, 1);
    CHECK_EQ_INT(r.error_code, RPL_ERROR_TIMEOUT);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(t);
    rpl_release(ts);

    rpl_signal_t *bg = rpl_signal_timeout(never, MS, rpl_scheduler_background());
    CHECK_EQ_INT(rpl_signal_wait(bg, 10000 * MS), RPL_ERR_FAILED);
    CHECK(rpl_last_signal_error() != NULL);
    CHECK_EQ_INT(rpl_error_code(rpl_last_signal_error()), RPL_ERROR_TIMEOUT);
    rpl_release(bg);
    rpl_release(never);
}

static void test_timeout_not_fired(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_timeout(f.sig, 10 * MS, f.ts));
    src_next(&f.s, 1);
    src_complete(&f.s);
    rpl_test_scheduler_advance_by(f.ts, 100 * MS);
    CHECK_EQ_INT(f.r.n, 1);
    CHECK_EQ_INT(f.r.completed, 1);
    CHECK_EQ_INT(f.r.errors, 0);
    rpl_release(f.sub);
    src_cleanup(&f.s);

    rec_t r2 = {0};   /* disposed before the deadline: no error */
    f.sub = rec_attach(f.op, &r2);
    rpl_disposable_dispose(f.sub);
    rpl_test_scheduler_advance_by(f.ts, 100 * MS);
    CHECK_EQ_INT(r2.errors, 0);
    CHECK_EQ_INT(r2.released, 1);
    rpl_release(f.sub);

    /* A synchronous signal never times out. */
    rpl_signal_t *ret = rpl_signal_return(rpl_int(5));
    rpl_signal_t *t2 = rpl_signal_timeout(ret, 1, f.ts);
    rec_t r3 = {0};
    f.sub = rec_attach(t2, &r3);
    CHECK_EQ_INT(r3.n, 1);
    CHECK_EQ_INT(r3.completed, 1);
    rpl_test_scheduler_advance_by(f.ts, 10);
    CHECK_EQ_INT(r3.errors, 0);
    rpl_release(t2);
    rpl_release(ret);
    src_op_close(&f);
}

/* --- interval ---------------------------------------------------------------- */
static void test_interval(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *iv = rpl_signal_interval(10 * MS, ts);
    rec_t r = {0};
    r.clock = ts;
    rpl_disposable_t *sub = rec_attach(iv, &r);
    rpl_test_scheduler_advance_by(ts, 9 * MS);
    CHECK_EQ_INT(r.n, 0);
    rpl_test_scheduler_advance_by(ts, 26 * MS);
    CHECK_EQ_INT(r.n, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(r.ints[i], i);
        CHECK_EQ_INT(r.at[i], (uint64_t)(i + 1) * 10 * MS);
    }
    CHECK(r.current[0] == ts);
    rpl_disposable_dispose(sub);
    CHECK_EQ_INT(r.released, 1);
    rpl_test_scheduler_advance_by(ts, 100 * MS);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.completed + r.errors, 0);
    rpl_release(sub);

    /* Two subscriptions tick independently, each from 0. */
    rec_t a = {0}, b = {0};
    rpl_disposable_t *sa = rec_attach(iv, &a);
    rpl_test_scheduler_advance_by(ts, 5 * MS);
    rpl_disposable_t *sb = rec_attach(iv, &b);
    rpl_test_scheduler_advance_by(ts, 15 * MS);
    CHECK_EQ_INT(a.n, 2);
    CHECK_EQ_INT(b.n, 1);
    CHECK_EQ_INT(b.ints[0], 0);
    rpl_disposable_dispose(sa);
    rpl_disposable_dispose(sb);
    rpl_release(sa);
    rpl_release(sb);
    rpl_release(iv);
    rpl_release(ts);
}

/* Releasing everything without disposing frees the interval's subscription
   once its scheduler is gone (rule 6a): release runs, nothing leaks. */
static void test_interval_freed_with_scheduler(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *iv = rpl_signal_interval(10, ts);
    rec_t r = {0};
    rpl_release(rec_attach(iv, &r));
    rpl_release(iv);
    rpl_test_scheduler_advance_by(ts, 25);
    CHECK_EQ_INT(r.n, 2);
    CHECK_EQ_INT(r.released, 0);   /* still alive: its timer can send */
    rpl_release(ts);
    CHECK_EQ_INT(r.released, 1);
}

/* --- subscribe_on ------------------------------------------------------------ */
static void test_subscribe_on(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_subscribe_on(f.sig, f.ts));
    CHECK_EQ_INT(f.s.subscriptions, 0);   /* not yet: it is scheduled */
    rpl_test_scheduler_advance_by(f.ts, 0);
    CHECK_EQ_INT(f.s.subscriptions, 1);
    CHECK(f.s.subscribed_on == f.ts);
    src_next(&f.s, 5);                     /* events come from the sender */
    CHECK_EQ_INT(f.r.n, 1);
    CHECK(f.r.current[0] == NULL);
    src_complete(&f.s);
    CHECK_EQ_INT(f.r.completed, 1);
    CHECK_EQ_INT(f.r.released, 1);
    rpl_release(f.sub);
    src_cleanup(&f.s);

    rec_t r2 = {0};   /* disposed before the subscription ran: cancelled */
    f.sub = rec_attach(f.op, &r2);
    rpl_disposable_dispose(f.sub);
    CHECK_EQ_INT(r2.released, 1);
    rpl_test_scheduler_advance_by(f.ts, 0);
    CHECK_EQ_INT(f.s.subscriptions, 1);
    rpl_release(f.sub);

    rec_t r3 = {0};   /* disposing later disposes the upstream subscription */
    f.sub = rec_attach(f.op, &r3);
    rpl_test_scheduler_run(f.ts);
    CHECK_EQ_INT(f.s.subscriptions, 2);
    rpl_disposable_dispose(f.sub);
    CHECK_EQ_INT(f.s.disposed, 1);
    CHECK_EQ_INT(r3.released, 1);
    src_op_close(&f);
}

/* --- deliver_on -------------------------------------------------------------- */
static void test_deliver_on(void) {
    src_op f;
    src_op_open(&f);
    src_op_subscribe(&f, rpl_signal_deliver_on(f.sig, f.ts));
    CHECK_EQ_INT(f.s.subscriptions, 1);   /* subscription itself is synchronous */
    for (int i = 0; i < 10; i++) src_next(&f.s, i);
    src_complete(&f.s);
    CHECK_EQ_INT(f.r.n, 0);
    rpl_test_scheduler_run(f.ts);
    CHECK_EQ_INT(f.r.n, 10);
    for (int i = 0; i < 10; i++) CHECK_EQ_INT(f.r.ints[i], i);
    CHECK(f.r.current[0] == f.ts);
    CHECK_EQ_INT(f.r.completed, 1);
    CHECK_EQ_INT(f.r.released, 1);
    rpl_release(f.sub);
    src_cleanup(&f.s);

    rec_t r2 = {0};   /* an error is delivered on the scheduler too */
    f.sub = rec_attach(f.op, &r2);
    src_fail(&f.s, 3);
    CHECK_EQ_INT(r2.errors, 0);
    rpl_test_scheduler_run(f.ts);
    CHECK_EQ_INT(r2.errors, 1);
    rpl_release(f.sub);
    src_cleanup(&f.s);

    rec_t r3 = {0};   /* disposal drops what is queued; nothing after dispose */
    f.sub = rec_attach(f.op, &r3);
    rpl_subscriber_send_next(f.s.sub, rpl_string("queued"));
    src_complete(&f.s);
    rpl_disposable_dispose(f.sub);
    CHECK_EQ_INT(r3.released, 1);
    rpl_test_scheduler_run(f.ts);
    CHECK_EQ_INT(r3.n, 0);
    CHECK_EQ_INT(r3.completed, 0);
    src_op_close(&f);
}

/* Operators compose: interval -> throttle -> deliver_on on one clock. */
static void test_composition(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *iv = rpl_signal_interval(10, ts);
    rpl_signal_t *dl = rpl_signal_delay(iv, 5, ts);
    rpl_signal_t *on = rpl_signal_deliver_on(dl, ts);
    rec_t r = {0};
    r.clock = ts;
    rpl_disposable_t *sub = rec_attach(on, &r);
    rpl_test_scheduler_advance_by(ts, 35);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.at[0], 15);
    CHECK_EQ_INT(r.at[2], 35);
    rpl_disposable_dispose(sub);
    rpl_release(sub);
    rpl_release(on);
    rpl_release(dl);
    rpl_release(iv);
    rpl_release(ts);
}

/* A test scheduler is kept alive only by its owner: released with a
   subscribe_on and a delay pending on it, everything is freed (no cycle
   through its pending work) and the observer's release runs. */
static void test_released_test_scheduler_frees_everything(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    src s = {0};
    rpl_signal_t *sig = src_signal(&s);
    rpl_signal_t *d = rpl_signal_delay(sig, 10, ts);
    rpl_signal_t *on = rpl_signal_subscribe_on(d, ts);
    rec_t r = {0};
    rpl_disposable_t *sub = rec_attach(on, &r);
    rpl_release(sub);
    rpl_release(on);
    rpl_release(d);
    rpl_release(sig);
    CHECK_EQ_INT(r.released, 0);
    rpl_release(ts);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(s.subscriptions, 0);

    /* Same with values already queued in a delay and a deliver_on. */
    ts = rpl_test_scheduler_create();
    sig = src_signal(&s);
    d = rpl_signal_delay(sig, 10, ts);
    on = rpl_signal_deliver_on(d, ts);
    rec_t r2 = {0};
    sub = rec_attach(on, &r2);
    rpl_subscriber_send_next(s.sub, rpl_string("queued"));
    rpl_test_scheduler_advance_by(ts, 10);   /* delay, then deliver_on, at t=10 */
    rpl_subscriber_send_next(s.sub, rpl_string("delayed"));
    rpl_subscriber_send_next(s.sub, rpl_string("delayed too"));
    rpl_release(sub);
    rpl_release(on);
    rpl_release(d);
    rpl_release(ts);
    src_cleanup(&s);   /* the source lets go: nothing can send any more */
    rpl_release(sig);
    CHECK_EQ_INT(r2.released, 1);
    CHECK_EQ_INT(r2.n, 1);   /* the later ones never ran: dropped, not leaked */
}

/* An operator whose test scheduler is gone gives a subscription that is over
   at once: nothing could ever deliver to it. */
static void test_operator_outliving_its_test_scheduler(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *never = rpl_signal_never();
    rpl_signal_t *ops[5] = {rpl_signal_delay(never, 1, ts), rpl_signal_throttle(never, 1, ts),
                            rpl_signal_timeout(never, 1, ts), rpl_signal_deliver_on(never, ts),
                            rpl_signal_interval(1, ts)};
    rpl_release(ts);
    for (int i = 0; i < 5; i++) {
        rec_t r = {0};
        rpl_disposable_t *sub = rec_attach(ops[i], &r);
        CHECK(sub != NULL);
        CHECK_EQ_INT(r.released, 1);
        CHECK(rpl_disposable_is_disposed(sub));
        rpl_release(sub);
        rpl_release(ops[i]);
    }
    rpl_release(never);
}

/* --- Bad input --------------------------------------------------------------- */
static void test_bad_input(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *sig = rpl_signal_never();
    rpl_scheduler_t *imm = rpl_scheduler_immediate();
    CHECK(rpl_signal_delay(NULL, 1, ts) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_delay(sig, 1, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_delay(sig, 1, (rpl_scheduler_t *)sig) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_delay((rpl_signal_t *)ts, 1, ts) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_throttle(sig, 1, NULL) == NULL);
    CHECK(rpl_signal_throttle(sig, 1, imm) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_timeout(NULL, 1, ts) == NULL);
    CHECK(rpl_signal_timeout(sig, 1, imm) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_interval(1, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_interval(0, ts) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_interval(1, imm) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_subscribe_on(sig, NULL) == NULL);
    CHECK(rpl_signal_subscribe_on(NULL, ts) == NULL);
    CHECK(rpl_signal_deliver_on(sig, (rpl_scheduler_t *)sig) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_deliver_on(NULL, ts) == NULL);
    rpl_release(sig);
    rpl_release(ts);
}

/* The immediate scheduler works with delay, subscribe_on and deliver_on. */
static void test_immediate_operators(void) {
    rpl_scheduler_t *imm = rpl_scheduler_immediate();
    rpl_signal_t *ret = rpl_signal_return(rpl_int(9));
    rpl_signal_t *a = rpl_signal_subscribe_on(ret, imm);
    rpl_signal_t *b = rpl_signal_deliver_on(a, imm);
    rpl_signal_t *c = rpl_signal_delay(b, 1000, imm);
    rec_t r = {0};
    rpl_disposable_t *sub = rec_attach(c, &r);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.ints[0], 9);
    CHECK_EQ_INT(r.completed, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(sub);
    rpl_release(c);
    rpl_release(b);
    rpl_release(a);
    rpl_release(ret);
}

int main(void) {
    RUN(test_delay_values_and_completion);
    RUN(test_delay_error_not_delayed);
    RUN(test_delay_dispose_cancels);
    RUN(test_delay_dispose_after_upstream_completed);
    RUN(test_throttle);
    RUN(test_throttle_error_and_dispose);
    RUN(test_timeout_fires);
    RUN(test_timeout_not_fired);
    RUN(test_timeout_of_never);
    RUN(test_interval);
    RUN(test_interval_freed_with_scheduler);
    RUN(test_subscribe_on);
    RUN(test_deliver_on);
    RUN(test_composition);
    RUN(test_released_test_scheduler_frees_everything);
    RUN(test_operator_outliving_its_test_scheduler);
    RUN(test_bad_input);
    RUN(test_immediate_operators);
    CHECK_DONE();
}
