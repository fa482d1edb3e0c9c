/* Helpers shared by the combining-operator tests (test_ops_combine.c,
   test_ops_bind.c, test_ops_recovery.c): a recording observer and a
   controllable source signal. */
#ifndef RIPPLE_TEST_OPS2_SUPPORT_H
#define RIPPLE_TEST_OPS2_SUPPORT_H
#include "check.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <ripple.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define CHECK_STR(a, b) do { \
    const char *check_sa_ = (a), *check_sb_ = (b); \
    if (strcmp(check_sa_, check_sb_) == 0) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", \
                                   __FILE__, __LINE__, #a, #b, check_sa_, check_sb_); } \
} while (0)

/* ---- Recording observer: renders events as text, e.g. "1 2 (1,a) C". ---- */
typedef struct {
    char text[4096];
    int nvalues, completed, errors, released;
    int64_t error_code;
    atomic_int inside;  /* a callback is running */
    atomic_int overlap; /* two callbacks ran at once */
} rec_t;

static void rec_append(rec_t *r, const char *s) {
    size_t n = strlen(r->text);
    snprintf(r->text + n, sizeof r->text - n, "%s%s", n ? " " : "", s);
}

static void render_value(const rpl_value *v, char *buf, size_t cap) {
    switch (rpl_value_type(v)) {
    case RPL_TYPE_INT: snprintf(buf, cap, "%lld", (long long)rpl_value_int(v)); break;
    case RPL_TYPE_NIL: snprintf(buf, cap, "nil"); break;
    case RPL_TYPE_STRING: snprintf(buf, cap, "%s", rpl_value_string(v, NULL)); break;
    case RPL_TYPE_TUPLE: {
        size_t n = rpl_value_tuple_count(v), used = 0;
        used += (size_t)snprintf(buf + used, cap - used, "(");
        for (size_t i = 0; i < n && used < cap; i++) {
            rpl_value item = rpl_value_tuple_at(v, i);
            char tmp[64];
            render_value(&item, tmp, sizeof tmp);
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? "," : "", tmp);
            rpl_value_release(&item);
        }
        if (used < cap) snprintf(buf + used, cap - used, ")");
        break;
    }
    default: snprintf(buf, cap, "<type %d>", (int)rpl_value_type(v)); break;
    }
}

static void rec_enter(rec_t *r) { if (atomic_fetch_add(&r->inside, 1) != 0) atomic_store(&r->overlap, 1); }
static void rec_leave(rec_t *r) { atomic_fetch_sub(&r->inside, 1); }

static void rec_next(void *ctx, const rpl_value *v) {
    rec_t *r = ctx;
    rec_enter(r);
    char buf[256];
    render_value(v, buf, sizeof buf);
    rec_append(r, buf);
    r->nvalues++;
    rec_leave(r);
}
static void rec_error(void *ctx, const rpl_error_t *e) {
    rec_t *r = ctx;
    rec_enter(r);
    r->errors++;
    r->error_code = rpl_error_code(e);
    char buf[32];
    snprintf(buf, sizeof buf, "E%lld", (long long)r->error_code);
    rec_append(r, buf);
    rec_leave(r);
}
static void rec_completed(void *ctx) {
    rec_t *r = ctx;
    rec_enter(r);
    r->completed++;
    rec_append(r, "C");
    rec_leave(r);
}
static void rec_release(void *ctx) { ((rec_t *)ctx)->released++; }

static void rec_init(rec_t *r) { memset(r, 0, sizeof *r); }

/* Subscribes a fresh recorder (+1 disposable). */
static rpl_disposable_t *rec_subscribe(rpl_signal_t *s, rec_t *r) {
    rec_init(r);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = rec_next;
    o.on_error = rec_error;
    o.on_completed = rec_completed;
    o.release = rec_release;
    o.ctx = r;
    return rpl_signal_subscribe(s, &o);
}

/* Subscribes, then disposes and releases the subscription: the text of what
   arrived synchronously. */
static const char *rec_run(rpl_signal_t *s, rec_t *r) {
    rpl_disposable_t *d = rec_subscribe(s, r);
    rpl_disposable_dispose(d);
    rpl_release(d);
    return r->text;
}

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
    if (s->rec.nvalues == s->limit) src_send(s->trigger, 0, "0");
}

static rpl_disposable_t *stopper_subscribe(rpl_signal_t *sig, stopper_t *s, src_t *trigger, int limit) {
    rec_init(&s->rec);
    s->trigger = trigger;
    s->limit = limit;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = stopper_next;
    o.on_error = rec_error;
    o.on_completed = rec_completed;
    o.release = rec_release;
    o.ctx = s;
    return rpl_signal_subscribe(sig, &o);
}

/* ---- Context release counting ---- */
static int ctx_releases;
static void count_release(void *ctx) { (void)ctx; ctx_releases++; }

static rpl_error_t *test_error(int64_t code) { return rpl_error_create("test", code, "test error"); }
#endif
