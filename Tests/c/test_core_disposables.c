/* Plain, compound and serial disposables (ReactiveObjC's RACDisposable,
   RACCompoundDisposable and RACSerialDisposable). */
#include "check.h"
#include <ripple.h>
#include <pthread.h>

#define CHECK_FAILED_WITH(status) do { \
    CHECK_EQ_INT(rpl_last_error(), (status)); \
    CHECK(rpl_last_error_message()[0] != '\0'); \
} while (0)

static void bump(void *ctx) { __atomic_fetch_add((int *)ctx, 1, __ATOMIC_SEQ_CST); }

static void test_plain(void) {
    int n = 0;
    rpl_disposable_t *d = rpl_disposable_create(bump, &n);
    CHECK(d != NULL);
    CHECK(!rpl_disposable_is_disposed(d));
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);
    CHECK(rpl_disposable_is_disposed(d));
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);  /* idempotent */
    CHECK_EQ_INT(n, 1);
    rpl_release(d);

    /* Releasing without disposing does not run the action (RAC). */
    rpl_disposable_t *e = rpl_disposable_create(bump, &n);
    rpl_release(e);
    CHECK_EQ_INT(n, 1);

    /* NULL action: only records being disposed. */
    rpl_disposable_t *f = rpl_disposable_create(NULL, NULL);
    CHECK(!rpl_disposable_is_disposed(f));
    rpl_disposable_dispose(f);
    CHECK(rpl_disposable_is_disposed(f));
    rpl_release(f);
}

/* The release of rpl_disposable_create_with_release runs exactly once: after
   the action on the first dispose, or when freed undisposed; never twice. */
typedef struct { int action, release, action_before_release; } with_release;
static void wr_action(void *ctx) { ((with_release *)ctx)->action++; }
static void wr_release(void *ctx) {
    with_release *w = ctx;
    w->release++;
    w->action_before_release = w->action;
}

static void test_with_release(void) {
    with_release a = {0, 0, 0};
    rpl_disposable_t *d = rpl_disposable_create_with_release(wr_action, &a, wr_release);
    CHECK(d != NULL);
    CHECK_EQ_INT(a.release, 0);
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);
    CHECK_EQ_INT(a.action, 1);
    CHECK_EQ_INT(a.release, 1);               /* at once: the context is no longer needed */
    CHECK_EQ_INT(a.action_before_release, 1); /* after the action */
    rpl_disposable_dispose(d);
    rpl_release(d);
    CHECK_EQ_INT(a.action, 1);
    CHECK_EQ_INT(a.release, 1);               /* not again on free */

    with_release b = {0, 0, 0};
    rpl_disposable_t *e = rpl_disposable_create_with_release(wr_action, &b, wr_release);
    rpl_retain(e);
    rpl_release(e);
    CHECK_EQ_INT(b.release, 0);               /* still referenced */
    rpl_release(e);
    CHECK_EQ_INT(b.action, 0);                /* freed undisposed: no action (RAC) */
    CHECK_EQ_INT(b.release, 1);               /* but the context is released */

    /* NULL action, and NULL release (same as rpl_disposable_create). */
    with_release c = {0, 0, 0};
    rpl_disposable_t *f = rpl_disposable_create_with_release(NULL, &c, wr_release);
    rpl_disposable_dispose(f);
    CHECK_EQ_INT(c.release, 1);
    rpl_release(f);
    int n = 0;
    rpl_disposable_t *g = rpl_disposable_create_with_release(bump, &n, NULL);
    rpl_disposable_dispose(g);
    CHECK_EQ_INT(n, 1);
    rpl_release(g);

    /* Inside a compound: disposed with it, released once. */
    with_release h = {0, 0, 0};
    rpl_disposable_t *comp = rpl_compound_disposable_create();
    rpl_disposable_t *x = rpl_disposable_create_with_release(wr_action, &h, wr_release);
    rpl_compound_disposable_add(comp, x);
    rpl_release(x);
    rpl_disposable_dispose(comp);
    CHECK_EQ_INT(h.action, 1);
    CHECK_EQ_INT(h.release, 1);
    rpl_release(comp);
    CHECK_EQ_INT(h.release, 1);
}

