/* Cold signals, subscribers and observers on one thread: rules
   1, 2, 3, 5, 6, 6a, 19 and 20, the primitive constructors and bad input. */
#define REC_LOG_RELEASE 1 /* the release is logged as "R": it must come last */
#include "recorder.h"
#include <ripple.h>

#define CHECK_FAILED_WITH(status) do { \
    CHECK_EQ_INT(rpl_last_error(), (status)); \
    CHECK(rpl_last_error_message()[0] != '\0'); \
} while (0)

/* The recorder (recorder.h) logs "1 C R"-style; 'd' is a resource's dispose,
   so the log shows where it comes relative to the terminal event and release. */
static void rec_disposed(void *ctx) { rec_append(ctx, "d"); }

/* ---- Signal bodies ------------------------------------------------------- */
typedef struct {
    rec_t *r;              /* where the resource's dispose is logged */
    int subscriptions;
    int releases;        /* the signal's own release(ctx) */
    rpl_subscriber_t *kept;
} body_ctx;

static void body_release(void *ctx) { ((body_ctx *)ctx)->releases++; }

/* Rule 1: next 1; C; E; next 2 -> [1, C]. */
static rpl_disposable_t *grammar_body(void *ctx, rpl_subscriber_t *s) {
    body_ctx *b = ctx;
    b->subscriptions++;
    CHECK_EQ_INT(rpl_subscriber_send_next(s, rpl_int(1)), RPL_OK);
    CHECK_EQ_INT(rpl_subscriber_send_completed(s), RPL_OK);
    CHECK(rpl_subscriber_is_disposed(s));
    CHECK_EQ_INT(rpl_subscriber_send_error(s, NULL), RPL_OK);          /* ignored */
    CHECK_EQ_INT(rpl_subscriber_send_next(s, rpl_string("x")), RPL_OK); /* ignored, consumed */
    CHECK_EQ_INT(rpl_subscriber_send_completed(s), RPL_OK);
    /* Rule 3 (ReactiveObjC does the same): returned after a synchronous terminal event, the
       disposable is disposed at once. */
    return rpl_disposable_create(rec_disposed, b->r);
}

static void test_grammar_and_sync(void) {
    rec_t r = {0};
    body_ctx b = { .r = &r };
    rpl_signal_t *sig = rpl_signal_create(grammar_body, &b, body_release);
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    /* Rule 2: synchronous. Rule 5 with a synchronous terminal: completed, then
       (when did_subscribe returns) the resource, and release last. */
    CHECK(d != NULL);
    CHECK_LOG(&r, "1 C d R");
    CHECK_EQ_INT(r.ints[0], 1);
    CHECK_EQ_INT(r.released, 1);
    CHECK(rpl_disposable_is_disposed(d));
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);  /* after the end: no-op */
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);

    /* Cold: the body runs once per subscription. */
    rec_t r2 = {0};
    rpl_observer o2 = rec_observer(&r2);
    b.r = &r2;
    rpl_disposable_t *d2 = rpl_signal_subscribe(sig, &o2);
    CHECK_EQ_INT(b.subscriptions, 2);
    CHECK_LOG(&r2, "1 C d R");
    rpl_release(d2);
    CHECK_EQ_INT(b.releases, 0);
    rpl_release(sig);
    CHECK_EQ_INT(b.releases, 1);  /* the signal's release(ctx), once */
}

/* Rule 5 with an asynchronous terminal: terminal callback, then resources,
   then release. */
static rpl_disposable_t *keep_body(void *ctx, rpl_subscriber_t *s) {
    body_ctx *b = ctx;
    b->subscriptions++;
    b->kept = rpl_retain(s);
    return rpl_disposable_create(rec_disposed, b->r);
}

