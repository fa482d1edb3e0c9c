#define _POSIX_C_SOURCE 200809L
/* Schedulers: immediate (trampoline), test (virtual time), serial,
   background; cancelling; release-exactly-once; bad input. Timing uses the
   test scheduler; real threads are awaited with gates, never with sleeps. */
#include "sched_util.h"
#include <time.h>

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* --- A log of work items ---------------------------------------------------- */
typedef struct {
    int order[64];
    uint64_t at[64];
    rpl_scheduler_t *current[64];
    int n;
    rpl_scheduler_t *clock;
} worklog;
typedef struct { worklog *log; int id; } item;
static item items[64];

static void log_work(void *ctx) {
    item *it = ctx;
    worklog *l = it->log;
    l->order[l->n] = it->id;
    l->at[l->n] = l->clock ? rpl_scheduler_now(l->clock) : 0;
    l->current[l->n] = rpl_scheduler_current();
    l->n++;
}
static item *mk(worklog *l, int id) { items[id].log = l; items[id].id = id; return &items[id]; }

/* --- Immediate ----------------------------------------------------------- */
static void test_immediate_runs_synchronously(void) {
    worklog l = {0};
    rpl_scheduler_t *imm = rpl_scheduler_immediate();
    CHECK(imm == rpl_scheduler_immediate());
    atomic_store(&releases, 0);
    rpl_disposable_t *d = rpl_scheduler_schedule(imm, log_work, mk(&l, 1), count_release);
    CHECK(d != NULL);
    CHECK_EQ_INT(l.n, 1);
    CHECK(l.current[0] == imm);
    CHECK(rpl_scheduler_current() == NULL);
    CHECK_EQ_INT(atomic_load(&releases), 1);   /* after the run, before return */
    CHECK(rpl_disposable_is_disposed(d));      /* nothing left to cancel */
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);
    CHECK_EQ_INT(atomic_load(&releases), 1);
    rpl_release(d);
    /* imm is borrowed (a shared instance): never released */
}

/* Nested scheduling is queued (trampoline): A schedules B and C; B
   schedules D. Order A B C D, all before the outer schedule returns. */
static worklog tl;
static void tramp_d(void *ctx) { (void)ctx; tl.order[tl.n++] = 4; }
static void tramp_b(void *ctx) {
    (void)ctx;
    tl.order[tl.n++] = 2;
    rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), tramp_d, NULL, NULL));
    tl.order[tl.n++] = 20;  /* B finishes before D starts */
}
static void tramp_c(void *ctx) { (void)ctx; tl.order[tl.n++] = 3; }
static void tramp_a(void *ctx) {
    (void)ctx;
    tl.order[tl.n++] = 1;
    rpl_scheduler_t *imm = rpl_scheduler_immediate();
    rpl_release(rpl_scheduler_schedule(imm, tramp_b, NULL, NULL));
    rpl_disposable_t *dc = rpl_scheduler_schedule(imm, tramp_c, NULL, count_release);
    CHECK(!rpl_disposable_is_disposed(dc));  /* queued, not run yet */
    rpl_release(dc);
    tl.order[tl.n++] = 10;
}
static void test_immediate_trampoline(void) {
    tl.n = 0;
    atomic_store(&releases, 0);
    rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), tramp_a, NULL, NULL));
    int expect[] = {1, 10, 2, 20, 3, 4};
    CHECK_EQ_INT(tl.n, 6);
    for (int i = 0; i < 6 && i < tl.n; i++) CHECK_EQ_INT(tl.order[i], expect[i]);
    CHECK_EQ_INT(atomic_load(&releases), 1);
}

