/* The 0.2 operators of "Creating and sharing, and time": from_array, range,
   timer, start_lazily, start_eagerly, share, delay_subscription,
   throttle_first, throttle_if, buffer_with_time. Time runs on the test
   scheduler: nothing sleeps. */
#define _POSIX_C_SOURCE 200809L
#include "ops2_support.h"
#include <time.h>
#include <unistd.h>

#define MS 1000000ull

/* ---- Shared bits ------------------------------------------------------------- */
static rpl_value unlisted(void) {
    rpl_value v;
    memset(&v, 0, sizeof v);
    v.type = 77;
    return v;
}

/* Checks the default name of sig (a +1 handle it then releases). */
static void check_name(rpl_signal_t *sig, const char *expected) {
    CHECK(sig != NULL);
    if (!sig) return;
    CHECK_STR(rpl_signal_name(sig), expected);
    rpl_release(sig);
}

/* A NULL result with this last error. */
#define CHECK_REFUSED(expr, status) do { CHECK((expr) == NULL); CHECK_EQ_INT(rpl_last_error(), (status)); \
                                         CHECK(strlen(rpl_last_error_message()) > 0); } while (0)

/* A handle of the wrong kind for every argument. */
static rpl_disposable_t *not_a_signal(void) { return rpl_disposable_create(NULL, NULL); }

/* A time operator's fixture: a test scheduler and a source the test sends
   into (ops2_support.h). */
typedef struct {
    rpl_scheduler_t *ts;
    src_t src;
    rpl_signal_t *sig;
} fx_t;
static void fx_open(fx_t *f) {
    f->ts = rpl_test_scheduler_create();
    f->sig = src_make(&f->src, NULL);
}
static void fx_close(fx_t *f) {
    src_drop(&f->src);
    rpl_release(f->sig);
    rpl_release(f->ts);
}
/* Subscribes r (initialized here) with f's clock. */
static rpl_disposable_t *fx_subscribe(fx_t *f, rpl_signal_t *o, rec_t *r) {
    rec_init(r);
    r->clock = f->ts;
    return rec_attach(o, r);
}
/* Another subscription to o, fed script by the source at once: it logs
   expected (each subscription has its own state). */
static void fx_again(fx_t *f, rpl_signal_t *o, const char *script, const char *expected) {
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(o, &r);
    src_send(&f->src, f->src.nsubs - 1, script);
    CHECK_LOG(&r, expected);
    rpl_release(d);
}

/* Bad (sig, s) pairs of a time operator; `immediate_ok` for one that accepts
   the immediate scheduler. */
typedef rpl_signal_t *(*timed_op)(rpl_signal_t *sig, uint64_t ns, rpl_scheduler_t *s);
static void check_timed_bad_input(timed_op op, int immediate_ok) {
    rpl_signal_t *never = rpl_signal_never();
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_disposable_t *wrong = not_a_signal();
    CHECK_REFUSED(op(NULL, MS, ts), RPL_ERR_NULL);
    CHECK_REFUSED(op(never, MS, NULL), RPL_ERR_NULL);
    CHECK_REFUSED(op((rpl_signal_t *)wrong, MS, ts), RPL_ERR_KIND);
    CHECK_REFUSED(op(never, MS, (rpl_scheduler_t *)wrong), RPL_ERR_KIND);
    CHECK(!rpl_disposable_is_disposed(wrong));  /* still usable */
    rpl_signal_t *imm = op(never, MS, rpl_scheduler_immediate());
    if (immediate_ok) CHECK(imm != NULL);
    else CHECK_REFUSED(imm, RPL_ERR_INVALID);
    rpl_release(imm);
    rpl_release(wrong);
    rpl_release(ts);
    rpl_release(never);
}

/* A fresh fixture, op(f's source, 10 ms) subscribed by r at t=0; *o is
   the operator's signal (+1). */
static rpl_disposable_t *fx_begin(fx_t *f, timed_op op, rpl_signal_t **o, rec_t *r) {
    fx_open(f);
    *o = op(f->sig, 10 * MS, f->ts);
    return fx_subscribe(f, *o, r);
}
/* fx_begin, then the clock past 10 ms (delay_subscription subscribes then). */
static rpl_disposable_t *fx_start(fx_t *f, timed_op op, rpl_signal_t **o, rec_t *r) {
    rpl_disposable_t *d = fx_begin(f, op, o, r);
    rpl_test_scheduler_advance_by(f->ts, 10 * MS);
    return d;
}

/* op(src) on a test scheduler: a source error passes at once, the
   subscription and the source's subscription end. */
