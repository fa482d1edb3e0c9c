/* The shim's one policy (issue 9): rule 19a at every value-taking entry
   point, one rule for handles a callback returns, error messages that name
   the function called, and callback contexts released exactly once on
   every failure path. */
#include "check.h"
#include <ripple.h>
#include <stdint.h>

/* ---- Forged values ------------------------------------------------------
   Types no constructor makes: the replay subject's join tag, the
   multi-input completion marker, an arbitrary one, and the first tag past
   the listed ones. The payload is a bogus box pointer: using it as a box
   would crash. */
static const uint32_t forged_types[] = { 0xFFFF0001u, 0x7250C0DEu, 99u, RPL_TYPE_EVENT + 1 };
#define N_FORGED (sizeof forged_types / sizeof forged_types[0])

static rpl_value forged(uint32_t type) {
    rpl_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    v.as.box_ = (void *)(uintptr_t)0xDEADBEEF0;
    return v;
}

/* The join marker exactly as the replay subject makes it, and the
   completion marker of input 0 and 1 (their payload is the input index). */
static rpl_value forged_bits(uint32_t type, uint64_t bits) {
    rpl_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    v.as.i = (int64_t)bits;
    return v;
}

/* Leaves a different error behind, so a check of the last error proves the
   call under test set it. */
static void prime(void) { (void)rpl_subject_send_completed(NULL); }

/* The last error is `status` and its message starts with "name:". */
static int named(const char *name) {
    const char *m = rpl_last_error_message();
    size_t n = strlen(name);
    return strncmp(m, name, n) == 0 && m[n] == ':';
}
#define CHECK_NAMED(name) do { \
    if (named(name)) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: message \"%s\" does not name %s\n", \
                                   __FILE__, __LINE__, rpl_last_error_message(), name); } \
} while (0)
#define CHECK_REFUSED(name) do { CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID); CHECK_NAMED(name); } while (0)

/* ---- A small recorder -------------------------------------------------- */
typedef struct {
    int n, completed, errors, released;
    int64_t ints[64];
    int64_t error_code;
    char error_domain[32];
    char error_message[256];
    rpl_value last;
} rec_t;

static void r_next(void *ctx, const rpl_value *v) {
    rec_t *r = ctx;
    if (r->n < 64) r->ints[r->n] = rpl_value_int(v);
    r->n++;
    rpl_value_release(&r->last);
    r->last = rpl_value_copy(v);
}
static void r_error(void *ctx, const rpl_error_t *e) {
    rec_t *r = ctx;
    r->errors++;
    r->error_code = rpl_error_code(e);
    snprintf(r->error_domain, sizeof r->error_domain, "%s", rpl_error_domain(e));
    snprintf(r->error_message, sizeof r->error_message, "%s", rpl_error_message(e));
}
static void r_completed(void *ctx) { ((rec_t *)ctx)->completed++; }
static void r_release(void *ctx) { ((rec_t *)ctx)->released++; }
static rpl_disposable_t *r_sub(void *sig, rec_t *r) {
    rpl_observer o = observer_of(r_next, r_error, r_completed, r_release, r);
    return rpl_signal_subscribe((rpl_signal_t *)sig, &o);
}
static void r_done(rec_t *r) { rpl_value_release(&r->last); }

/* The subscription failed with a ripple-domain RPL_ERROR_CALLBACK error whose
   message names `fn`. */
#define CHECK_CALLBACK_ERROR(r, fn) do { \
    CHECK_EQ_INT((r)->errors, 1); \
    CHECK_EQ_INT((r)->error_code, RPL_ERROR_CALLBACK); \
    CHECK(strcmp((r)->error_domain, RPL_ERROR_DOMAIN) == 0); \
    CHECK(strncmp((r)->error_message, fn, strlen(fn)) == 0 && (r)->error_message[strlen(fn)] == ':'); \
} while (0)

/* ---- Counting contexts ------------------------------------------------- */
static int releases;
static void count_release(void *ctx) { (void)ctx; releases++; }
static int dtors;
static void count_dtor(void *p) { (void)p; dtors++; }
/* A release that itself fails a call: the failed call's error must survive. */
static void clobbering_release(void *ctx) {
    (void)ctx;
    releases++;
    (void)rpl_subscriber_send_completed(NULL);
}

static rpl_value map_id(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_copy(v); }
static bool pred_true(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return true; }
static rpl_value reduce_add(void *ctx, const rpl_value *a, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(a) + rpl_value_int(v));
}
static void do_next_nop(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static void do_error_nop(void *ctx, const rpl_error_t *e) { (void)ctx; (void)e; }
static void do_completed_nop(void *ctx) { (void)ctx; }
static void work_nop(void *ctx) { (void)ctx; }
static rpl_disposable_t *subscribe_nop(void *ctx, rpl_subscriber_t *s) { (void)ctx; (void)s; return NULL; }
static rpl_signal_t *bind_empty(void *ctx, const rpl_value *v, bool *stop) {
    (void)ctx; (void)v; (void)stop;
    return rpl_signal_empty();
}
static rpl_signal_t *flat_empty(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return rpl_signal_empty(); }
static rpl_signal_t *catch_empty(void *ctx, const rpl_error_t *e) { (void)ctx; (void)e; return rpl_signal_empty(); }
static rpl_signal_t *factory_empty(void *ctx) { (void)ctx; return rpl_signal_empty(); }

/* ---- A source whose subscriber the test drives by hand ----------------- */
typedef struct { rpl_subscriber_t *sub[4]; int n; } captured_t;
static rpl_disposable_t *capture(void *ctx, rpl_subscriber_t *s) {
    captured_t *c = ctx;
    c->sub[c->n++] = rpl_retain(s);
    return NULL;
}
static void captured_done(captured_t *c) {
    for (int i = 0; i < c->n; i++) rpl_release(c->sub[i]);
}

/* ======================================================================= */
/* Rule 19a: by-value arguments                                            */
/* ======================================================================= */

static void test_forged_into_subscriber(void) {
    captured_t c = {0};
    rpl_signal_t *src = rpl_signal_create(capture, &c, NULL);
    rec_t r = {0};
    rpl_disposable_t *d = r_sub(src, &r);
    CHECK_EQ_INT(c.n, 1);
    for (size_t i = 0; i < N_FORGED; i++) {
        prime();
        CHECK_EQ_INT(rpl_subscriber_send_next(c.sub[0], forged(forged_types[i])), RPL_ERR_INVALID);
        CHECK_REFUSED("rpl_subscriber_send_next");
    }
    CHECK_EQ_INT(r.n, 0);
    CHECK(!rpl_subscriber_is_disposed(c.sub[0]));
    /* Still usable: the next real value and the completion arrive. */
    CHECK_EQ_INT(rpl_subscriber_send_next(c.sub[0], rpl_int(7)), RPL_OK);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.ints[0], 7);
    CHECK_EQ_INT(rpl_subscriber_send_completed(c.sub[0]), RPL_OK);
    CHECK_EQ_INT(r.completed, 1);
    /* A bad handle is reported before a bad value. */
    prime();
    CHECK_EQ_INT(rpl_subscriber_send_next(NULL, forged(99)), RPL_ERR_NULL);
    CHECK_NAMED("rpl_subscriber_send_next");
    CHECK_EQ_INT(rpl_subscriber_send_next((rpl_subscriber_t *)src, forged(99)), RPL_ERR_KIND);
    CHECK_NAMED("rpl_subscriber_send_next");
    /* A real value is still consumed when the call fails. */
    dtors = 0;
    CHECK_EQ_INT(rpl_subscriber_send_next(NULL, rpl_pointer(NULL, count_dtor)), RPL_ERR_NULL);
    CHECK_EQ_INT(dtors, 1);
    rpl_release(d);
    captured_done(&c);
    rpl_release(src);
    r_done(&r);
}

