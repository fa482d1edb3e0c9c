/* Combining with a second signal, and grouping (0.2): with_latest_from,
   sample, take_until_replacement, skip_until, group_by. One section per
   operator: values, completion, errors, disposal reaching the inputs, the
   rule-27 decisions, bad input; then what the four two-signal operators share
   (bad input, names, rule 6a, serialization across threads). */
#define _POSIX_C_SOURCE 200809L
#define REC_KEEP_LAST 1 /* with_latest_from_tuple looks at the last tuple */
#include "ops2_support.h"
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>


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

/* ---- Scenarios ---------------------------------------------------------------
   op(a, b) over two controllable sources with their synchronous scripts;
   then `steps` ("a:1 2|b:C": played into a's or b's subscription, in order);
   then the whole log, and how many times each input was disposed (-1: not
   checked). Every handle is then released; the observer's release ran. */
typedef struct {
    const char *sync_a, *sync_b, *steps, *log;
    int a_disposed, b_disposed;
} play_t;

static void play(pair_op op, const play_t *t) {
    pair_t p;
    pair_start(&p, op, t->sync_a, t->sync_b);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", t->steps);
    for (char *save = NULL, *step = strtok_r(buf, "|", &save); step; step = strtok_r(NULL, "|", &save))
        src_send(step[0] == 'a' ? &p.a : &p.b, 0, step + 2);
    CHECK_LOG(&p.r, t->log);
    if (t->a_disposed >= 0) CHECK_EQ_INT(p.a.disposed, t->a_disposed);
    if (t->b_disposed >= 0) CHECK_EQ_INT(p.b.disposed, t->b_disposed);
    pair_end(&p);
}
#define PLAY(op, ...) do { static const play_t play_[] = {__VA_ARGS__}; \
    for (size_t i_ = 0; i_ < sizeof play_ / sizeof play_[0]; i_++) play(op, &play_[i_]); } while (0)

/* ==== with_latest_from ===================================================== */

static void with_latest_from(void) {
    PLAY(rpl_signal_with_latest_from,
         /* values before other has sent are dropped (RxSwift); sig's
            completion completes it and disposes other */
         {NULL, NULL, "a:1|b:10|a:2|b:11 12|a:3 4|a:C", "(2,10) (3,12) (4,12) C", 1, 1},
         /* rule 27: other is subscribed first, so its synchronous value is
            there for sig's synchronous values */
         {"1 2 C", "5", "", "(1,5) (2,5) C", -1, 1},
         /* other's completion does not end it; its latest value stays */
         {NULL, "7 C", "a:1 2|a:3 C", "(1,7) (2,7) (3,7) C", -1, -1},
         /* other completing without a value: every value is dropped */
         {NULL, "C", "a:1 2 C", "C", -1, -1},
         /* an error of either fails it and disposes the other */
         {NULL, "1", "b:E5|a:3", "E5", 1, -1},
         {NULL, "1", "a:2 E6", "(2,1) E6", -1, 1});
}

/* The tuple: item 0 sig's value, item 1 other's latest. */
static void with_latest_from_tuple(void) {
    pair_t p;
    pair_start(&p, rpl_signal_with_latest_from, NULL, "10");
    src_send(&p.a, 0, "1");
    CHECK_EQ_INT(rpl_value_type(&p.r.last), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(&p.r.last), 2);
    rpl_value item = rpl_value_tuple_at(&p.r.last, 1);
    CHECK_EQ_INT(rpl_value_int(&item), 10);
    rpl_value_release(&item);
    pair_end(&p);
}

/* ==== sample =============================================================== */