static void check_timed_error(timed_op op) {
    fx_t f;
    rpl_signal_t *o;
    rec_t r;
    rpl_disposable_t *d = fx_start(&f, op, &o, &r);
    src_send(&f.src, 0, "1 E7");
    rpl_test_scheduler_advance_by(f.ts, 100 * MS);
    CHECK(strcmp(r.log, "E7") == 0 || strcmp(r.log, "1 E7") == 0);
    CHECK_FAILED(r, 7);
    CHECK_EQ_INT(f.src.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rpl_release(o);
    fx_close(&f);
}

/* op(src): disposing the subscription disposes the source's subscription and
   cancels what is pending (no event later). */
static void check_timed_dispose(timed_op op) {
    fx_t f;
    rpl_signal_t *o;
    rec_t r;
    rpl_disposable_t *d = fx_start(&f, op, &o, &r);
    CHECK_EQ_INT(f.src.nsubs, 1);
    rpl_subscriber_send_next(f.src.subs[0], rpl_string("pending"));  /* a box: a leak would show */
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(f.src.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    int before = r.n;
    rpl_test_scheduler_advance_by(f.ts, 100 * MS);
    CHECK_EQ_INT(r.n, before);
    CHECK_OPEN(r);
    rpl_release(d);
    rpl_release(o);
    fx_close(&f);
}

/* ---- from_array -------------------------------------------------------------- */
static void test_from_array_values(void) {
    rpl_value vs[3] = { rpl_int(1), rpl_string("two"), rpl_nil() };
    rpl_signal_t *sig = rpl_signal_from_array(vs, 3);
    for (int round = 0; round < 2; round++) {  /* each subscriber gets every value */
        rec_t r;
        rpl_disposable_t *d = rec_subscribe(sig, &r);
        CHECK_LOG(&r, "1 two nil C");
        CHECK_EQ_INT(r.released, 1);
        rpl_release(d);
    }
    rpl_signal_t *first = rpl_signal_take(sig, 1);  /* stops between values */
    rec_t r;
    CHECK_STR(rec_run(first, &r), "1 C");
    rpl_release(first);
    check_name(rpl_retain(sig), "+fromArray: 3");
    rpl_release(sig);
    rpl_signal_t *none = rpl_signal_from_array(NULL, 0);
    CHECK_STR(rec_run(none, &r), "C");
    check_name(none, "+fromArray: 0");
}

static void test_from_array_bad_input(void) {
    CHECK_REFUSED(rpl_signal_from_array(NULL, 2), RPL_ERR_NULL);
    /* An unlisted value refuses the call; the listed ones are still consumed
       (the string box would otherwise show as a leak). */
    rpl_value vs[3] = { rpl_string("consumed"), unlisted(), rpl_int(3) };
    CHECK_REFUSED(rpl_signal_from_array(vs, 3), RPL_ERR_INVALID);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_from_array") != NULL);
    rpl_value one = rpl_int(1);
    CHECK_REFUSED(rpl_signal_from_array(&one, SIZE_MAX), RPL_ERR_INVALID);
}

/* ---- range ------------------------------------------------------------------- */
static void test_range(void) {
    rec_t r;
    rpl_signal_t *sig = rpl_signal_range(5, 3);
    CHECK_STR(rec_run(sig, &r), "5 6 7 C");
    CHECK_STR(rec_run(sig, &r), "5 6 7 C");  /* cold */
    check_name(sig, "+range: 5 count: 3");
    sig = rpl_signal_range(-2, 3);
    CHECK_STR(rec_run(sig, &r), "-2 -1 0 C");
    rpl_release(sig);
    sig = rpl_signal_range(100, 0);
    CHECK_STR(rec_run(sig, &r), "C");
    rpl_release(sig);
    sig = rpl_signal_range(INT64_MAX, 1);  /* the last int may be INT64_MAX */
    CHECK_STR(rec_run(sig, &r), "9223372036854775807 C");
    rpl_release(sig);
    sig = rpl_signal_range(INT64_MAX - 1, 2);
    CHECK_STR(rec_run(sig, &r), "9223372036854775806 9223372036854775807 C");
    rpl_release(sig);
    /* An endless-looking range stops once the subscription has ended. */
    sig = rpl_signal_range(INT64_MIN, SIZE_MAX);
    CHECK(sig != NULL);
    rpl_signal_t *two = rpl_signal_take(sig, 2);
    CHECK_STR(rec_run(two, &r), "-9223372036854775808 -9223372036854775807 C");
    rpl_release(two);
    rpl_release(sig);
}

static void test_range_bad_input(void) {
    CHECK_REFUSED(rpl_signal_range(INT64_MAX, 2), RPL_ERR_INVALID);
    CHECK_REFUSED(rpl_signal_range(0, SIZE_MAX), RPL_ERR_INVALID);
    CHECK_REFUSED(rpl_signal_range(-1, (size_t)INT64_MAX + 3), RPL_ERR_INVALID);
    rpl_signal_t *ok = rpl_signal_range(-1, (size_t)INT64_MAX + 2);  /* -1 ... INT64_MAX */
    CHECK(ok != NULL);
    rpl_release(ok);
}

/* ---- timer ------------------------------------------------------------------- */
static void test_timer(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *sig = rpl_signal_timer(10 * MS, ts);
    rec_t a, b;
    a.clock = NULL;
    rpl_disposable_t *da = rec_subscribe(sig, &a);
    a.clock = ts;
    rpl_test_scheduler_advance_by(ts, 4 * MS);
    rpl_disposable_t *db = rec_subscribe(sig, &b);  /* its own timer, 10 ms from now */
    b.clock = ts;
    rpl_test_scheduler_advance_by(ts, 6 * MS - 1);
    CHECK_EQ_INT(a.n, 0);
    rpl_test_scheduler_advance_by(ts, 1);
    CHECK_LOG(&a, "0 C");
    CHECK_EQ_INT(a.at[0], 10 * MS);
    CHECK(a.current[0] == ts);
    CHECK_EQ_INT(a.released, 1);
    CHECK_EQ_INT(b.n, 0);
    rpl_test_scheduler_advance_by(ts, 4 * MS);
    CHECK_LOG(&b, "0 C");
    CHECK_EQ_INT(b.at[0], 14 * MS);
    rpl_release(da);
    rpl_release(db);
    /* Disposing before it fires cancels it. */
    rec_t c;
    rpl_disposable_t *dc = rec_subscribe(sig, &c);
    rpl_disposable_dispose(dc);
    CHECK_EQ_INT(c.released, 1);
    rpl_test_scheduler_advance_by(ts, 100 * MS);
    CHECK_LOG(&c, "");
    rpl_release(dc);
    check_name(sig, "+timer: 10000000");
    rpl_release(ts);
}

static void test_timer_bad_input(void) {
    CHECK_REFUSED(rpl_signal_timer(MS, NULL), RPL_ERR_NULL);
    rpl_disposable_t *wrong = not_a_signal();
    CHECK_REFUSED(rpl_signal_timer(MS, (rpl_scheduler_t *)wrong), RPL_ERR_KIND);
    rpl_release(wrong);
    CHECK_REFUSED(rpl_signal_timer(MS, rpl_scheduler_immediate()), RPL_ERR_INVALID);
}

/* A freed test scheduler: the pending timer is dropped, the subscription ends
   without an event (rule 6a). */
static void test_timer_scheduler_freed(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *sig = rpl_signal_timer(10 * MS, ts);
    rec_t r;
    rpl_release(rec_subscribe(sig, &r));
    CHECK_EQ_INT(r.released, 0);  /* the pending timer holds the subscription */
    rpl_release(ts);
    CHECK_EQ_INT(r.released, 1);
    CHECK_LOG(&r, "");
    rpl_release(sig);
}

/* ---- start_lazily / start_eagerly -------------------------------------------- */
typedef struct {
    int calls, released, disposed;
    rpl_subscriber_t *sub;   /* retained: the body sends more later */
    const char *script;      /* sent from the body */
    int fail_status;         /* what rpl_callback_fail returned in the body */
    rpl_scheduler_t *ran_on;
} body_t;

static void body_release(void *ctx) { ((body_t *)ctx)->released++; }
static void body_disposed(void *ctx) { ((body_t *)ctx)->disposed++; }
static rpl_disposable_t *body(void *ctx, rpl_subscriber_t *s) {
    body_t *b = ctx;
    b->calls++;
    b->ran_on = rpl_scheduler_current();
    b->fail_status = rpl_callback_fail(NULL);  /* not an operator callback */
    b->sub = rpl_retain(s);
    src_play(s, b->script);
    return rpl_disposable_create(body_disposed, b);
}
static void body_send(body_t *b, const char *script) { src_play(b->sub, script); }
static void body_drop(body_t *b) {
    rpl_release(b->sub);
    b->sub = NULL;
}

typedef rpl_signal_t *(*start_fn)(rpl_scheduler_t *s, rpl_subscribe_fn fn, void *ctx, rpl_release_fn release);

static void test_start_lazily(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    body_t b = {0};
    b.script = "1 2";
    rpl_signal_t *sig = rpl_signal_start_lazily(ts, body, &b, body_release);
    rpl_test_scheduler_advance_by(ts, MS);
    CHECK_EQ_INT(b.calls, 0);  /* lazily: not before the first subscription */
    rec_t r1, r2, r3;
    rpl_disposable_t *d1 = rec_subscribe(sig, &r1);
    CHECK_EQ_INT(b.calls, 0);  /* runs as work on s */
    CHECK_LOG(&r1, "");
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_EQ_INT(b.calls, 1);
    CHECK(b.ran_on == ts);
    CHECK_EQ_INT(b.fail_status, RPL_ERR_INVALID);
    CHECK_LOG(&r1, "1 2");
    CHECK(r1.current[0] == ts);
    rpl_disposable_t *d2 = rec_subscribe(sig, &r2);
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_EQ_INT(b.calls, 1);  /* once */
    CHECK_LOG(&r2, "1 2");     /* replayed */
    /* Every subscriber leaving cancels nothing. */
    rpl_disposable_dispose(d1);
    rpl_disposable_dispose(d2);
    CHECK(!rpl_subscriber_is_disposed(b.sub));
    CHECK_EQ_INT(b.disposed, 0);
    body_send(&b, "3");
    rpl_disposable_t *d3 = rec_subscribe(sig, &r3);
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_LOG(&r3, "1 2 3");
    body_send(&b, "4 C");
    CHECK_LOG(&r3, "1 2 3 4 C");
    CHECK_EQ_INT(b.disposed, 1);  /* the body's disposable ends with its subscription */
    CHECK_LOG(&r1, "1 2");
    rpl_release(d1);
    rpl_release(d2);
    rpl_release(d3);
    rec_t r4;
    rpl_disposable_t *d4 = rec_subscribe(sig, &r4);
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_LOG(&r4, "1 2 3 4 C");
    rpl_release(d4);
    CHECK_STR(rpl_signal_name(sig), "+startLazilyWithScheduler:block:");
    CHECK_EQ_INT(b.released, 0);
    rpl_release(sig);
    CHECK_EQ_INT(b.released, 1);
    CHECK_EQ_INT(b.calls, 1);
    body_drop(&b);
    rpl_release(ts);
}

static void test_start_lazily_error_immediate(void) {
    body_t b = {0};
    b.script = "5 E9";
    rpl_signal_t *sig = rpl_signal_start_lazily(rpl_scheduler_immediate(), body, &b, body_release);
    CHECK_EQ_INT(b.calls, 0);
    rec_t r;
    CHECK_STR(rec_run(sig, &r), "5 E9");  /* on the immediate scheduler: inside subscribe */
    CHECK_EQ_INT(b.calls, 1);
    CHECK_STR(rec_run(sig, &r), "5 E9");
    CHECK_EQ_INT(b.calls, 1);
    rpl_release(sig);
    CHECK_EQ_INT(b.released, 1);
    body_drop(&b);
}

static void test_start_eagerly(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    body_t b = {0};
    b.script = "1";
    rpl_signal_t *sig = rpl_signal_start_eagerly(ts, body, &b, body_release);
    CHECK_EQ_INT(b.calls, 0);  /* scheduled, not yet run */
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_EQ_INT(b.calls, 1);  /* without any subscriber */
    body_send(&b, "2");
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(sig, &r);
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_LOG(&r, "1 2");
    body_send(&b, "C");
    CHECK_LOG(&r, "1 2 C");
    CHECK_EQ_INT(b.calls, 1);
    rpl_release(d);
    CHECK_STR(rpl_signal_name(sig), "+startEagerlyWithScheduler:block:");
    rpl_release(sig);
    CHECK_EQ_INT(b.released, 1);
    body_drop(&b);
    rpl_release(ts);
}

/* Rule 27: releasing the result at once does not cancel the eager work. */
static void test_start_eagerly_released_at_once(void) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    body_t b = {0};
    b.script = "1 C";
    rpl_release(rpl_signal_start_eagerly(ts, body, &b, body_release));
    CHECK_EQ_INT(b.calls, 0);
    CHECK_EQ_INT(b.released, 0);
    rpl_test_scheduler_advance_by(ts, 0);
    CHECK_EQ_INT(b.calls, 1);
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(b.released, 1);
    body_drop(&b);
    /* On the immediate scheduler it has run before the call returns. */
    body_t c = {0};
    c.script = "7";
    rpl_signal_t *sig = rpl_signal_start_eagerly(rpl_scheduler_immediate(), body, &c, body_release);
    CHECK_EQ_INT(c.calls, 1);
    rpl_release(sig);
    body_send(&c, "8 C");  /* the body's subscriber is still live */
    CHECK_EQ_INT(c.disposed, 1);
    body_drop(&c);
    CHECK_EQ_INT(c.released, 1);
    rpl_release(ts);
}

static void check_start_bad_input(start_fn f) {
    body_t b = {0};
    CHECK_REFUSED(f(NULL, body, &b, body_release), RPL_ERR_NULL);
    CHECK_EQ_INT(b.released, 1);
    rpl_disposable_t *wrong = not_a_signal();
    CHECK_REFUSED(f((rpl_scheduler_t *)wrong, body, &b, body_release), RPL_ERR_KIND);
    CHECK_EQ_INT(b.released, 2);
    rpl_release(wrong);
    CHECK_REFUSED(f(rpl_scheduler_immediate(), NULL, &b, body_release), RPL_ERR_NULL);
    CHECK_EQ_INT(b.released, 3);
    CHECK_EQ_INT(b.calls, 0);
}
static void test_start_bad_input(void) {
    check_start_bad_input(rpl_signal_start_lazily);
    check_start_bad_input(rpl_signal_start_eagerly);
}

/* ---- share ------------------------------------------------------------------- */
static void test_share_connects_and_disconnects(void) {
    src_t src;
    rpl_signal_t *sig = src_make(&src, NULL);
    rpl_signal_t *shared = rpl_signal_share(sig, 0);
    CHECK_EQ_INT(src.nsubs, 0);
    rec_t a, b;
    rpl_disposable_t *da = rec_subscribe(shared, &a);
    CHECK_EQ_INT(src.nsubs, 1);
    src_send(&src, 0, "1");
    rpl_disposable_t *db = rec_subscribe(shared, &b);
    CHECK_EQ_INT(src.nsubs, 1);  /* one connection */
    src_send(&src, 0, "2");
    CHECK_LOG(&a, "1 2");
    CHECK_LOG(&b, "2");          /* replay 0: only live values */
    rpl_disposable_dispose(da);
    CHECK_EQ_INT(src.disposed, 0);
    rpl_disposable_dispose(db);
    CHECK_EQ_INT(src.disposed, 1);  /* the last one left: disconnected */
    CHECK_EQ_INT(a.released, 1);
    CHECK_EQ_INT(b.released, 1);
    rpl_release(da);
    rpl_release(db);
    rec_t c;
    rpl_disposable_t *dc = rec_subscribe(shared, &c);
    CHECK_EQ_INT(src.nsubs, 2);     /* connects again */
    src_send(&src, 1, "3 C");
    CHECK_LOG(&c, "3 C");
    CHECK_EQ_INT(src.disposed, 2);
    rpl_release(dc);
    check_name(rpl_retain(shared), "[+create:] -share: 0");
    rpl_release(shared);
    src_drop(&src);
    rpl_release(sig);
    CHECK_EQ_INT(src.released, 1);
}

static void test_share_replay(void) {
    src_t src;
    rpl_signal_t *sig = src_make(&src, NULL);
    rpl_signal_t *one = rpl_signal_share(sig, 1);
    rpl_signal_t *all = rpl_signal_share(sig, RPL_REPLAY_UNLIMITED);
    rec_t a, b, c, d;
    rpl_disposable_t *da = rec_subscribe(one, &a);
    rpl_disposable_t *dc = rec_subscribe(all, &c);
    src_send(&src, 0, "1 2");
    src_send(&src, 1, "1 2");
    rpl_disposable_t *db = rec_subscribe(one, &b);
    rpl_disposable_t *dd = rec_subscribe(all, &d);
    CHECK_LOG(&b, "2");
    CHECK_LOG(&d, "1 2");
    src_send(&src, 0, "3");
    CHECK_LOG(&b, "2 3");
    rpl_disposable_dispose(da);
    rpl_disposable_dispose(db);
    /* A fresh buffer per connection: nothing of the old one is replayed. */
    rec_t e;
    rpl_disposable_t *de = rec_subscribe(one, &e);
    CHECK_EQ_INT(src.nsubs, 3);
    CHECK_LOG(&e, "");
    src_send(&src, 2, "9 C");
    CHECK_LOG(&e, "9 C");
    rpl_disposable_t *ds[] = { da, db, dc, dd, de };
    for (int i = 0; i < 5; i++) { rpl_disposable_dispose(ds[i]); rpl_release(ds[i]); }
    check_name(all, "[+create:] -share: 18446744073709551615");
    rpl_release(one);
    src_drop(&src);
    rpl_release(sig);
}

/* A terminal event ends the connection: a later subscriber connects again
   (it does not get the old terminal event). */
static void test_share_terminal(void) {
    src_t src;
    rpl_signal_t *sig = src_make(&src, "1 C");
    rpl_signal_t *shared = rpl_signal_share(sig, 1);
    rec_t r;
    CHECK_STR(rec_run(shared, &r), "1 C");
    CHECK_STR(rec_run(shared, &r), "1 C");
    CHECK_EQ_INT(src.nsubs, 2);
    rpl_release(shared);
    src_drop(&src);
    rpl_release(sig);
    rpl_signal_t *failing = src_make(&src, "E7");
    shared = rpl_signal_share(failing, 0);
    CHECK_STR(rec_run(shared, &r), "E7");
    CHECK_EQ_INT(src.disposed, 1);
    rpl_release(shared);
    src_drop(&src);
    rpl_release(failing);
}

/* Rule 27: a subscriber that subscribes again from its terminal callback gets
   a fresh connection. */
typedef struct {
    rec_t rec;            /* first: ctx is both */
    rpl_signal_t *shared;
    rec_t again;
    rpl_disposable_t *d_again;
} resubscriber_t;
static void resubscribe_on_completed(void *ctx) {
    resubscriber_t *x = ctx;
    rec_completed(&x->rec);
    if (!x->d_again) x->d_again = rec_subscribe(x->shared, &x->again);
}
static void test_share_resubscribe_from_terminal(void) {
    src_t src;
    rpl_signal_t *sig = src_make(&src, NULL);
    resubscriber_t x;
    memset(&x, 0, sizeof x);
    x.shared = rpl_signal_share(sig, RPL_REPLAY_UNLIMITED);
    rec_init(&x.rec);
    rpl_observer o = rec_observer(&x.rec);
    o.on_completed = resubscribe_on_completed;
    rpl_disposable_t *d = rpl_signal_subscribe(x.shared, &o);
    src_send(&src, 0, "1 2 C");
    CHECK_LOG(&x.rec, "1 2 C");
    CHECK(x.d_again != NULL);
    CHECK_EQ_INT(src.nsubs, 2);    /* a fresh connection */
    CHECK_LOG(&x.again, "");       /* not the old replay or completion */
    src_send(&src, 1, "3 C");
    CHECK_LOG(&x.again, "3 C");
    rpl_release(x.d_again);
    rpl_release(d);
    rpl_release(x.shared);
    src_drop(&src);
    rpl_release(sig);
}

/* Rule 6a: releasing every handle without disposing: the subscription lives
   while the source can send, and ends once the source lets go. */
static void test_share_release_without_dispose(void) {
    src_t src;
    rpl_signal_t *sig = src_make(&src, NULL);
    rpl_signal_t *shared = rpl_signal_share(sig, 2);
    rec_t r;
    rpl_release(rec_subscribe(shared, &r));
    rpl_release(shared);
    src_send(&src, 0, "4");
    CHECK_LOG(&r, "4");
    CHECK_EQ_INT(r.released, 0);
    src_drop(&src);
    CHECK_EQ_INT(r.released, 1);
    CHECK_OPEN(r);
    rpl_release(sig);
    CHECK_EQ_INT(src.released, 1);
}

static void test_share_bad_input(void) {
    CHECK_REFUSED(rpl_signal_share(NULL, 0), RPL_ERR_NULL);
    rpl_disposable_t *wrong = not_a_signal();
    CHECK_REFUSED(rpl_signal_share((rpl_signal_t *)wrong, 1), RPL_ERR_KIND);
    rpl_release(wrong);
}

/* ---- delay_subscription ------------------------------------------------------- */
static void test_delay_subscription(void) {
    fx_t f;
    rpl_signal_t *o;
    rec_t r;
    rpl_disposable_t *d = fx_begin(&f, rpl_signal_delay_subscription, &o, &r);
    f.src.sync = "1";  /* sent when the source is subscribed, 10 ms on */
    rpl_test_scheduler_advance_by(f.ts, 10 * MS - 1);
    CHECK_EQ_INT(f.src.nsubs, 0);
    rpl_test_scheduler_advance_by(f.ts, 1);
    CHECK_EQ_INT(f.src.nsubs, 1);
    CHECK_LOG(&r, "1");
    src_send(&f.src, 0, "2 C");       /* then events come from where sig sends them */
    CHECK_LOG(&r, "1 2 C");
    CHECK_EQ_INT(f.src.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    /* Disposed before the time: sig is never subscribed. */
    rpl_disposable_t *d2 = fx_subscribe(&f, o, &r);
    rpl_disposable_dispose(d2);
    CHECK_EQ_INT(r.released, 1);
    rpl_test_scheduler_advance_by(f.ts, 100 * MS);
    CHECK_EQ_INT(f.src.nsubs, 1);
    rpl_release(d2);
    check_name(o, "[+create:] -delaySubscription: 10000000");
    fx_close(&f);
}

/* ---- throttle_first ------------------------------------------------------------ */
static void test_throttle_first(void) {
    fx_t f;
    rpl_signal_t *o;
    rec_t r;
    rpl_disposable_t *d = fx_begin(&f, rpl_signal_throttle_first, &o, &r);
    src_send(&f.src, 0, "1");                       /* t=0: the first passes */
    rpl_test_scheduler_advance_by(f.ts, 5 * MS);
    src_send(&f.src, 0, "2");                       /* t=5: dropped */
    rpl_test_scheduler_advance_by(f.ts, 5 * MS);
    src_send(&f.src, 0, "3");                       /* t=10: exactly ns later passes (rule 27) */
    rpl_test_scheduler_advance_by(f.ts, 10 * MS - 1);
    src_send(&f.src, 0, "4");                       /* t=20-1ns: dropped */
    rpl_test_scheduler_advance_by(f.ts, 1);
    src_send(&f.src, 0, "5 6");                     /* t=20: 5 passes, 6 not */
    src_send(&f.src, 0, "C");
    CHECK_LOG(&r, "1 3 5 C");
    CHECK(r.current[0] == NULL);                  /* on the sender's thread, no hop */
    CHECK_EQ_INT(f.src.disposed, 1);
    rpl_release(d);
    fx_again(&f, o, "7 C", "7 C");  /* its own clock state */
    check_name(o, "[+create:] -throttleFirst: 10000000");
    fx_close(&f);
}

/* No timer: the immediate scheduler's clock is enough. */
static void test_throttle_first_immediate(void) {
    src_t src;
    rpl_signal_t *sig = src_make(&src, "1 2 3 C");
    rpl_signal_t *o = rpl_signal_throttle_first(sig, 3600000 * MS, rpl_scheduler_immediate());
    rec_t r;
    CHECK_STR(rec_run(o, &r), "1 C");
    rpl_signal_t *zero = rpl_signal_throttle_first(sig, 0, rpl_scheduler_immediate());
    CHECK_STR(rec_run(zero, &r), "1 2 3 C");  /* ns 0 lets everything through */
    rpl_release(zero);
    rpl_release(o);
    src_drop(&src);
    rpl_release(sig);
}

/* ---- throttle_if ---------------------------------------------------------------- */
typedef struct {
    int calls, released;
    int fail_on;            /* rpl_callback_fail on this value (0: never) */
    int status;
} pred_t;
static void pred_release(void *ctx) { ((pred_t *)ctx)->released++; }
/* Odd values are throttled, even ones pass at once. */
static bool is_odd(void *ctx, const rpl_value *v) {
    pred_t *p = ctx;
    if (!p) return rpl_value_int(v) % 2 != 0;
    p->calls++;
    if (p->fail_on && rpl_value_int(v) == p->fail_on) {
        p->status = rpl_callback_fail(rpl_error_create("pred", 3, "predicate failed"));
        return true;
    }
    return rpl_value_int(v) % 2 != 0;
}
static rpl_signal_t *throttle_if_odd(rpl_signal_t *sig, uint64_t ns, rpl_scheduler_t *s) {
    return rpl_signal_throttle_if(sig, ns, s, is_odd, NULL, NULL);
}

static void test_throttle_if(void) {
    fx_t f;
    fx_open(&f);
    pred_t p = {0};
    rpl_signal_t *o = rpl_signal_throttle_if(f.sig, 10 * MS, f.ts, is_odd, &p, pred_release);
    rec_t r;
    rpl_disposable_t *d = fx_subscribe(&f, o, &r);
        src_send(&f.src, 0, "1");
    rpl_test_scheduler_advance_by(f.ts, 5 * MS);
    src_send(&f.src, 0, "3");                    /* replaces 1, restarts the wait */
    rpl_test_scheduler_advance_by(f.ts, 10 * MS - 1);
    CHECK_LOG(&r, "");
    rpl_test_scheduler_advance_by(f.ts, 1);
    CHECK_LOG(&r, "3");
    CHECK_EQ_INT(r.at[0], 15 * MS);
    CHECK(r.current[0] == f.ts);                 /* sent on s */
    src_send(&f.src, 0, "5 2");                  /* 2 fails the test: drops 5, passes at once */
    CHECK_LOG(&r, "3 2");
    rpl_test_scheduler_advance_by(f.ts, 50 * MS);
    CHECK_LOG(&r, "3 2");
    src_send(&f.src, 0, "4 7 C");                /* completion sends the pending 7 */
    CHECK_LOG(&r, "3 2 4 7 C");
    CHECK_EQ_INT(p.calls, 6);
    CHECK_EQ_INT(f.src.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    check_name(rpl_retain(o), "[+create:] -throttle:valuesPassingTest: 10000000");
    CHECK_EQ_INT(p.released, 0);
    rpl_release(o);
    CHECK_EQ_INT(p.released, 1);
    fx_close(&f);
}

static void test_throttle_if_callback_fail(void) {
    fx_t f;
    fx_open(&f);
    pred_t p = {0};
    p.fail_on = 4;
    rpl_signal_t *o = rpl_signal_throttle_if(f.sig, 10 * MS, f.ts, is_odd, &p, pred_release);
    rec_t r;
    rpl_disposable_t *d = fx_subscribe(&f, o, &r);
    src_send(&f.src, 0, "2 1 4 6");
    CHECK_EQ_INT(p.status, RPL_OK);
    CHECK_LOG(&r, "2 E3");                     /* the pending 1 is dropped too */
    CHECK_STR(r.error_domain, "pred");
    CHECK_EQ_INT(f.src.disposed, 1);
    CHECK_EQ_INT(p.calls, 3);                  /* not called after the failure */
    rpl_test_scheduler_advance_by(f.ts, 50 * MS);
    CHECK_LOG(&r, "2 E3");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    rpl_release(o);
    CHECK_EQ_INT(p.released, 1);
    fx_close(&f);
}

static void test_throttle_if_bad_input(void) {
    check_timed_bad_input(throttle_if_odd, 0);
    /* Every refusal releases ctx: handles first, then the predicate. */
    rpl_signal_t *never = rpl_signal_never();
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    pred_t p = {0};
    CHECK_REFUSED(rpl_signal_throttle_if(NULL, MS, ts, is_odd, &p, pred_release), RPL_ERR_NULL);
    CHECK_REFUSED(rpl_signal_throttle_if(never, MS, NULL, NULL, &p, pred_release), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "scheduler") != NULL);
    CHECK_REFUSED(rpl_signal_throttle_if(never, MS, ts, NULL, &p, pred_release), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "predicate") != NULL);
    CHECK_REFUSED(rpl_signal_throttle_if(never, MS, rpl_scheduler_immediate(), is_odd, &p, pred_release),
                  RPL_ERR_INVALID);
    CHECK_EQ_INT(p.released, 4);
    CHECK_EQ_INT(p.calls, 0);
    rpl_release(ts);
    rpl_release(never);
}

/* ---- buffer_with_time ----------------------------------------------------------- */
static void test_buffer_with_time(void) {
    fx_t f;
    rpl_signal_t *o;
    rec_t r;
    rpl_disposable_t *d = fx_begin(&f, rpl_signal_buffer_with_time, &o, &r);
    rpl_test_scheduler_advance_by(f.ts, 30 * MS);  /* nothing buffered: no timer, nothing sent */
    CHECK_LOG(&r, "");
    src_send(&f.src, 0, "1");                      /* t=30: starts the batch's timer */
    rpl_test_scheduler_advance_by(f.ts, 5 * MS);
    src_send(&f.src, 0, "2");
    rpl_subscriber_send_next(f.src.subs[0], rpl_nil());  /* nil is kept */
    rpl_test_scheduler_advance_by(f.ts, 5 * MS - 1);
    CHECK_LOG(&r, "");
    rpl_test_scheduler_advance_by(f.ts, 1);
    CHECK_LOG(&r, "(1,2,nil)");
    CHECK_EQ_INT(r.types[0], RPL_TYPE_TUPLE);
    CHECK_EQ_INT(r.at[0], 40 * MS);
    CHECK(r.current[0] == f.ts);
    rpl_test_scheduler_advance_by(f.ts, 25 * MS);  /* an empty interval sends nothing */
    CHECK_LOG(&r, "(1,2,nil)");
    src_send(&f.src, 0, "3");                      /* t=65: a new batch, due at 75 */
    rpl_test_scheduler_advance_by(f.ts, 9 * MS);
    src_send(&f.src, 0, "4");
    rpl_test_scheduler_advance_by(f.ts, MS);
    CHECK_LOG(&r, "(1,2,nil) (3,4)");
    CHECK_EQ_INT(r.at[1], 75 * MS);
    src_send(&f.src, 0, "5 C");                    /* completion flushes at once */
    CHECK_LOG(&r, "(1,2,nil) (3,4) (5) C");
    CHECK_EQ_INT(r.end_at, 75 * MS);
    CHECK_EQ_INT(f.src.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    fx_again(&f, o, "C", "C");  /* an empty batch at completion: only C */
    check_name(o, "[+create:] -bufferWithTime: 10000000");
    fx_close(&f);
}

/* ---- Common checks of the time operators ---------------------------------------- */
static void test_time_common(void) {
    timed_op ops[] = { rpl_signal_delay_subscription, rpl_signal_throttle_first, throttle_if_odd,
                       rpl_signal_buffer_with_time };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        check_timed_error(ops[i]);
        check_timed_dispose(ops[i]);
    }
    check_timed_bad_input(rpl_signal_delay_subscription, 0);
    check_timed_bad_input(rpl_signal_throttle_first, 1);
    check_timed_bad_input(rpl_signal_buffer_with_time, 0);
}

/* ---- Threads: the timed relays on a serial scheduler ---------------------------
   Values come from this thread while the timers fire on the scheduler's
   thread: every value arrives once, in order (the tuples of buffer_with_time
   concatenated; throttle_if's values that fail the test), then completion. */
typedef struct {
    atomic_int next;       /* the next int expected */
    atomic_int bad, completed, released;
} order_t;
static void order_item(order_t *o, const rpl_value *v) {
    if (rpl_value_type(v) != RPL_TYPE_INT) { atomic_fetch_add(&o->bad, 1); return; }
    int64_t i = rpl_value_int(v);
    if (i < o->next) atomic_fetch_add(&o->bad, 1);  /* repeated or out of order */
    o->next = (int)i + 1;
}
static void order_next(void *ctx, const rpl_value *v) {
    order_t *o = ctx;
    if (rpl_value_type(v) != RPL_TYPE_TUPLE) return order_item(o, v);
    for (size_t k = 0, n = rpl_value_tuple_count(v); k < n; k++) {
        rpl_value item = rpl_value_tuple_at(v, k);
        order_item(o, &item);
        rpl_value_release(&item);
    }
}
static void order_completed(void *ctx) { atomic_fetch_add(&((order_t *)ctx)->completed, 1); }
static void order_release(void *ctx) { atomic_fetch_add(&((order_t *)ctx)->released, 1); }
/* Even values pass throttle_if at once; the odd ones may be dropped. */
static bool odd_only(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) % 2 != 0; }

