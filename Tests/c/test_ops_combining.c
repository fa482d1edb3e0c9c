/* Combining with a second signal, and grouping (0.2): with_latest_from,
   sample, take_until_replacement, skip_until, group_by. One section per
   operator: values, completion, errors, disposal reaching the inputs, the
   rule-27 decisions, bad input; then what the four two-signal operators share
   (bad input, names, rule 6a, serialization across threads). */
#define _POSIX_C_SOURCE 200809L
#define REC_KEEP_LAST 1 /* wlf_values looks at the last tuple */
#include "ops2_support.h"
#include <pthread.h>
#include <time.h>
#include <unistd.h>

typedef rpl_signal_t *(*pair_op)(rpl_signal_t *, rpl_signal_t *);

/* The pair (a, b) over two fresh controllable sources, subscribed with r. */
typedef struct {
    src_t a, b;
    rpl_signal_t *sa, *sb, *op;
    rpl_disposable_t *d;
    rec_t r;
} pair_t;

static void pair_start(pair_t *p, pair_op op, const char *sync_a, const char *sync_b) {
    p->sa = src_make(&p->a, sync_a);
    p->sb = src_make(&p->b, sync_b);
    p->op = op(p->sa, p->sb);
    CHECK(p->op != NULL);
    p->d = rec_subscribe(p->op, &p->r);
}

/* Releases everything; the observer and both sources' contexts were released. */
static void pair_end(pair_t *p) {
    rpl_release(p->d);
    rpl_release(p->op);
    src_drop(&p->a);
    src_drop(&p->b);
    rpl_release(p->sa);
    rpl_release(p->sb);
    CHECK_EQ_INT(p->r.released, 1);
    CHECK_EQ_INT(p->a.released, 1);
    CHECK_EQ_INT(p->b.released, 1);
    rec_clear(&p->r);
}

/* ==== with_latest_from ===================================================== */

static void wlf_values(void) {
    pair_t p;
    pair_start(&p, rpl_signal_with_latest_from, NULL, NULL);
    CHECK_EQ_INT(p.b.nsubs, 1);
    src_send(&p.a, 0, "1");  /* other has not sent: dropped (RxSwift) */
    src_send(&p.b, 0, "10");
    src_send(&p.a, 0, "2");
    src_send(&p.b, 0, "11 12");
    src_send(&p.a, 0, "3 4");
    CHECK_LOG(&p.r, "(2,10) (3,12) (4,12)");
    CHECK_EQ_INT(rpl_value_type(&p.r.last), RPL_TYPE_TUPLE);
    src_send(&p.a, 0, "C");
    CHECK_LOG(&p.r, "(2,10) (3,12) (4,12) C");
    CHECK_EQ_INT(p.b.disposed, 1);  /* other disposed when sig completes */
    CHECK_EQ_INT(p.a.disposed, 1);
    pair_end(&p);
}

/* Rule 27: other is subscribed first, so its synchronous value is there for
   sig's synchronous values. */
static void wlf_other_first(void) {
    pair_t p;
    pair_start(&p, rpl_signal_with_latest_from, "1 2 C", "5");
    CHECK_LOG(&p.r, "(1,5) (2,5) C");
    CHECK_EQ_INT(p.b.disposed, 1);
    pair_end(&p);
}

/* other's completion does not end the result; its latest value stays. */
static void wlf_other_completes(void) {
    pair_t p;
    pair_start(&p, rpl_signal_with_latest_from, NULL, "7 C");
    src_send(&p.a, 0, "1 2");
    CHECK_LOG(&p.r, "(1,7) (2,7)");
    CHECK_OPEN(p.r);
    src_send(&p.a, 0, "C");
    CHECK_LOG(&p.r, "(1,7) (2,7) C");
    pair_end(&p);
    /* other completing without a value: every value is dropped */
    pair_start(&p, rpl_signal_with_latest_from, NULL, "C");
    src_send(&p.a, 0, "1 2 C");
    CHECK_LOG(&p.r, "C");
    pair_end(&p);
}

static void wlf_errors(void) {
    pair_t p;
    pair_start(&p, rpl_signal_with_latest_from, NULL, "1");
    src_send(&p.b, 0, "E5");  /* other's error fails it (RxSwift) */
    CHECK_LOG(&p.r, "E5");
    CHECK_EQ_INT(p.a.disposed, 1);
    src_send(&p.a, 0, "3");
    CHECK_LOG(&p.r, "E5");
    pair_end(&p);
    pair_start(&p, rpl_signal_with_latest_from, NULL, "1");
    src_send(&p.a, 0, "2 E6");
    CHECK_LOG(&p.r, "(2,1) E6");
    CHECK_EQ_INT(p.b.disposed, 1);
    pair_end(&p);
}