/* Cancelling a queued trampoline item: it never runs, its release runs. */
static int cancelled_ran;
static void cancelled_fn(void *ctx) { (void)ctx; cancelled_ran++; }
static void cancel_outer(void *ctx) {
    (void)ctx;
    rpl_disposable_t *d = rpl_scheduler_schedule(rpl_scheduler_immediate(), cancelled_fn, NULL, count_release);
    CHECK_EQ_INT(atomic_load(&releases), 0);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(atomic_load(&releases), 1);  /* released at cancel */
    rpl_release(d);
}
static void test_immediate_cancel_queued(void) {
    cancelled_ran = 0;
    atomic_store(&releases, 0);
    rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), cancel_outer, NULL, NULL));
    CHECK_EQ_INT(cancelled_ran, 0);
    CHECK_EQ_INT(atomic_load(&releases), 1);
}

/* 100,000 levels of recursive scheduling without growing the stack. */
static long depth, max_nesting, nesting;
static void recurse(void *ctx) {
    (void)ctx;
    nesting++;
    if (nesting > max_nesting) max_nesting = nesting;
    if (++depth < 100000)
        rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), recurse, NULL, NULL));
    nesting--;
}
static void test_immediate_deep_recursion(void) {
    depth = max_nesting = nesting = 0;
    rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), recurse, NULL, NULL));
    CHECK_EQ_INT(depth, 100000);
    CHECK_EQ_INT(max_nesting, 1);  /* each level ran after the previous returned */
}

static void test_immediate_after_blocks(void) {
    worklog l = {0};
    uint64_t t0 = mono_ns();
    rpl_disposable_t *d = rpl_scheduler_after(rpl_scheduler_immediate(), 2000000, log_work, mk(&l, 1), NULL);
    CHECK(mono_ns() - t0 >= 2000000);
    CHECK_EQ_INT(l.n, 1);
    rpl_release(d);
    /* Repeating would block forever: rejected, and the context released. */
    atomic_store(&releases, 0);
    CHECK(rpl_scheduler_repeat(rpl_scheduler_immediate(), 0, 10, log_work, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK_EQ_INT(atomic_load(&releases), 1);
}

/* --- Test scheduler -------------------------------------------------------- */
static void test_test_scheduler_order(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    worklog l = {0};
    l.clock = ts;
    CHECK_EQ_INT(rpl_scheduler_now(ts), 0);
    rpl_disposable_t *d[6];
    d[0] = rpl_scheduler_after(ts, 20, log_work, mk(&l, 1), NULL);
    d[1] = rpl_scheduler_after(ts, 10, log_work, mk(&l, 2), NULL);
    d[2] = rpl_scheduler_after(ts, 10, log_work, mk(&l, 3), NULL);  /* tie: FIFO */
    d[3] = rpl_scheduler_schedule(ts, log_work, mk(&l, 4), NULL);   /* due now */
    d[4] = rpl_scheduler_after(ts, 10, log_work, mk(&l, 5), NULL);
    d[5] = rpl_scheduler_after(ts, 30, log_work, mk(&l, 6), NULL);
    CHECK_EQ_INT(l.n, 0);  /* nothing runs until the clock moves */
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(ts, 0), RPL_OK);
    CHECK_EQ_INT(l.n, 1);
    CHECK_EQ_INT(l.order[0], 4);
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(ts, 15), RPL_OK);
    CHECK_EQ_INT(rpl_scheduler_now(ts), 15);
    CHECK_EQ_INT(l.n, 4);
    CHECK_EQ_INT(l.order[1], 2);
    CHECK_EQ_INT(l.order[2], 3);
    CHECK_EQ_INT(l.order[3], 5);
    CHECK_EQ_INT(l.at[1], 10);   /* the clock reads the due time inside work */
    CHECK(l.current[1] == ts);
    rpl_disposable_dispose(d[5]);  /* cancel before it runs */
    CHECK_EQ_INT(rpl_test_scheduler_run(ts), RPL_OK);
    CHECK_EQ_INT(l.n, 5);
    CHECK_EQ_INT(l.order[4], 1);
    CHECK_EQ_INT(rpl_scheduler_now(ts), 20);
    for (int i = 0; i < 6; i++) rpl_release(d[i]);
    rpl_release(ts);
}