static void threaded_case(int buffer) {
    enum { N = 2000 };
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("creating");
    src_t src;
    rpl_signal_t *sig = src_make(&src, NULL);
    rpl_signal_t *o = buffer ? rpl_signal_buffer_with_time(sig, 50000, serial)
                             : rpl_signal_throttle_if(sig, 50000, serial, odd_only, NULL, NULL);
    order_t ord = {0};
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_next = order_next;
    obs.on_completed = order_completed;
    obs.release = order_release;
    obs.ctx = &ord;
    rpl_disposable_t *d = rpl_signal_subscribe(o, &obs);
    for (int i = 0; i < N; i++) {
        rpl_subscriber_send_next(src.subs[0], rpl_int(i));
        if (i % 100 == 99) nanosleep(&(struct timespec){0, 100000}, NULL);  /* let timers fire */
    }
    rpl_subscriber_send_next(src.subs[0], rpl_int(N));  /* even: passes throttle_if at once */
    src_send(&src, 0, "C");
    for (int i = 0; i < 5000 && !ord.released; i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (ord.completed != 1 || ord.released != 1 || ord.bad != 0 || ord.next != N + 1)
        fprintf(stderr, "    threaded_case(%s) failed:\n", buffer ? "buffer_with_time" : "throttle_if");
    CHECK_EQ_INT(ord.completed, 1);
    CHECK_EQ_INT(ord.released, 1);
    CHECK_EQ_INT(ord.bad, 0);
    CHECK_EQ_INT(ord.next, N + 1);
    rpl_release(d);
    rpl_release(o);
    src_drop(&src);
    rpl_release(sig);
    rpl_release(serial);
}
static void test_timed_threads(void) {
    alarm(60);  /* a deadlock fails instead of hanging */
    threaded_case(1);
    threaded_case(0);
    alarm(0);
}

int main(void) {
    RUN(test_from_array_values);
    RUN(test_from_array_bad_input);
    RUN(test_range);
    RUN(test_range_bad_input);
    RUN(test_timer);
    RUN(test_timer_bad_input);
    RUN(test_timer_scheduler_freed);
    RUN(test_start_lazily);
    RUN(test_start_lazily_error_immediate);
    RUN(test_start_eagerly);
    RUN(test_start_eagerly_released_at_once);
    RUN(test_start_bad_input);
    RUN(test_share_connects_and_disconnects);
    RUN(test_share_replay);
    RUN(test_share_terminal);
    RUN(test_share_resubscribe_from_terminal);
    RUN(test_share_release_without_dispose);
    RUN(test_share_bad_input);
    RUN(test_delay_subscription);
    RUN(test_throttle_first);
    RUN(test_throttle_first_immediate);
    RUN(test_throttle_if);
    RUN(test_throttle_if_callback_fail);
    RUN(test_throttle_if_bad_input);
    RUN(test_buffer_with_time);
    RUN(test_time_common);
    RUN(test_timed_threads);
    CHECK_DONE();
}
