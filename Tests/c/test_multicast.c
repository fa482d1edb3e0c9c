/* Multicast connections: rules 12-14 and every connection
   function. */
#include "check.h"
#define REC_LOG_RELEASE 1 /* logs end in "R": the release comes last */
#include "recorder.h"
#include <pthread.h>
#include <ripple.h>

/* A cold source that counts its subscriptions and disposals and keeps its
   subscriber so the test can send through it. */
typedef struct {
    int subscribed, disposed;
    int sync_values;     /* values sent synchronously, then completed, if > 0 */
    rpl_subscriber_t *kept;
} source_t;
static void src_on_dispose(void *ctx) { __atomic_fetch_add(&((source_t *)ctx)->disposed, 1, __ATOMIC_SEQ_CST); }
static rpl_disposable_t *src_subscribe(void *ctx, rpl_subscriber_t *s) {
    source_t *src = ctx;
    __atomic_fetch_add(&src->subscribed, 1, __ATOMIC_SEQ_CST);
    if (src->sync_values > 0) {
        for (int i = 1; i <= src->sync_values; i++) rpl_subscriber_send_next(s, rpl_int(i));
        rpl_subscriber_send_completed(s);
        return NULL;
    }
    if (src->kept) rpl_release(src->kept);
    src->kept = rpl_retain(s);
    return rpl_disposable_create(src_on_dispose, src);
}
static rpl_signal_t *source(source_t *src) { return rpl_signal_create(src_subscribe, src, NULL); }
static void src_done(source_t *src) { rpl_release(src->kept); src->kept = NULL; }

/* Rule 12: publish and connect. */
static void test_publish_connect(void) {
    source_t src = {0};
    rpl_signal_t *sig = source(&src);
    rpl_connection_t *c = rpl_signal_publish(sig);
    CHECK(c != NULL);
    CHECK_EQ_INT(src.subscribed, 0); /* no side effects */
    rpl_signal_t *shared = rpl_connection_signal(c);
    CHECK(shared != NULL);
    rec_t a = {0}, b = {0};
    rpl_disposable_t *da = rec_attach(shared, &a);
    rpl_disposable_t *db = rec_attach(shared, &b);
    rpl_disposable_t *d1 = rpl_connection_connect(c);
    rpl_disposable_t *d2 = rpl_connection_connect(c);
    CHECK(d1 != NULL && d1 == d2); /* the same connection */
    CHECK_EQ_INT(src.subscribed, 1);
    rpl_subscriber_send_next(src.kept, rpl_int(1));
    rpl_subscriber_send_next(src.kept, rpl_int(2));
    CHECK_LOG(&a, "1 2");
    CHECK_LOG(&b, "1 2");
    /* disposing the connection unsubscribes the source */
    rpl_disposable_dispose(d1);
    CHECK_EQ_INT(src.disposed, 1);
    CHECK(rpl_disposable_is_disposed(d2));
    rpl_subscriber_send_next(src.kept, rpl_int(3)); /* not connected */
    CHECK_LOG(&a, "1 2");
    /* a connect after that subscribes again */
    rpl_disposable_t *d3 = rpl_connection_connect(c);
    CHECK(d3 != d1);
    CHECK_EQ_INT(src.subscribed, 2);
    rpl_subscriber_send_next(src.kept, rpl_int(4));
    rpl_subscriber_send_completed(src.kept);
    CHECK_LOG(&a, "1 2 4 C R");
    CHECK_LOG(&b, "1 2 4 C R");
    /* the subject has terminated: connect returns the finished connection */
    rpl_disposable_t *d4 = rpl_connection_connect(c);
    CHECK(d4 == d3);
    CHECK_EQ_INT(src.subscribed, 2);
    rpl_release(d1);
    rpl_release(d2);
    rpl_release(d3);
    rpl_release(d4);
    rpl_release(da);
    rpl_release(db);
    rpl_release(c);
    rpl_release(sig);
    src_done(&src);
}

