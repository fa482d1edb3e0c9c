/* Helpers shared by the combining-operator tests (test_ops_combine.c,
   test_ops_bind.c, test_ops_recovery.c): a controllable source signal and an
   observer that fires a trigger (the recorder is recorder.h). */
#ifndef RIPPLE_TEST_OPS2_SUPPORT_H
#define RIPPLE_TEST_OPS2_SUPPORT_H
#include "recorder.h"
#include <ripple.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* ---- A controllable cold source ----
   Each subscription is retained in subs[] so the test can send into it later;
   `sync` is sent at subscription ("1 2 C", "3 E", tokens: ints, C, E). The
   returned disposable counts disposals. */
#define SRC_MAX_SUBS 64
typedef struct {
    rpl_subscriber_t *subs[SRC_MAX_SUBS];
    atomic_int nsubs, disposed, released;
    const char *sync;
} src_t;

static void src_on_dispose(void *ctx) { atomic_fetch_add(&((src_t *)ctx)->disposed, 1); }
static void src_release_ctx(void *ctx) { atomic_fetch_add(&((src_t *)ctx)->released, 1); }

static void src_play(rpl_subscriber_t *s, const char *script) {
    const char *p = script ? script : "";
    char tok[32];
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        size_t n = 0;
        while (p[n] && p[n] != ' ' && n < sizeof tok - 1) { tok[n] = p[n]; n++; }
        tok[n] = 0;
        p += n;
        if (strcmp(tok, "C") == 0) rpl_subscriber_send_completed(s);
        else if (tok[0] == 'E') {
            rpl_error_t *e = rpl_error_create("test", tok[1] ? atoll(tok + 1) : 7, "test error");
            rpl_subscriber_send_error(s, e);
            rpl_release(e);
        } else rpl_subscriber_send_next(s, rpl_int(atoll(tok)));
    }
}

static rpl_disposable_t *src_subscribe(void *ctx, rpl_subscriber_t *s) {
    src_t *src = ctx;
    int i = atomic_fetch_add(&src->nsubs, 1);
    if (i < SRC_MAX_SUBS) src->subs[i] = rpl_retain(s);
    src_play(s, src->sync);
    return rpl_disposable_create(src_on_dispose, src);
}

/* A new signal over src (+1); sync may be NULL. */
static rpl_signal_t *src_make(src_t *src, const char *sync) {
    memset(src, 0, sizeof *src);
    src->sync = sync;
    return rpl_signal_create(src_subscribe, src, src_release_ctx);
}

/* Plays a script into subscription i (0 = the first). */
static void src_send(src_t *src, int i, const char *script) { src_play(src->subs[i], script); }

/* Drops the retained subscribers. */
static void src_drop(src_t *src) {
    int n = atomic_load(&src->nsubs);
    for (int i = 0; i < n && i < SRC_MAX_SUBS; i++) { rpl_release(src->subs[i]); src->subs[i] = NULL; }
    atomic_store(&src->nsubs, 0);
}

/* Ends one round of a test: releases the subscription d and drops the
   subscribers a and b (b may be NULL) retained, for the next round. */
static void src_round_end(rpl_disposable_t *d, src_t *a, src_t *b) {
    rpl_release(d);
    src_drop(a);
    if (b) src_drop(b);
}

/* ---- An observer that fires `trigger` (subscription 0) from inside on_next
   after `limit` values: for take_until stopping endless synchronous sources. */
typedef struct {
    rec_t rec;
    src_t *trigger;
    int limit;
} stopper_t;

static void stopper_next(void *ctx, const rpl_value *v) {
    stopper_t *s = ctx;
    rec_next(&s->rec, v);
    if (s->rec.n == s->limit) src_send(s->trigger, 0, "0");
}

static rpl_disposable_t *stopper_subscribe(rpl_signal_t *sig, stopper_t *s, src_t *trigger, int limit) {
    s->trigger = trigger;
    s->limit = limit;
    return rec_subscribe_fn(sig, &s->rec, stopper_next);  /* rec first: ctx is both */
}

/* ---- Context release counting ---- */
static int ctx_releases;
static void count_release(void *ctx) { (void)ctx; ctx_releases++; }

static rpl_error_t *test_error(int64_t code) { return rpl_error_create("test", code, "test error"); }

/* Bad input of an operator over a signal and a callback fn with ctx: a NULL
   signal, a NULL fn and a wrong-kind signal each fail at the call, and the
   context's release (count_release) runs each time. */
#define CHECK_CALLBACK_BAD_INPUT(op, fn, ctx) do { \
    ctx_releases = 0; \
    rpl_signal_t *cb_ok_ = rpl_signal_empty(); \
    rpl_error_t *cb_e_ = test_error(1); \
    CHECK(op(NULL, fn, ctx, count_release) == NULL); \
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL); \
    CHECK(op(cb_ok_, NULL, ctx, count_release) == NULL); \
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL); \
    CHECK(op((rpl_signal_t *)cb_e_, fn, ctx, count_release) == NULL); \
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND); \
    CHECK_EQ_INT(ctx_releases, 3); \
    rpl_release(cb_e_); \
    rpl_release(cb_ok_); \
} while (0)

/* Bad input of an operator over two signals: NULL or wrong-kind handles, in
   argument order, each named in the message; nothing is consumed, the
   handles stay usable. */
typedef rpl_signal_t *(*pair_op)(rpl_signal_t *, rpl_signal_t *);
static void check_pair_bad_input(pair_op op) {
    rpl_signal_t *ok = rpl_signal_never();
    rpl_error_t *e = test_error(1);
    CHECK(op(NULL, ok) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_") != NULL);
    CHECK(op(ok, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(op((rpl_signal_t *)e, ok) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(op(ok, (rpl_signal_t *)e) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(op(NULL, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_error_code(e), 1);
    rpl_release(e);
    rpl_release(ok);
}
#endif