/* ==== sample =============================================================== */

/* RAC's spec: [ , 2, 3, 3]: a tick before any value sends nothing; each tick
   sends the latest value, again if nothing new came. */
static void sample_values(void) {
    pair_t p;
    pair_start(&p, rpl_signal_sample, NULL, NULL);
    src_send(&p.b, 0, "0");
    src_send(&p.a, 0, "1 2");
    src_send(&p.b, 0, "0");
    src_send(&p.a, 0, "3");
    src_send(&p.b, 0, "0 0");
    CHECK_LOG(&p.r, "2 3 3");
    CHECK_OPEN(p.r);
    pair_end(&p);
}

/* Rule 27: ends when either input ends, disposing the other. sig is
   subscribed first (RAC): its synchronous value is there for the first tick. */
static void sample_ends(void) {
    pair_t p;
    pair_start(&p, rpl_signal_sample, "7", "0 C");
    CHECK_LOG(&p.r, "7 C");
    CHECK_EQ_INT(p.a.disposed, 1);
    pair_end(&p);
    pair_start(&p, rpl_signal_sample, "7", NULL);
    src_send(&p.a, 0, "C");
    CHECK_LOG(&p.r, "C");
    CHECK_EQ_INT(p.b.disposed, 1);
    pair_end(&p);
    pair_start(&p, rpl_signal_sample, "7", NULL);
    src_send(&p.b, 0, "0 E5");
    CHECK_LOG(&p.r, "7 E5");
    CHECK_EQ_INT(p.a.disposed, 1);
    pair_end(&p);
    pair_start(&p, rpl_signal_sample, "7", NULL);
    src_send(&p.a, 0, "E6");
    CHECK_LOG(&p.r, "E6");
    CHECK_EQ_INT(p.b.disposed, 1);
    pair_end(&p);
}

/* Boxed values: the latest is kept alive and sent again; no leak when it is
   replaced or the subscription ends (CHECK_DONE counts live objects). */
static rpl_disposable_t *send_strings(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    rpl_subscriber_send_next(s, rpl_string("a"));
    rpl_subscriber_send_next(s, rpl_string("b"));
    return NULL;
}
static void sample_boxed(void) {
    rpl_signal_t *strings = rpl_signal_create(send_strings, NULL, NULL);
    src_t t;
    rpl_signal_t *ticks = src_make(&t, "0 0 C");
    rpl_signal_t *op = rpl_signal_sample(strings, ticks);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(op, &r);
    CHECK_LOG(&r, "b b C");
    rpl_release(d);
    rpl_release(op);
    rpl_release(strings);
    rpl_release(ticks);
    src_drop(&t);
    rec_clear(&r);
}

/* ==== take_until_replacement ================================================ */

static void tur_values(void) {
    pair_t p;
    pair_start(&p, rpl_signal_take_until_replacement, NULL, NULL);
    CHECK_EQ_INT(p.b.nsubs, 1);
    CHECK_EQ_INT(p.a.nsubs, 1);
    src_send(&p.a, 0, "1 2");
    src_send(&p.b, 0, "9");  /* sig disposed before 9 is passed on */
    CHECK_EQ_INT(p.a.disposed, 1);
    src_send(&p.a, 0, "3 C");  /* ignored */
    src_send(&p.b, 0, "10 C");
    CHECK_LOG(&p.r, "1 2 9 10 C");
    pair_end(&p);
}

/* sig's completion is not passed on; the replacement ends the result. */
static void tur_source_completion(void) {
    pair_t p;
    pair_start(&p, rpl_signal_take_until_replacement, "1 C", NULL);
    CHECK_LOG(&p.r, "1");
    CHECK_OPEN(p.r);
    src_send(&p.b, 0, "C");  /* completion without a value: completes */
    CHECK_LOG(&p.r, "1 C");
    pair_end(&p);
    pair_start(&p, rpl_signal_take_until_replacement, NULL, NULL);
    src_send(&p.b, 0, "C");
    CHECK_LOG(&p.r, "C");
    CHECK_EQ_INT(p.a.disposed, 1);
    pair_end(&p);
}

/* replacement is subscribed first: if it fires at once, sig never is (RAC:
   only the replacement's values appear). */
