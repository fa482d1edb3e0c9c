/* Subjects: rules 7-11 and every subject function, single
   threaded (concurrency is in test_subjects_threads.c). */
#include "check.h"
#define REC_LOG_RELEASE 1 /* logs end in "R": the release comes last */
#include "recorder.h"

/* A value whose destructor counts, to check that values are consumed. */
static int dtor_count;
static void count_dtor(void *p) { (void)p; __atomic_fetch_add(&dtor_count, 1, __ATOMIC_SEQ_CST); }
#include <ripple.h>

/* Rule 8: a plain subject gives only what is sent after subscribing. */
static void test_plain_basic(void) {
    rpl_subject_t *s = rpl_subject_create();
    CHECK(s != NULL);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
    CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(0)), RPL_OK); /* nobody: lost */
    rec_t a = {0}, b = {0};
    rpl_disposable_t *da = rec_attach(s, &a);
    rpl_subject_send_next(s, rpl_int(1));
    rpl_disposable_t *db = rec_attach(rpl_subject_as_signal(s), &b);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 2);
    rpl_subject_send_next(s, rpl_int(2));
    rpl_subject_send_next(s, rpl_string("x"));
    CHECK_EQ_INT(rpl_disposable_dispose(db), RPL_OK);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 1);
    rpl_subject_send_next(s, rpl_int(3));
    CHECK_EQ_INT(rpl_subject_send_completed(s), RPL_OK);
    CHECK_LOG(&a, "1 2 x 3 C R");
    CHECK_LOG(&b, "2 x R");
    CHECK(rpl_disposable_is_disposed(da));
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
    CHECK(rpl_subject_as_signal(s) == (rpl_signal_t *)s);
    rpl_release(da);
    rpl_release(db);
    rpl_release(s);
}

/* Rule 7: the terminal event is remembered; later sends are ignored. */
static void test_plain_terminal_remembered(void) {
    rpl_subject_t *s = rpl_subject_create();
    rec_t a = {0}, late = {0}, late2 = {0};
    rpl_disposable_t *da = rec_attach(s, &a);
    CHECK(!rpl_subject_is_terminated(s));
    rpl_subject_send_completed(s);
    CHECK(rpl_subject_is_terminated(s));
    dtor_count = 0;
    CHECK_EQ_INT(rpl_subject_send_next(s, rpl_pointer(NULL, count_dtor)), RPL_OK); /* ignored, consumed */
    CHECK_EQ_INT(dtor_count, 1);
    rpl_error_t *e = rpl_error_create("test", 5, "late");
    CHECK_EQ_INT(rpl_subject_send_error(s, e), RPL_OK); /* ignored */
    rpl_subject_send_completed(s);
    rpl_disposable_t *dl = rec_attach(s, &late);
    CHECK_LOG(&a, "C R");
    CHECK_LOG(&late, "C R");
    CHECK(rpl_disposable_is_disposed(dl));
    rpl_release(da);
    rpl_release(dl);
    rpl_release(s);

    /* Errors too, including send_error(NULL): a generic runtime error. */
    s = rpl_subject_create();
    rpl_disposable_t *d1 = rec_attach(s, &late2);
    rpl_subject_send_error(s, e);
    rec_t l3 = {0};
    rpl_disposable_t *d3 = rec_attach(s, &l3);
    CHECK_LOG(&late2, "E5 R");
    CHECK_LOG(&l3, "E5 R");
    rpl_release(d1);
    rpl_release(d3);
    rpl_release(s);
    s = rpl_subject_create();
    rec_t g = {0};
    rpl_disposable_t *dg = rec_attach(s, &g);
    CHECK_EQ_INT(rpl_subject_send_error(s, NULL), RPL_OK);
    CHECK_LOG(&g, "E1 R"); /* RPL_ERROR_GENERIC */
    rpl_release(dg);
    rpl_release(s);
    rpl_release(e);
}