/* Plain, replay and behavior subjects refuse forged values and go on. */
static void test_forged_into_subjects(void) {
    rpl_subject_t *subjects[3] = { rpl_subject_create(), rpl_replay_subject_create(RPL_REPLAY_UNLIMITED),
                                   rpl_behavior_subject_create(rpl_int(0)) };
    for (int k = 0; k < 3; k++) {
        rpl_subject_t *s = subjects[k];
        rec_t r = {0};
        rpl_disposable_t *d = r_sub(s, &r);
        int base = r.n;  /* the behavior subject's current value */
        for (size_t i = 0; i < N_FORGED; i++) {
            prime();
            CHECK_EQ_INT(rpl_subject_send_next(s, forged(forged_types[i])), RPL_ERR_INVALID);
            CHECK_REFUSED("rpl_subject_send_next");
        }
        /* The replay join marker exactly as the runtime makes it. */
        CHECK_EQ_INT(rpl_subject_send_next(s, forged_bits(0xFFFF0001u, 0x4A4F494E4A4F494Eull)), RPL_ERR_INVALID);
        CHECK_EQ_INT(r.n, base);
        CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(1)), RPL_OK);
        CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(2)), RPL_OK);
        CHECK_EQ_INT(r.n, base + 2);
        CHECK_EQ_INT(r.ints[base], 1);
        CHECK_EQ_INT(r.ints[base + 1], 2);
        /* A late subscriber sees only real values: the replay subject's two,
           the behavior subject's current one. */
        rec_t late = {0};
        rpl_disposable_t *dl = r_sub(s, &late);
        CHECK_EQ_INT(late.n, k == 0 ? 0 : k == 1 ? 2 : 1);
        if (k == 2) {
            rpl_value cur = rpl_nil();
            CHECK_EQ_INT(rpl_behavior_subject_value(s, &cur), RPL_OK);
            CHECK_EQ_INT(rpl_value_int(&cur), 2);
        }
        CHECK_EQ_INT(rpl_subject_send_completed(s), RPL_OK);
        CHECK_EQ_INT(r.completed, 1);
        CHECK_EQ_INT(late.completed, 1);
        CHECK_EQ_INT(r.errors + late.errors, 0);
        /* After the terminal event a forged value is still refused. */
        CHECK_EQ_INT(rpl_subject_send_next(s, forged(99)), RPL_ERR_INVALID);
        rpl_release(d);
        rpl_release(dl);
        r_done(&r);
        r_done(&late);
        rpl_release(s);
    }
    prime();
    CHECK_EQ_INT(rpl_subject_send_next(NULL, forged(99)), RPL_ERR_NULL);
    CHECK_NAMED("rpl_subject_send_next");
    dtors = 0;
    CHECK_EQ_INT(rpl_subject_send_next(NULL, rpl_pointer(NULL, count_dtor)), RPL_ERR_NULL);
    CHECK_EQ_INT(dtors, 1);
}

/* Two sources whose subscribers the test drives, as inputs of an operator. */
typedef struct { captured_t c[2]; rpl_signal_t *in[2]; } inputs_t;
static void inputs_open(inputs_t *p) {
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 2; i++) p->in[i] = rpl_signal_create(capture, &p->c[i], NULL);
}
static rpl_subscriber_t *input(inputs_t *p, int i) { return p->c[i].sub[0]; }
static void inputs_close(inputs_t *p) {
    for (int i = 0; i < 2; i++) {
        captured_done(&p->c[i]);
        rpl_release(p->in[i]);
    }
}

/* v is the tuple (a, b). */
static void check_pair(const rpl_value *v, int64_t a, int64_t b) {
    CHECK_EQ_INT(rpl_value_type(v), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(v), 2);
    rpl_value x = rpl_value_tuple_at(v, 0), y = rpl_value_tuple_at(v, 1);
    CHECK_EQ_INT(rpl_value_int(&x), a);
    CHECK_EQ_INT(rpl_value_int(&y), b);
    rpl_value_release(&x);
    rpl_value_release(&y);
}

/* zip over hand-driven subscribers and over subjects: forged values (the
   completion marker of input 0 and 1 among them) are refused, and zip
   keeps pairing the real ones. */
