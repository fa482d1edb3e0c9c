#define _POSIX_C_SOURCE 200809L
/* Subscribers under threads: rules 2, 4 and 6 (serialization,
   per-thread order, no deadlock, no starvation, dispose from another thread). */
#include "check.h"
#include <ripple.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

/* A cold signal whose did_subscribe hands out the subscriber (retained). */
static rpl_disposable_t *keep_body(void *ctx, rpl_subscriber_t *s) {
    *(rpl_subscriber_t **)ctx = rpl_retain(s);
    return NULL;
}

/* Subscribes obs and returns the producer's subscriber (+1) in *sub. */
static rpl_disposable_t *open_subscription(const rpl_observer *obs, rpl_subscriber_t **sub) {
    rpl_signal_t *sig = rpl_signal_create(keep_body, sub, NULL);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, obs);
    rpl_release(sig);
    return d;
}

/* ---- Rule 4: callbacks never overlap; per-thread order holds ------------- */
#define SENDERS 4
typedef struct {
    atomic_int inside;      /* in-callback flag */
    atomic_int overlaps;
    int64_t last[SENDERS];  /* last sequence number per sender thread */
    long out_of_order;
    long received;
    atomic_int releases;
} serial_ctx;

static void serial_next(void *ctx, const rpl_value *v) {
    serial_ctx *c = ctx;
    if (atomic_exchange(&c->inside, 1)) atomic_fetch_add(&c->overlaps, 1);
    int64_t x = rpl_value_int(v);
    int th = (int)(x >> 32);
    int64_t seq = x & 0xffffffff;
    if (seq != c->last[th] + 1) c->out_of_order++;
    c->last[th] = seq;
    c->received++;
    atomic_store(&c->inside, 0);
}
static void serial_release(void *ctx) { atomic_fetch_add(&((serial_ctx *)ctx)->releases, 1); }

typedef struct { rpl_subscriber_t *sub; int id; long count; } sender_arg;
static void *sender(void *p) {
    sender_arg *a = p;
    for (long i = 1; i <= a->count; i++)
        rpl_subscriber_send_next(a->sub, rpl_int(((int64_t)a->id << 32) | i));
    return NULL;
}

static void test_serialization(void) {
    serial_ctx c = {0};
    for (int i = 0; i < SENDERS; i++) c.last[i] = 0;
    rpl_observer o = observer_of(serial_next, NULL, NULL, serial_release, &c);
    rpl_subscriber_t *sub = NULL;
    rpl_disposable_t *d = open_subscription(&o, &sub);
    long n = test_scale(200000, 5000);
    pthread_t th[SENDERS];
    sender_arg args[SENDERS];
    for (int i = 0; i < SENDERS; i++) {
        args[i] = (sender_arg){ sub, i, n };
        pthread_create(&th[i], NULL, sender, &args[i]);
    }
    for (int i = 0; i < SENDERS; i++) pthread_join(th[i], NULL);
    /* Rule 2: every send has returned, so every event has been delivered. */
    CHECK_EQ_INT(c.received, n * SENDERS);
    CHECK_EQ_INT(atomic_load(&c.overlaps), 0);
    CHECK_EQ_INT(c.out_of_order, 0);
    for (int i = 0; i < SENDERS; i++) CHECK_EQ_INT(c.last[i], n);
    rpl_subscriber_send_completed(sub);
    CHECK_EQ_INT(atomic_load(&c.releases), 1);
    rpl_release(sub);
    rpl_release(d);
}

/* Senders racing a terminal event: no next after the terminal (RAC 2.1). */
typedef struct { atomic_int after_terminal; atomic_int terminated; atomic_int releases; } race_ctx;
static void race_next(void *ctx, const rpl_value *v) {
    (void)v;
    race_ctx *c = ctx;
    if (atomic_load(&c->terminated)) atomic_fetch_add(&c->after_terminal, 1);
}
static void race_completed(void *ctx) { atomic_store(&((race_ctx *)ctx)->terminated, 1); }
static void race_release(void *ctx) { atomic_fetch_add(&((race_ctx *)ctx)->releases, 1); }