/* Rule 9: behavior subject. */
static void test_behavior(void) {
    rpl_subject_t *s = rpl_behavior_subject_create(rpl_int(0));
    rec_t a = {0}, b = {0}, c = {0};
    rpl_value v;
    CHECK_EQ_INT(rpl_behavior_subject_value(s, &v), RPL_OK);
    CHECK_EQ_INT(rpl_value_int(&v), 0);
    rpl_disposable_t *da = rec_attach(s, &a);
    rpl_subject_send_next(s, rpl_int(1));
    rpl_subject_send_next(s, rpl_int(2));
    rpl_disposable_t *db = rec_attach(s, &b);
    CHECK_EQ_INT(rpl_behavior_subject_value(s, &v), RPL_OK);
    CHECK_EQ_INT(rpl_value_int(&v), 2);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 2);
    rpl_subject_send_next(s, rpl_string("three"));
    CHECK_EQ_INT(rpl_behavior_subject_value(s, &v), RPL_OK);
    CHECK(strcmp(rpl_value_string(&v, NULL), "three") == 0);
    rpl_value_release(&v);
    rpl_subject_send_completed(s);
    rpl_disposable_t *dc = rec_attach(s, &c);
    CHECK_LOG(&a, "0 1 2 three C R");
    CHECK_LOG(&b, "2 three C R");
    CHECK_LOG(&c, "C R"); /* only the terminal event after termination */
    CHECK(rpl_subject_is_terminated(s));
    /* the value stays readable */
    CHECK_EQ_INT(rpl_behavior_subject_value(s, &v), RPL_OK);
    CHECK(rpl_value_type(&v) == RPL_TYPE_STRING);
    rpl_value_release(&v);
    rpl_release(da);
    rpl_release(db);
    rpl_release(dc);
    rpl_release(s);

    /* a boxed initial value is released with the subject */
    dtor_count = 0;
    s = rpl_behavior_subject_create(rpl_pointer(NULL, count_dtor));
    rec_t d = {0};
    rpl_disposable_t *dd = rec_attach(s, &d);
    CHECK_EQ_INT(d.n, 1);
    rpl_subject_send_next(s, rpl_int(7));
    CHECK_EQ_INT(dtor_count, 1); /* replaced: the subject dropped it */
    rpl_release(dd);
    rpl_release(s);
    CHECK_LOG(&d, "<type 6> 7 R"); /* freed without a terminal event (rule 6a) */
}

/* Rule 10: replay subjects. */
static void test_replay(void) {
    rpl_subject_t *r1 = rpl_replay_subject_create(1);
    rpl_subject_send_next(r1, rpl_string("a"));
    rpl_subject_send_next(r1, rpl_string("b"));
    rec_t a = {0};
    rpl_disposable_t *da = rec_attach(r1, &a);
    rpl_subject_send_next(r1, rpl_string("c"));
    rpl_subject_send_completed(r1);
    rec_t b = {0};
    rpl_disposable_t *db = rec_attach(r1, &b);
    CHECK_LOG(&a, "b c C R");
    CHECK_LOG(&b, "c C R");
    rpl_release(da);
    rpl_release(db);
    rpl_release(r1);

    rpl_subject_t *ru = rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    for (int i = 0; i < 100; i++) rpl_subject_send_next(ru, rpl_int(i));
    rec_t c = {0};
    rpl_disposable_t *dc = rec_attach(ru, &c);
    CHECK_EQ_INT(c.n, 100);
    rpl_subject_send_next(ru, rpl_int(100));
    rpl_error_t *e = rpl_error_create("test", 9, "boom");
    rpl_subject_send_error(ru, e);
    rec_t d = {0};
    rpl_disposable_t *dd = rec_attach(ru, &d);
    CHECK_EQ_INT(c.n, 101);
    CHECK_EQ_INT(d.n, 101);
    CHECK_EQ_INT(d.last_int, 100);
    CHECK(strcmp(c.log, d.log) == 0);
    CHECK(strstr(d.log, "99 100 E9 R") != NULL);
    rpl_release(dc);
    rpl_release(dd);
    rpl_release(ru);
    rpl_release(e);

    /* capacity 2, terminal without values, error NULL */
    rpl_subject_t *r2 = rpl_replay_subject_create(2);
    rpl_subject_send_next(r2, rpl_int(1));
    rpl_subject_send_next(r2, rpl_int(2));
    rpl_subject_send_next(r2, rpl_int(3));
    rpl_subject_send_error(r2, NULL);
    rec_t f = {0};
    rpl_disposable_t *df = rec_attach(r2, &f);
    CHECK_LOG(&f, "2 3 E1 R");
    rpl_release(df);
    rpl_release(r2);
    rpl_subject_t *r3 = rpl_replay_subject_create(1);
    rpl_subject_send_completed(r3);
    rec_t g = {0};
    rpl_disposable_t *dg = rec_attach(r3, &g);
    CHECK_LOG(&g, "C R");
    rpl_release(dg);
    rpl_release(r3);

    /* boxed values in the buffer are released when pushed out or freed */
    dtor_count = 0;
    rpl_subject_t *r4 = rpl_replay_subject_create(2);
    for (int i = 0; i < 5; i++) rpl_subject_send_next(r4, rpl_pointer(NULL, count_dtor));
    CHECK_EQ_INT(dtor_count, 3);
    rpl_release(r4);
    CHECK_EQ_INT(dtor_count, 5);
}