static void sample(void) {
    PLAY(rpl_signal_sample,
         /* RAC's spec, [ , 2, 3, 3]: a tick before any value sends nothing;
            each tick sends the latest value, again if nothing new came */
         {NULL, NULL, "b:0|a:1 2|b:0|a:3|b:0 0", "2 3 3", 0, 0},
         /* rule 27: ends when either input ends, disposing the other; sig is
            subscribed first (RAC), so its synchronous value is there for the
            first tick */
         {"7", "0 C", "", "7 C", 1, -1},
         {"7", NULL, "a:C", "C", -1, 1},
         {"7", NULL, "b:0 E5", "7 E5", 1, -1},
         {"7", NULL, "a:E6", "E6", -1, 1});
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

static void take_until_replacement(void) {
    PLAY(rpl_signal_take_until_replacement,
         /* the replacement's first event disposes sig; sig's later events are
            not passed on */
         {NULL, NULL, "a:1 2|b:9|a:3 C|b:10 C", "1 2 9 10 C", 1, -1},
         /* sig's completion is not passed on; the replacement ends it */
         {"1 C", NULL, "b:5 C", "1 5 C", -1, 1},
         {NULL, NULL, "b:C", "C", 1, -1},
         /* the replacement is subscribed first: if it fires at once, sig is
            never subscribed (RAC: only the replacement's values appear) */
         {"1 2", "9", "b:C", "9 C", 0, -1},
         /* errors: sig's until the replacement fired, the replacement's always */
         {"1 E5", NULL, "", "1 E5", -1, 1},
         {"1", NULL, "b:E6", "1 E6", 1, -1},
         {NULL, NULL, "b:9|a:E5|b:E6", "9 E6", 1, -1});
}

/* The replacement's first value arrives after sig was disposed. */
static void take_until_replacement_order(void) {
    pair_t p;
    pair_start(&p, rpl_signal_take_until_replacement, NULL, NULL);
    CHECK_EQ_INT(p.a.nsubs, 1);
    src_send(&p.b, 0, "9");
    CHECK_EQ_INT(p.a.disposed, 1);
    CHECK_LOG(&p.r, "9");
    pair_end(&p);
}

/* ==== skip_until =========================================================== */

static void skip_until(void) {
    PLAY(rpl_signal_skip_until,
         /* the trigger's first value opens it and disposes the trigger */
         {NULL, NULL, "a:1 2|b:0|b:E5|a:3 4 C", "3 4 C", -1, 1},
         /* sig is subscribed first (RxSwift): what it sends while being
            subscribed comes before the trigger, even one that fires at once */
         {"1 2", "0", "a:3 C", "3 C", -1, 1},
         /* rule 27: a trigger error fails it; a sig error always does */
         {"1", NULL, "b:E5", "E5", 1, -1},
         {NULL, "0", "a:1 E6", "1 E6", -1, 1});
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

/* Bad input (ops2_support.h). */
static void pair_bad_input(void) {
    for (size_t i = 0; i < NPAIR; i++) check_pair_bad_input(pair_ops[i]);
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

/* Runs fa(a) and fb(b) on two threads and waits for both. */
static void run_together(void *(*fa)(void *), void *a, void *(*fb)(void *), void *b) {
    pthread_t ta, tb;
    pthread_create(&ta, NULL, fa, a);
    pthread_create(&tb, NULL, fb, b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
}

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
        run_together(sender, &sa, sender, &sb);
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

/* Switching inputs across threads: sig sends 0, 1, 2, ... from one thread;
   from another, once a third of them are sent, the second signal fires
   (take_until_replacement: BIG, BIG+1, ... then completes; skip_until: one
   value), at the latest when two thirds are sent. What arrives is in order, serialized, and switches exactly once:
   take_until_replacement sends 0..k-1 then BIG..; skip_until sends k..n-1. */
#define BIG 1000000000LL
typedef struct {
    rec_t rec;  /* first: ctx is both */
    int64_t last;
    int switched;
    int bad;
} order_t;

static void order_next(void *ctx, const rpl_value *v) {
    order_t *o = ctx;
    rec_next(&o->rec, v);
    int64_t x = rpl_value_int(v);
    if (x >= BIG && !o->switched) {
        o->switched = 1;
        if (x != BIG) o->bad++;
    } else if (o->last >= 0 && x != o->last + 1) {
        o->bad++;
    }
    o->last = x;
}

typedef struct {
    rpl_subject_t *source, *second;
    long n;
    atomic_long sent;
    atomic_int fired;  /* the second signal has sent its first value */
    int replacement;  /* take_until_replacement: the second sends a run and completes */
} race_t;

static void *race_source(void *arg) {
    race_t *r = arg;
    for (long i = 0; i < r->n; i++) {
        /* the switch happens in the middle third, racing with these sends */
        if (i == r->n / 3 * 2) while (!atomic_load(&r->fired)) sched_yield();
        rpl_subject_send_next(r->source, rpl_int(i));
        atomic_store(&r->sent, i + 1);
    }
    return NULL;
}
static void *race_second(void *arg) {
    race_t *r = arg;
    while (atomic_load(&r->sent) < r->n / 3) sched_yield();
    if (!r->replacement) {
        rpl_subject_send_next(r->second, rpl_int(0));
        atomic_store(&r->fired, 1);
        return NULL;
    }
    for (long i = 0; i < r->n / 3; i++) {
        rpl_subject_send_next(r->second, rpl_int(BIG + i));
        atomic_store(&r->fired, 1);
    }
    rpl_subject_send_completed(r->second);
    return NULL;
}

static void switch_threads(void) {
    for (int replacement = 0; replacement < 2; replacement++) {
        race_t race = {rpl_subject_create(), rpl_subject_create(), test_scale(100000, 2000), 0, 0, replacement};
        pair_op op = replacement ? rpl_signal_take_until_replacement : rpl_signal_skip_until;
        rpl_signal_t *sig = op(rpl_subject_as_signal(race.source), rpl_subject_as_signal(race.second));
        order_t o = {.last = -1};
        rpl_disposable_t *d = rec_subscribe_fn(sig, &o.rec, order_next);
        run_together(race_source, &race, race_second, &race);
        rpl_subject_send_completed(race.source);
        CHECK_EQ_INT(o.bad, 0);
        CHECK_EQ_INT(o.rec.overlap, 0);
        CHECK_COMPLETED(o.rec);
        if (replacement) CHECK_EQ_INT(o.last, BIG + race.n / 3 - 1);
        else CHECK_EQ_INT(o.last, race.n - 1);
        CHECK(o.rec.n > 0);
        rpl_release(d);
        rpl_release(sig);
        rpl_release(race.source);
        rpl_release(race.second);
        CHECK_EQ_INT(o.rec.released, 1);
        rec_clear(&o.rec);
    }
}

/* ==== group_by ============================================================== */

/* The key callback: v mod k; for v == fail_at it fails (rpl_callback_fail)
   and returns a string that must be discarded; for v == bad_at it returns a
   value of a type the header does not list. */
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

/* A group_by case: group_by(src, key_mod) over a controllable source, with
   one log for the outer signal and every group, in the order events happen:
   "o:(k)" a new group, "o:C", "o:E5"; "g<k>:v", "g<k>:C", "g<k>:E5". */
#define GB_MAX 16
typedef struct gb gb_t;
typedef struct {
    gb_t *g;
    int64_t key;
} gctx_t;
struct gb {
    char log[4096];
    src_t s;
    keyctx_t kc;
    rpl_signal_t *src, *op;
    rpl_disposable_t *d;
    int subscribe_groups;       /* the outer's on_next subscribes to each group */
    rpl_disposable_t *gd[GB_MAX]; /* those subscriptions (+1) */
    gctx_t gctx[GB_MAX];
    int ngroups, released, greleased;
    rpl_signal_t *kept;         /* the first group, retained */
};

static void gb_append(gb_t *g, const char *fmt, long long k, long long v) {
    char b[64];
    snprintf(b, sizeof b, fmt, k, v);
    size_t n = strlen(g->log);
    snprintf(g->log + n, sizeof g->log - n, "%s%s", n ? " " : "", b);
}

static void g_next(void *ctx, const rpl_value *v) {
    gctx_t *c = ctx;
    gb_append(c->g, "g%lld:%lld", c->key, rpl_value_int(v));
}
static void g_error(void *ctx, const rpl_error_t *e) {
    gctx_t *c = ctx;
    gb_append(c->g, "g%lld:E%lld", c->key, rpl_error_code(e));
}
static void g_completed(void *ctx) {
    gctx_t *c = ctx;
    gb_append(c->g, "g%lld:C", c->key, 0);
}
static void g_release(void *ctx) { ((gctx_t *)ctx)->g->greleased++; }

static void o_next(void *ctx, const rpl_value *v) {
    gb_t *g = ctx;
    CHECK_EQ_INT(rpl_value_type(v), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(v), 2);
    rpl_value key = rpl_value_tuple_at(v, 0), group = rpl_value_tuple_at(v, 1);
    CHECK_EQ_INT(rpl_value_type(&group), RPL_TYPE_SIGNAL);
    gb_append(g, "o:(%lld)", rpl_value_int(&key), 0);
    rpl_signal_t *gs = rpl_value_signal(&group);
    if (!g->kept) g->kept = rpl_retain(gs);
    /* Rule 27: subscribed from here, the group gets the value that made it. */
    if (g->subscribe_groups && g->ngroups < GB_MAX) {
        int i = g->ngroups++;
        g->gctx[i] = (gctx_t){g, rpl_value_int(&key)};
        rpl_observer o = observer_of(g_next, g_error, g_completed, g_release, &g->gctx[i]);
        g->gd[i] = rpl_signal_subscribe(gs, &o);
    }
    rpl_value_release(&key);
    rpl_value_release(&group);
}
static void o_error(void *ctx, const rpl_error_t *e) { gb_append(ctx, "o:E%lld", rpl_error_code(e), 0); }
static void o_completed(void *ctx) { gb_append(ctx, "o:C", 0, 0); }
static void o_release(void *ctx) { ((gb_t *)ctx)->released++; }

/* Subscribes g's observer to op (a group_by signal). */
static rpl_disposable_t *gb_subscribe(gb_t *g, rpl_signal_t *op) {
    rpl_observer o = observer_of(o_next, o_error, o_completed, o_release, g);
    return rpl_signal_subscribe(op, &o);
}

/* Subscribes the outer signal of group_by(src, key_mod with k, fail_at,
   bad_at), src playing `script`. */
static void gb_open(gb_t *g, const char *script, int64_t k, int64_t fail_at, int64_t bad_at, int subscribe_groups) {
    memset(g, 0, sizeof *g);
    g->kc = (keyctx_t){k, fail_at, bad_at, 0, 0, -100};
    g->subscribe_groups = subscribe_groups;
    g->src = src_make(&g->s, NULL);
    g->op = rpl_signal_group_by(g->src, key_mod, &g->kc, key_release);
    CHECK(g->op != NULL);
    g->s.sync = script;
    g->d = gb_subscribe(g, g->op);
}
/* Drops the group subscriptions' handles. */
static void gb_drop_groups(gb_t *g) {
    for (int i = 0; i < g->ngroups; i++) { rpl_release(g->gd[i]); g->gd[i] = NULL; }
    rpl_release(g->kept);
    g->kept = NULL;
}
/* Releases everything; every release ran once. */
static void gb_close(gb_t *g) {
    gb_drop_groups(g);
    rpl_release(g->d);
    rpl_release(g->op);
    src_drop(&g->s);
    rpl_release(g->src);
    CHECK_EQ_INT(g->released, 1);
    CHECK_EQ_INT(g->greleased, g->ngroups);
    CHECK_EQ_INT(g->kc.released, 1);
    CHECK_EQ_INT(g->s.released, 1);
}

static void group_by_values(void) {
    gb_t g;
    gb_open(&g, "1 2 4 5 7 3 C", 3, -1, -1, 1);
    CHECK_STR(rpl_signal_name(g.op), "[+create:] -groupBy:");
    /* Each group gets the value that made it (subscribed from the outer's
       on_next); the outer completes first, then the groups in the order they
       were made (RAC). */
    CHECK_STR(g.log, "o:(1) g1:1 o:(2) g2:2 g1:4 g2:5 g1:7 o:(0) g0:3 o:C g1:C g2:C g0:C");
    CHECK_EQ_INT(g.kc.calls, 6);
    CHECK_EQ_INT(g.released, 1);
    CHECK_EQ_INT(g.greleased, 3);
    CHECK_EQ_INT(g.s.disposed, 1);
    rpl_release(g.d);
    g.d = NULL;
    CHECK_EQ_INT(g.kc.released, 0);  /* the operator signal still holds it */
    gb_close(&g);
}

/* Rule 27: a group subscribed after the source ended gets its terminal event
   at once (completion or error). */
static void group_by_late_subscriber(void) {
    for (int fail = 0; fail < 2; fail++) {
        gb_t g;
        gb_open(&g, fail ? "1 2 E5" : "1 2 C", 2, -1, -1, 0);
        CHECK_STR(g.log, fail ? "o:(1) o:(0) o:E5" : "o:(1) o:(0) o:C");
        CHECK_STR(rpl_signal_name(g.kept), "+groupBy: group");
        rec_t r;
        rpl_disposable_t *late = rec_subscribe(g.kept, &r);
        CHECK_STR(r.log, fail ? "E5" : "C");
        CHECK_EQ_INT(r.released, 1);
        rpl_release(late);
        gb_close(&g);
    }
}

/* Rules 24 and 27: a failing key callback fails the outer signal and every
   group with its error; the source is disposed; the discarded key is
   released (no leak). A key of an unlisted type fails the same way, with a
   "ripple" RPL_ERROR_CALLBACK error. */
static void group_by_key_fails(void) {
    gb_t g;
    gb_open(&g, "1 2 3 4 C", 2, 3, -1, 1);
    CHECK_EQ_INT(g.kc.fail_status, RPL_OK);
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2 o:E9 g1:E9 g0:E9");
    CHECK_EQ_INT(g.kc.calls, 3);
    CHECK_EQ_INT(g.s.disposed, 1);
    gb_close(&g);

    gb_open(&g, "1 2 C", 2, -1, 2, 1);
    char expect[64];
    snprintf(expect, sizeof expect, "o:(1) g1:1 o:E%d g1:E%d", RPL_ERROR_CALLBACK, RPL_ERROR_CALLBACK);
    CHECK_STR(g.log, expect);
    CHECK_EQ_INT(g.s.disposed, 1);
    gb_close(&g);

    /* the error's domain */
    rec_t r;
    rpl_signal_t *two = rpl_signal_return(rpl_int(2));
    keyctx_t kc = {2, -1, 2, 0, 0, 0};
    rpl_signal_t *op = rpl_signal_group_by(two, key_mod, &kc, NULL);
    rpl_release(rec_subscribe(op, &r));
    CHECK_FAILED(r, RPL_ERROR_CALLBACK);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    rpl_release(op);
    rpl_release(two);
    rec_clear(&r);
}

/* Rule 27 (RAC): disposing the outer subscription disposes the source even
   while a group is subscribed. The groups get nothing more; each group
   subscription ends without an event when its handle goes (rule 6a), and a
   later subscriber to a group ends at once. */
static void group_by_dispose(void) {
    gb_t g;
    gb_open(&g, "1 2", 2, -1, -1, 1);
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2");
    rpl_disposable_dispose(g.d);
    CHECK_EQ_INT(g.s.disposed, 1);
    CHECK_EQ_INT(g.released, 1);
    CHECK_EQ_INT(g.greleased, 0);  /* the groups' handles still hold them */
    src_send(&g.s, 0, "3 C");
    rec_t r;
    rpl_disposable_t *late = rec_subscribe(g.kept, &r);
    CHECK_STR(r.log, "");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(late);
    gb_drop_groups(&g);
    CHECK_EQ_INT(g.greleased, 2);
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2");
    gb_close(&g);
}

/* Rule 6a: every handle released, the subscriptions (outer and groups) live
   while the source can send, and end when it cannot. */
static void group_by_release_without_dispose(void) {
    gb_t g;
    gb_open(&g, "1 2", 2, -1, -1, 1);
    rpl_release(g.d);
    g.d = NULL;
    rpl_release(g.op);
    g.op = NULL;
    gb_drop_groups(&g);
    src_send(&g.s, 0, "3");
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2 g1:3");
    CHECK_EQ_INT(g.released, 0);
    src_drop(&g.s);
    CHECK_EQ_INT(g.released, 1);
    CHECK_EQ_INT(g.greleased, 2);
    CHECK_EQ_INT(g.kc.released, 1);
    gb_close(&g);
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
    gb_t g, g2;
    gb_open(&g, "1 2 3 C", 2, -1, -1, 1);
    memset(&g2, 0, sizeof g2);
    g2.subscribe_groups = 1;
    rpl_disposable_t *d2 = gb_subscribe(&g2, g.op);
    CHECK_STR(g.log, "o:(1) g1:1 o:(0) g0:2 g1:3 o:C g1:C g0:C");
    CHECK_STR(g2.log, g.log);
    CHECK_EQ_INT(g2.released, 1);
    gb_drop_groups(&g2);
    CHECK_EQ_INT(g2.greleased, 2);
    rpl_release(d2);
    gb_close(&g);
}

int main(void) {
    RUN(with_latest_from);
    RUN(with_latest_from_tuple);
    RUN(sample);
    RUN(sample_boxed);
    RUN(take_until_replacement);
    RUN(take_until_replacement_order);
    RUN(skip_until);
    RUN(skip_until_early_completion);
    RUN(pair_dispose);
    RUN(pair_release_without_dispose);
    RUN(pair_bad_input);
    RUN(names);
    RUN(pair_threads);
    RUN(switch_threads);
    RUN(group_by_values);
    RUN(group_by_late_subscriber);
    RUN(group_by_key_fails);
    RUN(group_by_dispose);
    RUN(group_by_release_without_dispose);
    RUN(group_by_key_equality);
    RUN(group_by_bad_input);
    RUN(group_by_twice);
    CHECK_DONE();
}
