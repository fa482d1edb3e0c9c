/* Flattening and choosing between signals (0.2): flatten_max, concat_all,
   concat_map, switch_if_empty, if, switch_cases. */
#include "ops2_support.h"
#include <pthread.h>

/* Drops src's subscribers and zeroes its disposal count: each scenario
   counts its own disposals (a completion disposes too). */
static void drop(src_t *src) {
    src_drop(src);
    atomic_store(&src->disposed, 0);
}

static void send_signal(src_t *src, int i, rpl_signal_t *s) {
    rpl_subscriber_send_next(src->subs[i], rpl_signal_value(s));
}

/* Subscribes r to op, plays script into the first subscription of src and
   checks r's log; returns the subscription (+1). */
static rpl_disposable_t *play(rpl_signal_t *op, rec_t *r, src_t *src, const char *script, const char *log) {
    rpl_disposable_t *d = rec_subscribe(op, r);
    src_send(src, 0, script);
    CHECK_STR(r->log, log);
    return d;
}

/* Disposing d disposes the subscriptions to x and y, once each, and runs the
   observer's release; then d is released and x and y dropped. */
static void dispose_reaches(rpl_disposable_t *d, rec_t *r, src_t *x, src_t *y) {
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(x->disposed, 1);
    CHECK_EQ_INT(y->disposed, 1);
    CHECK_EQ_INT(r->released, 1);
    rpl_release(d);
    drop(x);
    drop(y);
}

/* Rule 6a: d released without dispose lives while `last` (dropped last) can
   still send, and is freed once it is gone too. */
static void freed_with_sources(rpl_disposable_t *d, rec_t *r, src_t *first, src_t *last) {
    rpl_release(d);
    drop(first);
    CHECK_EQ_INT(r->released, 0);
    drop(last);
    CHECK_EQ_INT(r->released, 1);
}

/* Two subscriptions to op, each with its own state, both see `expected`. */
static void check_twice_log(rpl_signal_t *op, const char *expected) {
    for (int round = 0; round < 2; round++) {
        rec_t r;
        CHECK_STR(rec_run(op, &r), expected);
        CHECK_EQ_INT(r.released, 1);
    }
}

/* The name of op over an input named "src". */
static void check_name(rpl_signal_t *op, const char *expected) { CHECK_STR(rpl_signal_name(op), expected); }

/* A signal that sends v and completes from its subscribe callback (a full
   subscription: not the fast path of rpl_signal_return). */
