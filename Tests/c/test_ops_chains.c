/* map, filter and scan in a row: the chain behaves as the operators one
   after another, each on the previous one's results. Boxed
   values along the chain are released exactly once (counted here, and
   checked by ASan and valgrind), an operator that fails in the middle ends the
   subscription from there (rules 5, 19a and 24), each callback's release
   runs once, when its signal and the subscription are gone, and the chain
   works on both sides of other operators (take, do_next). */
#include "recorder.h"

#define FAIL_CODE 42
static rpl_error_t *test_error(void) { return rpl_error_create("test", FAIL_CODE, "callback failed"); }

/* Counted boxes: a pointer value holding an int, whose destructor counts. */
static int created, destroyed;
static void count_dtor(void *p) { (void)p; destroyed++; }
static rpl_value box(int64_t i) {
    created++;
    return rpl_pointer((void *)(intptr_t)i, count_dtor);
}
static int64_t unbox(const rpl_value *v) { return (int64_t)(intptr_t)rpl_value_pointer(v); }

static int ctx_releases;
static void count_ctx_release(void *ctx) { (void)ctx; ctx_releases++; }

static rpl_value to_box(void *ctx, const rpl_value *v) { (void)ctx; return box(rpl_value_int(v)); }
static bool box_even(void *ctx, const rpl_value *v) { (void)ctx; return unbox(v) % 2 == 0; }
static rpl_value box_sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return box(unbox(acc) + unbox(v));
}
static rpl_value box_to_string(void *ctx, const rpl_value *v) {
    (void)ctx;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)unbox(v));
    return rpl_string(buf);
}

static void reset(void) {
    created = destroyed = ctx_releases = 0;
}

/* Subscribes to `sig`, sends 1..n into `s` (then completes it if asked),
   checks what arrived and that the subscription let go of `s`. */
static void run_ints(rpl_subject_t *s, rpl_signal_t *sig, int n, bool complete, const char *expected) {
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(sig, &r);
    for (int i = 1; i <= n; i++) rpl_subject_send_next(s, rpl_int(i));
    if (complete) rpl_subject_send_completed(s);
    CHECK_LOG(&r, expected);
    CHECK_EQ_INT(r.after_terminal, 0);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
    rpl_release(d);
    CHECK_EQ_INT(r.released, 1);
}

/* Releases the signals of a chain, the last one made first. */
#define RELEASE_ALL(...) do { rpl_signal_t *all_[] = {__VA_ARGS__}; \
    for (size_t i_ = sizeof all_ / sizeof *all_; i_ > 0; i_--) rpl_release(all_[i_ - 1]); } while (0)

/* s -> map -> filter(keep) -> scan -> map, every value between them boxed;
   chain[3] is the last. */
static void boxed_chain(rpl_subject_t *s, bool (*keep)(void *, const rpl_value *), rpl_signal_t *chain[4]) {
    chain[0] = rpl_signal_map((rpl_signal_t *)s, to_box, NULL, count_ctx_release);
    chain[1] = rpl_signal_filter(chain[0], keep, NULL, count_ctx_release);
    chain[2] = rpl_signal_scan(chain[1], box(0), box_sum, NULL, count_ctx_release);
    chain[3] = rpl_signal_map(chain[2], box_to_string, NULL, count_ctx_release);
}

static void test_boxed_chain(void) {
    reset();
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *chain[4];
    boxed_chain(s, box_even, chain);
    run_ints(s, chain[3], 6, true, "2 6 12 C");
    /* six mapped, three accumulations, the initial accumulator */
    CHECK_EQ_INT(created, 10);
    /* the subscription is over: its boxes are gone; the scan signal keeps
       its initial accumulator */
    CHECK_EQ_INT(destroyed, 9);
    CHECK_EQ_INT(ctx_releases, 0);
    RELEASE_ALL(chain[0], chain[1], chain[2], chain[3]);
    CHECK_EQ_INT(destroyed, 10);
    CHECK_EQ_INT(ctx_releases, 4);
    rpl_release(s);
}

/* The operator in the middle fails: the values before pass, the error arrives
   once, nothing after it, the source is disposed, every box is released
   once (the failing operator's input among them). */
static bool box_fails_on_3(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (unbox(v) == 3) CHECK_EQ_INT(rpl_callback_fail(test_error()), RPL_OK);
    return true;
}
static void test_middle_operator_fails(void) {
    reset();
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *chain[4];
    boxed_chain(s, box_fails_on_3, chain);
    run_ints(s, chain[3], 5, false, "1 3 E42");
    CHECK_EQ_INT(created, 6);  /* 1, 2, 3 mapped; 1, 3 accumulated; the initial one */
    CHECK_EQ_INT(destroyed, 5);
    RELEASE_ALL(chain[0], chain[1], chain[2], chain[3]);
    CHECK_EQ_INT(destroyed, 6);
    CHECK_EQ_INT(ctx_releases, 4);
    rpl_release(s);
}

/* A map in the middle fails after returning a string (discarded) while its
   input is the string the map before it made: both are released. */