static void test_terminal_order(void) {
    for (int kind = 0; kind < 3; kind++) {
        rec_t r = {0};
        body_ctx b = { .r = &r };
        rpl_signal_t *sig = rpl_signal_create(keep_body, &b, NULL);
        rpl_observer o = rec_observer(&r);
        rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
        CHECK(!rpl_disposable_is_disposed(d));
        CHECK(!rpl_subscriber_is_disposed(b.kept));
        rpl_subscriber_send_next(b.kept, rpl_int(10));
        rpl_subscriber_send_next(b.kept, rpl_int(11));
        if (kind == 0) {
            rpl_error_t *e = rpl_error_create("t", 77, "x");
            rpl_subscriber_send_error(b.kept, e);
            rpl_release(e);
            CHECK_LOG(&r, "10 11 E77 d R");
            CHECK_EQ_INT(r.error_code, 77);
        } else if (kind == 1) {
            rpl_subscriber_send_completed(b.kept);
            CHECK_LOG(&r, "10 11 C d R");
        } else {
            rpl_disposable_dispose(d);  /* no terminal event */
            CHECK_LOG(&r, "10 11 d R");
        }
        CHECK(rpl_subscriber_is_disposed(b.kept));
        CHECK(rpl_disposable_is_disposed(d));
        /* Rule 1: nothing after the end. */
        rpl_subscriber_send_next(b.kept, rpl_int(12));
        rpl_subscriber_send_completed(b.kept);
        CHECK_EQ_INT(r.n, 2);
        CHECK_EQ_INT(r.released, 1);
        rpl_release(b.kept);
        rpl_release(d);
        rpl_release(sig);
        CHECK_EQ_INT(r.released, 1);
    }
}

/* send_error(NULL) delivers a generic error in the ripple domain (rule 22). */
static void generic_error(void *ctx, const rpl_error_t *e) {
    int *ok = ctx;
    *ok = strcmp(rpl_error_domain(e), RPL_ERROR_DOMAIN) == 0 && rpl_error_code(e) == RPL_ERROR_GENERIC;
}

static void test_generic_error(void) {
    body_ctx b = {0};
    rec_t r = {0};
    b.r = &r;
    rpl_signal_t *sig = rpl_signal_create(keep_body, &b, NULL);
    int ok = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_error = generic_error;
    o.ctx = &ok;
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK_EQ_INT(rpl_subscriber_send_error(b.kept, NULL), RPL_OK);
    CHECK(ok);
    rpl_release(b.kept);
    rpl_release(d);
    rpl_release(sig);
}

/* Rule 6: dispose from inside a callback; nothing more arrives. */
typedef struct {
    rec_t r;
    rpl_disposable_t *self;
    int dispose_at;
} self_dispose_ctx;

static void self_dispose_next(void *ctx, const rpl_value *v) {
    self_dispose_ctx *c = ctx;
    rec_next(&c->r, v);
    if (rpl_value_int(v) == c->dispose_at) {
        CHECK_EQ_INT(rpl_disposable_dispose(c->self), RPL_OK);
        CHECK_EQ_INT(c->r.released, 0);  /* release waits until this callback returns */
        CHECK(rpl_disposable_is_disposed(c->self));
    }
}

static void test_dispose_in_callback(void) {
    /* A subscription that disposes itself while the body is still sending. The
       disposable returned by subscribe only exists afterwards, so here the
       callback gets the subscriber from a kept copy: dispose via the
       subscriber's own disposable handle (the same object). */
    self_dispose_ctx c = { .dispose_at = 3 };
    body_ctx b = { .r = &c.r };
    rpl_signal_t *sig = rpl_signal_create(keep_body, &b, NULL);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = self_dispose_next;
    o.on_completed = rec_completed;
    o.release = rec_release;
    o.ctx = &c;
    c.self = rpl_signal_subscribe(sig, &o);
    for (int i = 1; i <= 5; i++) rpl_subscriber_send_next(b.kept, rpl_int(i));
    rpl_subscriber_send_completed(b.kept);
    CHECK_EQ_INT(c.r.n, 3);
    CHECK_LOG(&c.r, "1 2 3 d R");
    CHECK_EQ_INT(c.r.released, 1);
    rpl_release(c.self);
    rpl_release(b.kept);
    rpl_release(sig);
}

/* Dispose from inside did_subscribe (the subscriber is a disposable too). */
static rpl_disposable_t *dispose_self_body(void *ctx, rpl_subscriber_t *s) {
    body_ctx *b = ctx;
    rpl_subscriber_send_next(s, rpl_int(1));
    CHECK_EQ_INT(rpl_disposable_dispose((rpl_disposable_t *)s), RPL_OK);
    CHECK(rpl_subscriber_is_disposed(s));
    rpl_subscriber_send_next(s, rpl_int(2));
    return rpl_disposable_create(rec_disposed, b->r);  /* disposed at once */
}

static void test_dispose_in_did_subscribe(void) {
    rec_t r = {0};
    body_ctx b = { .r = &r };
    rpl_signal_t *sig = rpl_signal_create(dispose_self_body, &b, NULL);
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK_LOG(&r, "1 d R");
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rpl_release(sig);
}