static void test_forged_into_zip(void) {
    inputs_t p;
    inputs_open(&p);
    rpl_signal_t *z = rpl_signal_zip(p.in, 2);
    rec_t r = {0};
    rpl_disposable_t *d = r_sub(z, &r);
    CHECK_EQ_INT(p.c[0].n + p.c[1].n, 2);
    for (size_t i = 0; i < N_FORGED; i++) {
        CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 0), forged(forged_types[i])), RPL_ERR_INVALID);
        CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 1), forged(forged_types[i])), RPL_ERR_INVALID);
    }
    for (uint64_t k = 0; k < 2; k++) {
        CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 0), forged_bits(0x7250C0DEu, k)), RPL_ERR_INVALID);
        CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 1), forged_bits(0x7250C0DEu, k)), RPL_ERR_INVALID);
    }
    CHECK_EQ_INT(r.n + r.completed + r.errors, 0);
    rpl_subscriber_send_next(input(&p, 0), rpl_int(1));
    rpl_subscriber_send_next(input(&p, 0), rpl_int(2));
    rpl_subscriber_send_next(input(&p, 1), rpl_int(10));
    CHECK_EQ_INT(r.n, 1);
    check_pair(&r.last, 1, 10);
    CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 1), forged(0x7250C0DEu)), RPL_ERR_INVALID);
    rpl_subscriber_send_next(input(&p, 1), rpl_int(20));
    CHECK_EQ_INT(r.n, 2);
    check_pair(&r.last, 2, 20);
    CHECK_EQ_INT(r.completed + r.errors, 0);
    rpl_subscriber_send_completed(input(&p, 0));
    CHECK_EQ_INT(r.completed, 1);
    rpl_release(d);
    rpl_release(z);
    inputs_close(&p);
    r_done(&r);

    /* Inputs that are subjects. */
    rpl_subject_t *sa = rpl_subject_create(), *sb = rpl_subject_create();
    rpl_signal_t *sin[2] = { (rpl_signal_t *)sa, (rpl_signal_t *)sb };
    z = rpl_signal_zip(sin, 2);
    rec_t rs = {0};
    d = r_sub(z, &rs);
    for (size_t i = 0; i < N_FORGED; i++) {
        CHECK_EQ_INT(rpl_subject_send_next(sa, forged(forged_types[i])), RPL_ERR_INVALID);
        CHECK_EQ_INT(rpl_subject_send_next(sb, forged_bits(0x7250C0DEu, i & 1)), RPL_ERR_INVALID);
    }
    rpl_subject_send_next(sa, rpl_int(3));
    rpl_subject_send_next(sb, rpl_int(30));
    CHECK_EQ_INT(rs.n, 1);
    check_pair(&rs.last, 3, 30);
    CHECK_EQ_INT(rs.completed + rs.errors, 0);
    rpl_release(d);
    rpl_release(z);
    rpl_release(sa);
    rpl_release(sb);
    r_done(&rs);
}

/* merge and combine_latest: forged completion markers do not complete them
   early; values and the real completions still work. */
static void test_forged_into_merge_and_combine_latest(void) {
    for (int op = 0; op < 2; op++) {
        inputs_t p;
        inputs_open(&p);
        rpl_signal_t *m = op == 0 ? rpl_signal_merge(p.in, 2) : rpl_signal_combine_latest(p.in, 2);
        rec_t r = {0};
        rpl_disposable_t *d = r_sub(m, &r);
        for (uint64_t k = 0; k < 4; k++) {
            CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 0), forged_bits(0x7250C0DEu, k)), RPL_ERR_INVALID);
            CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 1), forged_bits(0x7250C0DEu, k)), RPL_ERR_INVALID);
        }
        for (size_t i = 0; i < N_FORGED; i++)
            CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 0), forged(forged_types[i])), RPL_ERR_INVALID);
        CHECK_EQ_INT(r.completed + r.errors + r.n, 0);
        rpl_subscriber_send_next(input(&p, 0), rpl_int(1));
        rpl_subscriber_send_next(input(&p, 1), rpl_int(2));
        CHECK_EQ_INT(r.n, op == 0 ? 2 : 1);
        rpl_subscriber_send_completed(input(&p, 0));
        CHECK_EQ_INT(rpl_subscriber_send_next(input(&p, 1), forged_bits(0x7250C0DEu, 1)), RPL_ERR_INVALID);
        CHECK_EQ_INT(r.completed, 0);
        rpl_subscriber_send_next(input(&p, 1), rpl_int(3));
        CHECK_EQ_INT(r.n, op == 0 ? 3 : 2);
        if (op == 0) CHECK_EQ_INT(r.ints[2], 3);
        else check_pair(&r.last, 1, 3);
        rpl_subscriber_send_completed(input(&p, 1));
        CHECK_EQ_INT(r.completed, 1);
        CHECK_EQ_INT(r.errors, 0);
        rpl_release(d);
        rpl_release(m);
        inputs_close(&p);
        r_done(&r);
    }
}