static void *completer(void *p) {
    sleep_ms(1);
    rpl_subscriber_send_completed(p);
    return NULL;
}

static void test_terminal_race(void) {
    for (long round = 0; round < test_scale(50, 5); round++) {
        race_ctx c = {0};
        rpl_observer o = RPL_OBSERVER_INIT;
        o.on_next = race_next;
        o.on_completed = race_completed;
        o.release = race_release;
        o.ctx = &c;
        rpl_subscriber_t *sub = NULL;
        rpl_disposable_t *d = open_subscription(&o, &sub);
        pthread_t th[3], done;
        sender_arg args[3];
        for (int i = 0; i < 3; i++) {
            args[i] = (sender_arg){ sub, i, test_scale(20000, 500) };
            pthread_create(&th[i], NULL, sender, &args[i]);
        }
        pthread_create(&done, NULL, completer, sub);
        for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
        pthread_join(done, NULL);
        CHECK_EQ_INT(atomic_load(&c.after_terminal), 0);
        CHECK_EQ_INT(atomic_load(&c.releases), 1);
        rpl_release(sub);
        rpl_release(d);
    }
}

/* ---- Rule 4: the cross-thread deadlock scenario -------------------------- */
/* Callbacks on thread A deliver into subscriber X; each X callback sends into
   subscriber Y, whose callbacks (on thread B) send back into X. With one lock
   per subscriber held across callbacks this deadlocks. */
typedef struct {
    rpl_subscriber_t *other;  /* where this callback forwards */
    atomic_long received;
    long hops;                /* forward while value < hops */
} pingpong_ctx;

static void pingpong_next(void *ctx, const rpl_value *v) {
    pingpong_ctx *c = ctx;
    atomic_fetch_add(&c->received, 1);
    int64_t x = rpl_value_int(v);
    if (x < c->hops) rpl_subscriber_send_next(c->other, rpl_int(x + 1));
}

typedef struct { rpl_subscriber_t *into; long count; } pp_arg;
static void *pp_sender(void *p) {
    pp_arg *a = p;
    for (long i = 0; i < a->count; i++) rpl_subscriber_send_next(a->into, rpl_int(0));
    return NULL;
}

static void test_cross_thread_no_deadlock(void) {
    pingpong_ctx cx = { .hops = 3 }, cy = { .hops = 3 };
    rpl_observer ox = RPL_OBSERVER_INIT, oy = RPL_OBSERVER_INIT;
    ox.on_next = pingpong_next;
    ox.ctx = &cx;
    oy.on_next = pingpong_next;
    oy.ctx = &cy;
    rpl_subscriber_t *x = NULL, *y = NULL;
    rpl_disposable_t *dx = open_subscription(&ox, &x), *dy = open_subscription(&oy, &y);
    cx.other = y;
    cy.other = x;
    long n = test_scale(50000, 1000);
    pp_arg a = { x, n }, b = { y, n };
    pthread_t ta, tb;
    pthread_create(&ta, NULL, pp_sender, &a);
    pthread_create(&tb, NULL, pp_sender, &b);
    pthread_join(ta, NULL);  /* both finish: no deadlock */
    pthread_join(tb, NULL);
    /* Each initial 0 makes 4 deliveries (0,1,2,3) alternating X,Y,X,Y. Orphaned
       events are delivered by the owner before it lets go, so all have arrived. */
    CHECK_EQ_INT(atomic_load(&cx.received) + atomic_load(&cy.received), 4 * 2 * n);
    CHECK_EQ_INT(atomic_load(&cx.received), 4 * n);
    rpl_disposable_dispose(dx);
    rpl_disposable_dispose(dy);
    rpl_release(x);
    rpl_release(y);
    rpl_release(dx);
    rpl_release(dy);
}

/* ---- Rule 4: no starvation ----------------------------------------------- */
/* While two threads keep sending into a subscriber, a third thread's sends
   each return (bounded work: it never has to drain the others' stream). */
typedef struct { rpl_subscriber_t *sub; atomic_int *stop; } flood_arg;
static void *flooder(void *p) {
    flood_arg *a = p;
    while (!atomic_load(a->stop)) rpl_subscriber_send_next(a->sub, rpl_int(1));
    return NULL;
}
static void slow_next(void *ctx, const rpl_value *v) {
    (void)v;
    atomic_fetch_add((atomic_long *)ctx, 1);
}