/* Disposing from inside a callback: no callback after dispose returns. (The
   RAC case "replay stops when disposed during the replay" needs the
   subscription during the replay, which only an operator such as take gets:
   it is in the Swift tests.) */
static rpl_disposable_t *self_disp;
static rec_t self_rec;
static void dispose_at_2(void *ctx, const rpl_value *v) {
    rec_next(ctx, v);
    if (rpl_value_int(v) == 2) rpl_disposable_dispose(self_disp);
}
static void test_dispose_self_in_callback(void) {
    rpl_subject_t *r = rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    rpl_subject_send_next(r, rpl_int(0));
    rpl_subject_send_next(r, rpl_int(1));
    memset(&self_rec, 0, sizeof self_rec);
    rpl_observer o = rec_observer(&self_rec);
    o.on_next = dispose_at_2;
    self_disp = rpl_signal_subscribe((rpl_signal_t *)r, &o);
    rpl_subject_send_next(r, rpl_int(2)); /* live: disposes itself */
    rpl_subject_send_next(r, rpl_int(3));
    CHECK_LOG(&self_rec, "0 1 2 R");
    CHECK_EQ_INT(rpl_subject_subscriber_count(r), 0);
    rpl_release(self_disp);
    rpl_release(r);
}

/* A subscriber's callback disposes the subscribers after it: none of them
   gets the value being sent, their holes are closed once the send ends
   (more of them than the registry leaves open), and the subject goes on
   with the first and with a later subscriber, in order. */
#define OTHERS 20
static rpl_disposable_t *others[OTHERS];
static int others_got[OTHERS];
static int first_got;
static void count_other(void *ctx, const rpl_value *v) { (void)v; others_got[(intptr_t)ctx]++; }
static void first_disposes_others(void *ctx, const rpl_value *v) {
    (void)ctx;
    first_got++;
    if (rpl_value_int(v) == 1)
        for (int i = 0; i < OTHERS; i++) rpl_disposable_dispose(others[i]);
}
static void test_dispose_others_in_callback(void) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_disposable_t *first = rpl_signal_subscribe_next((rpl_signal_t *)s, first_disposes_others, NULL);
    for (intptr_t i = 0; i < OTHERS; i++) others[i] = rpl_signal_subscribe_next((rpl_signal_t *)s, count_other, (void *)i);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), OTHERS + 1);
    rpl_subject_send_next(s, rpl_int(0));
    rpl_subject_send_next(s, rpl_int(1)); /* the first disposes the others */
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 1);
    rpl_subject_send_next(s, rpl_int(2));
    rec_t late;
    memset(&late, 0, sizeof late);
    rpl_disposable_t *dl = rec_subscribe((rpl_signal_t *)s, &late);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 2);
    rpl_subject_send_next(s, rpl_int(3));
    CHECK_EQ_INT(first_got, 4);
    for (int i = 0; i < OTHERS; i++) CHECK_EQ_INT(others_got[i], 1);
    CHECK_LOG(&late, "3");
    for (int i = 0; i < OTHERS; i++) rpl_release(others[i]);
    rpl_release(first);
    rpl_release(dl);
    rpl_release(s);
}