static void test_forged_constructor_arguments(void) {
    rpl_signal_t *never = rpl_signal_never();
    for (size_t i = 0; i < N_FORGED; i++) {
        rpl_value f = forged(forged_types[i]);
        prime();
        CHECK(rpl_signal_return(f) == NULL);
        CHECK_REFUSED("rpl_signal_return");
        prime();
        CHECK(rpl_behavior_subject_create(f) == NULL);
        CHECK_REFUSED("rpl_behavior_subject_create");
        prime();
        CHECK(rpl_signal_start_with(never, f) == NULL);
        CHECK_REFUSED("rpl_signal_start_with");

        releases = 0;
        prime();
        CHECK(rpl_signal_scan(never, f, reduce_add, NULL, count_release) == NULL);
        CHECK_REFUSED("rpl_signal_scan");
        CHECK_EQ_INT(releases, 1);
        prime();
        CHECK(rpl_signal_aggregate(never, f, reduce_add, NULL, count_release) == NULL);
        CHECK_REFUSED("rpl_signal_aggregate");
        CHECK_EQ_INT(releases, 2);

        prime();
        rpl_value ev = rpl_event_next(f);
        CHECK_REFUSED("rpl_event_next");
        CHECK_EQ_INT(rpl_value_type(&ev), RPL_TYPE_NIL);

        /* One forged item refuses the tuple; the real items are consumed. */
        dtors = 0;
        rpl_value items[3] = { rpl_int(1), rpl_pointer(NULL, count_dtor), f };
        prime();
        rpl_value t = rpl_tuple(items, 3);
        CHECK_REFUSED("rpl_tuple");
        CHECK_EQ_INT(rpl_value_type(&t), RPL_TYPE_NIL);
        CHECK_EQ_INT(dtors, 1);
    }
    /* Check order: the handle before the value. */
    prime();
    CHECK(rpl_signal_start_with(NULL, forged(99)) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK_NAMED("rpl_signal_start_with");
    releases = 0;
    CHECK(rpl_signal_scan(NULL, forged(99), reduce_add, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_scan(never, forged(99), NULL, NULL, count_release) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "fn") != NULL);
    CHECK_EQ_INT(releases, 2);
    /* Real initial values are consumed on those failures. */
    dtors = 0;
    CHECK(rpl_signal_scan(NULL, rpl_pointer(NULL, count_dtor), reduce_add, NULL, NULL) == NULL);
    CHECK(rpl_signal_aggregate(never, rpl_pointer(NULL, count_dtor), NULL, NULL, NULL) == NULL);
    CHECK(rpl_signal_start_with(NULL, rpl_pointer(NULL, count_dtor)) == NULL);
    CHECK_EQ_INT(dtors, 3);
    /* The objects stay usable: a real scan over a real source works. */
    rpl_signal_t *one = rpl_signal_return(rpl_int(5));
    rpl_signal_t *sc = rpl_signal_scan(one, rpl_int(1), reduce_add, NULL, NULL);
    rpl_value out = rpl_nil();
    CHECK_EQ_INT(rpl_signal_first(sc, &out, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT(rpl_value_int(&out), 6);
    rpl_release(sc);
    rpl_release(one);
    rpl_release(never);
}

/* ======================================================================= */
/* Rule 19a: values through a pointer                                      */
/* ======================================================================= */

static void test_forged_through_pointers(void) {
    rpl_value good = rpl_int(1);
    for (size_t i = 0; i < N_FORGED; i++) {
        rpl_value f = forged(forged_types[i]);
        size_t len = 123;
#define REFUSES(expr, expected, name) do { prime(); CHECK((expr) == (expected)); CHECK_REFUSED(name); } while (0)
        REFUSES(rpl_value_type(&f), RPL_TYPE_NIL, "rpl_value_type");
        REFUSES(rpl_value_bool(&f), false, "rpl_value_bool");
        REFUSES(rpl_value_int(&f), 0, "rpl_value_int");
        REFUSES(rpl_value_double(&f), 0.0, "rpl_value_double");
        REFUSES(rpl_value_string(&f, &len), NULL, "rpl_value_string");
        CHECK_EQ_INT(len, 0);
        REFUSES(rpl_value_bytes(&f, &len), NULL, "rpl_value_bytes");
        REFUSES(rpl_value_pointer(&f), NULL, "rpl_value_pointer");
        REFUSES(rpl_value_tuple_count(&f), 0, "rpl_value_tuple_count");
        REFUSES(rpl_value_signal(&f), NULL, "rpl_value_signal");
        REFUSES(rpl_value_event_kind(&f), -1, "rpl_value_event_kind");
        REFUSES(rpl_value_event_error(&f), NULL, "rpl_value_event_error");
        REFUSES(rpl_value_equal(&f, &good), false, "rpl_value_equal");
        REFUSES(rpl_value_equal(&good, &f), false, "rpl_value_equal");
        REFUSES(rpl_value_equal(&f, &f), false, "rpl_value_equal");
#undef REFUSES
        prime();
        rpl_value x = rpl_value_tuple_at(&f, 0);
        CHECK_REFUSED("rpl_value_tuple_at");
        CHECK_EQ_INT(rpl_value_type(&x), RPL_TYPE_NIL);
        prime();
        x = rpl_value_event_value(&f);
        CHECK_REFUSED("rpl_value_event_value");
        CHECK_EQ_INT(rpl_value_type(&x), RPL_TYPE_NIL);
        prime();
        x = rpl_value_copy(&f);
        CHECK_REFUSED("rpl_value_copy");
        CHECK_EQ_INT(rpl_value_type(&x), RPL_TYPE_NIL);
        /* release refuses and leaves the value alone (it is no box). */
        prime();
        rpl_value_release(&f);
        CHECK_REFUSED("rpl_value_release");
        CHECK_EQ_INT(f.type, forged_types[i]);
    }
    /* The listed types still read as before. */
    rpl_value s = rpl_string("hi");
    CHECK_EQ_INT(rpl_value_int(&good), 1);
    CHECK(strcmp(rpl_value_string(&s, NULL), "hi") == 0);
    CHECK(rpl_value_equal(&good, &good));
    rpl_value_release(&s);
    CHECK_EQ_INT(rpl_value_type(&s), RPL_TYPE_NIL);
}

/* ======================================================================= */
/* Handles returned by callbacks                                           */
/* ======================================================================= */

/* A handle whose freeing is visible: a signal or a disposable whose release
   counts into `freed`. */
static int freed, disposed;
static void count_freed(void *ctx) { (void)ctx; freed++; }
static void count_disposed(void *ctx) { (void)ctx; disposed++; }
static rpl_signal_t *counted_signal(void) { return rpl_signal_create(subscribe_nop, NULL, count_freed); }
static rpl_disposable_t *counted_disposable(void) {
    return rpl_disposable_create_with_release(count_disposed, NULL, count_freed);
}

static rpl_disposable_t *subscribe_returns_signal(void *ctx, rpl_subscriber_t *s) {
    (void)ctx; (void)s;
    return (rpl_disposable_t *)counted_signal();
}
static rpl_disposable_t *subscribe_returns_error(void *ctx, rpl_subscriber_t *s) {
    (void)ctx; (void)s;
    return (rpl_disposable_t *)rpl_error_create("x", 1, "not a disposable");
}
static rpl_disposable_t *subscribe_returns_subscription(void *ctx, rpl_subscriber_t *s) {
    (void)ctx; (void)s;
    rpl_signal_t *never = rpl_signal_never();
    rpl_observer o = RPL_OBSERVER_INIT;
    o.release = count_freed;
    rpl_disposable_t *d = rpl_signal_subscribe(never, &o);
    rpl_release(never);
    return d;
}
static rpl_signal_t *factory_returns_disposable(void *ctx) { (void)ctx; return (rpl_signal_t *)counted_disposable(); }
static rpl_signal_t *factory_returns_null(void *ctx) { (void)ctx; return NULL; }
static rpl_signal_t *bind_returns_disposable(void *ctx, const rpl_value *v, bool *stop) {
    (void)ctx; (void)v; (void)stop;
    return (rpl_signal_t *)counted_disposable();
}
static rpl_signal_t *flat_returns_disposable(void *ctx, const rpl_value *v) {
    (void)ctx; (void)v;
    return (rpl_signal_t *)counted_disposable();
}
static rpl_signal_t *catch_returns_disposable(void *ctx, const rpl_error_t *e) {
    (void)ctx; (void)e;
    return (rpl_signal_t *)counted_disposable();
}

static void test_wrong_kind_returned(void) {
    /* subscribe callback: a signal, or an error, where a disposable is due. */
    rpl_subscribe_fn wrong[2] = { subscribe_returns_signal, subscribe_returns_error };
    for (int i = 0; i < 2; i++) {
        freed = 0;
        rpl_signal_t *sig = rpl_signal_create(wrong[i], NULL, NULL);
        rec_t r = {0};
        rpl_disposable_t *d = r_sub(sig, &r);
        CHECK_CALLBACK_ERROR(&r, "rpl_signal_create");
        CHECK_EQ_INT(r.released, 1);
        CHECK_EQ_INT(freed, i == 0 ? 1 : 0);  /* the returned signal was released */
        rpl_release(d);
        rpl_release(sig);
        r_done(&r);
    }
    /* A subscription's disposable is a disposable: kept, disposed at the end. */
    freed = 0;
    rpl_signal_t *sig = rpl_signal_create(subscribe_returns_subscription, NULL, NULL);
    rec_t r = {0};
    rpl_disposable_t *d = r_sub(sig, &r);
    CHECK_EQ_INT(r.errors, 0);
    CHECK_EQ_INT(freed, 0);
    rpl_disposable_dispose(d);
    CHECK_EQ_INT(freed, 1);
    rpl_release(d);
    rpl_release(sig);
    r_done(&r);

    /* defer: a disposable where a signal is due, and NULL. */
    for (int i = 0; i < 2; i++) {
        freed = disposed = 0;
        sig = rpl_signal_defer(i == 0 ? factory_returns_disposable : factory_returns_null, NULL, NULL);
        rec_t rd = {0};
        d = r_sub(sig, &rd);
        CHECK_CALLBACK_ERROR(&rd, "rpl_signal_defer");
        CHECK_EQ_INT(freed, i == 0 ? 1 : 0);
        CHECK_EQ_INT(disposed, 0);  /* released, not disposed */
        rpl_release(d);
        rpl_release(sig);
        r_done(&rd);
    }

    /* bind, flatten_map, catch: a disposable where a signal is due. */
    rpl_signal_t *one = rpl_signal_return(rpl_int(1));
    rpl_signal_t *fail = rpl_signal_error(NULL);
    struct { rpl_signal_t *sig; const char *name; } ops[3] = {
        { rpl_signal_bind(one, bind_returns_disposable, NULL, NULL), "rpl_signal_bind" },
        { rpl_signal_flatten_map(one, flat_returns_disposable, NULL, NULL), "rpl_signal_flatten_map" },
        { rpl_signal_catch(fail, catch_returns_disposable, NULL, NULL), "rpl_signal_catch" },
    };
    for (int i = 0; i < 3; i++) {
        freed = disposed = 0;
        rec_t ro = {0};
        d = r_sub(ops[i].sig, &ro);
        CHECK_CALLBACK_ERROR(&ro, ops[i].name);
        CHECK_EQ_INT(ro.n, 0);
        CHECK_EQ_INT(freed, 1);
        CHECK_EQ_INT(disposed, 0);
        /* A second subscription fails the same way: the operator is usable. */
        rec_t again = {0};
        rpl_disposable_t *d2 = r_sub(ops[i].sig, &again);
        CHECK_CALLBACK_ERROR(&again, ops[i].name);
        CHECK_EQ_INT(freed, 2);
        rpl_release(d2);
        rpl_release(d);
        rpl_release(ops[i].sig);
        r_done(&ro);
        r_done(&again);
    }
    rpl_release(one);
    rpl_release(fail);
}

/* ======================================================================= */
/* Every error message names the function called                           */
/* ======================================================================= */

static void test_messages_name_the_function(void) {
    rpl_signal_t *sig = rpl_signal_never();
    rpl_error_t *err = rpl_error_create("x", 1, "e");
    rpl_subject_t *subj = rpl_subject_create();
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_value out = rpl_nil();
    void *wrong = err;  /* a handle of the wrong kind for everything but errors */
    rpl_signal_t *arr[1] = { NULL };

    /* Calls taking a context are in test_context_released_once_on_failure,
       which checks their messages too. */
#define NAMES(call, name) do { prime(); (void)(call); CHECK(rpl_last_error() < 0); CHECK_NAMED(name); } while (0)
    /* Signals, subscribers and subscriptions. */
    NAMES(rpl_signal_subscribe(sig, NULL), "rpl_signal_subscribe");
    NAMES(rpl_signal_subscribe_next(NULL, do_next_nop, NULL), "rpl_signal_subscribe_next");
    NAMES(rpl_signal_subscribe_next(wrong, do_next_nop, NULL), "rpl_signal_subscribe_next");
    NAMES(rpl_signal_subscribe_next(sig, NULL, NULL), "rpl_signal_subscribe_next");
    NAMES(rpl_signal_error((rpl_error_t *)subj), "rpl_signal_error");
    NAMES(rpl_subscriber_send_next(wrong, rpl_int(1)), "rpl_subscriber_send_next");
    NAMES(rpl_subscriber_send_error(NULL, NULL), "rpl_subscriber_send_error");
    NAMES(rpl_subscriber_send_completed(wrong), "rpl_subscriber_send_completed");
    NAMES(rpl_subscriber_is_disposed(NULL), "rpl_subscriber_is_disposed");
    /* Operators. */
    NAMES(rpl_signal_distinct_until_changed(wrong), "rpl_signal_distinct_until_changed");
    NAMES(rpl_signal_materialize(NULL), "rpl_signal_materialize");
    NAMES(rpl_signal_dematerialize(NULL), "rpl_signal_dematerialize");
    NAMES(rpl_signal_collect(NULL), "rpl_signal_collect");
    NAMES(rpl_signal_take(NULL, 1), "rpl_signal_take");
    NAMES(rpl_signal_skip(NULL, 1), "rpl_signal_skip");
    NAMES(rpl_signal_take_last(NULL, 1), "rpl_signal_take_last");
    NAMES(rpl_signal_flatten(NULL), "rpl_signal_flatten");
    NAMES(rpl_signal_switch_to_latest(NULL), "rpl_signal_switch_to_latest");
    NAMES(rpl_signal_concat(sig, NULL), "rpl_signal_concat");
    NAMES(rpl_signal_merge(NULL, 1), "rpl_signal_merge");
    NAMES(rpl_signal_combine_latest(arr, 1), "rpl_signal_combine_latest");
    NAMES(rpl_signal_zip((rpl_signal_t *const *)&wrong, 1), "rpl_signal_zip");
    NAMES(rpl_signal_start_with(NULL, rpl_int(1)), "rpl_signal_start_with");
    NAMES(rpl_signal_then(sig, NULL), "rpl_signal_then");
    NAMES(rpl_signal_take_until(sig, wrong), "rpl_signal_take_until");
    NAMES(rpl_signal_catch_to(sig, NULL), "rpl_signal_catch_to");
    NAMES(rpl_signal_retry(NULL, 1), "rpl_signal_retry");
    NAMES(rpl_signal_repeat(NULL, 1), "rpl_signal_repeat");
    NAMES(rpl_signal_subscribe_on(sig, NULL), "rpl_signal_subscribe_on");
    NAMES(rpl_signal_deliver_on(NULL, ts), "rpl_signal_deliver_on");
    NAMES(rpl_signal_delay(sig, 1, wrong), "rpl_signal_delay");
    NAMES(rpl_signal_throttle(sig, 1, rpl_scheduler_immediate()), "rpl_signal_throttle");
    NAMES(rpl_signal_timeout(sig, 1, rpl_scheduler_immediate()), "rpl_signal_timeout");
    NAMES(rpl_signal_interval(0, ts), "rpl_signal_interval");
    /* Multicast. */
    NAMES(rpl_signal_publish(NULL), "rpl_signal_publish");
    NAMES(rpl_signal_multicast(sig, NULL), "rpl_signal_multicast");
    NAMES(rpl_connection_signal(NULL), "rpl_connection_signal");
    NAMES(rpl_connection_connect(wrong), "rpl_connection_connect");
    NAMES(rpl_connection_autoconnect(NULL), "rpl_connection_autoconnect");
    NAMES(rpl_signal_replay(NULL), "rpl_signal_replay");
    NAMES(rpl_signal_replay_last(NULL), "rpl_signal_replay_last");
    NAMES(rpl_signal_replay_lazily(NULL), "rpl_signal_replay_lazily");
    /* Subjects. */
    NAMES(rpl_subject_send_next(NULL, rpl_int(1)), "rpl_subject_send_next");
    NAMES(rpl_subject_send_error(wrong, NULL), "rpl_subject_send_error");
    NAMES(rpl_subject_send_completed(wrong), "rpl_subject_send_completed");
    NAMES(rpl_subject_as_signal(NULL), "rpl_subject_as_signal");
    NAMES(rpl_signal_subscribe_subject(sig, NULL), "rpl_signal_subscribe_subject");
    NAMES(rpl_subject_subscriber_count(NULL), "rpl_subject_subscriber_count");
    NAMES(rpl_subject_is_terminated(NULL), "rpl_subject_is_terminated");
    NAMES(rpl_behavior_subject_value(subj, &out), "rpl_behavior_subject_value");
    NAMES(rpl_replay_subject_create(0), "rpl_replay_subject_create");
    /* Disposables. */
    NAMES(rpl_disposable_dispose(wrong), "rpl_disposable_dispose");
    NAMES(rpl_disposable_is_disposed(NULL), "rpl_disposable_is_disposed");
    NAMES(rpl_compound_disposable_add(NULL, NULL), "rpl_compound_disposable_add");
    NAMES(rpl_compound_disposable_remove(NULL, NULL), "rpl_compound_disposable_remove");
    NAMES(rpl_serial_disposable_swap(NULL, NULL), "rpl_serial_disposable_swap");
    /* Schedulers. */
    NAMES(rpl_scheduler_now(NULL), "rpl_scheduler_now");
    NAMES(rpl_test_scheduler_advance_by(rpl_scheduler_immediate(), 1), "rpl_test_scheduler_advance_by");
    NAMES(rpl_test_scheduler_run(NULL), "rpl_test_scheduler_run");
    NAMES(rpl_run_loop_scheduler(NULL), "rpl_run_loop_scheduler");
    NAMES(rpl_run_loop_fd(wrong), "rpl_run_loop_fd");
    NAMES(rpl_run_loop_run_until_idle(NULL), "rpl_run_loop_run_until_idle");
    NAMES(rpl_run_loop_run_one(NULL), "rpl_run_loop_run_one");
    NAMES(rpl_run_loop_run(NULL), "rpl_run_loop_run");
    NAMES(rpl_run_loop_stop(NULL), "rpl_run_loop_stop");
    NAMES(rpl_run_loop_next_timeout(NULL), "rpl_run_loop_next_timeout");
    /* Blocking helpers. */
    NAMES(rpl_signal_first(NULL, &out, 0), "rpl_signal_first");
    NAMES(rpl_signal_first(sig, NULL, 0), "rpl_signal_first");
    NAMES(rpl_signal_wait(NULL, 0), "rpl_signal_wait");
    NAMES(rpl_signal_to_array(sig, NULL, 0), "rpl_signal_to_array");
    /* Values and errors. */
    NAMES(rpl_signal_value(wrong), "rpl_signal_value");
    NAMES(rpl_event_error((rpl_error_t *)subj), "rpl_event_error");
    NAMES(rpl_value_tuple_at(NULL, 0), "rpl_value_tuple_at");
    NAMES(rpl_value_event_kind(&out), "rpl_value_event_kind");
    NAMES(rpl_value_event_value(NULL), "rpl_value_event_value");
    NAMES(rpl_value_event_error(NULL), "rpl_value_event_error");
    NAMES(rpl_string_n(NULL, 3), "rpl_string_n");
    NAMES(rpl_bytes(NULL, 3), "rpl_bytes");
    NAMES(rpl_tuple(NULL, 2), "rpl_tuple");
    NAMES(rpl_error_domain(NULL), "rpl_error_domain");
    NAMES(rpl_error_code(NULL), "rpl_error_code");
    NAMES(rpl_error_message(NULL), "rpl_error_message");
    NAMES(rpl_error_equal(err, NULL), "rpl_error_equal");
#undef NAMES
    rpl_release(sig);
    rpl_release(err);
    rpl_release(subj);
    rpl_release(ts);
}

/* Check order: with several bad arguments, the handle is reported first,
   then the callback, then the rest. */
static void test_check_order(void) {
    rpl_observer bad_version = RPL_OBSERVER_INIT;
    bad_version.version = 99;
#define FIRST_REPORTED(call, status, text) do { \
        prime(); (void)(call); \
        CHECK_EQ_INT(rpl_last_error(), status); \
        CHECK(strstr(rpl_last_error_message(), text) != NULL); \
    } while (0)
    FIRST_REPORTED(rpl_signal_subscribe(NULL, NULL), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_subscribe(NULL, &bad_version), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_subscribe_next(NULL, NULL, NULL), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_bind(NULL, NULL, NULL, NULL), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_flatten_map(NULL, NULL, NULL, NULL), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_catch(NULL, NULL, NULL, NULL), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_map(NULL, NULL, NULL, NULL), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_scan(NULL, forged(99), NULL, NULL, NULL), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_start_with(NULL, forged(99)), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_first(NULL, NULL, 0), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_signal_to_array(NULL, NULL, 0), RPL_ERR_NULL, "a signal is NULL");
    FIRST_REPORTED(rpl_behavior_subject_value(NULL, NULL), RPL_ERR_NULL, "a subject is NULL");
    FIRST_REPORTED(rpl_scheduler_repeat(NULL, 0, 0, NULL, NULL, NULL), RPL_ERR_NULL, "a scheduler is NULL");
    FIRST_REPORTED(rpl_scheduler_repeat(rpl_scheduler_immediate(), 0, 0, NULL, NULL, NULL), RPL_ERR_INVALID, "immediate");
    FIRST_REPORTED(rpl_subject_send_next(NULL, forged(99)), RPL_ERR_NULL, "a subject is NULL");
    FIRST_REPORTED(rpl_subscriber_send_next(NULL, forged(99)), RPL_ERR_NULL, "a subscriber is NULL");
    /* Then the callback, then the rest. */
    rpl_signal_t *sig = rpl_signal_never();
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    FIRST_REPORTED(rpl_signal_subscribe_next(sig, NULL, NULL), RPL_ERR_NULL, "on_next is NULL");
    FIRST_REPORTED(rpl_signal_bind(sig, NULL, NULL, NULL), RPL_ERR_NULL, "bind is NULL");
    FIRST_REPORTED(rpl_signal_scan(sig, forged(99), NULL, NULL, NULL), RPL_ERR_NULL, "fn is NULL");
    FIRST_REPORTED(rpl_signal_scan(sig, forged(99), reduce_add, NULL, NULL), RPL_ERR_INVALID, "initial");
    FIRST_REPORTED(rpl_scheduler_repeat(ts, 0, 0, NULL, NULL, NULL), RPL_ERR_NULL, "fn is NULL");
    FIRST_REPORTED(rpl_scheduler_repeat(ts, 0, 0, work_nop, NULL, NULL), RPL_ERR_INVALID, "interval_ns");
    FIRST_REPORTED(rpl_signal_first(sig, NULL, 0), RPL_ERR_NULL, "out is NULL");
#undef FIRST_REPORTED
    rpl_release(sig);
    rpl_release(ts);
}

/* ======================================================================= */
/* Contexts: released exactly once on every failure path, before return,   */
/* without touching the call's error                                       */
/* ======================================================================= */

static void test_context_released_once_on_failure(void) {
    rpl_signal_t *sig = rpl_signal_never();
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_error_t *err = rpl_error_create("x", 1, "e");
    void *wrong = err;
    rpl_release_fn rel[2] = { count_release, clobbering_release };
    for (int k = 0; k < 2; k++) {
#define RELEASED_ONCE(call, name) do { \
        releases = 0; prime(); \
        CHECK((call) == NULL); \
        CHECK_EQ_INT(releases, 1); \
        CHECK(rpl_last_error() < 0); \
        CHECK_NAMED(name); \
    } while (0)
        rpl_release_fn r = rel[k];
        RELEASED_ONCE(rpl_signal_create(NULL, NULL, r), "rpl_signal_create");
        RELEASED_ONCE(rpl_signal_defer(NULL, NULL, r), "rpl_signal_defer");
        RELEASED_ONCE(rpl_signal_map(NULL, map_id, NULL, r), "rpl_signal_map");
        RELEASED_ONCE(rpl_signal_map(sig, NULL, NULL, r), "rpl_signal_map");
        RELEASED_ONCE(rpl_signal_filter(wrong, pred_true, NULL, r), "rpl_signal_filter");
        RELEASED_ONCE(rpl_signal_scan(NULL, rpl_int(0), reduce_add, NULL, r), "rpl_signal_scan");
        RELEASED_ONCE(rpl_signal_scan(sig, forged(99), reduce_add, NULL, r), "rpl_signal_scan");
        RELEASED_ONCE(rpl_signal_aggregate(sig, rpl_int(0), NULL, NULL, r), "rpl_signal_aggregate");
        RELEASED_ONCE(rpl_signal_take_while(sig, NULL, NULL, r), "rpl_signal_take_while");
        RELEASED_ONCE(rpl_signal_skip_while(NULL, pred_true, NULL, r), "rpl_signal_skip_while");
        RELEASED_ONCE(rpl_signal_do_next(NULL, do_next_nop, NULL, r), "rpl_signal_do_next");
        RELEASED_ONCE(rpl_signal_do_error(sig, NULL, NULL, r), "rpl_signal_do_error");
        RELEASED_ONCE(rpl_signal_do_error(NULL, do_error_nop, NULL, r), "rpl_signal_do_error");
        RELEASED_ONCE(rpl_signal_do_completed(wrong, do_completed_nop, NULL, r), "rpl_signal_do_completed");
        RELEASED_ONCE(rpl_signal_bind(NULL, bind_empty, NULL, r), "rpl_signal_bind");
        RELEASED_ONCE(rpl_signal_bind(sig, NULL, NULL, r), "rpl_signal_bind");
        RELEASED_ONCE(rpl_signal_flatten_map(wrong, flat_empty, NULL, r), "rpl_signal_flatten_map");
        RELEASED_ONCE(rpl_signal_flatten_map(sig, NULL, NULL, r), "rpl_signal_flatten_map");
        RELEASED_ONCE(rpl_signal_catch(NULL, catch_empty, NULL, r), "rpl_signal_catch");
        RELEASED_ONCE(rpl_signal_catch(sig, NULL, NULL, r), "rpl_signal_catch");
        RELEASED_ONCE(rpl_scheduler_schedule(NULL, work_nop, NULL, r), "rpl_scheduler_schedule");
        RELEASED_ONCE(rpl_scheduler_schedule(ts, NULL, NULL, r), "rpl_scheduler_schedule");
        RELEASED_ONCE(rpl_scheduler_after(wrong, 1, work_nop, NULL, r), "rpl_scheduler_after");
        RELEASED_ONCE(rpl_scheduler_repeat(rpl_scheduler_immediate(), 0, 1, work_nop, NULL, r), "rpl_scheduler_repeat");
        RELEASED_ONCE(rpl_scheduler_repeat(ts, 0, 0, work_nop, NULL, r), "rpl_scheduler_repeat");
        RELEASED_ONCE(rpl_scheduler_repeat(ts, 0, 1, NULL, NULL, r), "rpl_scheduler_repeat");
        /* The observer's release. */
        rpl_observer o = RPL_OBSERVER_INIT;
        o.release = r;
        RELEASED_ONCE(rpl_signal_subscribe(NULL, &o), "rpl_signal_subscribe");
        RELEASED_ONCE(rpl_signal_subscribe(wrong, &o), "rpl_signal_subscribe");
        o.version = 0;
        RELEASED_ONCE(rpl_signal_subscribe(sig, &o), "rpl_signal_subscribe");
#undef RELEASED_ONCE
    }
    /* On success the context is released once too, when the operator goes. */
    releases = 0;
    rpl_signal_t *m = rpl_signal_map(sig, map_id, NULL, count_release);
    rpl_signal_t *c = rpl_signal_create(subscribe_nop, NULL, count_release);
    rpl_signal_t *f = rpl_signal_defer(factory_empty, NULL, count_release);
    CHECK_EQ_INT(releases, 0);
    rpl_release(m);
    rpl_release(c);
    rpl_release(f);
    CHECK_EQ_INT(releases, 3);
    rpl_release(sig);
    rpl_release(ts);
    rpl_release(err);
}

/* Rule 19a from the other side: a map or reduce callback that returns a
   value of an unlisted type fails the subscription (RPL_ERROR_CALLBACK,
   naming the operator); the forged value is neither delivered nor released
   as a box, and the source is disposed. */
static rpl_value map_forge(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_value_int(v) == 2 ? forged(99) : rpl_value_copy(v);
}
static rpl_value reduce_forge(void *ctx, const rpl_value *a, const rpl_value *v) {
    (void)ctx; (void)a;
    return rpl_value_int(v) == 2 ? forged(0x7250C0DEu) : rpl_int(rpl_value_int(v));
}
static void test_forged_returned_by_callbacks(void) {
    for (int k = 0; k < 3; k++) {
        rpl_subject_t *s = rpl_subject_create();
        rpl_signal_t *op = k == 0 ? rpl_signal_map((rpl_signal_t *)s, map_forge, NULL, NULL)
                         : k == 1 ? rpl_signal_scan((rpl_signal_t *)s, rpl_int(0), reduce_forge, NULL, NULL)
                                  : rpl_signal_aggregate((rpl_signal_t *)s, rpl_int(0), reduce_forge, NULL, NULL);
        rec_t r;
        memset(&r, 0, sizeof r);
        rpl_disposable_t *d = r_sub(op, &r);
        for (int i = 1; i <= 3; i++) CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(i)), RPL_OK);
        CHECK_EQ_INT(r.n, k == 2 ? 0 : 1);  /* 1 passed, 2 failed it, 3 never arrives */
        CHECK_CALLBACK_ERROR(&r, k == 0 ? "rpl_signal_map" : k == 1 ? "rpl_signal_scan" : "rpl_signal_aggregate");
        CHECK_EQ_INT(r.released, 1);
        CHECK_EQ_INT((int)rpl_subject_subscriber_count(s), 0);  /* upstream disposed */
        r_done(&r);
        rpl_release(d);
        rpl_release(op);
        rpl_release(s);
    }
}

int main(void) {
    RUN(test_forged_into_subscriber);
    RUN(test_forged_into_subjects);
    RUN(test_forged_into_zip);
    RUN(test_forged_into_merge_and_combine_latest);
    RUN(test_forged_constructor_arguments);
    RUN(test_forged_through_pointers);
    RUN(test_forged_returned_by_callbacks);
    RUN(test_wrong_kind_returned);
    RUN(test_messages_name_the_function);
    RUN(test_check_order);
    RUN(test_context_released_once_on_failure);
    CHECK_DONE();
}
