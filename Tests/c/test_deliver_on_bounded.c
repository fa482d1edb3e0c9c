#define _POSIX_C_SOURCE 200809L
/* rpl_signal_deliver_on_bounded (rules 25 and 27): every
 * overflow policy, deterministically. The consumer (on a serial scheduler)
 * is held inside its callback for value 1 until the test lets it go, so the
 * test knows exactly which values wait: the one being delivered does not
 * count, `capacity` more may wait. Also: a BLOCK send from the consumer's own
 * thread and into a test scheduler fails instead of deadlocking, terminal
 * events come after the waiting values and are never dropped, disposal lets
 * a blocked sender go, bad input, the default name. */
#include "sched_util.h"
#include <time.h>

static void sleep_ms(long ms) {
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

/* Waits (up to 10 s) until *flag reaches n; returns whether it did. */
static int wait_for(atomic_int *flag, int n) {
    for (int i = 0; i < 10000 && atomic_load(flag) < n; i++) sleep_ms(1);
    return atomic_load(flag) >= n;
}

/* --- A consumer held on value `hold` until the test opens `go` ------------- */
typedef struct {
    rec_t rec;                  /* first: the recorder's callbacks get this as ctx */
    int64_t hold;               /* the value the callback waits on */
    gate entered, go;
    src *feed;                  /* if set: sends feed_values into it from the callback */
    int feed_values[4];
    int nfeed;
    int slow;                   /* sleeps 1 ms every 64 values; counts values out of order */
    int out_of_order;
    atomic_int ended;           /* a terminal event or the release arrived */
} consumer;

static void consumer_next(void *ctx, const rpl_value *v) {
    consumer *c = ctx;
    if (c->slow) {
        if (c->rec.n > 0 && rpl_value_int(v) != c->rec.last_int + 1) c->out_of_order++;
        if (rpl_value_int(v) % 64 == 0) sleep_ms(1);
    }
    rec_next(ctx, v);
    if (rpl_value_int(v) != c->hold) return;
    gate_open(&c->entered);
    gate_wait(&c->go, 1);
    /* The thread that sent 1 has let go of the source by now (it opened go
       after its send returned), so these sends are delivered from here. */
    for (int i = 0; i < c->nfeed; i++) src_next(c->feed, c->feed_values[i]);
}
static void consumer_error(void *ctx, const rpl_error_t *e) { rec_error(ctx, e); atomic_fetch_add(&((consumer *)ctx)->ended, 1); }
static void consumer_completed(void *ctx) { rec_completed(ctx); atomic_fetch_add(&((consumer *)ctx)->ended, 1); }
static void consumer_release(void *ctx) { rec_release(ctx); atomic_fetch_add(&((consumer *)ctx)->ended, 1); }

/* One case: a manual source, bounded on a scheduler, and the consumer. */
typedef struct {
    src s;
    rpl_scheduler_t *sched;
    rpl_signal_t *source, *bounded;
    rpl_disposable_t *sub;
    consumer c;
} fixture;

/* On sched (+1, taken), where the consumer never holds; or, for NULL, on a
   fresh serial scheduler, where it holds on value 1. */
static void fixture_start_on(fixture *f, rpl_scheduler_t *sched, size_t capacity, rpl_overflow policy) {
    memset(f, 0, sizeof *f);
    f->c.entered = (gate)GATE_INIT;
    f->c.go = (gate)GATE_INIT;
    f->c.hold = sched ? INT64_MIN : 1;
    rec_init(&f->c.rec);
    f->sched = sched ? sched : rpl_scheduler_create_serial("bounded");
    f->source = src_signal(&f->s);
    f->bounded = rpl_signal_deliver_on_bounded(f->source, f->sched, capacity, policy);
    CHECK(f->bounded != NULL);
    rpl_observer o = rec_observer(&f->c.rec);
    o.on_next = consumer_next;
    o.on_error = consumer_error;
    o.on_completed = consumer_completed;
    o.release = consumer_release;
    f->sub = rpl_signal_subscribe(f->bounded, &o);
}

static void fixture_start(fixture *f, size_t capacity, rpl_overflow policy) {
    fixture_start_on(f, NULL, capacity, policy);
}

/* Sends 1 and waits until the consumer is inside its callback for it. */
static void fixture_hold_consumer(fixture *f) {
    src_next(&f->s, 1);
    gate_wait(&f->c.entered, 1);
}

/* Lets the consumer go and waits for the terminal event and the release. */
static void fixture_finish(fixture *f) {
    gate_open(&f->c.go);
    CHECK(wait_for(&f->c.ended, 2));
    CHECK_EQ_INT(f->c.rec.released, 1);
    CHECK_EQ_INT(f->c.rec.after_terminal, 0);
    CHECK_EQ_INT(f->c.rec.overlap, 0);
}

static void fixture_end(fixture *f) {
    rpl_release(f->sub);
    rpl_release(f->bounded);
    rpl_release(f->source);
    src_cleanup(&f->s);
    rpl_release(f->sched);
}

/* --- Policies ----------------------------------------------------------------- */

/* One scenario per row: value 1 is being delivered (the consumer is held),
   2..last are sent into a queue of `capacity`, then a completion (fail_code
   0) or an error; the consumer gets `expect`, then the terminal event
   (`error` 0: completed). */
typedef struct {
    const char *what;
    size_t capacity;
    rpl_overflow policy;
    int last, fail_code;
    int64_t expect[4];
    int n;
    int64_t error;
} scenario;
static const scenario scenarios[] = {
    { "RPL_OVERFLOW_DROP_NEWEST: 2 and 3 wait; 4 and 5 are dropped; the completion is not, and comes after them",
      2, RPL_OVERFLOW_DROP_NEWEST, 5, 0, {1, 2, 3}, 3, 0 },
    { "RPL_OVERFLOW_DROP_OLDEST: the oldest waiting value goes, the new one is appended (past the compaction threshold)",
      2, RPL_OVERFLOW_DROP_OLDEST, 40, 0, {1, 39, 40}, 3, 0 },
    { "RPL_OVERFLOW_DROP_OLDEST, capacity 1: latest only; an error is never dropped",
      1, RPL_OVERFLOW_DROP_OLDEST, 4, 42, {1, 4}, 2, 42 },
    { "RPL_OVERFLOW_FAIL: 4 does not fit: the signal fails with RPL_ERROR_OVERFLOW after the waiting values",
      2, RPL_OVERFLOW_FAIL, 5, 0, {1, 2, 3}, 3, RPL_ERROR_OVERFLOW },
    { "RPL_OVERFLOW_FAIL: a terminal event into a full queue is not an overflow",
      2, RPL_OVERFLOW_FAIL, 3, 0, {1, 2, 3}, 3, 0 },
    { "RPL_OVERFLOW_BLOCK: a terminal event never waits for room (this thread would hang)",
      1, RPL_OVERFLOW_BLOCK, 2, 7, {1, 2}, 2, 7 },
};

static void test_policies(void) {
    for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
        const scenario *c = &scenarios[k];
        fprintf(stderr, "    %s\n", c->what);
        fixture f;
        fixture_start(&f, c->capacity, c->policy);
        fixture_hold_consumer(&f);
        for (int i = 2; i <= c->last; i++) {
            src_next(&f.s, i);
            /* An overflow disposes the source at once, not before. */
            if (c->error == RPL_ERROR_OVERFLOW) CHECK_EQ_INT(f.s.disposed, (size_t)i > c->capacity + 1);
        }
        if (c->fail_code) src_fail(&f.s, c->fail_code);
        else src_complete(&f.s);   /* ignored after an overflow: the source's subscription is over */
        fixture_finish(&f);
        CHECK(rec_is(&f.c.rec, c->expect, c->n));
        if (c->error) {
            CHECK_FAILED(f.c.rec, c->error);
            if (c->error == RPL_ERROR_OVERFLOW) CHECK_STR(f.c.rec.error_domain, RPL_ERROR_DOMAIN);
        } else {
            CHECK_COMPLETED(f.c.rec);
        }
        fixture_end(&f);
    }
}