static void tur_replacement_first(void) {
    pair_t p;
    pair_start(&p, rpl_signal_take_until_replacement, "1 2", "9");
    CHECK_EQ_INT(p.a.nsubs, 0);
    CHECK_LOG(&p.r, "9");
    src_send(&p.b, 0, "C");
    CHECK_LOG(&p.r, "9 C");
    pair_end(&p);
}

static void tur_errors(void) {
    pair_t p;
    pair_start(&p, rpl_signal_take_until_replacement, "1 E5", NULL);
    CHECK_LOG(&p.r, "1 E5");
    CHECK_EQ_INT(p.b.disposed, 1);
    pair_end(&p);
    pair_start(&p, rpl_signal_take_until_replacement, "1", NULL);
    src_send(&p.b, 0, "E6");
    CHECK_LOG(&p.r, "1 E6");
    CHECK_EQ_INT(p.a.disposed, 1);
    pair_end(&p);
    /* after the replacement fired, sig's error is not passed on */
    pair_start(&p, rpl_signal_take_until_replacement, NULL, NULL);
    src_send(&p.b, 0, "9");
    src_send(&p.a, 0, "E5");
    src_send(&p.b, 0, "E6");
    CHECK_LOG(&p.r, "9 E6");
    pair_end(&p);
}

/* ==== skip_until =========================================================== */

static void skip_until_values(void) {
    pair_t p;
    pair_start(&p, rpl_signal_skip_until, NULL, NULL);
    src_send(&p.a, 0, "1 2");
    src_send(&p.b, 0, "0");  /* the trigger fires and is disposed */
    CHECK_EQ_INT(p.b.disposed, 1);
    src_send(&p.b, 0, "E5");  /* ignored */
    src_send(&p.a, 0, "3 4 C");
    CHECK_LOG(&p.r, "3 4 C");
    pair_end(&p);
}

/* sig is subscribed first (RxSwift): what it sends while being subscribed
   comes before the trigger, even one that fires at once. */
static void skip_until_source_first(void) {
    pair_t p;
    pair_start(&p, rpl_signal_skip_until, "1 2", "0");
    CHECK_EQ_INT(p.b.nsubs, 1);
    src_send(&p.a, 0, "3 C");
    CHECK_LOG(&p.r, "3 C");
    pair_end(&p);
}

/* Rule 27: a trigger error fails the result. */
static void skip_until_trigger_error(void) {
    pair_t p;
    pair_start(&p, rpl_signal_skip_until, "1", NULL);
    src_send(&p.b, 0, "E5");
    CHECK_LOG(&p.r, "E5");
    CHECK_EQ_INT(p.a.disposed, 1);
    pair_end(&p);
    pair_start(&p, rpl_signal_skip_until, NULL, "0");
    src_send(&p.a, 0, "1 E6");
    CHECK_LOG(&p.r, "1 E6");
    pair_end(&p);
}

/* Rule 27: a source that completes before the trigger fired ends the
   subscription without a completion (the release runs); a trigger that
   completes without a value leaves every value dropped. */
static void skip_until_early_completion(void) {
    pair_t p;
    pair_start(&p, rpl_signal_skip_until, NULL, NULL);
    src_send(&p.a, 0, "1 C");
    CHECK_LOG(&p.r, "");
    CHECK_EQ_INT(p.r.released, 1);
    CHECK_EQ_INT(p.b.disposed, 1);
    CHECK(rpl_disposable_is_disposed(p.d));
    pair_end(&p);
    pair_start(&p, rpl_signal_skip_until, NULL, "C");
    src_send(&p.a, 0, "1 2");
    CHECK_LOG(&p.r, "");
    CHECK_EQ_INT(p.r.released, 0);
    src_send(&p.a, 0, "C");
    CHECK_LOG(&p.r, "");
    CHECK_EQ_INT(p.r.released, 1);
    pair_end(&p);
}

/* ==== What the two-signal operators share ==================================== */

static const pair_op pair_ops[] = {
    rpl_signal_with_latest_from, rpl_signal_sample, rpl_signal_take_until_replacement, rpl_signal_skip_until,
};
#define NPAIR (sizeof pair_ops / sizeof pair_ops[0])

/* Disposing the result disposes both inputs and runs the release once. */
static void pair_dispose(void) {
    for (size_t i = 0; i < NPAIR; i++) {
        pair_t p;
        pair_start(&p, pair_ops[i], NULL, NULL);
        CHECK_EQ_INT(p.a.nsubs, 1);
        CHECK_EQ_INT(p.b.nsubs, 1);
        CHECK_EQ_INT(rpl_disposable_dispose(p.d), RPL_OK);
        CHECK_EQ_INT(p.a.disposed, 1);
        CHECK_EQ_INT(p.b.disposed, 1);
        CHECK_EQ_INT(p.r.released, 1);
        src_send(&p.a, 0, "1 C");
        src_send(&p.b, 0, "1 C");
        CHECK_LOG(&p.r, "");
        pair_end(&p);
    }
}