/* Bad input (rule 19). */
static void test_bad_input(void) {
    CHECK(rpl_replay_subject_create(0) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(strstr(rpl_last_error_message(), "capacity") != NULL);

    dtor_count = 0;
    CHECK_EQ_INT(rpl_subject_send_next(NULL, rpl_pointer(NULL, count_dtor)), RPL_ERR_NULL);
    CHECK_EQ_INT(dtor_count, 1); /* consumed anyway */
    CHECK_EQ_INT(rpl_subject_send_error(NULL, NULL), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_subject_send_completed(NULL), RPL_ERR_NULL);
    CHECK(rpl_subject_as_signal(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_subject_subscriber_count(NULL), 0);
    CHECK(!rpl_subject_is_terminated(NULL));
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);

    /* A signal where a subject is expected. */
    rpl_signal_t *sig = rpl_signal_never();
    rpl_subject_t *as_subject = (rpl_subject_t *)sig;
    CHECK_EQ_INT(rpl_subject_send_next(as_subject, rpl_pointer(NULL, count_dtor)), RPL_ERR_KIND);
    CHECK_EQ_INT(dtor_count, 2);
    CHECK_EQ_INT(rpl_subject_send_completed(as_subject), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_subject_send_error(as_subject, NULL), RPL_ERR_KIND);
    CHECK(rpl_subject_as_signal(as_subject) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_subscribe_subject(sig, as_subject) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_subject_subscriber_count(as_subject), 0);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(!rpl_subject_is_terminated(as_subject));
    rpl_value v = rpl_int(3);
    CHECK_EQ_INT(rpl_behavior_subject_value(as_subject, &v), RPL_ERR_KIND);
    CHECK(rpl_value_type(&v) == RPL_TYPE_NIL);

    rpl_subject_t *s = rpl_subject_create();
    rpl_error_t *e = rpl_error_create(NULL, 1, NULL);
    /* wrong kinds the other way round */
    CHECK_EQ_INT(rpl_subject_send_error(s, (rpl_error_t *)sig), RPL_ERR_KIND);
    CHECK(!rpl_subject_is_terminated(s)); /* still usable */
    CHECK(rpl_signal_subscribe_subject((rpl_signal_t *)e, s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_subscribe_subject(NULL, s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_subscribe_subject(sig, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_subscribe_subject((rpl_signal_t *)s, s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK_EQ_INT(rpl_behavior_subject_value(s, &v), RPL_ERR_KIND); /* plain, not behavior */
    CHECK_EQ_INT(rpl_behavior_subject_value(s, NULL), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_behavior_subject_value(NULL, &v), RPL_ERR_NULL);
    rpl_subject_t *r = rpl_replay_subject_create(3);
    CHECK_EQ_INT(rpl_behavior_subject_value(r, &v), RPL_ERR_KIND);
    /* an error handle passed as a subject */
    CHECK_EQ_INT(rpl_subject_send_completed((rpl_subject_t *)e), RPL_ERR_KIND);
    rec_t a = {0};
    rpl_disposable_t *d = rec_attach(s, &a);
    rpl_subject_send_next(s, rpl_int(1));
    CHECK_LOG(&a, "1");
    rpl_release(d);
    rpl_release(r);
    rpl_release(e);
    rpl_release(s);
    CHECK_LOG(&a, "1 R");
    rpl_release(sig);
}

/* The subject as a subscriber (rpl_signal_subscribe_subject). */
static int src_disposed;
static void on_src_dispose(void *ctx) { (void)ctx; src_disposed++; }
static rpl_subscriber_t *kept_src[4];
static rpl_disposable_t *keep_src(void *ctx, rpl_subscriber_t *s) {
    rpl_release(kept_src[(intptr_t)ctx]);
    kept_src[(intptr_t)ctx] = rpl_retain(s);
    return rpl_disposable_create(on_src_dispose, NULL);
}
static void test_subject_as_subscriber(void) {
    src_disposed = 0;
    rpl_signal_t *src0 = rpl_signal_create(keep_src, (void *)0, NULL);
    rpl_signal_t *src1 = rpl_signal_create(keep_src, (void *)1, NULL);
    rpl_subject_t *s = rpl_subject_create();
    rec_t a = {0};
    rpl_disposable_t *da = rec_attach(s, &a);
    rpl_disposable_t *c0 = rpl_signal_subscribe_subject(src0, s);
    rpl_disposable_t *c1 = rpl_signal_subscribe_subject(src1, s);
    CHECK(c0 != NULL && c1 != NULL);
    rpl_subscriber_send_next(kept_src[0], rpl_int(1));
    rpl_subscriber_send_next(kept_src[1], rpl_int(2));
    rpl_subscriber_send_next(kept_src[0], rpl_int(3));
    /* disposing one source subscription does not terminate the subject */
    rpl_disposable_dispose(c0);
    CHECK_EQ_INT(src_disposed, 1);
    rpl_subscriber_send_next(kept_src[0], rpl_int(99)); /* unsubscribed */
    CHECK(!rpl_subject_is_terminated(s));
    /* a third source; the first terminal from any source terminates it and
       disposes the others */
    rpl_disposable_t *c2 = rpl_signal_subscribe_subject(src0, s);
    rpl_subscriber_send_next(kept_src[0], rpl_int(4));
    rpl_subscriber_send_completed(kept_src[1]);
    CHECK(rpl_subject_is_terminated(s));
    CHECK_EQ_INT(src_disposed, 3);
    CHECK(rpl_disposable_is_disposed(c2));
    rpl_subscriber_send_next(kept_src[0], rpl_int(5));
    CHECK_LOG(&a, "1 2 3 4 C R");
    /* a terminated subject's new source subscription is disposed at once */
    rpl_disposable_t *c3 = rpl_signal_subscribe_subject(src0, s);
    CHECK(rpl_disposable_is_disposed(c3));
    CHECK_EQ_INT(src_disposed, 4);
    rpl_release(kept_src[0]);
    rpl_release(kept_src[1]);
    kept_src[0] = kept_src[1] = NULL;
    rpl_release(c0);
    rpl_release(c1);
    rpl_release(c2);
    rpl_release(c3);
    rpl_release(da);
    rpl_release(s);
    rpl_release(src0);
    rpl_release(src1);

    /* a cold source completing synchronously; a replay subject as subscriber */
    rpl_signal_t *ret = rpl_signal_return(rpl_int(42));
    rpl_subject_t *r = rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    rpl_disposable_t *cr = rpl_signal_subscribe_subject(ret, r);
    CHECK(rpl_subject_is_terminated(r));
    rec_t b = {0};
    rpl_disposable_t *db = rec_attach(r, &b);
    CHECK_LOG(&b, "42 C R");
    rpl_release(cr);
    rpl_release(db);
    rpl_release(r);
    rpl_release(ret);

    /* a subject subscribed to a subject (and released in any order) */
    rpl_subject_t *up = rpl_subject_create();
    rpl_subject_t *down = rpl_behavior_subject_create(rpl_int(-1));
    rpl_disposable_t *cu = rpl_signal_subscribe_subject((rpl_signal_t *)up, down);
    rec_t c = {0};
    rpl_disposable_t *dc = rec_attach(down, &c);
    rpl_subject_send_next(up, rpl_int(1));
    rpl_release(down); /* kept alive by up's subscription */
    rpl_subject_send_next(up, rpl_int(2));
    rpl_subject_send_error(up, NULL);
    CHECK_LOG(&c, "-1 1 2 E1 R");
    rpl_release(cu);
    rpl_release(dc);
    rpl_release(up);
}

/* Rule 5 for subject subscriptions: terminal, then resources, then release;
   rule 6a: releasing everything without disposing runs release. */
static void test_release_rules(void) {
    rpl_subject_t *s = rpl_subject_create();
    rec_t a = {0}, b = {0};
    rpl_disposable_t *da = rec_attach(s, &a);
    rpl_disposable_t *db = rec_attach(s, &b);
    rpl_release(db); /* the handle, not the subscription */
    rpl_subject_send_next(s, rpl_int(1));
    CHECK_LOG(&b, "1");
    rpl_disposable_dispose(da);
    CHECK_LOG(&a, "1 R"); /* release at once on dispose */
    rpl_release(s);    /* nothing can send any more */
    CHECK_LOG(&b, "1 R");
    rpl_release(da);

    /* same for replay and behavior subjects */
    rpl_subject_t *r = rpl_replay_subject_create(4);
    rpl_subject_t *h = rpl_behavior_subject_create(rpl_int(5));
    rec_t c = {0}, d = {0};
    rpl_release(rec_attach(r, &c));
    rpl_release(rec_attach(h, &d));
    rpl_subject_send_next(r, rpl_int(1));
    rpl_release(r);
    rpl_release(h);
    CHECK_LOG(&c, "1 R");
    CHECK_LOG(&d, "5 R");
}

/* Rule 11: no subject lock is held while a callback runs. Every call below
   takes the subject's lock, which is not recursive: held, they would
   deadlock. */
typedef struct { rec_t rec; rpl_subject_t *s; rpl_signal_t *src; int calls; } probe_t;
static void probe_next(void *ctx, const rpl_value *v) {
    probe_t *p = ctx;
    rec_next(&p->rec, v);
    rpl_value cur;
    if (rpl_behavior_subject_value(p->s, &cur) == RPL_OK) {
        CHECK(rpl_value_equal(&cur, v) || rpl_value_int(&cur) >= rpl_value_int(v));
        rpl_value_release(&cur);
    }
    (void)rpl_subject_subscriber_count(p->s);
    (void)rpl_subject_is_terminated(p->s);
    rpl_disposable_t *c = rpl_signal_subscribe_subject(p->src, p->s); /* an empty source */
    rpl_release(c);
    rec_t extra = {0};
    rpl_disposable_t *d = rec_attach(p->s, &extra);
    rpl_disposable_dispose(d);
    rpl_release(d);
    p->calls++;
}
static void test_no_lock_in_callbacks(void) {
    rpl_subject_t *kinds[3] = {rpl_subject_create(), rpl_behavior_subject_create(rpl_int(0)),
                               rpl_replay_subject_create(2)};
    rpl_signal_t *never = rpl_signal_never();
    for (int k = 0; k < 3; k++) {
        probe_t p;
        memset(&p, 0, sizeof p);
        p.s = kinds[k];
        p.src = never;
        rpl_observer o = rec_observer(&p.rec);
        o.on_next = probe_next;
        o.ctx = &p;
        o.release = NULL;
        rpl_subject_send_next(p.s, rpl_int(1));
        rpl_disposable_t *d = rpl_signal_subscribe((rpl_signal_t *)p.s, &o);
        rpl_subject_send_next(p.s, rpl_int(2));
        rpl_subject_send_completed(p.s);
        CHECK_EQ_INT(p.calls, k == 0 ? 1 : 2); /* behavior and replay replay 1 first */
        rpl_release(d);
        rpl_release(p.s);
    }
    rpl_release(never);
}

/* Re-entrancy: sending, subscribing and disposing from inside a callback. */
typedef struct { rec_t rec; rpl_subject_t *s; int limit; } reent_t; /* rec first: ctx is both */
static void send_next_back(void *ctx, const rpl_value *v) {
    reent_t *r = ctx;
    rec_next(&r->rec, v);
    int64_t x = rpl_value_int(v);
    if (x < r->limit) rpl_subject_send_next(r->s, rpl_int(x + 1));
    else rpl_subject_send_completed(r->s);
}
static void test_reentrant_send(rpl_subject_t *s, const char *expect_a, const char *expect_b) {
    reent_t r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.limit = 3;
    rpl_observer o = rec_observer(&r.rec);
    o.on_next = send_next_back;
    o.ctx = &r;
    o.release = NULL;
    rpl_disposable_t *d = rpl_signal_subscribe((rpl_signal_t *)s, &o);
    rec_t b = {0};
    rpl_disposable_t *db = rec_attach(s, &b);
    rpl_subject_send_next(s, rpl_int(0));
    CHECK_LOG(&r.rec, expect_a);
    CHECK_LOG(&b, expect_b);
    rpl_release(d);
    rpl_release(db);
    rpl_release(s);
}

/* RAC's recursive take: a subscriber that takes 3 values and sends v+1 back on
   each gets [0, 1, 2, C]. take lives in another module, so the subscriber
   ends its own subscription after the third value, as take does. */
typedef struct { rec_t rec; rpl_subject_t *s; rpl_disposable_t *self; int seen; } take_t;
static void take3(void *ctx, const rpl_value *v) {
    take_t *t = ctx;
    if (t->seen >= 3) return;
    rec_next(&t->rec, v);
    if (++t->seen == 3) {
        rec_completed(&t->rec);
        rpl_disposable_dispose(t->self);
    }
    rpl_subject_send_next(t->s, rpl_int(rpl_value_int(v) + 1));
}
static void test_recursive_take(rpl_subject_t *s) {
    take_t t;
    memset(&t, 0, sizeof t);
    t.s = s;
    rpl_observer o = rec_observer(&t.rec);
    o.on_next = take3;
    o.ctx = &t;
    o.release = NULL;
    t.self = rpl_signal_subscribe((rpl_signal_t *)s, &o);
    rpl_subject_send_next(s, rpl_int(0));
    CHECK_LOG(&t.rec, "0 1 2 C");
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
    rpl_release(t.self);
    rpl_release(s);
}

typedef struct { rpl_subject_t *s; rec_t *late; rpl_disposable_t *late_d; rpl_disposable_t *other; int n; } sub_in_cb_t;
static void subscribe_inside(void *ctx, const rpl_value *v) {
    sub_in_cb_t *c = ctx;
    (void)v;
    if (c->n++ == 0) {
        c->late_d = rec_attach(c->s, c->late);  /* gets only later values */
        rpl_disposable_dispose(c->other);     /* dispose another subscriber */
    }
}
static void test_subscribe_dispose_in_callback(rpl_subject_t *s, const char *expect_late) {
    rec_t late = {0}, other = {0};
    sub_in_cb_t c = {s, &late, NULL, NULL, 0};
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = subscribe_inside;
    o.ctx = &c;
    rpl_disposable_t *d = rpl_signal_subscribe((rpl_signal_t *)s, &o);
    c.other = rec_attach(s, &other);
    rpl_subject_send_next(s, rpl_int(1));
    rpl_subject_send_next(s, rpl_int(2));
    rpl_subject_send_completed(s);
    CHECK_LOG(&late, expect_late);
    CHECK_LOG(&other, "R"); /* disposed before value 1 reached it */
    rpl_release(c.late_d);
    rpl_release(c.other);
    rpl_release(d);
    rpl_release(s);
}

/* An observer with no on_next beside ones with it, on each kind of source:
   its values are dropped, its completion and release still come, and the
   others get every value (the deliveries test "no C function to call" in
   the word they load for the closed check). */
static int ends_seen;
static void count_end(void *ctx) { (void)ctx; ends_seen++; }
static rpl_disposable_t *send_two(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    rpl_subscriber_send_next(s, rpl_int(1));
    rpl_subscriber_send_next(s, rpl_int(2));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static void check_without_next(rpl_signal_t *sig, rpl_subject_t *s, const char *expect) {
    ends_seen = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_completed = count_end;
    rec_t a = {0};
    rpl_disposable_t *d1 = rpl_signal_subscribe(sig, &o);
    rpl_disposable_t *da = rec_attach(sig, &a);
    rpl_disposable_t *d2 = rpl_signal_subscribe(sig, &o);
    CHECK(d1 != NULL && da != NULL && d2 != NULL);
    if (s) {
        CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(1)), RPL_OK);
        CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(2)), RPL_OK);
        CHECK_EQ_INT(rpl_subject_send_completed(s), RPL_OK);
    }
    CHECK_EQ_INT(ends_seen, 2);
    CHECK_LOG(&a, expect);
    rpl_release(d1);
    rpl_release(da);
    rpl_release(d2);
}
static void test_observer_without_next(void) {
    rpl_subject_t *s = rpl_subject_create();
    check_without_next(rpl_subject_as_signal(s), s, "1 2 C R");
    rpl_release(s);
    s = rpl_replay_subject_create(1);
    check_without_next(rpl_subject_as_signal(s), s, "1 2 C R");
    rpl_release(s);
    rpl_signal_t *cold = rpl_signal_create(send_two, NULL, NULL);
    check_without_next(cold, NULL, "1 2 C R");
    rpl_release(cold);
    rpl_signal_t *one = rpl_signal_return(rpl_int(7));
    check_without_next(one, NULL, "7 C R");
    rpl_release(one);
}

/* A C observer's subscription to a subject that ended, once its handle's
   last reference is released, is kept on its thread for the next such
   subscribe (docs/behaviour.md, "Handles carry a magic word"): released, it
   reads as freed; revived, it is a new subscription of the new subject and
   keeps nothing of the old one. */
static void test_reused_subscription(void) {
    size_t before = check_live_now();
    rpl_subject_t *s1 = rpl_subject_create(), *s2 = rpl_subject_create();
    size_t subjects = check_live_now();
    rec_t a = {0}, b = {0};
    rpl_disposable_t *da = rec_attach(s1, &a);
    CHECK_EQ_INT(check_live_now(), subjects + 1);
    rpl_subject_send_next(s1, rpl_int(1));
    CHECK_EQ_INT(rpl_disposable_dispose(da), RPL_OK);
    rpl_release(da);
    CHECK_LOG(&a, "1 R");
    CHECK_EQ_INT(check_live_now(), subjects); /* out of the count */
    CHECK_EQ_INT(rpl_disposable_dispose(da), RPL_ERR_MISUSE);
    rpl_release(da); /* a second release is refused, not made */
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_MISUSE);

    rpl_disposable_t *db = rec_attach(s2, &b);
    CHECK(db == da); /* the same object, revived */
    CHECK_EQ_INT(check_live_now(), subjects + 1);
    CHECK(!rpl_disposable_is_disposed(db));
    CHECK_EQ_INT(rpl_subject_subscriber_count(s1), 0);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s2), 1);
    rpl_subject_send_next(s1, rpl_int(2)); /* reaches nobody */
    rpl_subject_send_next(s2, rpl_int(3));
    rpl_subject_send_completed(s2);
    CHECK_LOG(&b, "3 C R");
    CHECK_LOG(&a, "1 R");
    CHECK(rpl_disposable_is_disposed(db));

    /* Ended by its subject's completion, then released: kept too. */
    rpl_release(db);
    rec_t c = {0};
    rpl_disposable_t *dc = rec_attach(s1, &c);
    CHECK(dc == db);
    rpl_subject_send_next(s1, rpl_int(4));
    CHECK_LOG(&c, "4");

    /* Released while it runs: not kept (the subject still reaches it, rule
       6a), so the next subscription is another object. */
    rpl_release(dc);
    rec_t d = {0};
    rpl_disposable_t *dd = rec_attach(s1, &d);
    CHECK(dd != dc);
    rpl_subject_send_next(s1, rpl_int(5));
    CHECK_LOG(&c, "4 5");
    CHECK_LOG(&d, "5");

    /* Another reference held: releasing one is not releasing it. */
    rpl_retain(dd);
    rpl_disposable_dispose(dd);
    rpl_release(dd);
    CHECK(rpl_disposable_is_disposed(dd)); /* still valid */
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_MISUSE); /* unchanged since the refused release */
    rpl_release(dd);
    CHECK_EQ_INT(rpl_disposable_dispose(dd), RPL_ERR_MISUSE);
    rpl_release(s2);
    rpl_release(s1); /* ends c's subscription: its release runs */
    CHECK_LOG(&c, "4 5 R");
    CHECK_LOG(&d, "5 R");

    /* A retired one holds nothing of its subject: the replay buffer goes
       with the subject. */
    int freed = dtor_count;
    rpl_subject_t *r = rpl_replay_subject_create(1);
    rpl_subject_send_next(r, rpl_pointer(NULL, count_dtor));
    rec_t e = {0};
    rpl_disposable_t *de = rec_attach(r, &e);
    rpl_disposable_dispose(de);
    rpl_release(de);
    CHECK_EQ_INT(dtor_count, freed);
    rpl_release(r);
    CHECK_EQ_INT(dtor_count, freed + 1);

    /* More than a thread keeps (16) at once, twice over. */
    for (int round = 0; round < 2; round++) {
        enum { N = 40 };
        rpl_subject_t *s = rpl_subject_create();
        rec_t rs[N];
        rpl_disposable_t *ds[N];
        for (int i = 0; i < N; i++) {
            memset(&rs[i], 0, sizeof rs[i]);
            ds[i] = rec_attach(s, &rs[i]);
        }
        rpl_subject_send_next(s, rpl_int(round));
        for (int i = 0; i < N; i++) rpl_disposable_dispose(ds[i]);
        for (int i = 0; i < N; i++) {
            CHECK_LOG(&rs[i], round ? "1 R" : "0 R");
            rpl_release(ds[i]);
        }
        rpl_release(s);
    }
    CHECK_EQ_INT(check_live_now(), before);
}