/* A source that completes while connecting; multicast through any subject. */
static void test_multicast_subjects(void) {
    source_t src = {0};
    src.sync_values = 3;
    rpl_signal_t *sig = source(&src);
    rpl_subject_t *r = rpl_replay_subject_create(2);
    rpl_connection_t *c = rpl_signal_multicast(sig, r);
    CHECK(rpl_connection_signal(c) == (rpl_signal_t *)r);
    rec_t a = {0}, b = {0};
    rpl_disposable_t *da = rec_attach(rpl_connection_signal(c), &a);
    rpl_disposable_t *d = rpl_connection_connect(c);
    rpl_disposable_t *db = rec_attach(rpl_connection_signal(c), &b);
    CHECK_LOG(&a, "1 2 3 C R");
    CHECK_LOG(&b, "2 3 C R");
    CHECK_EQ_INT(src.subscribed, 1);
    rpl_release(d);
    rpl_release(da);
    rpl_release(db);
    rpl_release(c);
    rpl_release(r); /* the connection kept its own reference */

    rpl_subject_t *h = rpl_behavior_subject_create(rpl_int(0));
    c = rpl_signal_multicast(sig, h);
    rpl_release(h);
    rec_t e = {0};
    rpl_disposable_t *de = rec_attach(rpl_connection_signal(c), &e);
    d = rpl_connection_connect(c);
    CHECK_LOG(&e, "0 1 2 3 C R");
    rpl_release(d);
    rpl_release(de);
    rpl_release(c);
    rpl_release(sig);
}

/* Rule 13: autoconnect counts subscribers and reconnects. */
static void test_autoconnect(void) {
    source_t src = {0};
    rpl_signal_t *sig = source(&src);
    rpl_connection_t *c = rpl_signal_publish(sig);
    rpl_signal_t *ac = rpl_connection_autoconnect(c);
    CHECK(ac != NULL);
    CHECK_EQ_INT(src.subscribed, 0);
    rec_t a = {0}, b = {0}, x = {0};
    rpl_disposable_t *da = rec_attach(ac, &a);
    CHECK_EQ_INT(src.subscribed, 1);
    rpl_disposable_t *db = rec_attach(ac, &b);
    CHECK_EQ_INT(src.subscribed, 1); /* only the first subscriber connects */
    CHECK_EQ_INT(rpl_subject_subscriber_count((rpl_subject_t *)rpl_connection_signal(c)), 2);
    rpl_subscriber_send_next(src.kept, rpl_int(1));
    rpl_disposable_dispose(da);
    CHECK_EQ_INT(src.disposed, 0);
    rpl_subscriber_send_next(src.kept, rpl_int(2));
    rpl_disposable_dispose(db);
    CHECK_EQ_INT(src.disposed, 1); /* count back to 0: disconnected */
    rpl_subscriber_send_next(src.kept, rpl_int(3));
    /* a later subscriber connects again (not RAC's one-shot) */
    rpl_disposable_t *dx = rec_attach(ac, &x);
    CHECK_EQ_INT(src.subscribed, 2);
    rpl_subscriber_send_next(src.kept, rpl_int(4));
    rpl_subscriber_send_completed(src.kept);
    CHECK_LOG(&a, "1 R");
    CHECK_LOG(&b, "1 2 R");
    CHECK_LOG(&x, "4 C R");
    /* after the subject completed, a subscriber gets C and does not connect */
    rec_t y = {0};
    rpl_disposable_t *dy = rec_attach(ac, &y);
    CHECK_LOG(&y, "C R");
    CHECK_EQ_INT(src.subscribed, 2);
    rpl_release(da);
    rpl_release(db);
    rpl_release(dx);
    rpl_release(dy);
    rpl_release(ac);
    rpl_release(c);
    rpl_release(sig);
    src_done(&src);

    /* a source completing during the first connect: the first subscriber
       gets everything (it joined before connecting) */
    source_t s2 = {0};
    s2.sync_values = 2;
    sig = source(&s2);
    c = rpl_signal_publish(sig);
    ac = rpl_connection_autoconnect(c);
    rec_t z = {0};
    rpl_disposable_t *dz = rec_attach(ac, &z);
    CHECK_LOG(&z, "1 2 C R");
    CHECK_EQ_INT(s2.subscribed, 1);
    rpl_release(dz);
    rpl_release(ac);
    rpl_release(c);
    rpl_release(sig);
}