/* Rule 6a: with every handle released, the subscription lives while an input
   can send, and is freed (release once) when neither can. */
static void pair_release_without_dispose(void) {
    for (size_t i = 0; i < NPAIR; i++) {
        src_t a, b;
        rpl_signal_t *sa = src_make(&a, NULL), *sb = src_make(&b, NULL);
        rpl_signal_t *op = pair_ops[i](sa, sb);
        rpl_release(sa);
        rpl_release(sb);
        rec_t r;
        rpl_release(rec_subscribe(op, &r));
        rpl_release(op);
        CHECK_EQ_INT(r.released, 0);
        src_drop(&a);
        src_drop(&b);
        CHECK_EQ_INT(r.released, 1);
        CHECK_EQ_INT(a.released, 1);
        CHECK_EQ_INT(b.released, 1);
        CHECK_OPEN(r);
        rec_clear(&r);
    }
}

/* Bad input: NULL or wrong-kind handles, in argument order; nothing is
   consumed, the handles stay usable. */
static void pair_bad_input(void) {
    rpl_signal_t *ok = rpl_signal_never();
    rpl_error_t *e = test_error(1);
    for (size_t i = 0; i < NPAIR; i++) {
        CHECK(pair_ops[i](NULL, ok) == NULL);
        CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
        CHECK(strstr(rpl_last_error_message(), "rpl_signal_") != NULL);
        CHECK(pair_ops[i](ok, NULL) == NULL);
        CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
        CHECK(pair_ops[i]((rpl_signal_t *)e, ok) == NULL);
        CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
        CHECK(pair_ops[i](ok, (rpl_signal_t *)e) == NULL);
        CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
        CHECK(pair_ops[i](NULL, NULL) == NULL);
        CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    }
    CHECK_EQ_INT(rpl_error_code(e), 1);
    rpl_release(e);
    rpl_release(ok);
}

/* Default names, RAC style. */
static void names(void) {
    rpl_signal_t *a = rpl_signal_never(), *b = rpl_signal_empty();
    static const char *const expect[NPAIR] = {
        "[+never] -withLatestFrom: [+empty]", "[+never] -sample: [+empty]",
        "[+never] -takeUntilReplacement: [+empty]", "[+never] -skipUntil: [+empty]",
    };
    for (size_t i = 0; i < NPAIR; i++) {
        rpl_signal_t *op = pair_ops[i](a, b);
        CHECK_STR(rpl_signal_name(op), expect[i]);
        rpl_release(op);
    }
    rpl_release(a);
    rpl_release(b);
}

/* Serialization: two threads send into the two inputs at once; the observer
   never sees two callbacks at once, and nothing is lost or leaked. */
typedef struct {
    rpl_subject_t *subject;
    long n;
    int tick;  /* send the same value (a tick) or counting values */
} sender_t;

static void *sender(void *arg) {
    sender_t *s = arg;
    for (long i = 0; i < s->n; i++) rpl_subject_send_next(s->subject, rpl_int(s->tick ? 0 : i + 1));
    return NULL;
}

static void pair_threads(void) {
    long n = test_scale(100000, 2000);
    for (size_t k = 0; k < 2; k++) {
        pair_op op = k == 0 ? rpl_signal_with_latest_from : rpl_signal_sample;
        rpl_subject_t *a = rpl_subject_create(), *b = rpl_subject_create();
        rpl_subject_send_next(a, rpl_int(0));  /* no one subscribed yet: dropped */
        rpl_signal_t *sig = op(rpl_subject_as_signal(a), rpl_subject_as_signal(b));
        rec_t r;
        rpl_disposable_t *d = rec_subscribe(sig, &r);
        /* both inputs have a value before the race (sample: a value first) */
        rpl_subject_send_next(k == 0 ? b : a, rpl_int(1));
        rpl_subject_send_next(k == 0 ? a : b, rpl_int(1));
        CHECK_EQ_INT(r.n, 1);
        sender_t sa = {a, n, 0}, sb = {b, n, 1};
        pthread_t ta, tb;
        pthread_create(&ta, NULL, sender, &sa);
        pthread_create(&tb, NULL, sender, &sb);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        /* with_latest_from: one tuple per value of a; sample: one per tick */
        CHECK_EQ_INT(r.n, 1 + n);
        CHECK_EQ_INT(r.overlap, 0);
        rpl_subject_send_completed(k == 0 ? a : b);
        CHECK_COMPLETED(r);
        rpl_release(d);
        rpl_release(sig);
        rpl_release(a);
        rpl_release(b);
        CHECK_EQ_INT(r.released, 1);
        rec_clear(&r);
    }
}

