/* Rule 5 through the relayed operators: the terminal callback runs,
   then the subscription's resources are disposed, then the observer's
   release runs, always last. The source here ends inside its subscribe
   callback and only then returns its disposable D; the release must come
   after D was disposed, as it does for the plain signal (S C D R), whichever
   input of whichever relayed operator that source is.

   Each case runs the source in four modes:
   - complete: S, completed, return D;
   - error:    S, error, return D;
   - open:     S, return D; the test disposes from outside (S D R);
   - take:     S, values while not disposed (at most 3), return D, under a
               downstream take(1): the dispose reaches the source while it
               is still inside its subscribe callback (rule 3a).
   The log (recorder.h, with the release): S subscribe, values, C completed,
   E7 the error, D the source's disposable, R the release. */
#define REC_LOG_RELEASE 1
#include "recorder.h"
#include <ripple.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The recorder of the run under way: the source logs into it too. */
static rec_t rec;
static void mark(const char *s) { rec_append(&rec, s); }

/* ---- The source ------------------------------------------------------------ */
enum { M_COMPLETE, M_ERROR, M_OPEN, M_TAKE, M_COUNT };
static const char *mode_name[M_COUNT] = {"complete", "error", "open", "take"};
static int mode;

static void d_dispose(void *ctx) { (void)ctx; mark("D"); }

static rpl_disposable_t *src_subscribe(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    mark("S");
    if (mode == M_TAKE)
        for (int i = 1; i <= 3 && !rpl_subscriber_is_disposed(s); i++) rpl_subscriber_send_next(s, rpl_int(i));
    if (mode == M_COMPLETE) rpl_subscriber_send_completed(s);
    if (mode == M_ERROR) {
        rpl_error_t *e = rpl_error_create("test", 7, "inside");
        rpl_subscriber_send_error(s, e);
        rpl_release(e);
    }
    return rpl_disposable_create(d_dispose, NULL);
}

/* Subscribes (under take(1) in take mode), disposes, releases: the log. */
static const char *run(rpl_signal_t *sig) {
    rpl_signal_t *s = mode == M_TAKE ? rpl_signal_take(sig, 1) : rpl_retain(sig);
    rec_run(s, &rec);
    rpl_release(s);
    return rec.log;
}

/* ---- Callbacks the operators need ------------------------------------------- */
/* The value as a one-value signal (the fast path: no subscription). */
static rpl_signal_t *fm_return(void *ctx, const rpl_value *v) { (void)ctx; return rpl_signal_return(rpl_value_copy(v)); }
static rpl_signal_t *bind_return(void *ctx, const rpl_value *v, bool *stop) { (void)stop; return fm_return(ctx, v); }
/* The signal a signal value carries (+1). */
static rpl_signal_t *fm_inner(void *ctx, const rpl_value *v) { (void)ctx; return rpl_retain(rpl_value_signal(v)); }
static rpl_signal_t *bind_inner(void *ctx, const rpl_value *v, bool *stop) { (void)stop; return fm_inner(ctx, v); }
static rpl_signal_t *catch_src(void *ctx, const rpl_error_t *e) { (void)e; return rpl_retain(ctx); }

static rpl_signal_t *failing(void) {
    rpl_error_t *e = rpl_error_create("test", 9, "first");
    rpl_signal_t *s = rpl_signal_error(e);
    rpl_release(e);
    return s;
}
/* r, after releasing tmp (which r retains). */
static rpl_signal_t *released_after(rpl_signal_t *tmp, rpl_signal_t *r) {
    rpl_release(tmp);
    return r;
}
/* A signal that sends one signal value (x) and completes. */
static rpl_signal_t *outer_of(rpl_signal_t *x) { return rpl_signal_return(rpl_signal_value(x)); }

/* ---- The cases -------------------------------------------------------------- */
/* Builds the operator with the source x as one of its inputs (+1). */
typedef rpl_signal_t *(*make_fn)(rpl_signal_t *x);
typedef struct {
    const char *name;
    make_fn make;
    const char *expect[M_COUNT];
} case_t;

#define ONE(op) \
    static rpl_signal_t *make_##op(rpl_signal_t *x) { rpl_signal_t *in[1] = {x}; return rpl_signal_##op(in, 1); }
ONE(merge)
ONE(zip)
ONE(combine_latest)

/* Calls f(a, b) with x for A, and the other argument made here. */
#define PAIR(name, expr) \
    static rpl_signal_t *make_##name(rpl_signal_t *x) { \
        rpl_signal_t *never = rpl_signal_never(), *empty = rpl_signal_empty(); \
        rpl_signal_t *r = (expr); \
        rpl_release(never); rpl_release(empty); \
        return r; \
    }