static int concurrent_count;
static rpl_disposable_t *concurrent_d;
static void *dispose_thread(void *arg) {
    (void)arg;
    rpl_disposable_dispose(concurrent_d);
    return NULL;
}

static void test_plain_concurrent(void) {
    for (long round = 0; round < test_scale(200, 20); round++) {
        concurrent_count = 0;
        concurrent_d = rpl_disposable_create(bump, &concurrent_count);
        pthread_t th[4];
        for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, dispose_thread, NULL);
        for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
        CHECK_EQ_INT(concurrent_count, 1);  /* at most once, even when racing */
        rpl_release(concurrent_d);
    }
}

static void test_bad_input(void) {
    rpl_error_t *err = rpl_error_create(NULL, 1, NULL);
    rpl_signal_t *sig = rpl_signal_never();
    rpl_disposable_t *plain = rpl_disposable_create(NULL, NULL);

    CHECK_EQ_INT(rpl_disposable_dispose(NULL), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_disposable_dispose((rpl_disposable_t *)err), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(strstr(rpl_last_error_message(), "rpl_disposable_dispose") != NULL);
    CHECK_EQ_INT(rpl_disposable_dispose((rpl_disposable_t *)sig), RPL_ERR_KIND);
    CHECK(!rpl_disposable_is_disposed(NULL));
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(!rpl_disposable_is_disposed((rpl_disposable_t *)err));
    CHECK_FAILED_WITH(RPL_ERR_KIND);

    rpl_disposable_t *c = rpl_compound_disposable_create();
    CHECK_EQ_INT(rpl_compound_disposable_add(NULL, plain), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_compound_disposable_add(c, NULL), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_compound_disposable_add(plain, c), RPL_ERR_KIND);  /* not a compound */
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_compound_disposable_add((rpl_disposable_t *)err, plain), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_compound_disposable_add(c, (rpl_disposable_t *)err), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_compound_disposable_add(c, c), RPL_ERR_INVALID);  /* itself */
    CHECK_FAILED_WITH(RPL_ERR_INVALID);
    CHECK_EQ_INT(rpl_compound_disposable_remove(NULL, plain), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_compound_disposable_remove(c, NULL), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_compound_disposable_remove(plain, c), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_compound_disposable_remove(c, (rpl_disposable_t *)sig), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);

    rpl_disposable_t *s = rpl_serial_disposable_create();
    CHECK(rpl_serial_disposable_swap(NULL, plain) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(rpl_serial_disposable_swap(plain, NULL) == NULL);  /* not a serial */
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(rpl_serial_disposable_swap((rpl_disposable_t *)err, plain) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(rpl_serial_disposable_swap(s, (rpl_disposable_t *)err) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(rpl_serial_disposable_swap(s, s) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_INVALID);
    CHECK(rpl_serial_disposable_swap(c, plain) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);

    /* The objects stay usable after failed calls. */
    CHECK(!rpl_disposable_is_disposed(c));
    CHECK(!rpl_disposable_is_disposed(s));
    CHECK(!rpl_disposable_is_disposed(plain));
    rpl_disposable_dispose(c);
    rpl_disposable_dispose(s);
    CHECK(!rpl_disposable_is_disposed(plain));

    rpl_release(s);
    rpl_release(c);
    rpl_release(plain);
    rpl_release(sig);
    rpl_release(err);
}

static void test_compound(void) {
    int a = 0, b = 0, late = 0;
    rpl_disposable_t *c = rpl_compound_disposable_create();
    rpl_disposable_t *da = rpl_disposable_create(bump, &a), *db = rpl_disposable_create(bump, &b);
    CHECK(!rpl_disposable_is_disposed(c));
    CHECK_EQ_INT(rpl_compound_disposable_add(c, da), RPL_OK);
    CHECK_EQ_INT(rpl_compound_disposable_add(c, db), RPL_OK);
    rpl_release(da);  /* the compound retains what it holds */
    CHECK_EQ_INT(rpl_disposable_dispose(c), RPL_OK);
    CHECK(rpl_disposable_is_disposed(c));
    CHECK_EQ_INT(a, 1);
    CHECK_EQ_INT(b, 1);
    CHECK(rpl_disposable_is_disposed(db));
    rpl_disposable_dispose(c);  /* idempotent */
    CHECK_EQ_INT(a, 1);

    /* As in ReactiveObjC: adding to a disposed compound disposes at once. */
    rpl_disposable_t *dl = rpl_disposable_create(bump, &late);
    CHECK_EQ_INT(rpl_compound_disposable_add(c, dl), RPL_OK);
    CHECK_EQ_INT(late, 1);
    CHECK(rpl_disposable_is_disposed(dl));
    /* Removing from a disposed compound is a no-op. */
    CHECK_EQ_INT(rpl_compound_disposable_remove(c, dl), RPL_OK);
    rpl_release(dl);
    rpl_release(db);
    rpl_release(c);
}

static void test_compound_remove(void) {
    int a = 0, b = 0;
    rpl_disposable_t *c = rpl_compound_disposable_create();
    rpl_disposable_t *da = rpl_disposable_create(bump, &a), *db = rpl_disposable_create(bump, &b);
    rpl_compound_disposable_add(c, da);
    rpl_compound_disposable_add(c, da);  /* twice: remove drops every occurrence */
    rpl_compound_disposable_add(c, db);
    CHECK_EQ_INT(rpl_compound_disposable_remove(c, da), RPL_OK);
    CHECK(!rpl_disposable_is_disposed(da));  /* removing does not dispose */
    rpl_disposable_t *never_added = rpl_disposable_create(NULL, NULL);
    CHECK_EQ_INT(rpl_compound_disposable_remove(c, never_added), RPL_OK);
    rpl_disposable_dispose(c);
    CHECK_EQ_INT(a, 0);
    CHECK(!rpl_disposable_is_disposed(da));
    CHECK_EQ_INT(b, 1);
    rpl_release(never_added);
    rpl_release(da);
    rpl_release(db);
    rpl_release(c);
}

/* A child that touches its compound while being disposed must not deadlock
   (children are disposed outside the lock). */
static rpl_disposable_t *reentrant_parent;
static int reentrant_late;
static void reenter(void *ctx) {
    (void)ctx;
    rpl_disposable_t *x = rpl_disposable_create(bump, &reentrant_late);
    rpl_compound_disposable_add(reentrant_parent, x);  /* disposed at once */
    rpl_compound_disposable_remove(reentrant_parent, x);
    CHECK(rpl_disposable_is_disposed(reentrant_parent));
    rpl_release(x);
}

static void test_compound_reentrant(void) {
    reentrant_late = 0;
    reentrant_parent = rpl_compound_disposable_create();
    rpl_disposable_t *child = rpl_disposable_create(reenter, NULL);
    rpl_compound_disposable_add(reentrant_parent, child);
    rpl_release(child);
    rpl_disposable_dispose(reentrant_parent);
    CHECK_EQ_INT(reentrant_late, 1);
    rpl_release(reentrant_parent);
}

/* Releasing a compound without disposing it disposes nothing and leaks
   nothing (valgrind checks the latter). */
static void test_compound_release(void) {
    int a = 0;
    rpl_disposable_t *c = rpl_compound_disposable_create();
    rpl_disposable_t *da = rpl_disposable_create(bump, &a);
    rpl_compound_disposable_add(c, da);
    rpl_release(c);
    CHECK_EQ_INT(a, 0);
    CHECK(!rpl_disposable_is_disposed(da));
    rpl_release(da);
}

static void test_compound_holds_subscriptions(void) {
    /* A subscription's disposable can go into a compound. */
    rpl_signal_t *never = rpl_signal_never();
    int released = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.release = bump;
    o.ctx = &released;
    rpl_disposable_t *sub = rpl_signal_subscribe(never, &o);
    rpl_disposable_t *c = rpl_compound_disposable_create();
    CHECK_EQ_INT(rpl_compound_disposable_add(c, sub), RPL_OK);
    rpl_release(sub);
    rpl_disposable_dispose(c);
    CHECK_EQ_INT(released, 1);
    rpl_release(c);
    rpl_release(never);
}

static void test_serial(void) {
    int first = 0, second = 0, third = 0;
    rpl_disposable_t *s = rpl_serial_disposable_create();
    rpl_disposable_t *d1 = rpl_disposable_create(bump, &first), *d2 = rpl_disposable_create(bump, &second);
    CHECK(rpl_serial_disposable_swap(s, d1) == NULL);  /* was empty */
    rpl_disposable_t *old = rpl_serial_disposable_swap(s, d2);
    CHECK(old == d1);  /* +1, not disposed */
    CHECK(!rpl_disposable_is_disposed(d1));
    CHECK_EQ_INT(first, 0);
    rpl_release(old);

    /* Set to NULL and back. */
    old = rpl_serial_disposable_swap(s, NULL);
    CHECK(old == d2);
    rpl_release(old);
    CHECK(rpl_serial_disposable_swap(s, d2) == NULL);

    rpl_disposable_dispose(s);
    CHECK(rpl_disposable_is_disposed(s));
    CHECK_EQ_INT(second, 1);  /* the current inner is disposed */
    CHECK_EQ_INT(first, 0);   /* the swapped-out one is not */
    rpl_disposable_dispose(s);
    CHECK_EQ_INT(second, 1);

    /* Swapping into a disposed serial disposes the new one at once, returns NULL. */
    rpl_disposable_t *d3 = rpl_disposable_create(bump, &third);
    CHECK(rpl_serial_disposable_swap(s, d3) == NULL);
    CHECK_EQ_INT(third, 1);
    CHECK(rpl_serial_disposable_swap(s, NULL) == NULL);  /* inner stays nil */

    rpl_release(d1);
    rpl_release(d2);
    rpl_release(d3);
    rpl_release(s);

    /* Releasing a serial releases its inner, without disposing it. */
    int kept = 0;
    rpl_disposable_t *s2 = rpl_serial_disposable_create();
    rpl_disposable_t *d4 = rpl_disposable_create(bump, &kept);
    rpl_serial_disposable_swap(s2, d4);
    rpl_release(d4);
    rpl_release(s2);
    CHECK_EQ_INT(kept, 0);
}

/* Concurrent swaps and a dispose: every disposable is disposed at most once,
   nothing crashes, nothing leaks. */
static rpl_disposable_t *race_serial;
static int race_disposals, race_bad;
static void *swap_loop(void *arg) {
    (void)arg;
    for (long i = 0; i < test_scale(20000, 500); i++) {
        rpl_disposable_t *d = rpl_disposable_create(bump, &race_disposals);
        rpl_disposable_t *old = rpl_serial_disposable_swap(race_serial, d);
        rpl_release(d);
        if (old) {
            /* swapped out, never disposed by the serial */
            if (rpl_disposable_is_disposed(old)) __atomic_fetch_add(&race_bad, 1, __ATOMIC_SEQ_CST);
            rpl_release(old);
        }
    }
    return NULL;
}

static void test_serial_concurrent(void) {
    race_disposals = 0;
    race_serial = rpl_serial_disposable_create();
    pthread_t th[3];
    for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, swap_loop, NULL);
    rpl_disposable_dispose(race_serial);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    /* After dispose every swapped-in disposable was disposed once; before it at most one. */
    CHECK(race_disposals >= 1);
    CHECK_EQ_INT(race_bad, 0);
    rpl_release(race_serial);
}

int main(void) {
    RUN(test_plain);
    RUN(test_plain_concurrent);
    RUN(test_with_release);
    RUN(test_bad_input);
    RUN(test_compound);
    RUN(test_compound_remove);
    RUN(test_compound_reentrant);
    RUN(test_compound_release);
    RUN(test_compound_holds_subscriptions);
    RUN(test_serial);
    RUN(test_serial_concurrent);
    CHECK_DONE();
}