static void test_no_starvation(void) {
    atomic_long count = 0;
    atomic_int stop = 0;
    rpl_observer o = observer_of(slow_next, NULL, NULL, NULL, &count);
    rpl_subscriber_t *sub = NULL;
    rpl_disposable_t *d = open_subscription(&o, &sub);
    flood_arg fa = { sub, &stop };
    pthread_t f[2];
    for (int i = 0; i < 2; i++) pthread_create(&f[i], NULL, flooder, &fa);
    sleep_ms(5);
    long mine = test_scale(2000, 100);
    for (long i = 0; i < mine; i++) rpl_subscriber_send_next(sub, rpl_int(2));
    /* Reaching here while the flood goes on is the test. */
    CHECK(!atomic_load(&stop));
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) pthread_join(f[i], NULL);
    CHECK(atomic_load(&count) >= mine);
    rpl_disposable_dispose(d);
    rpl_release(sub);
    rpl_release(d);
}

/* ---- Rule 6: dispose from another thread while a callback runs ---------- */
typedef struct {
    atomic_int in_callback;
    atomic_int may_return;
    atomic_int released;
    atomic_int released_while_in_callback;
    atomic_int calls;
} block_ctx;

static void blocking_next(void *ctx, const rpl_value *v) {
    (void)v;
    block_ctx *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    atomic_store(&c->in_callback, 1);
    while (!atomic_load(&c->may_return)) sleep_ms(1);
    atomic_store(&c->in_callback, 0);
}
static void blocking_release(void *ctx) {
    block_ctx *c = ctx;
    if (atomic_load(&c->in_callback)) atomic_store(&c->released_while_in_callback, 1);
    atomic_store(&c->released, 1);
}

/* Sends 1 into the subscriber p (on a thread of its own). */
static void *send_one(void *p) {
    rpl_subscriber_send_next(p, rpl_int(1));
    return NULL;
}

static void test_dispose_from_other_thread(void) {
    block_ctx c = {0};
    rpl_observer o = observer_of(blocking_next, NULL, NULL, blocking_release, &c);
    rpl_subscriber_t *sub = NULL;
    rpl_disposable_t *d = open_subscription(&o, &sub);
    pthread_t t;
    pthread_create(&t, NULL, send_one, sub);
    while (!atomic_load(&c.in_callback)) sleep_ms(1);
    /* dispose does not wait for the callback on the other thread... */
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);
    CHECK(rpl_disposable_is_disposed(d));
    /* ...and release(ctx) has not run yet: it runs when the callback returns. */
    CHECK_EQ_INT(atomic_load(&c.released), 0);
    /* No new callback starts after dispose returned. */
    rpl_subscriber_send_next(sub, rpl_int(2));
    atomic_store(&c.may_return, 1);
    pthread_join(t, NULL);
    CHECK_EQ_INT(atomic_load(&c.released), 1);
    CHECK_EQ_INT(atomic_load(&c.released_while_in_callback), 0);
    CHECK_EQ_INT(atomic_load(&c.calls), 1);
    rpl_release(sub);
    rpl_release(d);
}

/* Disposing while no callback runs: release has run when dispose returns. */
static void test_dispose_idle_from_other_thread(void) {
    block_ctx c = {0};
    atomic_store(&c.may_return, 1);
    rpl_observer o = observer_of(blocking_next, NULL, NULL, blocking_release, &c);
    rpl_subscriber_t *sub = NULL;
    rpl_disposable_t *d = open_subscription(&o, &sub);
    pthread_t t;
    pthread_create(&t, NULL, send_one, sub);
    pthread_join(t, NULL);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(atomic_load(&c.released), 1);
    rpl_release(sub);
    rpl_release(d);
}

/* Dispose racing sends on several threads: release exactly once, and no
   callback after the release. */