PAIR(merge2, rpl_signal_merge((rpl_signal_t *[]){never, x}, 2))
PAIR(concat_first, rpl_signal_concat(x, empty))
PAIR(concat_second, rpl_signal_concat(empty, x))
PAIR(take_until_source, rpl_signal_take_until(x, never))
PAIR(take_until_trigger, rpl_signal_take_until(never, x))
PAIR(then_first, rpl_signal_then(x, empty))
PAIR(then_second, rpl_signal_then(empty, x))
PAIR(with_latest_from_source, rpl_signal_with_latest_from(x, empty))
PAIR(with_latest_from_other, rpl_signal_with_latest_from(never, x))
PAIR(sample_source, rpl_signal_sample(x, never))
PAIR(sample_sampler, rpl_signal_sample(never, x))
PAIR(skip_until_source, rpl_signal_skip_until(x, never))
PAIR(skip_until_trigger, rpl_signal_skip_until(never, x))
PAIR(take_until_replacement, rpl_signal_take_until_replacement(never, x))
PAIR(switch_if_empty_first, rpl_signal_switch_if_empty(x, empty))
PAIR(switch_if_empty_other, rpl_signal_switch_if_empty(empty, x))
PAIR(subscribe_on, rpl_signal_subscribe_on(x, rpl_scheduler_immediate()))
PAIR(retry, rpl_signal_retry(x, 1))
PAIR(repeat, rpl_signal_repeat(x, 2))
PAIR(bind_outer, rpl_signal_bind(x, bind_return, NULL, NULL))
PAIR(flatten_map_outer, rpl_signal_flatten_map(x, fm_return, NULL, NULL))
PAIR(flatten_outer, rpl_signal_flatten(x))
PAIR(switch_to_latest_outer, rpl_signal_switch_to_latest(x))
PAIR(flatten_max_outer, rpl_signal_flatten_max(x, 2))
PAIR(concat_map_outer, rpl_signal_concat_map(x, fm_return, NULL, NULL))
PAIR(share, rpl_signal_share(x, 0))

/* The source as the inner signal of an outer that sends it and completes. */
#define INNER(name, expr) \
    static rpl_signal_t *make_##name(rpl_signal_t *x) { \
        rpl_signal_t *outer = outer_of(x); \
        return released_after(outer, (expr)); \
    }
INNER(bind_inner, rpl_signal_bind(outer, bind_inner, NULL, NULL))
INNER(flatten_map_inner, rpl_signal_flatten_map(outer, fm_inner, NULL, NULL))
INNER(flatten_inner, rpl_signal_flatten(outer))
INNER(switch_to_latest_inner, rpl_signal_switch_to_latest(outer))
INNER(flatten_max_inner, rpl_signal_flatten_max(outer, 2))
INNER(concat_map_inner, rpl_signal_concat_map(outer, fm_inner, NULL, NULL))

static rpl_signal_t *make_catch(rpl_signal_t *x) {
    rpl_signal_t *f = failing();
    return released_after(f, rpl_signal_catch(f, catch_src, rpl_retain(x), (rpl_release_fn)rpl_release));
}
static rpl_signal_t *make_catch_to(rpl_signal_t *x) {
    rpl_signal_t *f = failing();
    return released_after(f, rpl_signal_catch_to(f, x));
}
static rpl_signal_t *make_if(rpl_signal_t *x) {
    rpl_signal_t *cond = rpl_signal_return(rpl_bool(true)), *never = rpl_signal_never();
    return released_after(cond, released_after(never, rpl_signal_if(cond, x, never)));
}
static rpl_signal_t *make_switch_cases(rpl_signal_t *x) {
    rpl_signal_t *key = rpl_signal_return(rpl_int(5));
    rpl_value keys[1] = {rpl_int(5)};
    rpl_signal_t *cases[1] = {x};
    return released_after(key, rpl_signal_switch_cases(key, keys, cases, 1, NULL));
}
static rpl_signal_t *make_autoconnect(rpl_signal_t *x) {
    rpl_connection_t *c = rpl_signal_publish(x);
    rpl_signal_t *r = rpl_connection_autoconnect(c);
    rpl_release(c);
    return r;
}

/* The plain signal, for reference; then every relayed operator. Where the
   terminal event is passed on, it comes first, then D, then R. (E1: the
   runtime's error for an int where a signal value was expected.) */
#define STD {"S C D R", "S E7 D R", "S D R", "S 1 C D R"}
/* The source's values leave as one-item tuples. */
#define TUPLES {"S C D R", "S E7 D R", "S D R", "S (1) C D R"}
/* The inner of an outer that has sent it and completed: the inner's end
   (and D) comes before the outer's completion ends the result. */