/* Rules 12 and 13 together: there is one connection. An autoconnect
   subscriber joining while it is connected shares it, and the last one
   leaving disposes it, also when an explicit connect made it (as RAC's and
   RxSwift's refCount do); a connect after that subscribes again. (The
   fuzzer once took the second connect's new disposable for a bug.) */
static void test_autoconnect_disposes_explicit_connection(void) {
    source_t src = {0};
    rpl_signal_t *sig = source(&src);
    rpl_connection_t *c = rpl_signal_publish(sig);
    rpl_signal_t *ac = rpl_connection_autoconnect(c);
    rpl_disposable_t *k1 = rpl_connection_connect(c);
    CHECK_EQ_INT(src.subscribed, 1);
    rec_t a = {0};
    rpl_disposable_t *da = rec_attach(ac, &a);
    CHECK_EQ_INT(src.subscribed, 1);  /* joins the live connection */
    rpl_disposable_t *k2 = rpl_connection_connect(c);
    CHECK(k2 == k1);                  /* still the same connection */
    rpl_release(k2);
    rpl_subscriber_send_next(src.kept, rpl_int(1));
    rpl_disposable_dispose(da);       /* the count goes back to 0 */
    CHECK(rpl_disposable_is_disposed(k1));
    CHECK_EQ_INT(src.disposed, 1);
    rpl_disposable_t *k3 = rpl_connection_connect(c);
    CHECK(k3 != NULL && k3 != k1);
    CHECK(!rpl_disposable_is_disposed(k3));
    CHECK_EQ_INT(src.subscribed, 2);  /* subscribed again */
    CHECK_LOG(&a, "1 R");
    rpl_disposable_dispose(k3);
    CHECK_EQ_INT(src.disposed, 2);
    rpl_release(k3);
    rpl_release(k1);
    rpl_release(da);
    rpl_release(ac);
    rpl_release(c);
    rpl_release(sig);
    src_done(&src);
}

/* Rule 14: replay, replay_last, replay_lazily. */
static void test_replay_operators(void) {
    source_t src = {0};
    rpl_signal_t *sig = source(&src);
    rpl_signal_t *r = rpl_signal_replay(sig);
    CHECK_EQ_INT(src.subscribed, 1); /* connected at once */
    rpl_subscriber_send_next(src.kept, rpl_int(1));
    rpl_subscriber_send_next(src.kept, rpl_int(2));
    rec_t a = {0};
    rpl_disposable_t *da = rec_attach(r, &a);
    rpl_subscriber_send_next(src.kept, rpl_int(3));
    rpl_subscriber_send_completed(src.kept);
    rec_t b = {0};
    rpl_disposable_t *db = rec_attach(r, &b);
    CHECK_LOG(&a, "1 2 3 C R");
    CHECK_LOG(&b, "1 2 3 C R");
    CHECK_EQ_INT(src.subscribed, 1);
    rpl_release(da);
    rpl_release(db);
    rpl_release(r);

    rpl_signal_t *last = rpl_signal_replay_last(sig);
    CHECK_EQ_INT(src.subscribed, 2);
    rpl_subscriber_send_next(src.kept, rpl_int(1));
    rpl_subscriber_send_next(src.kept, rpl_int(2));
    rec_t c = {0};
    rpl_disposable_t *dc = rec_attach(last, &c);
    rpl_subscriber_send_next(src.kept, rpl_int(3));
    CHECK_LOG(&c, "2 3");
    rpl_release(dc);
    rpl_release(last); /* the source still holds the subject; it ends with it */
    rpl_subscriber_send_completed(src.kept);
    CHECK_LOG(&c, "2 3 C R");

    rpl_signal_t *lazy = rpl_signal_replay_lazily(sig);
    CHECK_EQ_INT(src.subscribed, 2); /* not yet */
    rec_t d = {0}, e = {0};
    rpl_disposable_t *dd = rec_attach(lazy, &d);
    CHECK_EQ_INT(src.subscribed, 3);
    rpl_subscriber_send_next(src.kept, rpl_int(1));
    rpl_disposable_dispose(dd);
    int disposed_before = src.disposed;
    rpl_subscriber_send_next(src.kept, rpl_int(2)); /* still connected */
    CHECK_EQ_INT(src.disposed, disposed_before);
    rpl_disposable_t *de = rec_attach(lazy, &e);
    CHECK_EQ_INT(src.subscribed, 3); /* once */
    rpl_subscriber_send_completed(src.kept);
    CHECK_LOG(&d, "1 R");
    CHECK_LOG(&e, "1 2 C R");
    rpl_release(dd);
    rpl_release(de);
    rpl_release(lazy);
    rpl_release(sig);
    src_done(&src);
}

