/* The run loop: a scheduler the program drives, with a descriptor to poll. */
#define _POSIX_C_SOURCE 200809L
#include "sched_util.h"
#include <poll.h>

static int readable(rpl_run_loop_t *loop, int timeout_ms) {
    struct pollfd p = {rpl_run_loop_fd(loop), POLLIN, 0};
    return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

typedef struct {
    int n;
    int ids[64];
    rpl_scheduler_t *current[64];
    pthread_t thread[64];
} runlog;
typedef struct { runlog *log; int id; } ritem;
static ritem ritems[64];
static void run_work(void *ctx) {
    ritem *it = ctx;
    runlog *l = it->log;
    l->ids[l->n] = it->id;
    l->current[l->n] = rpl_scheduler_current();
    l->thread[l->n] = pthread_self();
    l->n++;
}
static ritem *mk(runlog *l, int id) { ritems[id].log = l; ritems[id].id = id; return &ritems[id]; }

static void test_basic(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    CHECK(loop != NULL);
    rpl_scheduler_t *s = rpl_run_loop_scheduler(loop);
    CHECK(s != NULL);
    CHECK((void *)s == (void *)loop);  /* the same object */
    CHECK(rpl_run_loop_fd(loop) >= 0);
    CHECK(!readable(loop, 0));
    CHECK_EQ_INT(rpl_run_loop_run_until_idle(loop), 0);
    CHECK_EQ_INT(rpl_run_loop_next_timeout(loop), UINT64_MAX);

    runlog l = {0};
    atomic_store(&releases, 0);
    for (int i = 0; i < 3; i++) rpl_release(rpl_scheduler_schedule(s, run_work, mk(&l, i), count_release));
    CHECK_EQ_INT(l.n, 0);                 /* nothing runs until driven */
    CHECK(readable(loop, 0));
    CHECK_EQ_INT(rpl_run_loop_next_timeout(loop), 0);
    CHECK_EQ_INT(rpl_run_loop_run_one(loop), 1);
    CHECK_EQ_INT(l.n, 1);
    CHECK(readable(loop, 0));             /* two still ready */
    CHECK_EQ_INT(rpl_run_loop_run_until_idle(loop), 2);
    CHECK_EQ_INT(l.n, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(l.ids[i], i);
        CHECK(l.current[i] == s);
        CHECK(pthread_equal(l.thread[i], pthread_self()));
    }
    CHECK(!readable(loop, 0));
    CHECK_EQ_INT(rpl_run_loop_run_one(loop), 0);
    CHECK_EQ_INT(atomic_load(&releases), 3);

    /* Cancelled work never runs; its context is released at cancel. */
    rpl_disposable_t *d = rpl_scheduler_schedule(s, run_work, mk(&l, 9), count_release);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(atomic_load(&releases), 4);
    rpl_run_loop_run_until_idle(loop);
    CHECK_EQ_INT(l.n, 3);
    rpl_release(d);
    rpl_release(loop);
}

/* A timed item makes the descriptor readable when it falls due: poll waits
   on the descriptor, not on a timeout of its own. */
static void test_timer_and_poll(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_scheduler_t *s = rpl_run_loop_scheduler(loop);
    runlog l = {0};
    rpl_disposable_t *late = rpl_scheduler_after(s, 60ull * 1000000000ull, run_work, mk(&l, 2), NULL);
    rpl_release(rpl_scheduler_after(s, 20000000, run_work, mk(&l, 1), NULL));  /* 20 ms */
    CHECK(rpl_run_loop_next_timeout(loop) <= 20000000);
    /* Not due yet (unless this run is very slow, e.g. under valgrind). */
    int64_t ran = rpl_run_loop_run_until_idle(loop);
    if (ran == 0) {
        CHECK(readable(loop, 10000));    /* becomes readable when due */
        ran = rpl_run_loop_run_until_idle(loop);
    }
    CHECK_EQ_INT(ran, 1);
    CHECK_EQ_INT(l.n, 1);
    CHECK_EQ_INT(l.ids[0], 1);
    CHECK(!readable(loop, 0));       /* the 60 s one is not due */
    CHECK(rpl_run_loop_next_timeout(loop) > 1000000000ull);
    rpl_disposable_dispose(late);
    rpl_release(late);
    rpl_release(loop);
}

/* Work scheduled from other threads wakes a poll on the descriptor. */
typedef struct { rpl_scheduler_t *s; runlog *l; int base; } producer_arg;
static atomic_int produced_count;
static void count_work(void *ctx) { (void)ctx; atomic_fetch_add(&produced_count, 1); }
static void *producer(void *p) {
    producer_arg *a = p;
    for (int i = 0; i < 500; i++) rpl_release(rpl_scheduler_schedule(a->s, count_work, NULL, NULL));
    return NULL;
}
static void test_other_threads_wake_poll(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_scheduler_t *s = rpl_run_loop_scheduler(loop);
    atomic_store(&produced_count, 0);
    pthread_t t[4];
    producer_arg a = {s, NULL, 0};
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, producer, &a);

    while (atomic_load(&produced_count) < 2000) {
        if (readable(loop, 5000)) rpl_run_loop_run_until_idle(loop);

    }
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    rpl_run_loop_run_until_idle(loop);
    CHECK_EQ_INT(atomic_load(&produced_count), 2000);
    CHECK(!readable(loop, 0));
    rpl_release(loop);
}