/* Rule 3: a resource returned after a synchronous terminal is disposed at once;
   one returned by a still-running subscription is kept until the end. */
static void test_rule3_resource(void) {
    rec_t r = {0};
    body_ctx b = { .r = &r };
    rpl_signal_t *sig = rpl_signal_create(keep_body, &b, NULL);
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK_LOG(&r, "");  /* resource kept */
    rpl_disposable_dispose(d);
    CHECK_LOG(&r, "d R");
    rpl_release(d);
    rpl_release(b.kept);
    rpl_release(sig);
}

/* Rule 6a: release the handle without disposing; the producer then releases
   the subscriber; release(ctx) runs once with no terminal event. */
static void test_rule6a_release_without_dispose(void) {
    rec_t r = {0};
    body_ctx b = { .r = &r };
    rpl_signal_t *sig = rpl_signal_create(keep_body, &b, NULL);
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    rpl_release(d);  /* the subscription lives on (RAC) */
    CHECK_EQ_INT(r.released, 0);
    rpl_subscriber_send_next(b.kept, rpl_int(5));
    CHECK_EQ_INT(r.n, 1);
    CHECK(!rpl_subscriber_is_disposed(b.kept));
    rpl_release(b.kept);  /* nothing can send to it any more */
    CHECK_EQ_INT(r.released, 1);
    CHECK_LOG(&r, "5 d R");  /* resources disposed, release last, no terminal */
    rpl_release(sig);
    CHECK_EQ_INT(r.released, 1);

    /* The other order: the producer lets go first, then the user's handle. */
    rec_t r2 = {0};
    b.r = &r2;
    sig = rpl_signal_create(keep_body, &b, NULL);
    o = rec_observer(&r2);
    d = rpl_signal_subscribe(sig, &o);
    rpl_release(b.kept);
    CHECK_EQ_INT(r2.released, 0);  /* the handle still holds it */
    rpl_release(sig);
    rpl_release(d);
    CHECK_EQ_INT(r2.released, 1);
    CHECK_LOG(&r2, "d R");

    /* A subscriber nobody keeps (body returns NULL, keeps nothing). */
    rec_t r3 = {0};
    rpl_signal_t *never = rpl_signal_never();
    o = rec_observer(&r3);
    d = rpl_signal_subscribe(never, &o);
    CHECK_EQ_INT(r3.released, 0);
    rpl_release(d);
    CHECK_EQ_INT(r3.released, 1);
    rpl_release(never);
}

/* Rule 20: a did_subscribe returning NULL is fine. */
static rpl_disposable_t *null_body(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    rpl_subscriber_send_next(s, rpl_int(3));
    return NULL;
}

static void test_null_resource(void) {
    rec_t r = {0};
    rpl_signal_t *sig = rpl_signal_create(null_body, NULL, NULL);
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK(d != NULL);
    CHECK_LOG(&r, "3");
    rpl_disposable_dispose(d);
    CHECK_LOG(&r, "3 R");
    rpl_release(d);
    rpl_release(sig);
}

/* Observers with NULL callbacks ignore those events; subscribe_next. */
static void sum_next(void *ctx, const rpl_value *v) { *(int64_t *)ctx += rpl_value_int(v); }

static void test_partial_observers(void) {
    rpl_signal_t *sig = rpl_signal_create(grammar_body, &(body_ctx){ .r = &(rec_t){0} }, NULL);
    rpl_observer o = RPL_OBSERVER_INIT;  /* nothing at all */
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK(d != NULL);
    rpl_release(d);
    int64_t sum = 0;
    d = rpl_signal_subscribe_next(sig, sum_next, &sum);
    CHECK(d != NULL);
    CHECK_EQ_INT(sum, 1);
    rpl_release(d);
    rpl_release(sig);
}