/* Work scheduled from inside work at the same virtual time runs in order. */
static rpl_scheduler_t *nested_ts;
static worklog nl;
static void nested_inner(void *ctx) { log_work(ctx); }
static void nested_outer(void *ctx) {
    log_work(ctx);
    rpl_release(rpl_scheduler_after(nested_ts, 5, nested_inner, mk(&nl, 11), NULL));
    rpl_release(rpl_scheduler_schedule(nested_ts, nested_inner, mk(&nl, 12), NULL));
}
static void test_test_scheduler_nested(void) {
    nested_ts = rpl_test_scheduler_create();
    memset(&nl, 0, sizeof nl);
    nl.clock = nested_ts;
    rpl_release(rpl_scheduler_after(nested_ts, 10, nested_outer, mk(&nl, 10), NULL));
    rpl_test_scheduler_advance_by(nested_ts, 12);
    CHECK_EQ_INT(nl.n, 2);   /* 10 at t=10, 12 at t=10; 11 due at 15 */
    CHECK_EQ_INT(nl.order[1], 12);
    CHECK_EQ_INT(nl.at[1], 10);
    rpl_test_scheduler_advance_by(nested_ts, 3);
    CHECK_EQ_INT(nl.n, 3);
    CHECK_EQ_INT(nl.at[2], 15);
    rpl_release(nested_ts);
}

/* Repeating: occurrences at delay + k * interval; two timers interleave by
   date (RAC spec: t=20/+5 and t=22/+10 -> 20, 22, 25, 30, 32). */
static void test_test_scheduler_repeat(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    worklog l = {0};
    l.clock = ts;
    atomic_store(&releases, 0);
    rpl_disposable_t *a = rpl_scheduler_repeat(ts, 20, 5, log_work, mk(&l, 1), count_release);
    rpl_disposable_t *b = rpl_scheduler_repeat(ts, 22, 10, log_work, mk(&l, 2), count_release);
    rpl_test_scheduler_advance_by(ts, 32);
    uint64_t expect_at[] = {20, 22, 25, 30, 32};
    int expect_id[] = {1, 2, 1, 1, 2};
    CHECK_EQ_INT(l.n, 5);
    for (int i = 0; i < 5 && i < l.n; i++) {
        CHECK_EQ_INT(l.at[i], expect_at[i]);
        CHECK_EQ_INT(l.order[i], expect_id[i]);
    }
    rpl_disposable_dispose(a);
    CHECK_EQ_INT(atomic_load(&releases), 1);
    rpl_test_scheduler_advance_by(ts, 100);
    CHECK_EQ_INT(l.n, 5 + 10);  /* only b: 42, 52, ..., 132 */
    rpl_disposable_dispose(b);
    rpl_disposable_dispose(b);
    CHECK_EQ_INT(atomic_load(&releases), 2);
    rpl_test_scheduler_advance_by(ts, 100);
    CHECK_EQ_INT(l.n, 15);
    rpl_release(a);
    rpl_release(b);
    rpl_release(ts);
}

/* Disposing itself from inside its own run: that run finishes, no more runs,
   release once after the run. */
typedef struct { rpl_disposable_t *self; int runs; int released_during_run; } selfdisp;
static void selfdisp_fn(void *ctx) {
    selfdisp *s = ctx;
    s->runs++;
    if (s->runs == 3) {
        rpl_disposable_dispose(s->self);
        s->released_during_run = atomic_load(&releases);
    }
}
static void test_cancel_during_run(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    selfdisp s = {0};
    atomic_store(&releases, 0);
    s.self = rpl_scheduler_repeat(ts, 1, 1, selfdisp_fn, &s, count_release);
    rpl_test_scheduler_advance_by(ts, 10);
    CHECK_EQ_INT(s.runs, 3);
    CHECK_EQ_INT(s.released_during_run, 0);  /* not while it runs */
    CHECK_EQ_INT(atomic_load(&releases), 1);
    CHECK(rpl_disposable_is_disposed(s.self));
    rpl_release(s.self);
    rpl_release(ts);
}

/* Releasing a test scheduler with pending work drops it, releasing each
   context once and running none. Releasing a disposable cancels nothing. */