/* BLOCK: a sender on another thread waits for room, then gets in, in order. */
typedef struct { src *s; int from, to; atomic_int done; } sender;
static void *send_range(void *arg) {
    sender *t = arg;
    for (int i = t->from; i <= t->to; i++) src_next(t->s, i);
    atomic_store(&t->done, 1);
    return NULL;
}

static void test_block(void) {
    fixture f;
    fixture_start(&f, 2, RPL_OVERFLOW_BLOCK);
    fixture_hold_consumer(&f);
    src_next(&f.s, 2);
    src_next(&f.s, 3);          /* full now: these did not wait */
    sender t = { &f.s, 4, 6, 0 };
    pthread_t th;
    pthread_create(&th, NULL, send_range, &t);
    sleep_ms(50);
    CHECK_EQ_INT(atomic_load(&t.done), 0);   /* it waits while the consumer is held */
    CHECK_EQ_INT(f.c.rec.n, 1);
    gate_open(&f.c.go);
    pthread_join(th, NULL);
    CHECK_EQ_INT(t.done, 1);
    src_complete(&f.s);
    CHECK(wait_for(&f.c.ended, 2));
    CHECK_SEQ(f.c.rec, 1, 2, 3, 4, 5, 6);
    CHECK_COMPLETED(f.c.rec);
    CHECK_EQ_INT(f.c.rec.released, 1);
    fixture_end(&f);
}