/* run until stopped: stop from inside an item, and from another thread. */
static rpl_run_loop_t *stop_loop;
static void stop_fn(void *ctx) { (void)ctx; rpl_run_loop_stop(stop_loop); }
static void *stopper(void *p) {
    (void)p;
    rpl_release(rpl_scheduler_schedule(rpl_run_loop_scheduler(stop_loop), count_work, NULL, NULL));
    rpl_run_loop_stop(stop_loop);
    return NULL;
}
static void test_run_and_stop(void) {
    stop_loop = rpl_run_loop_create();
    rpl_scheduler_t *s = rpl_run_loop_scheduler(stop_loop);
    runlog l = {0};
    rpl_release(rpl_scheduler_schedule(s, run_work, mk(&l, 1), NULL));
    rpl_release(rpl_scheduler_schedule(s, stop_fn, NULL, NULL));
    rpl_release(rpl_scheduler_schedule(s, run_work, mk(&l, 2), NULL));
    CHECK_EQ_INT(rpl_run_loop_run(stop_loop), RPL_OK);
    CHECK_EQ_INT(l.n, 1);      /* stopped after the stopping item */
    CHECK_EQ_INT(rpl_run_loop_run_until_idle(stop_loop), 1);
    CHECK_EQ_INT(l.n, 2);

    atomic_store(&produced_count, 0);
    pthread_t t;
    pthread_create(&t, NULL, stopper, NULL);
    CHECK_EQ_INT(rpl_run_loop_run(stop_loop), RPL_OK);  /* sleeps until stopped */
    pthread_join(t, NULL);
    rpl_run_loop_run_until_idle(stop_loop);
    CHECK_EQ_INT(atomic_load(&produced_count), 1);

    rpl_run_loop_stop(stop_loop);   /* a stop with no run active: next run returns */
    CHECK_EQ_INT(rpl_run_loop_run(stop_loop), RPL_OK);
    rpl_release(stop_loop);
}

/* Only one thread drives a loop at a time. */
static rpl_run_loop_t *busy_loop;
static int64_t other_result;
static void *other_driver(void *p) {
    (void)p;
    other_result = rpl_run_loop_run_until_idle(busy_loop);
    return NULL;
}
static void try_other_thread(void *ctx) {
    (void)ctx;
    pthread_t t;
    pthread_create(&t, NULL, other_driver, NULL);
    pthread_join(t, NULL);
    /* Nested driving on the same thread is allowed. */
    CHECK(rpl_run_loop_run_one(busy_loop) >= 0);
}
static void test_one_driver(void) {
    busy_loop = rpl_run_loop_create();
    rpl_release(rpl_scheduler_schedule(rpl_run_loop_scheduler(busy_loop), try_other_thread, NULL, NULL));
    rpl_run_loop_run_until_idle(busy_loop);
    CHECK_EQ_INT(other_result, RPL_ERR_STATE);
    rpl_release(busy_loop);
}

/* deliver_on a run loop: values from a background producer are handled on
   the loop's thread, driven by poll. */
static void test_deliver_on_run_loop(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_scheduler_t *s = rpl_run_loop_scheduler(loop);
    rpl_signal_t *iv = rpl_signal_interval(100000, rpl_scheduler_background());  /* 0.1 ms */
    rpl_signal_t *on = rpl_signal_deliver_on(iv, s);
    rec_t r = {0};
    rpl_disposable_t *sub = rec_attach(on, &r);
    while (r.n < 5) {
        if (readable(loop, 5000)) rpl_run_loop_run_until_idle(loop);
    }
    rpl_disposable_dispose(sub);
    CHECK_EQ_INT(r.released, 1);
    int n = r.n;
    for (int i = 0; i < n && i < REC_MAX; i++) {
        CHECK_EQ_INT(r.ints[i], i);
        CHECK(r.current[i] == s);
    }
    rpl_run_loop_run_until_idle(loop);
    CHECK_EQ_INT(r.n, n);   /* nothing after dispose */
    rpl_release(sub);
    rpl_release(on);
    rpl_release(iv);
    rpl_release(loop);
}

/* Releasing a run loop with work pending drops the work and releases each
   context: nothing could run it any more. */
static void test_freed_with_pending_work(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_scheduler_t *s = rpl_run_loop_scheduler(loop);
    runlog l = {0};
    atomic_store(&releases, 0);
    rpl_release(rpl_scheduler_schedule(s, run_work, mk(&l, 1), count_release));
    rpl_release(rpl_scheduler_after(s, 1000000000, run_work, mk(&l, 2), count_release));
    rpl_release(loop);
    CHECK_EQ_INT(atomic_load(&releases), 2);
    CHECK_EQ_INT(l.n, 0);
}

static void test_bad_input(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    CHECK(rpl_run_loop_scheduler(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_run_loop_scheduler((rpl_run_loop_t *)ts) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_run_loop_fd(NULL), -1);
    CHECK_EQ_INT(rpl_run_loop_fd((rpl_run_loop_t *)ts), -1);
    CHECK_EQ_INT(rpl_run_loop_run_until_idle(NULL), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_run_loop_run_one((rpl_run_loop_t *)ts), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_run_loop_run((rpl_run_loop_t *)ts), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_run_loop_stop(NULL), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_run_loop_next_timeout(NULL), UINT64_MAX);
    rpl_signal_t *sig = rpl_signal_never();
    CHECK_EQ_INT(rpl_run_loop_run_one((rpl_run_loop_t *)sig), RPL_ERR_KIND);
    rpl_release(sig);
    rpl_release(ts);
}

int main(void) {
    RUN(test_basic);
    RUN(test_timer_and_poll);
    RUN(test_other_threads_wake_poll);
    RUN(test_run_and_stop);
    RUN(test_one_driver);
    RUN(test_deliver_on_run_loop);
    RUN(test_freed_with_pending_work);
    RUN(test_bad_input);
    CHECK_DONE();
}