/* ==== group_by ============================================================== */

/* One log for the outer signal and every group, in the order events happen:
   "o:(k)" a new group, "o:C", "o:E5"; "g<k>:v", "g<k>:C", "g<k>:E5". */
typedef struct {
    char log[4096];
    int subscribe_groups;       /* the outer's on_next subscribes to each group */
    rpl_disposable_t *gd[16];   /* those subscriptions (+1) */
    int64_t gkey[16];
    int ngroups, released;
    int greleased;
    rpl_signal_t *kept;         /* the first group, retained */
} gb_t;

static void gb_append(gb_t *g, const char *s) {
    size_t n = strlen(g->log);
    snprintf(g->log + n, sizeof g->log - n, "%s%s", n ? " " : "", s);
}
static void gb_err(gb_t *g, const char *who, const rpl_error_t *e) {
    char b[64];
    snprintf(b, sizeof b, "%s:E%lld", who, (long long)rpl_error_code(e));
    gb_append(g, b);
}

typedef struct {
    gb_t *g;
    int64_t key;
} gctx_t;
static gctx_t gctx[16];

static void g_next(void *ctx, const rpl_value *v) {
    gctx_t *c = ctx;
    char b[64];
    snprintf(b, sizeof b, "g%lld:%lld", (long long)c->key, (long long)rpl_value_int(v));
    gb_append(c->g, b);
}
static void g_error(void *ctx, const rpl_error_t *e) {
    gctx_t *c = ctx;
    char who[16];
    snprintf(who, sizeof who, "g%lld", (long long)c->key);
    gb_err(c->g, who, e);
}
static void g_completed(void *ctx) {
    gctx_t *c = ctx;
    char b[32];
    snprintf(b, sizeof b, "g%lld:C", (long long)c->key);
    gb_append(c->g, b);
}
static void g_release(void *ctx) { ((gctx_t *)ctx)->g->greleased++; }

static rpl_disposable_t *gb_subscribe_group(gb_t *g, rpl_signal_t *group, int64_t key) {
    int i = g->ngroups++;
    gctx[i].g = g;
    gctx[i].key = key;
    g->gkey[i] = key;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = g_next;
    o.on_error = g_error;
    o.on_completed = g_completed;
    o.release = g_release;
    o.ctx = &gctx[i];
    return rpl_signal_subscribe(group, &o);
}

static void o_next(void *ctx, const rpl_value *v) {
    gb_t *g = ctx;
    CHECK_EQ_INT(rpl_value_type(v), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(v), 2);
    rpl_value key = rpl_value_tuple_at(v, 0), group = rpl_value_tuple_at(v, 1);
    CHECK_EQ_INT(rpl_value_type(&group), RPL_TYPE_SIGNAL);
    char b[64];
    snprintf(b, sizeof b, "o:(%lld)", (long long)rpl_value_int(&key));
    gb_append(g, b);
    rpl_signal_t *gs = rpl_value_signal(&group);
    if (!g->kept) g->kept = rpl_retain(gs);
    /* Rule 27: subscribed from here, the group gets the value that made it. */
    if (g->subscribe_groups && g->ngroups < 16) {
        int i = g->ngroups;
        g->gd[i] = gb_subscribe_group(g, gs, rpl_value_int(&key));
    }
    rpl_value_release(&key);
    rpl_value_release(&group);
}
static void o_error(void *ctx, const rpl_error_t *e) { gb_err(ctx, "o", e); }
static void o_completed(void *ctx) { gb_append(ctx, "o:C"); }
static void o_release(void *ctx) { ((gb_t *)ctx)->released++; }

static rpl_disposable_t *gb_start(gb_t *g, rpl_signal_t *sig, int subscribe_groups) {
    memset(g, 0, sizeof *g);
    g->subscribe_groups = subscribe_groups;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = o_next;
    o.on_error = o_error;
    o.on_completed = o_completed;
    o.release = o_release;
    o.ctx = g;
    return rpl_signal_subscribe(sig, &o);
}
static void gb_end(gb_t *g) {
    for (int i = 0; i < g->ngroups; i++) rpl_release(g->gd[i]);
    rpl_release(g->kept);
    g->kept = NULL;
}