/* Primitive constructors. */
static void test_primitives(void) {
    rec_t r = {0};
    rpl_observer o = rec_observer(&r);

    rpl_signal_t *ret = rpl_signal_return(rpl_int(9));
    for (int i = 0; i < 2; i++) {  /* cold: each subscriber gets it */
        memset(&r, 0, sizeof r);
        rpl_disposable_t *d = rpl_signal_subscribe(ret, &o);
        CHECK_LOG(&r, "9 C R");
        CHECK_EQ_INT(r.ints[0], 9);
        rpl_release(d);
    }
    rpl_release(ret);

    /* return of a boxed value: the signal owns it and frees it with itself. */
    rpl_release(rpl_signal_return(rpl_string("gone")));

    memset(&r, 0, sizeof r);
    rpl_signal_t *empty = rpl_signal_empty();
    rpl_disposable_t *d = rpl_signal_subscribe(empty, &o);
    CHECK_LOG(&r, "C R");
    rpl_release(d);
    rpl_release(empty);

    memset(&r, 0, sizeof r);
    rpl_error_t *e = rpl_error_create("x", 3, "y");
    rpl_signal_t *err = rpl_signal_error(e);
    rpl_release(e);  /* the signal retains it */
    d = rpl_signal_subscribe(err, &o);
    CHECK_LOG(&r, "E3 R");
    CHECK_EQ_INT(r.error_code, 3);
    rpl_release(d);
    rpl_release(err);

    memset(&r, 0, sizeof r);
    err = rpl_signal_error(NULL);
    d = rpl_signal_subscribe(err, &o);
    CHECK_LOG(&r, "E1 R");  /* RPL_ERROR_GENERIC */
    CHECK_EQ_INT(r.error_code, RPL_ERROR_GENERIC);
    rpl_release(d);
    rpl_release(err);

    memset(&r, 0, sizeof r);
    rpl_signal_t *never = rpl_signal_never();
    d = rpl_signal_subscribe(never, &o);
    CHECK_LOG(&r, "");
    CHECK(!rpl_disposable_is_disposed(d));
    rpl_disposable_dispose(d);
    CHECK_LOG(&r, "R");
    rpl_release(d);
    rpl_release(never);
}

/* defer: the factory runs once per subscription. */
typedef struct { int calls, releases; int fail; } defer_ctx;
static rpl_signal_t *factory(void *ctx) {
    defer_ctx *c = ctx;
    c->calls++;
    if (c->fail) return NULL;
    return rpl_signal_return(rpl_int(c->calls));
}
static void defer_release(void *ctx) { ((defer_ctx *)ctx)->releases++; }

static void test_defer(void) {
    defer_ctx c = {0};
    rpl_signal_t *sig = rpl_signal_defer(factory, &c, defer_release);
    CHECK_EQ_INT(c.calls, 0);  /* lazy */
    rec_t r = {0};
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK_EQ_INT(c.calls, 1);
    CHECK_LOG(&r, "1 C R");
    CHECK_EQ_INT(r.ints[0], 1);
    rpl_release(d);
    memset(&r, 0, sizeof r);
    d = rpl_signal_subscribe(sig, &o);
    CHECK_EQ_INT(r.ints[0], 2);
    rpl_release(d);

    /* A NULL result fails that subscription with a callback error. */
    c.fail = 1;
    memset(&r, 0, sizeof r);
    d = rpl_signal_subscribe(sig, &o);
    CHECK_LOG(&r, "E3 R");  /* RPL_ERROR_CALLBACK */
    CHECK_EQ_INT(r.error_code, RPL_ERROR_CALLBACK);
    rpl_release(d);
    CHECK_EQ_INT(c.releases, 0);
    rpl_release(sig);
    CHECK_EQ_INT(c.releases, 1);
}

/* A factory returning something that is not a signal. */
static rpl_signal_t *bad_factory(void *ctx) {
    (void)ctx;
    return (rpl_signal_t *)rpl_error_create(NULL, 1, NULL);
}

static void test_defer_bad_result(void) {
    rpl_signal_t *sig = rpl_signal_defer(bad_factory, NULL, NULL);
    rec_t r = {0};
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK_LOG(&r, "E3 R");  /* RPL_ERROR_CALLBACK */
    CHECK_EQ_INT(r.error_code, RPL_ERROR_CALLBACK);
    rpl_release(d);
    rpl_release(sig);
}

/* Bad input everywhere, with rule 19: by-value values are consumed and every
   release(ctx) still runs. */
static int released;
static void count_release(void *ctx) { (void)ctx; released++; }
static int dtor_runs;
static void count_dtor(void *p) { (void)p; dtor_runs++; }