static void test_test_scheduler_freed_with_pending_work(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    worklog l = {0};
    atomic_store(&releases, 0);
    rpl_release(rpl_scheduler_after(ts, 10, log_work, mk(&l, 1), count_release));
    rpl_release(rpl_scheduler_repeat(ts, 10, 10, log_work, mk(&l, 2), count_release));
    rpl_disposable_t *d = rpl_scheduler_schedule(ts, log_work, mk(&l, 3), count_release);
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_EQ_INT(l.n, 1);      /* the released handles did not cancel */
    CHECK_EQ_INT(atomic_load(&releases), 1);
    rpl_release(ts);
    CHECK_EQ_INT(atomic_load(&releases), 3);
    CHECK_EQ_INT(l.n, 1);
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);
    rpl_release(d);
}

/* --- Serial and background ------------------------------------------------- */
typedef struct {
    gate g;
    int order[100];
    int n;
    rpl_scheduler_t *current;
    pthread_t thread;
} serial_log;
typedef struct { serial_log *log; int id; } serial_item;
static serial_item sitems[100];
static void serial_work(void *ctx) {
    serial_item *it = ctx;
    it->log->order[it->log->n++] = it->id;   /* serial: no lock needed */
    it->log->current = rpl_scheduler_current();
    it->log->thread = pthread_self();
    gate_open(&it->log->g);
}

/* A serial item's context is released on the worker after its work
   returns: a test waits for those releases too (this gate), so none of them
   lands in a later test's count. */
static gate serial_released = GATE_INIT;
static void open_serial_released(void *ctx) { (void)ctx; gate_open(&serial_released); }

static void test_serial_fifo(void) {
    rpl_scheduler_t *s = rpl_scheduler_create_serial("test.serial");
    static serial_log l = {GATE_INIT, {0}, 0, NULL, 0};
    for (int i = 0; i < 100; i++) {
        sitems[i].log = &l;
        sitems[i].id = i;
        rpl_release(rpl_scheduler_schedule(s, serial_work, &sitems[i], open_serial_released));
    }
    gate_wait(&l.g, 100);
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(l.order[i], i);
    CHECK(l.current == s);
    CHECK(!pthread_equal(l.thread, pthread_self()));
    gate_wait(&serial_released, 100);
    rpl_release(s);
}

/* Pending work keeps a serial scheduler alive: released right after
   scheduling, the work still runs on it (and sees it as current). */
static void test_serial_released_with_pending_work(void) {
    static serial_log l = {GATE_INIT, {0}, 0, NULL, 0};
    rpl_scheduler_t *s = rpl_scheduler_create_serial(NULL);
    sitems[0].log = &l;
    sitems[0].id = 7;
    sitems[1].log = &l;
    sitems[1].id = 8;
    rpl_release(rpl_scheduler_schedule(s, serial_work, &sitems[0], open_serial_released));
    rpl_release(rpl_scheduler_after(s, 1000000, serial_work, &sitems[1], open_serial_released));
    rpl_release(s);
    gate_wait(&l.g, 2);
    CHECK_EQ_INT(l.order[0], 7);
    CHECK_EQ_INT(l.order[1], 8);
    CHECK(l.current != NULL);
    gate_wait(&serial_released, 102);  /* both contexts (after test_serial_fifo's 100) */
}

static void test_background(void) {
    static serial_log l = {GATE_INIT, {0}, 0, NULL, 0};
    rpl_scheduler_t *bg = rpl_scheduler_background();
    CHECK(bg == rpl_scheduler_background());
    sitems[0].log = &l;
    sitems[0].id = 1;
    rpl_release(rpl_scheduler_schedule(bg, serial_work, &sitems[0], NULL));
    gate_wait(&l.g, 1);
    CHECK(l.current == bg);
    CHECK(!pthread_equal(l.thread, pthread_self()));
    CHECK(rpl_scheduler_now(bg) > 0);
}

/* Cancel before a serial scheduler runs an item: the worker is held inside
   a first item until the second has been cancelled. */