/* key: v mod ctx->k (fnctx-like); fails (rpl_callback_fail) for v == fail_at,
   returning a string that must be discarded; returns an unlisted type for
   v == bad_at. */
typedef struct {
    int64_t k, fail_at, bad_at;
    int calls, released;
    rpl_status fail_status;
} keyctx_t;
static rpl_value key_mod(void *ctx, const rpl_value *v) {
    keyctx_t *c = ctx;
    c->calls++;
    int64_t x = rpl_value_int(v);
    if (x == c->fail_at) {
        c->fail_status = rpl_callback_fail(test_error(9));
        return rpl_string("discarded");
    }
    if (x == c->bad_at) {
        rpl_value bad = rpl_int(0);
        bad.type = (rpl_type)999;
        return bad;
    }
    return rpl_int(x % c->k);
}
static void key_release(void *ctx) { ((keyctx_t *)ctx)->released++; }

static void group_by_values(void) {
    src_t s;
    rpl_signal_t *src = src_make(&s, "1 2 4 5 7 3 C");
    keyctx_t kc = {3, -1, -1, 0, 0, 0};
    rpl_signal_t *op = rpl_signal_group_by(src, key_mod, &kc, key_release);
    CHECK(op != NULL);
    CHECK_STR(rpl_signal_name(op), "[+create:] -groupBy:");
    gb_t g;
    rpl_disposable_t *d = gb_start(&g, op, 1);
    /* Each group gets the value that made it (subscribed from the outer's
       on_next); the outer completes first, then the groups in the order they
       were made (RAC). */
    CHECK_STR(g.log, "o:(1) g1:1 o:(2) g2:2 g1:4 g2:5 g1:7 o:(0) g0:3 o:C g1:C g2:C g0:C");
    CHECK_EQ_INT(kc.calls, 6);
    CHECK_EQ_INT(g.released, 1);
    CHECK_EQ_INT(g.greleased, 3);
    CHECK_EQ_INT(s.disposed, 1);
    gb_end(&g);
    rpl_release(d);
    CHECK_EQ_INT(kc.released, 0);  /* the operator signal still holds it */
    rpl_release(op);
    CHECK_EQ_INT(kc.released, 1);
    src_drop(&s);
    rpl_release(src);
}

/* Rule 27: a group subscribed after the source ended gets its terminal event
   at once (completion or error). */
static void group_by_late_subscriber(void) {
    for (int fail = 0; fail < 2; fail++) {
        src_t s;
        rpl_signal_t *src = src_make(&s, fail ? "1 2 E5" : "1 2 C");
        keyctx_t kc = {2, -1, -1, 0, 0, 0};
        rpl_signal_t *op = rpl_signal_group_by(src, key_mod, &kc, key_release);
        gb_t g;
        rpl_disposable_t *d = gb_start(&g, op, 0);
        CHECK_STR(g.log, fail ? "o:(1) o:(0) o:E5" : "o:(1) o:(0) o:C");
        CHECK(g.kept != NULL);
        rec_t r;
        rpl_disposable_t *late = rec_subscribe(g.kept, &r);
        CHECK_STR(r.log, fail ? "E5" : "C");
        CHECK_EQ_INT(r.released, 1);
        rpl_release(late);
        gb_end(&g);
        rpl_release(d);
        rpl_release(op);
        src_drop(&s);
        rpl_release(src);
        CHECK_EQ_INT(kc.released, 1);
    }
}

/* Rule 24 and 27: a failing key callback fails the outer signal and every
   group with its error; the source is disposed; the discarded key is
   released (no leak). A key of an unlisted type fails the same way, with a
   "ripple" RPL_ERROR_CALLBACK error. */