int main(void) {
    RUN(test_plain_basic);
    RUN(test_observer_without_next);
    RUN(test_plain_terminal_remembered);
    RUN(test_behavior);
    RUN(test_replay);
    RUN(test_dispose_self_in_callback);
    RUN(test_dispose_others_in_callback);
    RUN(test_bad_input);
    RUN(test_subject_as_subscriber);
    RUN(test_release_rules);
    RUN(test_no_lock_in_callbacks);
    RUN(test_reused_subscription);
    fprintf(stderr, "  reentrant sends\n");
    /* Nested delivery (RAC): the nested sends reach b first, and the nested
       completion ends b before the outer values reach it. */
    /* B sees every event too, in the order sent: a re-entrant send waits for
       the current delivery to finish instead of overtaking it. */
    test_reentrant_send(rpl_subject_create(), "0 1 2 3 C", "0 1 2 3 C R");
    test_reentrant_send(rpl_replay_subject_create(RPL_REPLAY_UNLIMITED), "0 1 2 3 C", "0 1 2 3 C R");
    fprintf(stderr, "  recursive take\n");
    test_recursive_take(rpl_subject_create());
    test_recursive_take(rpl_replay_subject_create(1));
    fprintf(stderr, "  subscribe and dispose in a callback\n");
    test_subscribe_dispose_in_callback(rpl_subject_create(), "2 C R");
    /* replay(1): the new subscriber first gets the latest value, 1 */
    test_subscribe_dispose_in_callback(rpl_replay_subject_create(1), "1 2 C R");
    CHECK_DONE();
}
