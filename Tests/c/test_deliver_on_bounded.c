#define _POSIX_C_SOURCE 200809L
/* rpl_signal_deliver_on_bounded (semantics.md rules 25 and 27): every
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
    atomic_int ended;           /* a terminal event or the release arrived */
} consumer;

static void consumer_next(void *ctx, const rpl_value *v) {
    consumer *c = ctx;
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

/* One case: a manual source, bounded on a fresh serial scheduler. */
typedef struct {
    src s;
    rpl_scheduler_t *sched;
    rpl_signal_t *source, *bounded;
    rpl_disposable_t *sub;
    consumer c;
} fixture;

static void fixture_start(fixture *f, size_t capacity, rpl_overflow policy) {
    memset(f, 0, sizeof *f);
    f->c.entered = (gate)GATE_INIT;
    f->c.go = (gate)GATE_INIT;
    f->c.hold = 1;
    rec_init(&f->c.rec);
    f->sched = rpl_scheduler_create_serial("bounded");
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

/* DROP_NEWEST: with 1 being delivered, 2 and 3 wait (capacity 2); 4 and 5
   are dropped; the completion is not, and comes after the waiting values. */
static void test_drop_newest(void) {
    fixture f;
    fixture_start(&f, 2, RPL_OVERFLOW_DROP_NEWEST);
    fixture_hold_consumer(&f);
    for (int i = 2; i <= 5; i++) src_next(&f.s, i);
    src_complete(&f.s);
    fixture_finish(&f);
    CHECK_SEQ(f.c.rec, 1, 2, 3);
    CHECK_COMPLETED(f.c.rec);
    fixture_end(&f);
}

/* DROP_OLDEST: the oldest waiting value goes, the new one is appended: 1
   (being delivered), then the last two sent. */
static void test_drop_oldest(void) {
    fixture f;
    fixture_start(&f, 2, RPL_OVERFLOW_DROP_OLDEST);
    fixture_hold_consumer(&f);
    for (int i = 2; i <= 40; i++) src_next(&f.s, i);   /* past the compaction threshold */
    src_complete(&f.s);
    fixture_finish(&f);
    CHECK_SEQ(f.c.rec, 1, 39, 40);
    CHECK_COMPLETED(f.c.rec);
    fixture_end(&f);
}

/* DROP_OLDEST with capacity 1: "latest only". */
static void test_latest_only(void) {
    fixture f;
    fixture_start(&f, 1, RPL_OVERFLOW_DROP_OLDEST);
    fixture_hold_consumer(&f);
    for (int i = 2; i <= 4; i++) src_next(&f.s, i);
    src_fail(&f.s, 42);   /* an error is never dropped either */
    fixture_finish(&f);
    CHECK_SEQ(f.c.rec, 1, 4);
    CHECK_FAILED(f.c.rec, 42);
    fixture_end(&f);
}

/* FAIL: the value that does not fit fails the signal with RPL_ERROR_OVERFLOW,
   after the waiting values; the source is disposed at once. */
static void test_fail(void) {
    fixture f;
    fixture_start(&f, 2, RPL_OVERFLOW_FAIL);
    fixture_hold_consumer(&f);
    src_next(&f.s, 2);
    src_next(&f.s, 3);
    CHECK_EQ_INT(f.s.disposed, 0);
    src_next(&f.s, 4);
    CHECK_EQ_INT(f.s.disposed, 1);
    src_next(&f.s, 5);     /* the source's subscription is over: ignored */
    src_complete(&f.s);
    fixture_finish(&f);
    CHECK_SEQ(f.c.rec, 1, 2, 3);
    CHECK_FAILED(f.c.rec, RPL_ERROR_OVERFLOW);
    CHECK_STR(f.c.rec.error_domain, RPL_ERROR_DOMAIN);
    fixture_end(&f);
}

/* FAIL: a terminal event into a full queue is not an overflow. */
static void test_fail_terminal_into_full(void) {
    fixture f;
    fixture_start(&f, 2, RPL_OVERFLOW_FAIL);
    fixture_hold_consumer(&f);
    src_next(&f.s, 2);
    src_next(&f.s, 3);
    src_complete(&f.s);
    fixture_finish(&f);
    CHECK_SEQ(f.c.rec, 1, 2, 3);
    CHECK_COMPLETED(f.c.rec);
    fixture_end(&f);
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

/* BLOCK: a terminal event never waits for room (this thread would hang). */
static void test_block_terminal_does_not_wait(void) {
    fixture f;
    fixture_start(&f, 1, RPL_OVERFLOW_BLOCK);
    fixture_hold_consumer(&f);
    src_next(&f.s, 2);
    src_fail(&f.s, 7);
    fixture_finish(&f);
    CHECK_SEQ(f.c.rec, 1, 2);
    CHECK_FAILED(f.c.rec, 7);
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
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    src s = {0};
    rpl_signal_t *sig = src_signal(&s);
    rpl_signal_t *b = rpl_signal_deliver_on_bounded(sig, ts, 2, RPL_OVERFLOW_BLOCK);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(b, &r);
    for (int i = 1; i <= 3; i++) src_next(&s, i);
    CHECK_EQ_INT(s.disposed, 1);
    CHECK_EQ_INT(r.n, 0);
    rpl_test_scheduler_run(ts);
    CHECK_SEQ(r, 1, 2);
    CHECK_FAILED(r, RPL_ERROR_OVERFLOW);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rpl_release(b);
    rpl_release(sig);
    src_cleanup(&s);
    rpl_release(ts);
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
        rpl_scheduler_t *ts = rpl_test_scheduler_create();
        src s = {0};
        rpl_signal_t *sig = src_signal(&s);
        rpl_signal_t *b = rpl_signal_deliver_on_bounded(sig, ts, 3, cases[k].policy);
        rec_t r;
        rpl_disposable_t *d = rec_subscribe(b, &r);
        for (int i = 1; i <= 6; i++) src_next(&s, i);
        src_complete(&s);
        rpl_test_scheduler_run(ts);
        CHECK(rec_is(&r, cases[k].expect, cases[k].n));
        if (cases[k].fails) CHECK_FAILED(r, RPL_ERROR_OVERFLOW);
        else CHECK_COMPLETED(r);
        CHECK_EQ_INT(r.released, 1);
        /* The queue empties and fills again: the bound holds each time. */
        rpl_release(d);
        rpl_release(b);
        rpl_release(sig);
        src_cleanup(&s);
        rpl_release(ts);
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
        rpl_scheduler_t *ts = rpl_test_scheduler_create();
        src s = {0};
        rpl_signal_t *sig = src_signal(&s);
        rpl_signal_t *b = rpl_signal_deliver_on_bounded(sig, ts, 4, (rpl_overflow)policy);
        rec_t r;
        rpl_disposable_t *d = rec_subscribe(b, &r);
        for (int i = 0; i < 3; i++) src_next_string(&s, "a string in a box");
        rpl_release(d);
        rpl_release(b);
        rpl_release(sig);
        src_cleanup(&s);
        rpl_release(ts);
        CHECK_EQ_INT(r.released, 1);
        CHECK_EQ_INT(r.n, 0);
    }
}

/* --- Many values through a small queue -------------------------------------------- */

/* A producer thread sends N values through capacity 4 under BLOCK: all
   arrive, in order (the consumer is slower now and then). */
static void on_next_slow(void *ctx, const rpl_value *v) {
    rec_t *r = ctx;
    if (rpl_value_int(v) % 64 == 0) sleep_ms(1);
    if (rpl_value_int(v) != r->last_int + 1 && r->n > 0) r->overlap++;  /* out of order */
    r->last_int = rpl_value_int(v);
    r->n++;
}
static void test_block_many(void) {
    int n = (int)test_scale(20000, 2000);
    rpl_scheduler_t *sched = rpl_scheduler_create_serial("bounded-many");
    src s = {0};
    rpl_signal_t *sig = src_signal(&s);
    rpl_signal_t *b = rpl_signal_deliver_on_bounded(sig, sched, 4, RPL_OVERFLOW_BLOCK);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe_fn(b, &r, on_next_slow);
    sender t = { &s, 1, n, 0 };
    pthread_t th;
    pthread_create(&th, NULL, send_range, &t);
    pthread_join(th, NULL);
    src_complete(&s);
    for (int i = 0; i < 10000 && !r.completed; i++) sleep_ms(1);
    CHECK_EQ_INT(r.n, n);
    CHECK_EQ_INT(r.last_int, n);
    CHECK_EQ_INT(r.overlap, 0);
    CHECK_EQ_INT(r.completed, 1);
    rpl_release(d);
    rpl_release(b);
    rpl_release(sig);
    src_cleanup(&s);
    rpl_release(sched);
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
    RUN(test_drop_newest);
    RUN(test_drop_oldest);
    RUN(test_latest_only);
    RUN(test_fail);
    RUN(test_fail_terminal_into_full);
    RUN(test_block);
    RUN(test_block_terminal_does_not_wait);
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