static gate hold = GATE_INIT, held = GATE_INIT;
static void hold_fn(void *ctx) { (void)ctx; gate_open(&held); gate_wait(&hold, 1); }
static int never_ran;
static void never_fn(void *ctx) { (void)ctx; never_ran++; }
static void done_fn(void *ctx) { gate_open(ctx); }
static void test_serial_cancel_before_run(void) {
    rpl_scheduler_t *s = rpl_scheduler_create_serial("cancel");
    static gate done = GATE_INIT;
    atomic_store(&releases, 0);
    rpl_release(rpl_scheduler_schedule(s, hold_fn, NULL, NULL));
    gate_wait(&held, 1);
    rpl_disposable_t *d = rpl_scheduler_schedule(s, never_fn, NULL, count_release);
    rpl_disposable_t *t = rpl_scheduler_after(s, 1000, never_fn, NULL, count_release);
    rpl_disposable_dispose(d);
    rpl_disposable_dispose(t);
    CHECK_EQ_INT(atomic_load(&releases), 2);  /* released at cancel */
    rpl_release(rpl_scheduler_schedule(s, done_fn, &done, NULL));
    gate_open(&hold);
    gate_wait(&done, 1);
    CHECK_EQ_INT(never_ran, 0);
    CHECK_EQ_INT(atomic_load(&releases), 2);
    rpl_release(d);
    rpl_release(t);
    rpl_release(s);
}

/* --- Bad input ------------------------------------------------------------- */
static void test_bad_input(void) {
    rpl_signal_t *sig = rpl_signal_never();
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("x");
    atomic_store(&releases, 0);

    CHECK(rpl_scheduler_schedule(NULL, never_fn, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_scheduler_schedule((rpl_scheduler_t *)sig, never_fn, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_scheduler_schedule(ts, NULL, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "fn") != NULL);
    CHECK(rpl_scheduler_after(NULL, 1, never_fn, NULL, count_release) == NULL);
    CHECK(rpl_scheduler_after(ts, 1, NULL, NULL, count_release) == NULL);
    CHECK(rpl_scheduler_repeat(ts, 1, 0, never_fn, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_scheduler_repeat((rpl_scheduler_t *)sig, 1, 1, never_fn, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_EQ_INT(atomic_load(&releases), 7);  /* every failed call released its context */
    CHECK(rpl_scheduler_schedule(ts, NULL, NULL, NULL) == NULL);  /* no release: fine */

    CHECK_EQ_INT(rpl_scheduler_now(NULL), 0);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_scheduler_now((rpl_scheduler_t *)sig), 0);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);

    CHECK_EQ_INT(rpl_test_scheduler_advance_by(NULL, 1), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(serial, 1), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_test_scheduler_run((rpl_scheduler_t *)sig), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_test_scheduler_run(rpl_scheduler_immediate()), RPL_ERR_KIND);
    CHECK(rpl_scheduler_current() == NULL);

    /* The objects involved stay usable. */
    worklog l = {0};
    rpl_release(rpl_scheduler_schedule(ts, log_work, mk(&l, 1), NULL));
    rpl_test_scheduler_run(ts);
    CHECK_EQ_INT(l.n, 1);
    rpl_release(serial);
    rpl_release(ts);
    rpl_release(sig);
}

int main(void) {
    RUN(test_immediate_runs_synchronously);
    RUN(test_immediate_trampoline);
    RUN(test_immediate_cancel_queued);
    RUN(test_immediate_deep_recursion);
    RUN(test_immediate_after_blocks);
    RUN(test_test_scheduler_order);
    RUN(test_test_scheduler_nested);
    RUN(test_test_scheduler_repeat);
    RUN(test_cancel_during_run);
    RUN(test_test_scheduler_freed_with_pending_work);
    RUN(test_serial_fifo);
    RUN(test_serial_released_with_pending_work);
    RUN(test_background);
    RUN(test_serial_cancel_before_run);
    RUN(test_bad_input);
    CHECK_DONE();
}