static void group_by_key_fails(void) {
    src_t s;
    rpl_signal_t *src = src_make(&s, "1 2 3 4 C");
    keyctx_t kc = {2, 3, -1, 0, 0, -100};
    rpl_signal_t *op = rpl_signal_group_by(src, key_mod, &kc, key_release);
    gb_t g;
    rpl_disposable_t *d = gb_start(&g, op, 1);
    CHECK_EQ_INT(kc.fail_status, RPL_OK);
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2 o:E9 g1:E9 g0:E9");
    CHECK_EQ_INT(kc.calls, 3);
    CHECK_EQ_INT(s.disposed, 1);
    CHECK_EQ_INT(g.released, 1);
    CHECK_EQ_INT(g.greleased, 2);
    gb_end(&g);
    rpl_release(d);
    rpl_release(op);
    src_drop(&s);
    rpl_release(src);

    rpl_signal_t *src2 = src_make(&s, "1 2 C");
    keyctx_t kc2 = {2, -1, 2, 0, 0, 0};
    op = rpl_signal_group_by(src2, key_mod, &kc2, key_release);
    d = gb_start(&g, op, 1);
    char expect[64];
    snprintf(expect, sizeof expect, "o:(1) g1:1 o:E%d g1:E%d", RPL_ERROR_CALLBACK, RPL_ERROR_CALLBACK);
    CHECK_STR(g.log, expect);
    CHECK_EQ_INT(s.disposed, 1);
    gb_end(&g);
    rpl_release(d);
    rpl_release(op);
    src_drop(&s);
    rpl_release(src2);
    /* the error's domain and message */
    src_t s3;
    rpl_signal_t *src3 = src_make(&s3, "2");
    keyctx_t kc3 = {2, -1, 2, 0, 0, 0};
    op = rpl_signal_group_by(src3, key_mod, &kc3, NULL);
    rec_t r;
    rpl_disposable_t *d3 = rec_subscribe(op, &r);
    CHECK_FAILED(r, RPL_ERROR_CALLBACK);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    rpl_release(d3);
    rpl_release(op);
    src_drop(&s3);
    rpl_release(src3);
    rec_clear(&r);
}

/* Rule 27 (RAC): disposing the outer subscription disposes the source even
   while a group is subscribed; the group's subscription then ends without an
   event (nothing can send to it: rule 6a), and a later subscriber to the
   group ends at once. */
static void group_by_dispose(void) {
    src_t s;
    rpl_signal_t *src = src_make(&s, "1 2");
    keyctx_t kc = {2, -1, -1, 0, 0, 0};
    rpl_signal_t *op = rpl_signal_group_by(src, key_mod, &kc, key_release);
    gb_t g;
    rpl_disposable_t *d = gb_start(&g, op, 1);
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2");
    CHECK_EQ_INT(g.greleased, 0);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(s.disposed, 1);
    CHECK_EQ_INT(g.released, 1);
    CHECK_EQ_INT(g.greleased, 0);  /* the groups' handles still hold them */
    src_send(&s, 0, "3 C");
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2");
    rec_t r;
    rpl_disposable_t *late = rec_subscribe(g.kept, &r);
    CHECK_STR(r.log, "");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(late);
    gb_end(&g);
    CHECK_EQ_INT(g.greleased, 2);  /* ended without an event with their handles */
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2");
    rpl_release(d);
    rpl_release(op);
    src_drop(&s);
    rpl_release(src);
    CHECK_EQ_INT(kc.released, 1);
}

/* Rule 6a: every handle released, the subscriptions (outer and groups) live
   while the source can send, and end when it cannot. */
static void group_by_release_without_dispose(void) {
    src_t s;
    rpl_signal_t *src = src_make(&s, "1 2");
    keyctx_t kc = {2, -1, -1, 0, 0, 0};
    rpl_signal_t *op = rpl_signal_group_by(src, key_mod, &kc, key_release);
    rpl_release(src);
    gb_t g;
    rpl_release(gb_start(&g, op, 1));
    rpl_release(op);
    for (int i = 0; i < g.ngroups; i++) { rpl_release(g.gd[i]); g.gd[i] = NULL; }
    rpl_release(g.kept);
    g.kept = NULL;
    src_send(&s, 0, "3");
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2 g1:3");
    CHECK_EQ_INT(g.released, 0);
    src_drop(&s);
    CHECK_EQ_INT(g.released, 1);
    CHECK_EQ_INT(g.greleased, 2);
    CHECK_EQ_INT(kc.released, 1);
    CHECK_EQ_INT(s.released, 1);
}

/* Keys compare as rpl_value_equal: strings by content, tuples by items,
   0.0 and -0.0 alike; each key makes one group. */