typedef struct { atomic_int releases; atomic_int after; atomic_int disposed; } dr_ctx;
static void dr_next(void *ctx, const rpl_value *v) {
    (void)v;
    dr_ctx *c = ctx;
    if (atomic_load(&c->disposed)) atomic_fetch_add(&c->after, 1);
}
static void dr_release(void *ctx) { atomic_fetch_add(&((dr_ctx *)ctx)->releases, 1); }

static void test_dispose_race(void) {
    for (long round = 0; round < test_scale(50, 5); round++) {
        dr_ctx c = {0};
        rpl_observer o = observer_of(dr_next, NULL, NULL, dr_release, &c);
        rpl_subscriber_t *sub = NULL;
        rpl_disposable_t *d = open_subscription(&o, &sub);
        pthread_t th[3];
        sender_arg args[3];
        for (int i = 0; i < 3; i++) {
            args[i] = (sender_arg){ sub, i, test_scale(10000, 300) };
            pthread_create(&th[i], NULL, sender, &args[i]);
        }
        rpl_disposable_dispose(d);
        /* A delivery already under way on another thread may still finish its
           callback (dispose does not wait for it); release(ctx) runs after it
           returns. Once release has run, no callback may run at all. */
        while (atomic_load(&c.releases) == 0) sleep_ms(1);
        atomic_store(&c.disposed, 1);
        for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
        CHECK_EQ_INT(atomic_load(&c.after), 0);
        CHECK_EQ_INT(atomic_load(&c.releases), 1);
        rpl_release(sub);
        rpl_release(d);
    }
}

/* Rule 6a across threads: the last reference dropped on another thread. */
static void *release_on_thread(void *p) {
    rpl_release(p);
    return NULL;
}

static void test_release_on_other_thread(void) {
    dr_ctx c = {0};
    rpl_observer o = observer_of(dr_next, NULL, NULL, dr_release, &c);
    rpl_subscriber_t *sub = NULL;
    rpl_disposable_t *d = open_subscription(&o, &sub);
    rpl_release(d);
    pthread_t t;
    pthread_create(&t, NULL, release_on_thread, sub);
    pthread_join(t, NULL);
    CHECK_EQ_INT(atomic_load(&c.releases), 1);
}

/* Subscribing from many threads at once to one cold signal. */
static rpl_disposable_t *count_body(void *ctx, rpl_subscriber_t *s) {
    atomic_fetch_add((atomic_int *)ctx, 1);
    rpl_subscriber_send_next(s, rpl_int(1));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static void *subscribe_loop(void *p) {
    rpl_signal_t *sig = p;
    for (long i = 0; i < test_scale(5000, 200); i++) {
        long got = 0;
        rpl_disposable_t *d = rpl_signal_subscribe_next(sig, (void (*)(void *, const rpl_value *))slow_next, &got);
        if (got != 1) abort();
        rpl_release(d);
    }
    return NULL;
}

static void test_concurrent_subscribe(void) {
    atomic_int bodies = 0;
    rpl_signal_t *sig = rpl_signal_create(count_body, &bodies, NULL);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, subscribe_loop, sig);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    CHECK_EQ_INT(atomic_load(&bodies), 4 * test_scale(5000, 200));
    rpl_release(sig);
}

/* Errors are thread-local. */
static void *fail_on_thread(void *p) {
    (void)p;
    rpl_disposable_dispose(NULL);
    return (void *)(intptr_t)rpl_last_error();
}

static void test_thread_local_errors(void) {
    rpl_error_t *e = rpl_error_create(NULL, 1, NULL);
    rpl_disposable_dispose((rpl_disposable_t *)e);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    pthread_t t;
    void *res;
    pthread_create(&t, NULL, fail_on_thread, NULL);
    pthread_join(t, &res);
    CHECK_EQ_INT((intptr_t)res, RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);  /* untouched by the other thread */
    rpl_release(e);
}

int main(void) {
    RUN(test_serialization);
    RUN(test_terminal_race);
    RUN(test_cross_thread_no_deadlock);
    RUN(test_no_starvation);
    RUN(test_dispose_from_other_thread);
    RUN(test_dispose_idle_from_other_thread);
    RUN(test_dispose_race);
    RUN(test_release_on_other_thread);
    RUN(test_concurrent_subscribe);
    RUN(test_thread_local_errors);
    CHECK_DONE();
}