static rpl_disposable_t *send_ctx_int(void *ctx, rpl_subscriber_t *s) {
    rpl_subscriber_send_next(s, rpl_int((int64_t)(intptr_t)ctx));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static rpl_signal_t *created_int(int64_t v) { return rpl_signal_create(send_ctx_int, (void *)(intptr_t)v, NULL); }

static rpl_signal_t *failing_signal(int64_t code) {
    rpl_error_t *e = test_error(code);
    rpl_signal_t *s = rpl_signal_error(e);
    rpl_release(e);
    return s;
}

/* ------------------------------------------- flatten_max(1) and concat_all */
/* op is flatten_max(so, 1) or concat_all(so): one inner at a time, in
   arrival order. o, a, b are fresh controllable sources behind so, sa, sb. */
static void check_one_at_a_time(rpl_signal_t *op, src_t *o, src_t *a, src_t *b, rpl_signal_t *sa,
                                 rpl_signal_t *sb) {
    rec_t r;
    rpl_signal_t *one = rpl_signal_return(rpl_int(1)), *empty = rpl_signal_empty();
    rpl_disposable_t *d = rec_subscribe(op, &r);
    send_signal(o, 0, one);
    send_signal(o, 0, sa);
    send_signal(o, 0, empty);
    rpl_subscriber_send_next(o->subs[0], rpl_nil());  /* nil: empty */
    send_signal(o, 0, sb);
    send_signal(o, 0, one);
    CHECK_STR(r.log, "1");
    CHECK_EQ_INT(b->nsubs, 0);                        /* b waits for a */
    src_send(a, 0, "2 3");
    src_send(o, 0, "C");                              /* waiting inners still count */
    src_send(a, 0, "C");                              /* b starts */
    CHECK_EQ_INT(b->nsubs, 1);
    src_send(b, 0, "4");
    CHECK_STR(r.log, "1 2 3 4");
    src_send(b, 0, "C");                              /* then one, then all done */
    CHECK_STR(r.log, "1 2 3 4 1 C");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    drop(o); drop(a); drop(b);

    /* An inner error passes through and ends it: the outer is disposed, the
       waiting inner never starts. */
    d = rec_subscribe(op, &r);
    send_signal(o, 0, sa);
    send_signal(o, 0, sb);
    src_send(a, 0, "1 E3");
    CHECK_STR(r.log, "1 E3");
    CHECK_EQ_INT(b->nsubs, 0);
    CHECK_EQ_INT(o->disposed, 1);
    src_send(a, 0, "9 C");                            /* ignored */
    CHECK_STR(r.log, "1 E3");
    rpl_release(d);
    drop(o); drop(a);

    /* An inner that fails synchronously: nothing after it starts. */
    rpl_signal_t *bad = failing_signal(9);
    d = rec_subscribe(op, &r);
    send_signal(o, 0, bad);
    send_signal(o, 0, sa);
    CHECK_STR(r.log, "E9");
    CHECK_EQ_INT(a->nsubs, 0);
    rpl_release(d);
    drop(o);
    rpl_release(bad);

    /* A value that is not a signal fails the result at once, not when its
       turn comes (domain ripple, RPL_ERROR_GENERIC). */
    d = rec_subscribe(op, &r);
    send_signal(o, 0, sa);
    send_signal(o, 0, sb);
    rpl_subscriber_send_next(o->subs[0], rpl_string("x"));
    CHECK_STR(r.log, "E1");
    CHECK_EQ_INT(r.error_code, RPL_ERROR_GENERIC);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    CHECK_EQ_INT(a->disposed, 1);
    CHECK_EQ_INT(o->disposed, 1);
    CHECK_EQ_INT(b->nsubs, 0);
    rpl_release(d);
    drop(o); drop(a);

    /* Disposal reaches the outer and the running inner; the waiting one never
       starts, also when the running one completes afterwards. */
    d = rec_subscribe(op, &r);
    send_signal(o, 0, sa);
    send_signal(o, 0, sb);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(o->disposed, 1);
    CHECK_EQ_INT(a->disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    src_send(a, 0, "C");
    CHECK_EQ_INT(b->nsubs, 0);
    CHECK_OPEN(r);
    rpl_release(d);
    drop(o); drop(a);

    /* Rule 6a: released without dispose, freed once its sources are. */
    d = rec_subscribe(op, &r);
    send_signal(o, 0, sa);
    send_signal(o, 0, sb);
    rpl_release(d);
    drop(o);
    CHECK_EQ_INT(r.released, 0);                      /* a can still send */
    drop(a);                                          /* b could only start after a */
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(b->nsubs, 0);

    /* An outer that completes with nothing sent completes at once. */
    d = rec_subscribe(op, &r);
    src_send(o, 0, "C");
    CHECK_STR(r.log, "C");
    rpl_release(d);
    drop(o);
    rpl_release(one);
    rpl_release(empty);
}

/* Runs check_one_at_a_time on make(so); checks its name; releases all. */
static void one_at_a_time(rpl_signal_t *(*make)(rpl_signal_t *), const char *name) {
    src_t o, a, b;
    rpl_signal_t *so = src_make(&o, NULL), *sa = src_make(&a, NULL), *sb = src_make(&b, NULL);
    rpl_signal_t *op = make(so);
    CHECK(op != NULL);
    check_one_at_a_time(op, &o, &a, &b, sa, sb);
    rpl_signal_set_name(so, "src");
    check_name(op, name);
    rpl_release(op);
    rpl_release(so); rpl_release(sa); rpl_release(sb);
    CHECK_EQ_INT(o.released + a.released + b.released, 3);
}
static rpl_signal_t *flatten_max1(rpl_signal_t *s) { return rpl_signal_flatten_max(s, 1); }

/* ------------------------------------------------------------- flatten_max */
static void test_flatten_max_one(void) { one_at_a_time(flatten_max1, "[src] -flatten: 1"); }

static void test_flatten_max_limit(void) {
    src_t o, a, b, c;
    rec_t r;
    rpl_signal_t *so = src_make(&o, NULL);
    rpl_signal_t *sa = src_make(&a, NULL), *sb = src_make(&b, NULL), *sc = src_make(&c, NULL);
    rpl_signal_t *f = rpl_signal_flatten_max(so, 2);
    CHECK(f != NULL);
    rpl_disposable_t *d = rec_subscribe(f, &r);
    send_signal(&o, 0, sa);
    send_signal(&o, 0, sb);
    send_signal(&o, 0, sc);                            /* waits: two run */
    rpl_subscriber_send_next(o.subs[0], rpl_nil());    /* nil: an empty inner */
    CHECK_EQ_INT(a.nsubs, 1);
    CHECK_EQ_INT(b.nsubs, 1);
    CHECK_EQ_INT(c.nsubs, 0);
    src_send(&b, 0, "2");
    src_send(&a, 0, "1");
    CHECK_STR(r.log, "2 1");
    src_send(&b, 0, "C");                              /* a slot: c starts */
    CHECK_EQ_INT(c.nsubs, 1);
    src_send(&c, 0, "3");
    src_send(&o, 0, "C");
    src_send(&a, 0, "C");
    CHECK_STR(r.log, "2 1 3");                         /* c still runs */
    src_send(&c, 0, "C");
    CHECK_STR(r.log, "2 1 3 C");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    drop(&o); drop(&a); drop(&b); drop(&c);

    /* An error of a running inner disposes the other running inner too. */
    d = rec_subscribe(f, &r);
    send_signal(&o, 0, sa);
    send_signal(&o, 0, sb);
    send_signal(&o, 0, sc);
    src_send(&a, 0, "1 E5");
    CHECK_STR(r.log, "1 E5");
    CHECK_EQ_INT(o.disposed, 1);
    CHECK_EQ_INT(b.disposed, 1);
    CHECK_EQ_INT(c.nsubs, 0);
    rpl_release(d);
    drop(&o); drop(&a); drop(&b);

    /* An error of the outer ends everything too. */
    d = rec_subscribe(f, &r);
    send_signal(&o, 0, sa);
    src_send(&o, 0, "E6");
    CHECK_STR(r.log, "E6");
    CHECK_EQ_INT(a.disposed, 1);
    rpl_release(d);
    drop(&o); drop(&a);

    /* Disposal reaches every running inner. */
    d = rec_subscribe(f, &r);
    send_signal(&o, 0, sa);
    send_signal(&o, 0, sb);
    send_signal(&o, 0, sc);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed + b.disposed + o.disposed, 3);
    CHECK_EQ_INT(c.nsubs, 0);
    rpl_release(d);
    drop(&o); drop(&a); drop(&b);

    /* 0: no limit (rpl_signal_flatten). */
    rpl_signal_t *f0 = rpl_signal_flatten_max(so, 0);
    d = rec_subscribe(f0, &r);
    send_signal(&o, 0, sa);
    send_signal(&o, 0, sb);
    send_signal(&o, 0, sc);
    CHECK_EQ_INT(a.nsubs + b.nsubs + c.nsubs, 3);
    src_send(&c, 0, "3 C");
    src_send(&o, 0, "C");
    src_send(&a, 0, "1 C");
    src_send(&b, 0, "2 C");
    CHECK_STR(r.log, "3 1 2 C");
    rpl_release(d);
    drop(&o); drop(&a); drop(&b); drop(&c);

    rpl_signal_set_name(so, "src");
    check_name(f, "[src] -flatten: 2");
    check_name(f0, "[src] -flatten: 0");
    rpl_release(f0);
    rpl_release(f);
    rpl_release(so); rpl_release(sa); rpl_release(sb); rpl_release(sc);
    CHECK_EQ_INT(o.released + a.released + b.released + c.released, 4);
}

/* Synchronous inners: values in order, completion at once, and a long queue
   of inners that complete while being subscribed runs in constant stack. */
static rpl_disposable_t *send_signals(void *ctx, rpl_subscriber_t *s) {
    long n = (long)(intptr_t)ctx;
    for (long i = 0; i < n && !rpl_subscriber_is_disposed(s); i++) {
        rpl_signal_t *inner = (i % 2) ? created_int(i) : rpl_signal_return(rpl_int(i));
        rpl_subscriber_send_next(s, rpl_signal_value(inner));
        rpl_release(inner);
    }
    rpl_subscriber_send_completed(s);
    return NULL;
}
typedef struct { int64_t sum, count, last; int ordered, completed; } sum_t;
static void sum_next(void *ctx, const rpl_value *v) {
    sum_t *t = ctx;
    int64_t x = rpl_value_int(v);
    if (t->count > 0 && x != t->last + 1) t->ordered = 0;
    t->last = x;
    t->sum += x;
    t->count++;
}
static void sum_completed(void *ctx) { ((sum_t *)ctx)->completed++; }
static rpl_disposable_t *sum_subscribe(rpl_signal_t *sig, sum_t *t) {
    *t = (sum_t){0, 0, -1, 1, 0};
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_next = sum_next;
    obs.on_completed = sum_completed;
    obs.ctx = t;
    return rpl_signal_subscribe(sig, &obs);
}

static void test_flatten_max_sync(void) {
    long n = test_scale(200000, 20000);
    rpl_signal_t *outer = rpl_signal_create(send_signals, (void *)(intptr_t)n, NULL);
    size_t limits[] = {1, 3};
    sum_t t;
    for (int k = 0; k < 2; k++) {
        rpl_signal_t *f = rpl_signal_flatten_max(outer, limits[k]);
        rpl_disposable_t *d = sum_subscribe(f, &t);
        CHECK_EQ_INT(t.count, n);
        CHECK_EQ_INT(t.sum, (int64_t)n * (n - 1) / 2);
        CHECK(t.ordered);
        CHECK_EQ_INT(t.completed, 1);
        rpl_release(d);
        rpl_release(f);
    }

    /* The same queue waiting behind a held inner, then released at once by
       its completion: the waiting inners run in a loop, not recursively. */
    src_t o, a;
    rpl_signal_t *so = src_make(&o, NULL), *sa = src_make(&a, NULL);
    rpl_signal_t *f = rpl_signal_concat_all(so);
    rpl_disposable_t *d = sum_subscribe(f, &t);
    send_signal(&o, 0, sa);
    for (long i = 0; i < n; i++) {
        rpl_signal_t *inner = created_int(i);
        send_signal(&o, 0, inner);
        rpl_release(inner);
    }
    src_send(&o, 0, "C");
    CHECK_EQ_INT(t.count, 0);
    src_send(&a, 0, "C");
    CHECK_EQ_INT(t.count, n);
    CHECK(t.ordered);
    CHECK_EQ_INT(t.completed, 1);
    rpl_release(d);
    rpl_release(f);
    drop(&o); drop(&a);
    rpl_release(so); rpl_release(sa);
    rpl_release(outer);
}

/* Inners that send and complete on threads of their own: never more than the
   limit run at once, every value arrives once, one callback at a time. */
#define RACE_MAX 2000
static pthread_t race_threads[RACE_MAX];
static atomic_int race_created[RACE_MAX];  /* race_threads[i] is written */
static atomic_int race_count, race_running, race_max;

static void *race_body(void *arg) {
    rpl_subscriber_t *s = arg;
    rpl_subscriber_send_next(s, rpl_int(0));
    atomic_fetch_sub(&race_running, 1);  /* before completing: the next may start then */
    rpl_subscriber_send_completed(s);
    rpl_release(s);
    return NULL;
}
static rpl_disposable_t *race_subscribe(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    int now = atomic_fetch_add(&race_running, 1) + 1;
    int m = atomic_load(&race_max);
    while (now > m && !atomic_compare_exchange_weak(&race_max, &m, now)) {}
    int i = atomic_fetch_add(&race_count, 1);
    if (i < RACE_MAX) {
        pthread_create(&race_threads[i], NULL, race_body, rpl_retain(s));
        atomic_store(&race_created[i], 1);
    }
    return NULL;
}

static void flatten_max_threads(size_t limit) {
    long n = test_scale(1000, 100);
    atomic_store(&race_count, 0);
    atomic_store(&race_running, 0);
    atomic_store(&race_max, 0);
    for (int i = 0; i < RACE_MAX; i++) atomic_store(&race_created[i], 0);
    src_t o;
    rpl_signal_t *so = src_make(&o, NULL);
    rpl_signal_t *racer = rpl_signal_create(race_subscribe, NULL, NULL);
    rpl_signal_t *f = rpl_signal_flatten_max(so, limit);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(f, &r);
    for (long i = 0; i < n; i++) send_signal(&o, 0, racer);
    src_send(&o, 0, "C");
    /* Threads start more threads as slots free up: wait for the end (with a
       deadline, so a lost inner fails instead of hanging), then join them. */
    for (int i = 0; i < 10000 && !(r.completed + r.errors); i++) thrd_sleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    CHECK(r.completed + r.errors > 0);
    int started = atomic_load(&race_count);
    for (int i = 0; i < started && i < RACE_MAX; i++) {
        while (!atomic_load(&race_created[i])) thrd_yield();
        pthread_join(race_threads[i], NULL);
    }
    CHECK_EQ_INT(atomic_load(&race_count), n);
    CHECK_EQ_INT(r.n, n);
    CHECK_COMPLETED(r);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(r.overlap, 0);
    CHECK(atomic_load(&race_max) <= (int)limit);
    rpl_release(d);
    rpl_release(f);
    rpl_release(racer);
    rpl_release(so);
    drop(&o);
}
static void test_flatten_max_threads(void) {
    flatten_max_threads(1);
    flatten_max_threads(3);
}

static void test_flatten_max_bad_input(void) {
    CHECK(rpl_signal_flatten_max(NULL, 2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_flatten_max") != NULL);
    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_flatten_max((rpl_signal_t *)e, 2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_error_code(e), 1);  /* still usable */
    rpl_release(e);
    /* Any count is valid: SIZE_MAX is a limit no program reaches. */
    rpl_signal_t *outer = rpl_signal_create(send_signals, (void *)(intptr_t)10, NULL);
    rpl_signal_t *f = rpl_signal_flatten_max(outer, SIZE_MAX);
    rec_t r;
    CHECK_STR(rec_run(f, &r), "0 1 2 3 4 5 6 7 8 9 C");
    rpl_release(f);
    rpl_release(outer);
}

/* -------------------------------------------------------------- concat_all */
static void test_concat_all(void) {
    one_at_a_time(rpl_signal_concat_all, "[src] -concat");
    CHECK(rpl_signal_concat_all(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_concat_all") != NULL);
    rpl_error_t *err = test_error(1);
    CHECK(rpl_signal_concat_all((rpl_signal_t *)err) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(err);
}

/* -------------------------------------------------------------- concat_map */
typedef struct {
    int calls;
    int released;
    rpl_signal_t *inner;     /* returned (retained) for values >= 100 */
    int64_t fail_at;         /* rpl_callback_fail at this value (and return a signal) */
    int64_t bad_at;          /* return a non-signal handle at this value */
    int64_t nil_at;          /* return NULL at this value */
    int returned_released;   /* releases of the signals returned at fail_at */
} cm_ctx;
static void cm_release(void *ctx) { ((cm_ctx *)ctx)->released++; }
static void cm_returned_release(void *ctx) { ((cm_ctx *)ctx)->returned_released++; }
static rpl_disposable_t *nothing(void *ctx, rpl_subscriber_t *s) { (void)ctx; (void)s; return NULL; }

static rpl_signal_t *cm_fn(void *ctx, const rpl_value *v) {
    cm_ctx *c = ctx;
    int64_t x = rpl_value_int(v);
    c->calls++;
    if (x == c->fail_at) {
        CHECK_EQ_INT(rpl_callback_fail(test_error(x)), RPL_OK);
        return rpl_signal_create(nothing, c, cm_returned_release);  /* discarded */
    }
    if (x == c->bad_at) return (rpl_signal_t *)rpl_error_create(NULL, 0, "not a signal");
    if (x == c->nil_at) return NULL;
    if (x >= 100 && c->inner) return rpl_retain(c->inner);
    return x % 2 ? created_int(x * 10) : rpl_signal_return(rpl_int(x * 10));
}

static void test_concat_map(void) {
    src_t a, in;
    rec_t r;
    cm_ctx c;
    memset(&c, 0, sizeof c);
    c.nil_at = 3;
    rpl_signal_t *sa = src_make(&a, "1 2 3 4 C");
    rpl_signal_t *s = rpl_signal_concat_map(sa, cm_fn, &c, cm_release);
    CHECK(s != NULL);
    CHECK_STR(rec_run(s, &r), "10 20 40 C");          /* NULL: empty */
    CHECK_EQ_INT(c.calls, 4);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(s);
    rpl_release(sa);
    drop(&a);
    CHECK_EQ_INT(c.released, 1);                      /* once, after the signal went */

    /* Rule 27: fn runs when the outer value arrives, not when its inner
       starts; inners run one after the other, in order. */
    memset(&c, 0, sizeof c);
    sa = src_make(&a, NULL);
    c.inner = src_make(&in, NULL);
    s = rpl_signal_concat_map(sa, cm_fn, &c, cm_release);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    src_send(&a, 0, "100 101 1");
    CHECK_EQ_INT(c.calls, 3);                         /* all three called */
    CHECK_EQ_INT(in.nsubs, 1);                        /* one inner runs */
    src_send(&in, 0, "5 C");
    CHECK_EQ_INT(in.nsubs, 2);
    src_send(&a, 0, "C");
    src_send(&in, 1, "6");
    CHECK_STR(r.log, "5 6");
    src_send(&in, 1, "C");                            /* then 1 -> created 10 */
    CHECK_STR(r.log, "5 6 10 C");
    CHECK_EQ_INT(a.disposed, 1);
    rpl_release(d);
    drop(&a); drop(&in);

    /* rpl_callback_fail from fn: fails at once with that error, the returned
       signal is released, the source and the running inner are disposed. */
    c.fail_at = 7;
    d = play(s, &r, &a, "100 101 7 2", "E7");
    CHECK_EQ_INT(c.calls, 6);                         /* 2 never reached fn */
    CHECK_EQ_INT(c.returned_released, 1);
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(in.disposed, 1);
    CHECK_EQ_INT(in.nsubs, 1);                        /* the waiting 101 never started */
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    drop(&a); drop(&in);

    /* A returned handle that is not a signal: RPL_ERROR_CALLBACK at once. */
    c.bad_at = 8;
    d = play(s, &r, &a, "100 8", "E3");
    CHECK_EQ_INT(r.error_code, RPL_ERROR_CALLBACK);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(in.disposed, 1);
    rpl_release(d);
    drop(&a); drop(&in);

    /* Source error, inner error, disposal. */
    d = play(s, &r, &a, "100 E4", "E4");
    CHECK_EQ_INT(in.disposed, 1);
    rpl_release(d);
    drop(&a); drop(&in);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "100 1");
    src_send(&in, 0, "E5");
    CHECK_STR(r.log, "E5");
    CHECK_EQ_INT(a.disposed, 1);
    rpl_release(d);
    drop(&a); drop(&in);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "100");
    dispose_reaches(d, &r, &a, &in);

    /* Rule 6a; the context lives while a subscription can call fn. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "100");
    rpl_release(d);
    rpl_release(s);
    CHECK_EQ_INT(c.released, 0);
    drop(&a);
    CHECK_EQ_INT(r.released, 0);                      /* the inner can still send */
    drop(&in);
    CHECK_EQ_INT(r.released, 1);
    CHECK_EQ_INT(c.released, 1);

    /* Name. */
    rpl_release(c.inner);
    memset(&c, 0, sizeof c);
    rpl_signal_set_name(sa, "src");
    s = rpl_signal_concat_map(sa, cm_fn, &c, cm_release);
    check_name(s, "[src] -concatMap:");
    rpl_release(s);
    CHECK_EQ_INT(c.released, 1);

    /* Bad input: release(ctx) runs once, at once. */
    memset(&c, 0, sizeof c);
    CHECK(rpl_signal_concat_map(NULL, cm_fn, &c, cm_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_concat_map") != NULL);
    CHECK(rpl_signal_concat_map(sa, NULL, &c, cm_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_error_t *e = test_error(1);
    CHECK(rpl_signal_concat_map((rpl_signal_t *)e, cm_fn, &c, cm_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(e);
    CHECK_EQ_INT(c.released, 3);
    CHECK_EQ_INT(c.calls, 0);
    rpl_release(sa);
}

/* --------------------------------------------------------- switch_if_empty */
static void test_switch_if_empty(void) {
    src_t a, b;
    rec_t r;
    rpl_signal_t *sa = src_make(&a, NULL), *sb = src_make(&b, NULL);
    rpl_signal_t *s = rpl_signal_switch_if_empty(sa, sb);
    CHECK(s != NULL);

    /* Empty: other's events, other subscribed only then. */
    rpl_disposable_t *d = rec_subscribe(s, &r);
    CHECK_EQ_INT(b.nsubs, 0);
    src_send(&a, 0, "C");
    CHECK_EQ_INT(b.nsubs, 1);
    CHECK_EQ_INT(a.disposed, 1);
    src_send(&b, 0, "7 8 C");
    CHECK_STR(r.log, "7 8 C");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    drop(&a); drop(&b);

    /* Values: they pass, other is never subscribed. */
    d = play(s, &r, &a, "1 2 C", "1 2 C");
    CHECK_EQ_INT(b.nsubs, 0);
    rpl_release(d);
    drop(&a);

    /* An error of sig ends it (even with no value), other never subscribed. */
    d = play(s, &r, &a, "E4", "E4");
    CHECK_EQ_INT(b.nsubs, 0);
    rpl_release(d);
    drop(&a);

    /* Disposal reaches sig, or other once it runs. */
    d = rec_subscribe(s, &r);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(a.disposed, 1);
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    drop(&a);
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "C");
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(b.disposed, 1);
    rpl_release(d);
    drop(&a); drop(&b);

    /* Synchronous inputs; each subscription decides afresh. */
    rpl_signal_t *e = rpl_signal_empty(), *nine = rpl_signal_return(rpl_int(9));
    rpl_signal_t *s2 = rpl_signal_switch_if_empty(e, nine);
    check_twice_log(s2, "9 C");
    rpl_signal_t *s3 = rpl_signal_switch_if_empty(nine, e);
    check_twice_log(s3, "9 C");
    rpl_release(s2);
    rpl_release(s3);

    /* Rule 6a. */
    d = rec_subscribe(s, &r);
    src_send(&a, 0, "C");
    freed_with_sources(d, &r, &a, &b);

    rpl_signal_set_name(sa, "src");
    rpl_signal_set_name(sb, "other");
    check_name(s, "[src] -switchIfEmpty: [other]");

    check_pair_bad_input(rpl_signal_switch_if_empty);
    CHECK(rpl_signal_switch_if_empty(sa, NULL) == NULL);
    CHECK(strstr(rpl_last_error_message(), "other") != NULL);  /* names the argument */

    rpl_release(s);
    rpl_release(e); rpl_release(nine);
    rpl_release(sa); rpl_release(sb);
    CHECK_EQ_INT(a.released + b.released, 2);
}

/* ---------------------------------------------------------------------- if */
static void send_bool(src_t *src, bool b) { rpl_subscriber_send_next(src->subs[0], rpl_bool(b)); }

static void test_if(void) {
    src_t k, t, f;
    rec_t r;
    rpl_signal_t *sk = src_make(&k, NULL), *st = src_make(&t, NULL), *sf = src_make(&f, NULL);
    rpl_signal_t *s = rpl_signal_if(sk, st, sf);
    CHECK(s != NULL);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    CHECK_EQ_INT(t.nsubs + f.nsubs, 0);               /* nothing before a condition */
    send_bool(&k, true);
    CHECK_EQ_INT(t.nsubs, 1);
    src_send(&t, 0, "1");
    send_bool(&k, false);                              /* then is disposed */
    CHECK_EQ_INT(t.disposed, 1);
    CHECK_EQ_INT(f.nsubs, 1);
    src_send(&t, 0, "9");                              /* ignored */
    src_send(&f, 0, "2");
    send_bool(&k, false);                              /* the same choice: subscribed afresh (RAC) */
    CHECK_EQ_INT(f.disposed, 1);
    CHECK_EQ_INT(f.nsubs, 2);
    src_send(&f, 1, "3");
    src_send(&k, 0, "C");                              /* the latest still runs */
    CHECK_STR(r.log, "1 2 3");
    src_send(&f, 1, "C");
    CHECK_STR(r.log, "1 2 3 C");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    drop(&k); drop(&t); drop(&f);

    /* Errors of the condition or of the signal followed end everything. */
    d = rec_subscribe(s, &r);
    send_bool(&k, true);
    src_send(&k, 0, "E4");
    CHECK_STR(r.log, "E4");
    CHECK_EQ_INT(t.disposed, 1);
    rpl_release(d);
    drop(&k); drop(&t);
    d = rec_subscribe(s, &r);
    send_bool(&k, true);
    src_send(&t, 0, "E5");
    CHECK_STR(r.log, "E5");
    CHECK_EQ_INT(k.disposed, 1);
    rpl_release(d);
    drop(&k); drop(&t);

    /* A condition value that is not a bool fails with RPL_ERROR_TYPE. */
    d = rec_subscribe(s, &r);
    send_bool(&k, true);
    rpl_subscriber_send_next(k.subs[0], rpl_int(1));
    CHECK_FAILED(r, RPL_ERROR_TYPE);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    CHECK_EQ_INT(t.disposed, 1);
    CHECK_EQ_INT(k.disposed, 1);
    rpl_release(d);
    drop(&k); drop(&t);
    d = rec_subscribe(s, &r);
    rpl_subscriber_send_next(k.subs[0], rpl_nil());
    CHECK_FAILED(r, RPL_ERROR_TYPE);
    rpl_release(d);
    drop(&k);

    /* Disposal reaches the condition and the signal followed. */
    d = rec_subscribe(s, &r);
    send_bool(&k, false);
    dispose_reaches(d, &r, &k, &f);

    /* Rule 6a. */
    d = rec_subscribe(s, &r);
    send_bool(&k, true);
    freed_with_sources(d, &r, &k, &t);

    /* Synchronous: a condition that completes at once after one value. */
    rpl_signal_t *yes = rpl_signal_return(rpl_bool(true));
    rpl_signal_t *one = rpl_signal_return(rpl_int(1)), *two = rpl_signal_return(rpl_int(2));
    rpl_signal_t *s2 = rpl_signal_if(yes, one, two);
    check_twice_log(s2, "1 C");
    rpl_release(s2);

    rpl_signal_set_name(sk, "c");
    rpl_signal_set_name(st, "t");
    rpl_signal_set_name(sf, "f");
    check_name(s, "+if:then:else: ([c], [t], [f])");

    rpl_error_t *err = test_error(1);
    CHECK(rpl_signal_if(NULL, st, sf) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_if(sk, NULL, sf) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "then") != NULL);
    CHECK(rpl_signal_if(sk, st, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "else") != NULL);
    CHECK(rpl_signal_if((rpl_signal_t *)err, st, sf) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_if(sk, (rpl_signal_t *)err, sf) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_if(sk, st, (rpl_signal_t *)err) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(err);

    rpl_release(s);
    rpl_release(yes); rpl_release(one); rpl_release(two);
    rpl_release(sk); rpl_release(st); rpl_release(sf);
    CHECK_EQ_INT(k.released + t.released + f.released, 3);
}

/* ------------------------------------------------------------ switch_cases */
static int key_dtor_calls;
static void key_dtor(void *p) { (void)p; key_dtor_calls++; }
static rpl_value unlisted_value(void) {
    rpl_value v;
    memset(&v, 0, sizeof v);
    v.type = 99;
    return v;
}

static void test_switch_cases(void) {
    src_t k, c0, c1, df;
    rec_t r;
    rpl_signal_t *sk = src_make(&k, NULL);
    rpl_signal_t *s0 = src_make(&c0, NULL), *s1 = src_make(&c1, NULL), *sd = src_make(&df, NULL);
    rpl_signal_t *cases[] = {s0, s1};
    rpl_value keys[] = {rpl_int(1), rpl_string("one")};
    rpl_signal_t *s = rpl_signal_switch_cases(sk, keys, cases, 2, sd);
    CHECK(s != NULL);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    rpl_subscriber_send_next(k.subs[0], rpl_int(1));
    CHECK_EQ_INT(c0.nsubs, 1);
    src_send(&c0, 0, "10");
    rpl_subscriber_send_next(k.subs[0], rpl_string("one"));  /* equal contents, another string */
    CHECK_EQ_INT(c0.disposed, 1);
    CHECK_EQ_INT(c1.nsubs, 1);
    src_send(&c1, 0, "11");
    rpl_subscriber_send_next(k.subs[0], rpl_double(1.0));  /* not the int 1: the default */
    CHECK_EQ_INT(c1.disposed, 1);
    CHECK_EQ_INT(df.nsubs, 1);
    src_send(&df, 0, "12");
    rpl_subscriber_send_next(k.subs[0], rpl_nil());         /* no nil key: the default again */
    CHECK_EQ_INT(df.nsubs, 2);
    src_send(&k, 0, "C");
    src_send(&df, 1, "13 C");
    CHECK_STR(r.log, "10 11 12 13 C");
    CHECK_EQ_INT(r.released, 1);
    rpl_release(d);
    drop(&k); drop(&c0); drop(&c1); drop(&df);

    /* Errors of the key signal or of the case followed end everything. */
    d = rec_subscribe(s, &r);
    rpl_subscriber_send_next(k.subs[0], rpl_int(1));
    src_send(&c0, 0, "E6");
    CHECK_STR(r.log, "E6");
    CHECK_EQ_INT(k.disposed, 1);
    rpl_release(d);
    drop(&k); drop(&c0);
    d = rec_subscribe(s, &r);
    rpl_subscriber_send_next(k.subs[0], rpl_int(1));
    src_send(&k, 0, "E7");
    CHECK_STR(r.log, "E7");
    CHECK_EQ_INT(c0.disposed, 1);
    rpl_release(d);
    drop(&k); drop(&c0);

    /* Disposal reaches the key signal and the case followed. */
    d = rec_subscribe(s, &r);
    rpl_subscriber_send_next(k.subs[0], rpl_string("one"));
    dispose_reaches(d, &r, &k, &c1);

    /* Rule 6a. */
    d = rec_subscribe(s, &r);
    rpl_subscriber_send_next(k.subs[0], rpl_int(1));
    freed_with_sources(d, &r, &k, &c0);

    rpl_signal_set_name(sk, "k");
    rpl_signal_set_name(s0, "a");
    rpl_signal_set_name(s1, "b");
    rpl_signal_set_name(sd, "d");
    check_name(s, "+switch:cases:default: ([k], [a], [b], [d])");
    rpl_release(s);

    /* No default: an unknown key fails with RPL_ERROR_NO_MATCHING_CASE
       (rule 27); nil, tuple and pointer keys match by value. */
    rpl_value tk_items[] = {rpl_int(1), rpl_string("x")};
    rpl_value tuple_key = rpl_tuple(tk_items, 2);
    int token = 0;
    rpl_value keys2[] = {rpl_nil(), tuple_key, rpl_pointer(&token, key_dtor)};
    rpl_signal_t *one = rpl_signal_return(rpl_int(1));
    rpl_signal_t *cases2[] = {s0, one, s1};
    key_dtor_calls = 0;
    s = rpl_signal_switch_cases(sk, keys2, cases2, 3, NULL);
    CHECK(s != NULL);
    check_name(s, "+switch:cases:default: ([k], [a], [+return:], [b])");
    d = rec_subscribe(s, &r);
    rpl_subscriber_send_next(k.subs[0], rpl_nil());
    CHECK_EQ_INT(c0.nsubs, 1);
    rpl_value tk2_items[] = {rpl_int(1), rpl_string("x")};
    rpl_subscriber_send_next(k.subs[0], rpl_tuple(tk2_items, 2));
    CHECK_EQ_INT(c0.disposed, 1);
    rpl_subscriber_send_next(k.subs[0], rpl_pointer(&token, NULL));
    CHECK_EQ_INT(c1.nsubs, 1);
    rpl_subscriber_send_next(k.subs[0], rpl_int(2));
    CHECK_FAILED(r, RPL_ERROR_NO_MATCHING_CASE);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    CHECK_STR(r.log, "1 E6");
    CHECK_EQ_INT(k.disposed, 1);
    CHECK_EQ_INT(c1.disposed, 1);
    rpl_release(d);
    drop(&k); drop(&c0); drop(&c1);
    CHECK_EQ_INT(key_dtor_calls, 0);
    rpl_release(s);
    CHECK_EQ_INT(key_dtor_calls, 1);                   /* the keys go with the signal */

    /* No cases at all: every key goes to the default. */
    rpl_signal_t *k7 = rpl_signal_return(rpl_int(7));
    rpl_signal_t *two = rpl_signal_return(rpl_int(2));
    s = rpl_signal_switch_cases(k7, NULL, NULL, 0, two);
    check_twice_log(s, "2 C");
    rpl_release(s);
    s = rpl_signal_switch_cases(k7, NULL, NULL, 0, NULL);
    CHECK_STR(rec_run(s, &r), "E6");
    rpl_release(s);
    rpl_release(k7);
    rpl_release(two);

    /* Bad input. Keys are consumed, also on failure: the pointer key's
       destructor runs each time. */
    rpl_error_t *err = test_error(1);
#define BAD(call, status) do { \
        key_dtor_calls = 0; \
        rpl_value bk_[] = {rpl_int(1), rpl_pointer(&token, key_dtor)}; \
        rpl_value *keys_ = bk_; (void)keys_; \
        CHECK((call) == NULL); \
        CHECK_EQ_INT(rpl_last_error(), (status)); \
        CHECK(strstr(rpl_last_error_message(), "rpl_signal_switch_cases") != NULL); \
        CHECK_EQ_INT(key_dtor_calls, 1); \
    } while (0)
    rpl_signal_t *bad_entry[] = {s0, NULL};
    rpl_signal_t *wrong_entry[] = {s0, (rpl_signal_t *)err};
    BAD(rpl_signal_switch_cases(NULL, keys_, cases, 2, sd), RPL_ERR_NULL);
    BAD(rpl_signal_switch_cases((rpl_signal_t *)err, keys_, cases, 2, sd), RPL_ERR_KIND);
    BAD(rpl_signal_switch_cases(sk, keys_, NULL, 2, sd), RPL_ERR_NULL);
    BAD(rpl_signal_switch_cases(sk, keys_, bad_entry, 2, sd), RPL_ERR_NULL);
    BAD(rpl_signal_switch_cases(sk, keys_, wrong_entry, 2, sd), RPL_ERR_KIND);
    BAD(rpl_signal_switch_cases(sk, keys_, cases, 2, (rpl_signal_t *)err), RPL_ERR_KIND);
    /* A repeated key (equal by value): RPL_ERR_INVALID. */
    key_dtor_calls = 0;
    rpl_value dup[] = {rpl_string("a"), rpl_pointer(&token, key_dtor), rpl_string("a")};
    rpl_signal_t *cases3[] = {s0, s1, sd};
    CHECK(rpl_signal_switch_cases(sk, dup, cases3, 3, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK_EQ_INT(key_dtor_calls, 1);
    key_dtor_calls = 0;
    rpl_value dup2[] = {rpl_int(3), rpl_int(3), rpl_pointer(&token, key_dtor)};
    CHECK(rpl_signal_switch_cases(sk, dup2, cases3, 3, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK_EQ_INT(key_dtor_calls, 1);
    /* A key of a type rpl_type does not list (rule 19a). */
    key_dtor_calls = 0;
    rpl_value odd[] = {rpl_pointer(&token, key_dtor), unlisted_value()};
    CHECK(rpl_signal_switch_cases(sk, odd, cases, 2, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK_EQ_INT(key_dtor_calls, 1);
    /* A count no array can have: nothing is read. */
    CHECK(rpl_signal_switch_cases(sk, NULL, NULL, SIZE_MAX, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    /* keys NULL with a count. */
    CHECK(rpl_signal_switch_cases(sk, NULL, cases, 2, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "keys") != NULL);
    rpl_release(err);

    rpl_release(one);
    rpl_release(sk); rpl_release(s0); rpl_release(s1); rpl_release(sd);
    CHECK_EQ_INT(k.released + c0.released + c1.released + df.released, 4);
}

int main(void) {
    RUN(test_flatten_max_one);
    RUN(test_flatten_max_limit);
    RUN(test_flatten_max_sync);
    RUN(test_flatten_max_threads);
    RUN(test_flatten_max_bad_input);
    RUN(test_concat_all);
    RUN(test_concat_map);
    RUN(test_switch_if_empty);
    RUN(test_if);
    RUN(test_switch_cases);
    CHECK_DONE();
}