static int key_index;
static rpl_value key_of_kind(void *ctx, const rpl_value *v) {
    (void)ctx;
    switch (rpl_value_int(v)) {
    case 0: return rpl_string("same");
    case 1: return rpl_string("same");
    case 2: return rpl_double(0.0);
    case 3: return rpl_double(-0.0);
    case 4: {
        rpl_value items[2] = {rpl_int(1), rpl_string("x")};
        return rpl_tuple(items, 2);
    }
    case 5: {
        rpl_value items[2] = {rpl_int(1), rpl_string("x")};
        return rpl_tuple(items, 2);
    }
    case 6: return rpl_nil();
    case 7: return rpl_nil();
    default: return rpl_int(key_index++);
    }
}
static void group_by_key_equality(void) {
    src_t s;
    rpl_signal_t *src = src_make(&s, "0 1 2 3 4 5 6 7 C");
    rpl_signal_t *op = rpl_signal_group_by(src, key_of_kind, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(op, &r);
    CHECK_EQ_INT(r.n, 4);
    CHECK_COMPLETED(r);
    rpl_release(d);
    rpl_release(op);
    src_drop(&s);
    rpl_release(src);
    rec_clear(&r);
}

/* Rule 23: finding a value's group does not scan the groups. The cost of a
   value with 1 group and with many is about the same. */
static rpl_value key_identity(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(rpl_value_int(v)); }
static void ignore_next(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
/* Sends `groups` distinct keys, then `repeats` values of key 0; returns the
   time of the repeats. */
static double time_with_groups(long groups, long repeats) {
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *op = rpl_signal_group_by(rpl_subject_as_signal(subj), key_identity, NULL, NULL);
    rpl_disposable_t *d = rpl_signal_subscribe_next(op, ignore_next, NULL);
    for (long i = 0; i < groups; i++) rpl_subject_send_next(subj, rpl_int(i));
    double t0 = now_s();
    for (long i = 0; i < repeats; i++) rpl_subject_send_next(subj, rpl_int(0));
    double t = now_s() - t0;
    rpl_release(d);
    rpl_release(op);
    rpl_release(subj);
    return t;
}
static void group_by_cost(void) {
    long many = test_scale(100000, 2000), repeats = test_scale(200000, 2000);
    double best1 = 1e9, bestN = 1e9;
    for (int round = 0; round < 3; round++) {
        double t1 = time_with_groups(1, repeats), tN = time_with_groups(many, repeats);
        if (t1 < best1) best1 = t1;
        if (tN < bestN) bestN = tN;
    }
    fprintf(stderr, "    %ld values: %.1f ns each with 1 group, %.1f ns with %ld\n", repeats,
            best1 * 1e9 / (double)repeats, bestN * 1e9 / (double)repeats, many);
    if (test_scale(1, 0)) CHECK(bestN < best1 * 5 + 0.01);
}

static void group_by_bad_input(void) {
    keyctx_t kc = {2, -1, -1, 0, 0, 0};
    CHECK(rpl_signal_group_by(NULL, key_mod, &kc, key_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_group_by") != NULL);
    CHECK_EQ_INT(kc.released, 1);
    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_group_by((rpl_signal_t *)e, key_mod, &kc, key_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_EQ_INT(kc.released, 2);
    rpl_signal_t *ok = rpl_signal_never();
    CHECK(rpl_signal_group_by(ok, NULL, &kc, key_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "key") != NULL);
    CHECK_EQ_INT(kc.released, 3);
    CHECK_EQ_INT(rpl_error_code(e), 1);  /* still usable */
    rpl_release(e);
    rpl_release(ok);
}

/* Each subscription has its own groups (a cold signal). */
static void group_by_twice(void) {
    src_t s;
    rpl_signal_t *src = src_make(&s, "1 2 3 C");
    keyctx_t kc = {2, -1, -1, 0, 0, 0};
    rpl_signal_t *op = rpl_signal_group_by(src, key_mod, &kc, key_release);
    for (int round = 0; round < 2; round++) {
        gb_t g;
        rpl_disposable_t *d = gb_start(&g, op, 1);
        CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2 g1:3 o:C g1:C g0:C");
        gb_end(&g);
        rpl_release(d);
    }
    rpl_release(op);
    src_drop(&s);
    rpl_release(src);
    CHECK_EQ_INT(kc.released, 1);
}

int main(void) {
    RUN(wlf_values);
    RUN(wlf_other_first);
    RUN(wlf_other_completes);
    RUN(wlf_errors);
    RUN(sample_values);
    RUN(sample_ends);
    RUN(sample_boxed);
    RUN(tur_values);
    RUN(tur_source_completion);
    RUN(tur_replacement_first);
    RUN(tur_errors);
    RUN(skip_until_values);
    RUN(skip_until_source_first);
    RUN(skip_until_trigger_error);
    RUN(skip_until_early_completion);
    RUN(pair_dispose);
    RUN(pair_release_without_dispose);
    RUN(pair_bad_input);
    RUN(names);
    RUN(pair_threads);
    RUN(group_by_values);
    RUN(group_by_late_subscriber);
    RUN(group_by_key_fails);
    RUN(group_by_dispose);
    RUN(group_by_release_without_dispose);
    RUN(group_by_key_equality);
    RUN(group_by_cost);
    RUN(group_by_bad_input);
    RUN(group_by_twice);
    CHECK_DONE();
}