/* BLOCK from the consumer's own thread: the callback for 1 sends 10 (it
   fits: 1 is being delivered) and 11 (full; waiting on this thread could
   never end): the signal fails with RPL_ERROR_OVERFLOW after 10. */
static void test_block_from_consumer_thread(void) {
    fixture f;
    fixture_start(&f, 1, RPL_OVERFLOW_BLOCK);
    f.c.feed = &f.s;
    f.c.feed_values[0] = 10;
    f.c.feed_values[1] = 11;
    f.c.nfeed = 2;
    fixture_hold_consumer(&f);
    gate_open(&f.c.go);
    CHECK(wait_for(&f.c.ended, 2));
    CHECK_SEQ(f.c.rec, 1, 10);
    CHECK_FAILED(f.c.rec, RPL_ERROR_OVERFLOW);
    CHECK_EQ_INT(f.s.disposed, 1);
    CHECK_EQ_INT(f.c.rec.released, 1);
    fixture_end(&f);
}

/* BLOCK on a test scheduler: its work runs only inside advance_by/run on the
   caller's thread, so waiting could never end: an overflow. */
static void test_block_on_test_scheduler(void) {
    fixture f;
    fixture_start_on(&f, rpl_test_scheduler_create(), 2, RPL_OVERFLOW_BLOCK);
    for (int i = 1; i <= 3; i++) src_next(&f.s, i);
    CHECK_EQ_INT(f.s.disposed, 1);
    CHECK_EQ_INT(f.c.rec.n, 0);
    rpl_test_scheduler_run(f.sched);
    CHECK_SEQ(f.c.rec, 1, 2);
    CHECK_FAILED(f.c.rec, RPL_ERROR_OVERFLOW);
    CHECK_EQ_INT(f.c.rec.released, 1);
    fixture_end(&f);
}

/* On a test scheduler every policy is deterministic without threads: nothing
   is delivered until the test runs the scheduler, so capacity values wait. */
