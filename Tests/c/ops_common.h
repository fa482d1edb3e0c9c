/* Helpers shared by the operator tests (test_ops_limit.c, test_ops_transform.c):
   a scripted source signal, callback contexts that count their release, and
   the checks every operator must pass (error propagation, disposal, release
   of ctx, restartability, bad input). */
#ifndef RIPPLE_TEST_OPS_COMMON_H
#define RIPPLE_TEST_OPS_COMMON_H
#define REC_KEEP_LAST 1 /* the tests look inside the last tuple or event */
#include "recorder.h"
#include <pthread.h>
#include <ripple.h>
#include <stdint.h>

/* ---- Scripted source ----------------------------------------------------
   Each subscription sends values[0..n) synchronously (stopping if disposed),
   then its terminal event, and returns a disposable counting disposals. With
   keep set, it retains the latest subscriber in `sub` so the test can send
   more later (release it with src_clear). */
enum { SRC_OPEN = 0, SRC_COMPLETE = 1, SRC_FAIL = 2 };
#define SRC_ERROR_CODE 42
typedef struct {
    int64_t values[32];
    int n;
    int terminal;
    int keep;
    int subscriptions, disposals, released;
    rpl_subscriber_t *sub;
} src_t;

static inline void src_on_dispose(void *ctx) { ((src_t *)ctx)->disposals++; }
static inline void src_release(void *ctx) { ((src_t *)ctx)->released++; }

static inline rpl_disposable_t *src_subscribe(void *ctx, rpl_subscriber_t *s) {
    src_t *p = ctx;
    p->subscriptions++;
    if (p->keep) {
        rpl_release(p->sub);
        p->sub = rpl_retain(s);
    }
    for (int i = 0; i < p->n && !rpl_subscriber_is_disposed(s); i++) rpl_subscriber_send_next(s, rpl_int(p->values[i]));
    if (p->terminal == SRC_COMPLETE) rpl_subscriber_send_completed(s);
    if (p->terminal == SRC_FAIL) {
        rpl_error_t *e = rpl_error_create("test", SRC_ERROR_CODE, "scripted failure");
        rpl_subscriber_send_error(s, e);
        rpl_release(e);
    }
    return rpl_disposable_create(src_on_dispose, p);
}

static inline void src_init(src_t *p, int terminal, int n, const int64_t *values) {
    memset(p, 0, sizeof *p);
    p->terminal = terminal;
    p->n = n;
    for (int i = 0; i < n; i++) p->values[i] = values[i];
}
#define SRC_INIT(p, terminal, ...) do { \
    const int64_t src_v_[] = {__VA_ARGS__}; \
    src_init((p), (terminal), (int)(sizeof src_v_ / sizeof src_v_[0]), src_v_); \
} while (0)
#define SRC_INIT_EMPTY(p, terminal) src_init((p), (terminal), 0, NULL)

static inline rpl_signal_t *src_signal(src_t *p) { return rpl_signal_create(src_subscribe, p, src_release); }
/* An open source with no values that keeps its subscriber in p->sub, for
   the test to send into: its signal (+1). */
static inline rpl_signal_t *src_open_signal(src_t *p) {
    SRC_INIT_EMPTY(p, SRC_OPEN);
    p->keep = 1;
    return src_signal(p);
}
static inline void src_clear(src_t *p) {
    rpl_release(p->sub);
    p->sub = NULL;
}

/* ---- Callback contexts --------------------------------------------------- */
typedef struct {
    int64_t k;      /* a parameter for the callback */
    int calls;
    int released;
} fnctx_t;
static inline void fnctx_release(void *ctx) { ((fnctx_t *)ctx)->released++; }

static int pointer_dtor_calls;
static inline void pointer_dtor(void *p) { (void)p; pointer_dtor_calls++; }

/* ---- Checks every operator must pass ------------------------------------
   make(src, c) builds the operator over src with a callback context c whose
   release is fnctx_release (operators without a callback ignore c). */
typedef rpl_signal_t *(*make_fn)(rpl_signal_t *src, fnctx_t *c);
/* Whether the operator under test takes a callback context (set by
   common_checks); without one, c is never released. */
static int common_has_ctx = 1;
#define CHECK_CTX_RELEASED(c, times) CHECK_EQ_INT((c).released, common_has_ctx ? (times) : 0)

/* The set-up of the checks below: a source with no values ending with
   terminal (keep: its subscriber kept in p.sub), the operator over it with
   the context c, and the recorder r subscribed to it (d). */
typedef struct {
    src_t p;
    rpl_signal_t *s, *op;
    fnctx_t c;
    rec_t r;
    rpl_disposable_t *d;
} common_run;
static inline void common_open(common_run *t, make_fn make, int terminal, int keep) {
    SRC_INIT_EMPTY(&t->p, terminal);
    t->p.keep = keep;
    t->s = src_signal(&t->p);
    t->c = (fnctx_t){0, 0, 0};
    t->op = make(t->s, &t->c);
    t->d = rec_subscribe(t->op, &t->r);
}

/* An error from the source reaches the subscriber, once, as the only terminal
   event; the source's disposable is disposed. */
static inline void common_error(make_fn make) {
    common_run t;
    common_open(&t, make, SRC_FAIL, 0);
    CHECK_FAILED(t.r, SRC_ERROR_CODE);
    CHECK(strcmp(t.r.error_domain, "test") == 0);
    CHECK_EQ_INT(t.p.disposals, 1);
    CHECK_EQ_INT(t.r.released, 1);
    rpl_release(t.d);
    rpl_release(t.op);
    rpl_release(t.s);
    CHECK_CTX_RELEASED(t.c, 1);
    CHECK_EQ_INT(t.p.released, 1);
    rec_clear(&t.r);
}