static void test_bad_input(void) {
    rpl_signal_t *sig = rpl_signal_never();
    rpl_subject_t *s = rpl_subject_create();
    rpl_connection_t *c = rpl_signal_publish(sig);
    CHECK(rpl_signal_publish(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_publish((rpl_signal_t *)c) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_multicast(sig, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_multicast(NULL, s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_multicast(sig, (rpl_subject_t *)sig) == NULL); /* a signal is not a subject */
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_multicast((rpl_signal_t *)s, s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_connection_signal(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_connection_signal((rpl_connection_t *)sig) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_connection_connect(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_connection_connect((rpl_connection_t *)s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_connection_autoconnect(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_connection_autoconnect((rpl_connection_t *)sig) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_replay(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_replay_last((rpl_signal_t *)c) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_replay_lazily(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    /* a subject is a signal: it can be published */
    rpl_connection_t *cs = rpl_signal_publish((rpl_signal_t *)s);
    CHECK(cs != NULL);
    rec_t a = {0};
    rpl_disposable_t *da = rec_attach(rpl_connection_signal(cs), &a);
    rpl_disposable_t *d = rpl_connection_connect(cs);
    rpl_subject_send_next(s, rpl_int(7));
    CHECK_LOG(&a, "7");
    rpl_release(d);
    rpl_release(da);
    rpl_release(cs);
    rpl_release(c);
    rpl_release(s);
    rpl_release(sig);
    CHECK_LOG(&a, "7 R");
}

/* Concurrent connects: one subscription, one disposable. */
typedef struct { rpl_connection_t *c; rpl_disposable_t *got; } conn_arg_t;
static void *connect_thread(void *p) {
    conn_arg_t *a = p;
    a->got = rpl_connection_connect(a->c);
    return NULL;
}
static void test_concurrent_connect(void) {
    long rounds = test_scale(200, 20);
    for (long r = 0; r < rounds; r++) {
        source_t src = {0};
        rpl_signal_t *sig = source(&src);
        rpl_connection_t *c = rpl_signal_publish(sig);
        enum { N = 4 };
        pthread_t t[N];
        conn_arg_t args[N];
        for (int i = 0; i < N; i++) {
            args[i].c = c;
            pthread_create(&t[i], NULL, connect_thread, &args[i]);
        }
        for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
        int same = 1;
        for (int i = 1; i < N; i++) same &= args[i].got == args[0].got;
        if (!same || src.subscribed != 1) {
            CHECK(same);
            CHECK_EQ_INT(src.subscribed, 1);
        }
        for (int i = 0; i < N; i++) rpl_release(args[i].got);
        rpl_release(c);
        rpl_release(sig);
        src_done(&src);
    }
    CHECK(1);
}

/* Autoconnect under concurrent subscribe/dispose: every connection is
   disposed once everyone has left. */
static rpl_signal_t *ac_sig;
static void noop_next(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static void *ac_thread2(void *p) {
    (void)p;
    long n = test_scale(2000, 100);
    for (long i = 0; i < n; i++) {
        rpl_disposable_t *d = rpl_signal_subscribe_next(ac_sig, noop_next, NULL);
        rpl_disposable_dispose(d);
        rpl_release(d);
    }
    return NULL;
}
static void test_concurrent_autoconnect(void) {
    source_t src = {0};
    rpl_signal_t *sig = source(&src);
    rpl_connection_t *c = rpl_signal_publish(sig);
    ac_sig = rpl_connection_autoconnect(c);
    enum { N = 4 };
    pthread_t t[N];
    for (int i = 0; i < N; i++) pthread_create(&t[i], NULL, ac_thread2, NULL);
    for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
    CHECK(src.subscribed >= 1);
    CHECK_EQ_INT(src.disposed, src.subscribed); /* nobody left connected */
    CHECK_EQ_INT(rpl_subject_subscriber_count((rpl_subject_t *)rpl_connection_signal(c)), 0);
    rpl_release(ac_sig);
    rpl_release(c);
    rpl_release(sig);
    src_done(&src);
}

/* The first connection made on a subject while another thread subscribes to
   that subject directly (a counted subscriber). Whatever the interleaving,
   the hub must end up not keeping the subject (a subscriber counts). Once
   the subject's handle, the connection's and the subscription's are gone,
   with only an operator over an autoconnect side left to hold the
   connection's core (operators keep the core, not the connection), nothing
   can send into the subject: it is freed and that subscription ends. A hub
   that missed the subscriber would keep the subject, and the subscription,
   until that operator went too. */
static int race_released;
static void race_release(void *ctx) { (void)ctx; __atomic_fetch_add(&race_released, 1, __ATOMIC_SEQ_CST); }
typedef struct { rpl_subject_t *p; rpl_disposable_t *d; int go; } race_arg_t;
static void race_start(race_arg_t *a) {  /* both threads at once: the calls overlap */
    __atomic_fetch_add(&a->go, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&a->go, __ATOMIC_SEQ_CST) < 2) {}
}
static void *race_subscriber(void *arg) {
    race_arg_t *a = arg;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.release = race_release;
    race_start(a);
    a->d = rpl_signal_subscribe((rpl_signal_t *)a->p, &o);
    return NULL;
}
static void test_first_connection_races_a_subscriber(void) {
    long rounds = test_scale(2000, 100);
    for (long r = 0; r < rounds; r++) {
        rpl_subject_t *b = rpl_subject_create();
        race_arg_t arg = { rpl_subject_create(), NULL, 0 };
        __atomic_store_n(&race_released, 0, __ATOMIC_SEQ_CST);
        pthread_t t;
        pthread_create(&t, NULL, race_subscriber, &arg);
        race_start(&arg);
        rpl_connection_t *c = rpl_signal_multicast((rpl_signal_t *)b, arg.p);
        pthread_join(t, NULL);
        rpl_signal_t *ac = rpl_connection_autoconnect(c);
        rpl_signal_t *op = rpl_signal_take(ac, 1);  /* keeps only the core */
        rpl_release(ac);
        rpl_release(c);
        rpl_release(arg.p);
        rpl_release(arg.d);
        int released = __atomic_load_n(&race_released, __ATOMIC_SEQ_CST);
        rpl_release(op);
        rpl_release(b);
        if (released != 1) {
            CHECK_EQ_INT(released, 1);
            break;
        }
    }
    CHECK(1);
}

int main(void) {
    RUN(test_publish_connect);
    RUN(test_multicast_subjects);
    RUN(test_autoconnect);
    RUN(test_autoconnect_disposes_explicit_connection);
    RUN(test_replay_operators);
    RUN(test_bad_input);
    RUN(test_concurrent_connect);
    RUN(test_concurrent_autoconnect);
    RUN(test_first_connection_races_a_subscriber);
    CHECK_DONE();
}