#define AS_INNER {"S D C R", "S E7 D R", "S D R", "S 1 C D R"}
/* An outer expecting signal values: the int fails the result. */
#define OUTER_OF_SIGNALS {"S C D R", "S E7 D R", "S D R", "S E1 D R"}
/* The source's values are dropped or held (no take). */
#define VALUES_HELD {"S C D R", "S E7 D R", "S D R", "S D R"}
/* The source's completion does not end the result. */
#define NO_TERMINAL {"S D R", "S E7 D R", "S D R", "S D R"}
static const case_t cases[] = {
    {"plain", NULL, STD},
    {"merge", make_merge, STD},
    {"merge (second of two)", make_merge2, {"S D R", "S E7 D R", "S D R", "S 1 C D R"}},
    {"concat (first)", make_concat_first, STD},
    {"concat (second)", make_concat_second, STD},
    {"zip", make_zip, TUPLES},
    {"combine_latest", make_combine_latest, TUPLES},
    {"take_until (source)", make_take_until_source, STD},
    {"take_until (trigger)", make_take_until_trigger, {"S C D R", "S D R", "S D R", "S C D R"}},
    {"then (first)", make_then_first, VALUES_HELD},
    {"then (second)", make_then_second, STD},
    {"catch (replacement)", make_catch, STD},
    {"catch_to (replacement)", make_catch_to, STD},
    {"retry 1", make_retry, {"S C D R", "S D S E7 D R", "S D R", "S 1 C D R"}},
    {"repeat 2", make_repeat, {"S D S C D R", "S E7 D R", "S D R", "S 1 C D R"}},
    {"bind (outer)", make_bind_outer, STD},
    {"bind (inner)", make_bind_inner, AS_INNER},
    {"flatten_map (outer)", make_flatten_map_outer, STD},
    {"flatten_map (inner)", make_flatten_map_inner, AS_INNER},
    {"flatten (outer)", make_flatten_outer, OUTER_OF_SIGNALS},
    {"flatten (inner)", make_flatten_inner, AS_INNER},
    {"switch_to_latest (outer)", make_switch_to_latest_outer, OUTER_OF_SIGNALS},
    {"switch_to_latest (inner)", make_switch_to_latest_inner, AS_INNER},
    {"subscribe_on (immediate)", make_subscribe_on, STD},
    {"with_latest_from (source)", make_with_latest_from_source, VALUES_HELD},
    {"with_latest_from (other)", make_with_latest_from_other, NO_TERMINAL},
    {"sample (source)", make_sample_source, VALUES_HELD},
    {"sample (sampler)", make_sample_sampler, VALUES_HELD},
    {"skip_until (source)", make_skip_until_source, NO_TERMINAL},
    {"skip_until (trigger)", make_skip_until_trigger, NO_TERMINAL},
    {"take_until_replacement", make_take_until_replacement, STD},
    {"switch_if_empty (first)", make_switch_if_empty_first, STD},
    {"switch_if_empty (other)", make_switch_if_empty_other, STD},
    {"flatten_max (outer)", make_flatten_max_outer, OUTER_OF_SIGNALS},
    {"flatten_max (inner)", make_flatten_max_inner, AS_INNER},
    {"concat_map (outer)", make_concat_map_outer, STD},
    {"concat_map (inner)", make_concat_map_inner, AS_INNER},
    {"if (then)", make_if, AS_INNER},
    {"switch_cases", make_switch_cases, AS_INNER},
    {"share", make_share, STD},
    {"publish + autoconnect", make_autoconnect, STD},
};

static void test_release_after_the_source_disposable(void) {
    rpl_signal_t *x = rpl_signal_create(src_subscribe, NULL, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const case_t *c = &cases[i];
        for (mode = 0; mode < M_COUNT; mode++) {
            /* A fresh operator per run: a publish subject keeps its terminal event. */
            rpl_signal_t *sig = c->make ? c->make(x) : rpl_retain(x);
            CHECK(sig != NULL);
            if (!sig) continue;
            const char *got = run(sig);
            rpl_release(sig);
            if (strcmp(got, c->expect[mode]) == 0) {
                check_passed++;
            } else {
                check_failed++;
                fprintf(stderr, "FAIL %s, %s: got %s, expected %s\n", c->name, mode_name[mode], got,
                        c->expect[mode]);
            }
        }
    }
    rpl_release(x);
}

int main(void) {
    RUN(test_release_after_the_source_disposable);
    CHECK_DONE();
}