/* Disposing the operator's subscription disposes the source's subscription,
   ends delivery and runs the observer's release; the callback context lives
   while a subscription can call it and is released once, after the operator
   signal is freed. */
static inline void common_dispose(make_fn make) {
    common_run t;
    common_open(&t, make, SRC_OPEN, 1);
    CHECK(t.d != NULL);
    CHECK_EQ_INT(t.p.subscriptions, 1);
    CHECK_EQ_INT(t.p.disposals, 0);
    rpl_release(t.op);  /* the subscription still holds the callback */
    CHECK_CTX_RELEASED(t.c, 0);
    CHECK_EQ_INT(rpl_disposable_dispose(t.d), RPL_OK);
    CHECK_EQ_INT(t.p.disposals, 1);
    CHECK_EQ_INT(t.r.released, 1);
    CHECK_CTX_RELEASED(t.c, 1);
    CHECK(rpl_disposable_is_disposed(t.d));
    rpl_subscriber_send_next(t.p.sub, rpl_int(1));  /* ignored after dispose */
    rpl_subscriber_send_completed(t.p.sub);
    CHECK_EQ_INT(t.r.n, 0);
    CHECK_OPEN(t.r);
    CHECK_EQ_INT(rpl_disposable_dispose(t.d), RPL_OK);  /* idempotent */
    CHECK_EQ_INT(t.p.disposals, 1);
    rpl_release(t.d);
    src_clear(&t.p);
    rpl_release(t.s);
    CHECK_CTX_RELEASED(t.c, 1);
    CHECK_EQ_INT(t.p.released, 1);
    rec_clear(&t.r);
}

/* Releasing every handle without disposing frees the subscription once the
   source can no longer send to it (rule 6a): the observer and the callback
   context are released exactly once. */
static inline void common_release_without_dispose(make_fn make) {
    common_run t;
    common_open(&t, make, SRC_OPEN, 1);
    rpl_release(t.d);
    rpl_release(t.op);
    rpl_release(t.s);
    CHECK_EQ_INT(t.r.released, 0);  /* the source still holds its subscriber */
    src_clear(&t.p);
    CHECK_EQ_INT(t.r.released, 1);
    CHECK_CTX_RELEASED(t.c, 1);
    CHECK_EQ_INT(t.p.released, 1);
    rec_clear(&t.r);
}

/* Bad input: NULL and wrong-kind signals; the context is released once. */
static inline void common_bad_signal(make_fn make) {
    fnctx_t c = {0, 0, 0};
    CHECK(make(NULL, &c) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strlen(rpl_last_error_message()) > 0);
    CHECK_CTX_RELEASED(c, 1);
    rpl_disposable_t *notsig = rpl_disposable_create(NULL, NULL);
    fnctx_t c2 = {0, 0, 0};
    CHECK(make((rpl_signal_t *)notsig, &c2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_CTX_RELEASED(c2, 1);
    CHECK(!rpl_disposable_is_disposed(notsig));  /* still usable */
    rpl_release(notsig);
}

static inline void common_checks(make_fn make, int has_ctx) {
    common_has_ctx = has_ctx;
    common_error(make);
    common_dispose(make);
    common_release_without_dispose(make);
    common_bad_signal(make);
}

/* A NULL callback fails with RPL_ERR_NULL and still releases ctx c; call
   builds the operator over nf_s_, an empty signal. */
#define CHECK_NULL_FN(call, c) do { \
    rpl_signal_t *nf_s_ = rpl_signal_empty(); \
    (c).released = 0; \
    CHECK((call) == NULL); \
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL); \
    CHECK_EQ_INT((c).released, 1); \
    rpl_release(nf_s_); \
} while (0)

/* Sends the int 1 count times into sub from each of two threads at once, and
   returns when both are done. */
typedef struct {
    rpl_subscriber_t *sub;
    long count;
} sender_t;
static void *sender(void *arg) {
    sender_t *s = arg;
    for (long i = 0; i < s->count; i++) rpl_subscriber_send_next(s->sub, rpl_int(1));
    return NULL;
}
static inline void send_from_two_threads(rpl_subscriber_t *sub, long count) {
    sender_t x = {sub, count}, y = {sub, count};
    pthread_t tx, ty;
    pthread_create(&tx, NULL, sender, &x);
    pthread_create(&ty, NULL, sender, &y);
    pthread_join(tx, NULL);
    pthread_join(ty, NULL);
}

/* Subscribes twice to op (each subscription with its own state) and checks
   that both see exactly `expected` and then complete. */
static void check_twice(rpl_signal_t *op, const int64_t *expected, int n) {
    for (int round = 0; round < 2; round++) {
        rec_t r;
        rpl_disposable_t *d = rec_subscribe(op, &r);
        CHECK(rec_is(&r, expected, n));
        CHECK_COMPLETED(r);
        CHECK_EQ_INT(r.released, 1);
        rpl_release(d);
        rec_clear(&r);
    }
}
#define CHECK_TWICE(op, ...) do { \
    const int64_t tw_e_[] = {__VA_ARGS__}; \
    check_twice((op), tw_e_, (int)(sizeof tw_e_ / sizeof tw_e_[0])); \
} while (0)

#endif