static void test_policies_on_test_scheduler(void) {
    static const struct { rpl_overflow policy; int64_t expect[3]; int n; int fails; } cases[] = {
        { RPL_OVERFLOW_DROP_NEWEST, {1, 2, 3}, 3, 0 },
        { RPL_OVERFLOW_DROP_OLDEST, {4, 5, 6}, 3, 0 },
        { RPL_OVERFLOW_FAIL, {1, 2, 3}, 3, 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fixture f;
        fixture_start_on(&f, rpl_test_scheduler_create(), 3, cases[k].policy);
        for (int i = 1; i <= 6; i++) src_next(&f.s, i);
        src_complete(&f.s);
        rpl_test_scheduler_run(f.sched);
        CHECK(rec_is(&f.c.rec, cases[k].expect, cases[k].n));
        if (cases[k].fails) CHECK_FAILED(f.c.rec, RPL_ERROR_OVERFLOW);
        else CHECK_COMPLETED(f.c.rec);
        CHECK_EQ_INT(f.c.rec.released, 1);
        fixture_end(&f);
    }
}

/* --- Disposal ------------------------------------------------------------------ */

/* Disposing while a sender waits for room lets it go (its value is
   dropped); nothing arrives after dispose returned; the release runs once
   the held callback returns. */
static void test_dispose_releases_blocked_sender(void) {
    fixture f;
    fixture_start(&f, 1, RPL_OVERFLOW_BLOCK);
    fixture_hold_consumer(&f);
    src_next(&f.s, 2);
    sender t = { &f.s, 3, 3, 0 };
    pthread_t th;
    pthread_create(&th, NULL, send_range, &t);
    sleep_ms(20);
    CHECK_EQ_INT(atomic_load(&t.done), 0);
    rpl_disposable_dispose(f.sub);
    pthread_join(th, NULL);    /* hangs (watchdog) if the sender is not let go */
    CHECK_EQ_INT(f.s.disposed, 1);
    gate_open(&f.c.go);
    CHECK(wait_for(&f.c.ended, 1));
    CHECK_SEQ(f.c.rec, 1);
    CHECK_OPEN(f.c.rec);
    CHECK_EQ_INT(f.c.rec.released, 1);
    fixture_end(&f);
}

/* Releasing every handle with values waiting frees everything (the values
   too: valgrind and ASan see them). */
static void test_release_with_values_waiting(void) {
    for (int policy = RPL_OVERFLOW_BLOCK; policy <= RPL_OVERFLOW_FAIL; policy++) {
        fixture f;
        fixture_start_on(&f, rpl_test_scheduler_create(), 4, (rpl_overflow)policy);
        for (int i = 0; i < 3; i++) src_next_string(&f.s, "a string in a box");
        fixture_end(&f);
        CHECK_EQ_INT(f.c.rec.released, 1);
        CHECK_EQ_INT(f.c.rec.n, 0);
    }
}

/* --- Many values through a small queue -------------------------------------------- */

/* A producer thread sends N values through capacity 4 under BLOCK: all
   arrive, in order (the consumer is slower now and then). */
static void test_block_many(void) {
    int n = (int)test_scale(20000, 2000);
    fixture f;
    fixture_start_on(&f, rpl_scheduler_create_serial("bounded-many"), 4, RPL_OVERFLOW_BLOCK);
    f.c.slow = 1;
    sender t = { &f.s, 1, n, 0 };
    pthread_t th;
    pthread_create(&th, NULL, send_range, &t);
    pthread_join(th, NULL);
    src_complete(&f.s);
    CHECK(wait_for(&f.c.ended, 2));
    CHECK_EQ_INT(f.c.rec.n, n);
    CHECK_EQ_INT(f.c.rec.last_int, n);
    CHECK_EQ_INT(f.c.out_of_order, 0);
    CHECK_EQ_INT(f.c.rec.completed, 1);
    fixture_end(&f);
}

/* --- Bad input and the name -------------------------------------------------------- */
static void test_bad_input(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *sig = rpl_signal_never();
    CHECK(rpl_signal_deliver_on_bounded(NULL, ts, 1, RPL_OVERFLOW_BLOCK) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_deliver_on_bounded(sig, NULL, 1, RPL_OVERFLOW_BLOCK) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_deliver_on_bounded((rpl_signal_t *)ts, ts, 1, RPL_OVERFLOW_BLOCK) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_deliver_on_bounded(sig, (rpl_scheduler_t *)sig, 1, RPL_OVERFLOW_BLOCK) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_deliver_on_bounded(sig, ts, 0, RPL_OVERFLOW_BLOCK) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_deliver_on_bounded") != NULL);
    CHECK(rpl_signal_deliver_on_bounded(sig, ts, SIZE_MAX, RPL_OVERFLOW_BLOCK) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_deliver_on_bounded(sig, ts, 1, (rpl_overflow)4) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_deliver_on_bounded(sig, ts, 1, (rpl_overflow)-1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    /* The objects involved stay usable. */
    rpl_signal_t *ok = rpl_signal_deliver_on_bounded(sig, ts, 1, RPL_OVERFLOW_FAIL);
    CHECK(ok != NULL);
    rpl_release(ok);
    rpl_release(sig);
    rpl_release(ts);
}

static void test_name(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *sig = rpl_signal_never();
    rpl_signal_set_name(sig, "src");
    rpl_signal_t *b = rpl_signal_deliver_on_bounded(sig, ts, 16, RPL_OVERFLOW_DROP_OLDEST);
    CHECK_STR(rpl_signal_name(b), "[src] -deliverOn: bounded 16");
    rpl_release(b);
    rpl_release(sig);
    rpl_release(ts);
}

int main(void) {
    RUN(test_policies);
    RUN(test_block);
    RUN(test_block_from_consumer_thread);
    RUN(test_block_on_test_scheduler);
    RUN(test_policies_on_test_scheduler);
    RUN(test_dispose_releases_blocked_sender);
    RUN(test_release_with_values_waiting);
    RUN(test_block_many);
    RUN(test_bad_input);
    RUN(test_name);
    CHECK_DONE();
}