static rpl_value to_string(void *ctx, const rpl_value *v) {
    (void)ctx;
    char buf[32] = "s";
    snprintf(buf + 1, sizeof buf - 1, "%lld", (long long)rpl_value_int(v));
    return rpl_string(buf);
}
static rpl_value string_fails_on_s2(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (strcmp(rpl_value_string(v, NULL), "s2") == 0) {
        CHECK_EQ_INT(rpl_callback_fail(test_error()), RPL_OK);
        return rpl_string("discarded");
    }
    return rpl_value_copy(v);
}
static rpl_value string_length(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_int((int64_t)strlen(rpl_value_string(v, NULL)));
}
static void test_middle_map_fails(void) {
    reset();
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *a = rpl_signal_map((rpl_signal_t *)s, to_string, NULL, count_ctx_release);
    rpl_signal_t *b = rpl_signal_map(a, string_fails_on_s2, NULL, count_ctx_release);
    rpl_signal_t *c = rpl_signal_map(b, string_length, NULL, count_ctx_release);
    run_ints(s, c, 3, false, "2 E42");
    RELEASE_ALL(a, b, c);
    CHECK_EQ_INT(ctx_releases, 3);
    rpl_release(s);
}

/* scan at the end of a chain returns a value of a type ripple.h does not
   list (rule 19a): the subscription fails from there; the boxed input and
   the boxed accumulator are released. */
static rpl_value unlisted_on_2(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx; (void)acc;
    if (unbox(v) == 2) return (rpl_value){.type = (rpl_type)77};
    return rpl_value_copy(v);
}
static void test_scan_refuses_unlisted(void) {
    reset();
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *m = rpl_signal_map((rpl_signal_t *)s, to_box, NULL, count_ctx_release);
    rpl_signal_t *sc = rpl_signal_scan(m, box(0), unlisted_on_2, NULL, count_ctx_release);
    rpl_signal_t *out = rpl_signal_map(sc, box_to_string, NULL, count_ctx_release);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(out, &r);
    for (int i = 1; i <= 3; i++) rpl_subject_send_next(s, rpl_int(i));
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.errors, 1);
    CHECK(strcmp(r.error_domain, "ripple") == 0);
    CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
    rpl_release(d);
    RELEASE_ALL(m, sc, out);
    CHECK_EQ_INT(created, 3);  /* 1, 2 mapped; the initial accumulator */
    CHECK_EQ_INT(destroyed, 3);
    CHECK_EQ_INT(ctx_releases, 3);
    rpl_release(s);
}

/* Chains on both sides of other operators: map -> take ->
   map -> filter, and map -> do_next -> scan. */
static rpl_value plus1(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(rpl_value_int(v) + 1); }
static rpl_value times10(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(rpl_value_int(v) * 10); }
static bool not_30(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) != 30; }
static rpl_value int_sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}
static int64_t seen_sum;
static void see(void *ctx, const rpl_value *v) { (void)ctx; seen_sum += rpl_value_int(v); }
static void test_around_other_operators(void) {
    reset();
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *a = rpl_signal_map((rpl_signal_t *)s, plus1, NULL, count_ctx_release);
    rpl_signal_t *t = rpl_signal_take(a, 3);
    rpl_signal_t *b = rpl_signal_map(t, times10, NULL, count_ctx_release);
    rpl_signal_t *c = rpl_signal_filter(b, not_30, NULL, count_ctx_release);
    run_ints(s, c, 5, false, "20 40 C");
    RELEASE_ALL(a, t, b, c);
    CHECK_EQ_INT(ctx_releases, 3);

    seen_sum = 0;
    a = rpl_signal_map((rpl_signal_t *)s, plus1, NULL, NULL);
    rpl_signal_t *x = rpl_signal_do_next(a, see, NULL, NULL);
    rpl_signal_t *sc = rpl_signal_scan(x, rpl_int(0), int_sum, NULL, NULL);
    run_ints(s, sc, 3, true, "2 5 9 C");
    CHECK_EQ_INT(seen_sum, 9);
    RELEASE_ALL(a, x, sc);
    rpl_release(s);
}

/* A scan callback in a chain sends back into the source: the source's
   delivery is serialized (the value comes after the current one), and the
   accumulator the callback reads stays valid while it runs. */
typedef struct { rpl_subject_t *s; int sent; } resend_ctx;
static rpl_value box_sum_resends(void *ctx, const rpl_value *acc, const rpl_value *v) {
    resend_ctx *c = ctx;
    if (!c->sent) {
        c->sent = 1;
        rpl_subject_send_next(c->s, rpl_int(100));
    }
    return box(unbox(acc) + unbox(v));
}
static void test_scan_resends(void) {
    reset();
    resend_ctx c = {rpl_subject_create(), 0};
    rpl_signal_t *m = rpl_signal_map((rpl_signal_t *)c.s, to_box, NULL, NULL);
    rpl_signal_t *sc = rpl_signal_scan(m, box(0), box_sum_resends, &c, NULL);
    rpl_signal_t *out = rpl_signal_map(sc, box_to_string, NULL, NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(out, &r);
    rpl_subject_send_next(c.s, rpl_int(1));
    rpl_subject_send_next(c.s, rpl_int(2));
    rpl_subject_send_completed(c.s);
    CHECK_LOG(&r, "1 101 103 C");
    rpl_release(d);
    RELEASE_ALL(m, sc, out);
    CHECK_EQ_INT(destroyed, created);
    rpl_release(c.s);
}

int main(void) {
    fprintf(stderr, "test_ops_chains\n");
    RUN(test_boxed_chain);
    RUN(test_middle_operator_fails);
    RUN(test_middle_map_fails);
    RUN(test_scan_refuses_unlisted);
    RUN(test_around_other_operators);
    RUN(test_scan_resends);
    CHECK_DONE();
}