static void test_bad_input(void) {
    rpl_error_t *err = rpl_error_create(NULL, 1, NULL);
    rpl_disposable_t *disp = rpl_disposable_create(NULL, NULL);
    rpl_signal_t *never = rpl_signal_never();

    released = 0;
    CHECK(rpl_signal_create(NULL, NULL, count_release) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(released, 1);
    CHECK(rpl_signal_create(NULL, NULL, NULL) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);

    CHECK(rpl_signal_defer(NULL, NULL, count_release) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(released, 2);

    /* subscribe: NULL signal, wrong kind, NULL observer, bad version. */
    rpl_observer o = RPL_OBSERVER_INIT;
    o.release = count_release;
    CHECK(rpl_signal_subscribe(NULL, &o) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(released, 3);
    CHECK(rpl_signal_subscribe((rpl_signal_t *)err, &o) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(released, 4);
    CHECK(rpl_signal_subscribe((rpl_signal_t *)disp, &o) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(released, 5);
    CHECK(rpl_signal_subscribe(never, NULL) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    o.version = 0;
    CHECK(rpl_signal_subscribe(never, &o) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_INVALID);
    CHECK_EQ_INT(released, 6);
    o.version = RPL_OBSERVER_VERSION + 1;
    CHECK(rpl_signal_subscribe(never, &o) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_INVALID);
    CHECK_EQ_INT(released, 7);
    o.version = 0;
    CHECK(rpl_signal_subscribe(NULL, &o) == NULL);  /* two problems: release still once */
    CHECK_EQ_INT(released, 8);

    int64_t sum = 0;
    CHECK(rpl_signal_subscribe_next(never, NULL, &sum) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(rpl_signal_subscribe_next(NULL, sum_next, &sum) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(rpl_signal_subscribe_next((rpl_signal_t *)err, sum_next, &sum) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);

    /* Subscriber functions: NULL and wrong kinds; send_next consumes v. */
    dtor_runs = 0;
    CHECK_EQ_INT(rpl_subscriber_send_next(NULL, rpl_pointer(&dtor_runs, count_dtor)), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(dtor_runs, 1);
    CHECK_EQ_INT(rpl_subscriber_send_next((rpl_subscriber_t *)disp, rpl_pointer(&dtor_runs, count_dtor)), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(strstr(rpl_last_error_message(), "rpl_subscriber_send_next") != NULL);
    CHECK_EQ_INT(dtor_runs, 2);
    CHECK_EQ_INT(rpl_subscriber_send_next((rpl_subscriber_t *)err, rpl_string("leak?")), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_subscriber_send_error(NULL, err), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_subscriber_send_error((rpl_subscriber_t *)err, err), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_subscriber_send_completed(NULL), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_subscriber_send_completed((rpl_subscriber_t *)never), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(rpl_subscriber_is_disposed(NULL));
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(rpl_subscriber_is_disposed((rpl_subscriber_t *)disp));  /* a plain disposable is no subscriber */
    CHECK_FAILED_WITH(RPL_ERR_KIND);

    /* send_error with a non-error handle on a real subscriber: refused, and
       the subscriber stays usable. */
    body_ctx b = { .r = &(rec_t){0} };
    rpl_signal_t *sig = rpl_signal_create(keep_body, &b, NULL);
    rec_t r = {0};
    rpl_observer ro = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &ro);
    CHECK_EQ_INT(rpl_subscriber_send_error(b.kept, (rpl_error_t *)disp), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(!rpl_subscriber_is_disposed(b.kept));
    rpl_subscriber_send_next(b.kept, rpl_int(4));
    CHECK_EQ_INT(r.n, 1);
    /* A subscription disposable is a disposable: it can be passed as one. */
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rpl_release(b.kept);
    rpl_release(sig);

    /* An error signal with a non-error handle. */
    CHECK(rpl_signal_error((rpl_error_t *)disp) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);


    rpl_release(never);
    rpl_release(disp);
    rpl_release(err);
}

static rpl_disposable_t *returns_error_body(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    (void)s;
    return (rpl_disposable_t *)rpl_error_create(NULL, 1, NULL);  /* wrong kind: dropped */
}

static void test_body_returns_wrong_kind(void) {
    rpl_signal_t *sig = rpl_signal_create(returns_error_body, NULL, NULL);
    rec_t r = {0};
    rpl_observer o = rec_observer(&r);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK(d != NULL);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rpl_release(sig);
}

/* Nested subscription from did_subscribe (RAC 1.2): the inner subscription is
   a resource of the outer one, so disposing the outer disposes the inner. */
typedef struct { rpl_signal_t *inner; rec_t *inner_rec; } nest_ctx;
static rpl_disposable_t *nesting_body(void *ctx, rpl_subscriber_t *s) {
    nest_ctx *n = ctx;
    (void)s;
    rpl_observer o = rec_observer(n->inner_rec);
    return rpl_signal_subscribe(n->inner, &o);
}

static void test_nested_subscription(void) {
    rec_t inner = {0}, outer = {0};
    nest_ctx n = { rpl_signal_never(), &inner };
    rpl_signal_t *sig = rpl_signal_create(nesting_body, &n, NULL);
    rpl_observer o = rec_observer(&outer);
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK_EQ_INT(inner.released, 0);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(inner.released, 1);
    CHECK_EQ_INT(outer.released, 1);
    rpl_release(d);
    rpl_release(sig);
    rpl_release(n.inner);
}

/* Re-entrant send on the same thread is delivered in order (rule 4, RAC's
   recursive take: here without take, stopping at 3 by hand), right after the
   callback returns: queued, not nested, so depth stays 1 however deep the
   re-entrancy goes. */
typedef struct { rpl_subscriber_t *s; int64_t seen[16]; int n; int depth, max_depth; } reent_ctx;
static void reent_next(void *ctx, const rpl_value *v) {
    reent_ctx *c = ctx;
    c->depth++;
    if (c->depth > c->max_depth) c->max_depth = c->depth;
    int64_t x = rpl_value_int(v);
    c->seen[c->n++] = x;
    if (x < 3) rpl_subscriber_send_next(c->s, rpl_int(x + 1));
    else rpl_subscriber_send_completed(c->s);
    c->depth--;
}
static void reent_completed(void *ctx) { reent_ctx *c = ctx; c->seen[c->n++] = -1; }
static rpl_disposable_t *reent_body(void *ctx, rpl_subscriber_t *s) {
    reent_ctx *c = ctx;
    c->s = s;
    rpl_subscriber_send_next(s, rpl_int(0));
    rpl_subscriber_send_next(s, rpl_int(100));  /* after completed: dropped */
    return NULL;
}

static void test_reentrant_send(void) {
    reent_ctx c = {0};
    rpl_signal_t *sig = rpl_signal_create(reent_body, &c, NULL);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = reent_next;
    o.on_completed = reent_completed;
    o.ctx = &c;
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    CHECK_EQ_INT(c.n, 5);
    CHECK(c.seen[0] == 0 && c.seen[1] == 1 && c.seen[2] == 2 && c.seen[3] == 3 && c.seen[4] == -1);
    CHECK_EQ_INT(c.max_depth, 1);  /* queued, not nested: the stack never grows */
    rpl_release(d);
    rpl_release(sig);
}

/* Boxed values through a subscriber: the callback borrows, send consumes. */
static int box_dtor;
static void box_dtor_fn(void *p) { (void)p; box_dtor++; }
static rpl_value kept_value;
static void keep_next(void *ctx, const rpl_value *v) {
    (void)ctx;
    rpl_value_release(&kept_value);
    kept_value = rpl_value_copy(v);
}
static rpl_disposable_t *box_body(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    rpl_subscriber_send_next(s, rpl_pointer(&box_dtor, box_dtor_fn));
    rpl_subscriber_send_next(s, rpl_pointer(&box_dtor, box_dtor_fn));  /* delivered, then freed */
    rpl_subscriber_send_completed(s);
    rpl_subscriber_send_next(s, rpl_pointer(&box_dtor, box_dtor_fn));  /* dropped, freed */
    return NULL;
}

static void test_boxed_ownership(void) {
    box_dtor = 0;
    rpl_signal_t *sig = rpl_signal_create(box_body, NULL, NULL);
    rpl_disposable_t *d = rpl_signal_subscribe_next(sig, keep_next, NULL);
    CHECK_EQ_INT(box_dtor, 2);  /* the first and the dropped third; the callback keeps the second */
    rpl_value_release(&kept_value);
    CHECK_EQ_INT(box_dtor, 3);
    rpl_release(d);
    rpl_release(sig);
}

int main(void) {
    RUN(test_grammar_and_sync);
    RUN(test_terminal_order);
    RUN(test_generic_error);
    RUN(test_dispose_in_callback);
    RUN(test_dispose_in_did_subscribe);
    RUN(test_rule3_resource);
    RUN(test_rule6a_release_without_dispose);
    RUN(test_null_resource);
    RUN(test_partial_observers);
    RUN(test_primitives);
    RUN(test_defer);
    RUN(test_defer_bad_result);
    RUN(test_bad_input);
    RUN(test_body_returns_wrong_kind);
    RUN(test_nested_subscription);
    RUN(test_reentrant_send);
    RUN(test_boxed_ownership);
    CHECK_DONE();
}
