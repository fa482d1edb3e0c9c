#define _POSIX_C_SOURCE 200809L
/* Rule 3a for every operator: an operator holds its upstream
 * subscription before it starts it, so a dispose, a downstream take, a
 * terminal event or a timeout that happens while the upstream subscribe
 * callback is still running reaches that callback.
 *
 * The source is cold and endless: its subscribe callback sends 0, 1, 2, ...
 * until rpl_subscriber_is_disposed turns true, with a hard cap (CAP) so that a
 * broken operator fails instead of running forever. Each case checks that the
 * result delivers what it should, that subscribe returns, and that the
 * producer stopped well below the cap.
 *
 * Each case runs in a child process under a watchdog, so a case that hangs or
 * crashes is reported and the others still run. One line per
 * case; `test_rule3 NAME...` runs only the cases whose name contains NAME. */
#include "recorder.h"
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CAP 4000000L          /* a broken operator lets the producer run to here */
#define SYNC_LIMIT 100L       /* same thread: the dispose is seen at the next check */
#define ASYNC_LIMIT (CAP / 4 * 3) /* across threads: the producer runs on until the other
                                     thread (which a loaded machine may not run for a while) disposes */
#define TRIGGER_AT 1000L      /* the producer fires the trigger subject after this many values */
#define WATCHDOG_S ((unsigned)test_scale(15, 120)) /* valgrind and TSan are slower */
#define WAIT_S 5.0            /* how long an asynchronous event may take */

/* ---- The endless producer ------------------------------------------------ */
enum { P_INTS, P_EVENTS, P_SIGNALS };
typedef struct {
    int mode;                  /* what it sends: ints, materialized events, signal values */
    atomic_long sent;          /* values sent, all subscriptions together */
    atomic_int subscriptions, returned;
    int quick;                 /* RIPPLE_TEST_QUICK: under valgrind or TSan */
    rpl_subject_t *trigger;    /* if set, sent a value after TRIGGER_AT values */
} producer_t;
static producer_t P;

static void sleep_us(long us) {
    struct timespec t = { us / 1000000, (us % 1000000) * 1000L };
    nanosleep(&t, NULL);
}
static void sleep_ms(long ms) { sleep_us(ms * 1000); }

static rpl_value produce(long i) {
    if (P.mode == P_EVENTS) return rpl_event_next(rpl_int(i));
    if (P.mode == P_SIGNALS) {
        rpl_signal_t *one = rpl_signal_return(rpl_int(i));
        rpl_value v = rpl_signal_value(one);
        rpl_release(one);
        return v;
    }
    return rpl_int(i);
}

static rpl_disposable_t *endless(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    atomic_fetch_add(&P.subscriptions, 1);
    for (long i = 0; i < CAP && !rpl_subscriber_is_disposed(s); i++) {
        rpl_subscriber_send_next(s, produce(i));
        atomic_fetch_add(&P.sent, 1);
        if (i + 1 == TRIGGER_AT && P.trigger) rpl_subject_send_next(P.trigger, rpl_int(0));
        /* Valgrind runs one thread at a time and a busy thread can keep the
           CPU: let a timer thread in now and then (a pause, not a stop). */
        if ((i & 4095) == 4095) {
            if (P.quick) sleep_us(100);
            else sched_yield();
        }
    }
    atomic_fetch_add(&P.returned, 1);
    return NULL;
}

static rpl_signal_t *endless_source(int mode) {
    P.mode = mode;
    P.quick = test_scale(0, 1) != 0;
    return rpl_signal_create(endless, NULL, NULL);
}

/* ---- Waiting with a deadline ----------------------------------------------- */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
#define WAIT_FOR(cond) ({ double wf_end_ = now_s() + WAIT_S; \
    while (!(cond) && now_s() < wf_end_) sleep_ms(1); (cond); })

static int terminated(const rec_t *r) { return r->completed + r->errors > 0; }
static int producer_done(void) { return P.subscriptions > 0 && P.returned == P.subscriptions; }

/* The producer stopped (every subscription returned) with at most `limit`
   values sent. */
static void check_producer_stopped(long limit) {
    CHECK(WAIT_FOR(producer_done()));
    long sent = P.sent;
    fprintf(stderr, "    producer: %d subscription(s), %ld values sent\n", (int)P.subscriptions, sent);
    if (sent > limit) fprintf(stderr, "    (more than %ld: the dispose did not reach the producer%s)\n", limit,
                              sent >= CAP ? "; it ran to the cap" : "");
    CHECK(sent <= limit);
}

/* ---- take(op(src), n) ------------------------------------------------------
   build makes the operator over src (borrowing it). The result must deliver n
   values (expect: those ints; NULL: any values), complete, and leave the
   producer stopped with at most `limit` values sent. */
typedef rpl_signal_t *(*build_fn)(rpl_signal_t *src);

static void take_case(build_fn build, int mode, size_t n, const int64_t *expect, long limit) {
    rpl_signal_t *src = endless_source(mode);
    rpl_signal_t *op = build(src);
    CHECK(op != NULL);
    rpl_signal_t *t = rpl_signal_take(op, n);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(t, &r);
    CHECK(WAIT_FOR(terminated(&r)));
    CHECK_COMPLETED(r);
    CHECK_EQ_INT(r.n, n);
    if (expect && r.n == (int)n) CHECK(rec_is(&r, expect, (int)n));
    check_producer_stopped(limit);
    rpl_release(d);
    rpl_release(t);
    rpl_release(op);
    rpl_release(src);
    CHECK(WAIT_FOR(r.released == 1));
}
#define TAKE1(build, mode, value, limit) do { const int64_t e_[] = {value}; take_case(build, mode, 1, e_, limit); } while (0)

/* ---- take_until(op(src), trigger), the trigger fired by the producer ------
   For operators that send nothing while the source runs (aggregate, take_last,
   collect, then, throttle): the dispose of the subscription must reach the
   producer. The producer itself sends into the trigger after TRIGGER_AT values
   (deterministic, unlike a thread): take_until then disposes op's
   subscription while the producer is still inside its subscribe callback.
   trigger_case_limit: at most `limit` values sent (trigger_case: TRIGGER_AT +
   SYNC_LIMIT, the dispose made on the producer's thread). */
static void trigger_case_limit(build_fn build, int mode, int check_no_values, long limit) {
    rpl_signal_t *src = endless_source(mode);
    rpl_signal_t *op = build(src);
    CHECK(op != NULL);
    P.trigger = rpl_subject_create();
    rpl_signal_t *t = rpl_signal_take_until(op, rpl_subject_as_signal(P.trigger));
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(t, &r);
    CHECK(WAIT_FOR(terminated(&r)));
    CHECK_COMPLETED(r);
    if (check_no_values) CHECK_EQ_INT(r.n, 0);
    check_producer_stopped(limit);
    rpl_release(d);
    rpl_release(t);
    rpl_release(op);
    rpl_release(src);
    rpl_release(P.trigger);
    CHECK(WAIT_FOR(r.released == 1));
}
static void trigger_case(build_fn build, int mode, int check_no_values) {
    trigger_case_limit(build, mode, check_no_values, TRIGGER_AT + SYNC_LIMIT);
}

/* ---- Callbacks ------------------------------------------------------------- */
static rpl_value plus_one(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(rpl_value_int(v) + 1); }
static bool is_odd(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) % 2 == 1; }
static bool below_3(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) < 3; }
static bool always(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return true; }
static rpl_value sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}
static void on_value(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static void on_error(void *ctx, const rpl_error_t *e) { (void)ctx; (void)e; }
static void on_completed(void *ctx) { (void)ctx; }
static rpl_signal_t *return_it(void *ctx, const rpl_value *v) { (void)ctx; return rpl_signal_return(rpl_value_copy(v)); }
static rpl_signal_t *bind_return(void *ctx, const rpl_value *v, bool *stop) { (void)stop; return return_it(ctx, v); }
/* ctx is the endless source: the inner signal of every outer value. */
static rpl_signal_t *to_src(void *ctx, const rpl_value *v) { (void)v; return rpl_retain(ctx); }
static rpl_signal_t *bind_src(void *ctx, const rpl_value *v, bool *stop) { (void)stop; return to_src(ctx, v); }
static rpl_signal_t *catch_src(void *ctx, const rpl_error_t *e) { (void)e; return rpl_retain(ctx); }
static rpl_signal_t *catch_never(void *ctx, const rpl_error_t *e) { (void)ctx; (void)e; return rpl_signal_never(); }

static rpl_signal_t *failing(void) {
    rpl_error_t *e = rpl_error_create("test", 1, "first attempt fails");
    rpl_signal_t *s = rpl_signal_error(e);
    rpl_release(e);
    return s;
}
/* f(a, b) releasing both inputs (the operator retains what it keeps). */
static rpl_signal_t *pair(rpl_signal_t *(*f)(rpl_signal_t *, rpl_signal_t *), rpl_signal_t *a, rpl_signal_t *b) {
    rpl_signal_t *r = f(a, b);
    rpl_release(a);
    rpl_release(b);
    return r;
}
/* f([a, b]) releasing both inputs. */
static rpl_signal_t *array2(rpl_signal_t *(*f)(rpl_signal_t *const *, size_t), rpl_signal_t *a, rpl_signal_t *b) {
    rpl_signal_t *sigs[2] = { a, b };
    rpl_signal_t *r = f(sigs, 2);
    rpl_release(a);
    rpl_release(b);
    return r;
}
static rpl_signal_t *seven(void) { return rpl_signal_return(rpl_int(7)); }
/* Releases input (which op, the operator made over it, retains) and returns op. */
static rpl_signal_t *released_after(rpl_signal_t *input, rpl_signal_t *op) {
    rpl_release(input);
    return op;
}

/* ---- Builders: op(src) ------------------------------------------------------ */
static rpl_signal_t *b_map(rpl_signal_t *s) { return rpl_signal_map(s, plus_one, NULL, NULL); }
static rpl_signal_t *b_filter(rpl_signal_t *s) { return rpl_signal_filter(s, is_odd, NULL, NULL); }
static rpl_signal_t *b_scan(rpl_signal_t *s) { return rpl_signal_scan(s, rpl_int(0), sum, NULL, NULL); }
static rpl_signal_t *b_aggregate(rpl_signal_t *s) { return rpl_signal_aggregate(s, rpl_int(0), sum, NULL, NULL); }
static rpl_signal_t *b_distinct(rpl_signal_t *s) { return rpl_signal_distinct_until_changed(s); }
static rpl_signal_t *b_take5(rpl_signal_t *s) { return rpl_signal_take(s, 5); }
static rpl_signal_t *b_skip3(rpl_signal_t *s) { return rpl_signal_skip(s, 3); }
static rpl_signal_t *b_take_last(rpl_signal_t *s) { return rpl_signal_take_last(s, 2); }
static rpl_signal_t *b_take_until_never(rpl_signal_t *s) { return pair(rpl_signal_take_until, rpl_retain(s), rpl_signal_never()); }
static rpl_signal_t *b_take_while(rpl_signal_t *s) { return rpl_signal_take_while(s, always, NULL, NULL); }
static rpl_signal_t *b_skip_while(rpl_signal_t *s) { return rpl_signal_skip_while(s, below_3, NULL, NULL); }
static rpl_signal_t *b_do_next(rpl_signal_t *s) { return rpl_signal_do_next(s, on_value, NULL, NULL); }
static rpl_signal_t *b_do_error(rpl_signal_t *s) { return rpl_signal_do_error(s, on_error, NULL, NULL); }
static rpl_signal_t *b_do_completed(rpl_signal_t *s) { return rpl_signal_do_completed(s, on_completed, NULL, NULL); }
static rpl_signal_t *b_catch(rpl_signal_t *s) { return rpl_signal_catch(s, catch_never, NULL, NULL); }
static rpl_signal_t *b_catch_replacement(rpl_signal_t *s) {
    rpl_signal_t *f = failing();
    return released_after(f, rpl_signal_catch(f, catch_src, s, NULL));
}
static rpl_signal_t *b_catch_to(rpl_signal_t *s) { return pair(rpl_signal_catch_to, rpl_retain(s), rpl_signal_never()); }
static rpl_signal_t *b_catch_to_replacement(rpl_signal_t *s) { return pair(rpl_signal_catch_to, failing(), rpl_retain(s)); }
static rpl_signal_t *b_retry(rpl_signal_t *s) { return rpl_signal_retry(s, 3); }
static rpl_signal_t *b_retry_forever(rpl_signal_t *s) { return rpl_signal_retry(s, RPL_FOREVER_COUNT); }
static rpl_signal_t *b_repeat(rpl_signal_t *s) { return rpl_signal_repeat(s, RPL_FOREVER_COUNT); }
static rpl_signal_t *b_concat_first(rpl_signal_t *s) { return pair(rpl_signal_concat, rpl_retain(s), rpl_signal_empty()); }
static rpl_signal_t *b_concat_second(rpl_signal_t *s) { return pair(rpl_signal_concat, rpl_signal_empty(), rpl_retain(s)); }
static rpl_signal_t *b_merge_first(rpl_signal_t *s) { return array2(rpl_signal_merge, rpl_retain(s), rpl_signal_never()); }
static rpl_signal_t *b_merge_second(rpl_signal_t *s) { return array2(rpl_signal_merge, rpl_signal_never(), rpl_retain(s)); }
/* combine_latest and zip subscribe in array order, so an endless first input
   would keep the second from ever being subscribed: src goes last. */
static rpl_signal_t *b_combine(rpl_signal_t *s) { return array2(rpl_signal_combine_latest, seven(), rpl_retain(s)); }
static rpl_signal_t *b_zip(rpl_signal_t *s) { return array2(rpl_signal_zip, seven(), rpl_retain(s)); }
static rpl_signal_t *b_start_with(rpl_signal_t *s) { return rpl_signal_start_with(s, rpl_int(100)); }
static rpl_signal_t *b_then(rpl_signal_t *s) { return pair(rpl_signal_then, rpl_retain(s), seven()); }
static rpl_signal_t *b_then_second(rpl_signal_t *s) { return pair(rpl_signal_then, rpl_signal_empty(), rpl_retain(s)); }
static rpl_signal_t *b_bind_outer(rpl_signal_t *s) { return rpl_signal_bind(s, bind_return, NULL, NULL); }
static rpl_signal_t *b_bind_inner(rpl_signal_t *s) {
    rpl_signal_t *one = seven();
    return released_after(one, rpl_signal_bind(one, bind_src, s, NULL));
}
static rpl_signal_t *b_flatten_map_outer(rpl_signal_t *s) { return rpl_signal_flatten_map(s, return_it, NULL, NULL); }
static rpl_signal_t *b_flatten_map_inner(rpl_signal_t *s) {
    rpl_signal_t *one = seven();
    return released_after(one, rpl_signal_flatten_map(one, to_src, s, NULL));
}
static rpl_signal_t *b_flatten(rpl_signal_t *s) { return rpl_signal_flatten(s); }
static rpl_signal_t *b_switch(rpl_signal_t *s) { return rpl_signal_switch_to_latest(s); }
/* A one-value outer signal carrying src. */
static rpl_signal_t *outer_of(rpl_signal_t *s, rpl_signal_t *(*f)(rpl_signal_t *)) {
    rpl_signal_t *outer = rpl_signal_return(rpl_signal_value(s));
    return released_after(outer, f(outer));
}
static rpl_signal_t *b_flatten_inner(rpl_signal_t *s) { return outer_of(s, rpl_signal_flatten); }
static rpl_signal_t *b_switch_inner(rpl_signal_t *s) { return outer_of(s, rpl_signal_switch_to_latest); }
static rpl_signal_t *b_materialize(rpl_signal_t *s) { return rpl_signal_materialize(s); }
static rpl_signal_t *b_dematerialize(rpl_signal_t *s) { return rpl_signal_dematerialize(s); }
static rpl_signal_t *b_collect(rpl_signal_t *s) { return rpl_signal_collect(s); }

/* Time operators. MS is short enough to keep the cases fast. */
#define MS 1000000ULL
static rpl_scheduler_t *serial;  /* made in each child that needs it */
static rpl_scheduler_t *get_serial(void) {
    if (!serial) serial = rpl_scheduler_create_serial("rule3");
    return serial;
}
static rpl_signal_t *b_delay_imm(rpl_signal_t *s) { return rpl_signal_delay(s, MS, rpl_scheduler_immediate()); }
static rpl_signal_t *b_delay_serial(rpl_signal_t *s) { return rpl_signal_delay(s, MS, get_serial()); }
static rpl_signal_t *b_delay_bg(rpl_signal_t *s) { return rpl_signal_delay(s, MS, rpl_scheduler_background()); }
static rpl_signal_t *b_throttle_serial(rpl_signal_t *s) { return rpl_signal_throttle(s, MS, get_serial()); }
static rpl_signal_t *b_throttle_bg(rpl_signal_t *s) { return rpl_signal_throttle(s, MS, rpl_scheduler_background()); }
#define HOUR (3600000 * MS)
static rpl_signal_t *b_throttle_serial_quiet(rpl_signal_t *s) { return rpl_signal_throttle(s, HOUR, get_serial()); }
static rpl_signal_t *b_throttle_bg_quiet(rpl_signal_t *s) { return rpl_signal_throttle(s, HOUR, rpl_scheduler_background()); }
static rpl_signal_t *b_timeout_serial(rpl_signal_t *s) { return rpl_signal_timeout(s, 10000 * MS, get_serial()); }
static rpl_signal_t *b_timeout_bg(rpl_signal_t *s) { return rpl_signal_timeout(s, 10000 * MS, rpl_scheduler_background()); }
static rpl_signal_t *b_deliver_imm(rpl_signal_t *s) { return rpl_signal_deliver_on(s, rpl_scheduler_immediate()); }
static rpl_signal_t *b_deliver_serial(rpl_signal_t *s) { return rpl_signal_deliver_on(s, get_serial()); }
static rpl_signal_t *b_deliver_bg(rpl_signal_t *s) { return rpl_signal_deliver_on(s, rpl_scheduler_background()); }
static rpl_signal_t *b_bounded_block_serial(rpl_signal_t *s) {
    return rpl_signal_deliver_on_bounded(s, get_serial(), 16, RPL_OVERFLOW_BLOCK);
}
static rpl_signal_t *b_bounded_block_bg(rpl_signal_t *s) {
    return rpl_signal_deliver_on_bounded(s, rpl_scheduler_background(), 16, RPL_OVERFLOW_BLOCK);
}
static rpl_signal_t *b_bounded_drop_serial(rpl_signal_t *s) {
    return rpl_signal_deliver_on_bounded(s, get_serial(), 1, RPL_OVERFLOW_DROP_NEWEST);
}
static rpl_signal_t *b_subscribe_on_imm(rpl_signal_t *s) { return rpl_signal_subscribe_on(s, rpl_scheduler_immediate()); }
static rpl_signal_t *b_subscribe_on_serial(rpl_signal_t *s) { return rpl_signal_subscribe_on(s, get_serial()); }
static rpl_signal_t *b_subscribe_on_bg(rpl_signal_t *s) { return rpl_signal_subscribe_on(s, rpl_scheduler_background()); }

/* Multicast: autoconnect disconnects when its one subscriber leaves. */
static rpl_signal_t *b_autoconnect_publish(rpl_signal_t *s) {
    rpl_connection_t *c = rpl_signal_publish(s);
    rpl_signal_t *r = rpl_connection_autoconnect(c);
    rpl_release(c);
    return r;
}
static rpl_signal_t *b_autoconnect_multicast(rpl_signal_t *s) {
    rpl_subject_t *subject = rpl_replay_subject_create(1);
    rpl_connection_t *c = rpl_signal_multicast(s, subject);
    rpl_signal_t *r = rpl_connection_autoconnect(c);
    rpl_release(c);
    rpl_release(subject);
    return r;
}

/* ---- Cases: take(op(src), 1) ----------------------------------------------- */
static void c_map(void) { TAKE1(b_map, P_INTS, 1, SYNC_LIMIT); }
static void c_filter(void) { TAKE1(b_filter, P_INTS, 1, SYNC_LIMIT); }
static void c_scan(void) { TAKE1(b_scan, P_INTS, 0, SYNC_LIMIT); }
static void c_aggregate(void) { trigger_case(b_aggregate, P_INTS, 1); }
static void c_distinct(void) { TAKE1(b_distinct, P_INTS, 0, SYNC_LIMIT); }
static void c_take(void) { TAKE1(b_take5, P_INTS, 0, SYNC_LIMIT); }
static void c_skip(void) { TAKE1(b_skip3, P_INTS, 3, SYNC_LIMIT); }
static void c_take_last(void) { trigger_case(b_take_last, P_INTS, 1); }
static void c_take_until(void) { TAKE1(b_take_until_never, P_INTS, 0, SYNC_LIMIT); }
static void c_take_while(void) { TAKE1(b_take_while, P_INTS, 0, SYNC_LIMIT); }
static void c_skip_while(void) { TAKE1(b_skip_while, P_INTS, 3, SYNC_LIMIT); }
static void c_do_next(void) { TAKE1(b_do_next, P_INTS, 0, SYNC_LIMIT); }
static void c_do_error(void) { TAKE1(b_do_error, P_INTS, 0, SYNC_LIMIT); }
static void c_do_completed(void) { TAKE1(b_do_completed, P_INTS, 0, SYNC_LIMIT); }
static void c_catch(void) { TAKE1(b_catch, P_INTS, 0, SYNC_LIMIT); }
static void c_catch_replacement(void) { TAKE1(b_catch_replacement, P_INTS, 0, SYNC_LIMIT); }
static void c_catch_to(void) { TAKE1(b_catch_to, P_INTS, 0, SYNC_LIMIT); }
static void c_catch_to_replacement(void) { TAKE1(b_catch_to_replacement, P_INTS, 0, SYNC_LIMIT); }
static void c_retry(void) { TAKE1(b_retry, P_INTS, 0, SYNC_LIMIT); }
static void c_retry_forever(void) { TAKE1(b_retry_forever, P_INTS, 0, SYNC_LIMIT); }
static void c_repeat(void) { TAKE1(b_repeat, P_INTS, 0, SYNC_LIMIT); }
static void c_concat_first(void) { TAKE1(b_concat_first, P_INTS, 0, SYNC_LIMIT); }
static void c_concat_second(void) { TAKE1(b_concat_second, P_INTS, 0, SYNC_LIMIT); }
static void c_merge_first(void) { TAKE1(b_merge_first, P_INTS, 0, SYNC_LIMIT); }
static void c_merge_second(void) { TAKE1(b_merge_second, P_INTS, 0, SYNC_LIMIT); }
static void c_combine_latest(void) { take_case(b_combine, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_zip(void) { take_case(b_zip, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_start_with(void) {
    const int64_t e[] = {100, 0};
    take_case(b_start_with, P_INTS, 2, e, SYNC_LIMIT);
}
static void c_then(void) { trigger_case(b_then, P_INTS, 1); }
static void c_then_second(void) { TAKE1(b_then_second, P_INTS, 0, SYNC_LIMIT); }
static void c_bind_outer(void) { TAKE1(b_bind_outer, P_INTS, 0, SYNC_LIMIT); }
static void c_bind_inner(void) { TAKE1(b_bind_inner, P_INTS, 0, SYNC_LIMIT); }
static void c_flatten_map_outer(void) { TAKE1(b_flatten_map_outer, P_INTS, 0, SYNC_LIMIT); }
static void c_flatten_map_inner(void) { TAKE1(b_flatten_map_inner, P_INTS, 0, SYNC_LIMIT); }
static void c_flatten_outer(void) { TAKE1(b_flatten, P_SIGNALS, 0, SYNC_LIMIT); }
static void c_flatten_inner(void) { TAKE1(b_flatten_inner, P_INTS, 0, SYNC_LIMIT); }
static void c_switch_outer(void) { TAKE1(b_switch, P_SIGNALS, 0, SYNC_LIMIT); }
static void c_switch_inner(void) { TAKE1(b_switch_inner, P_INTS, 0, SYNC_LIMIT); }
static void c_materialize(void) { take_case(b_materialize, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_dematerialize(void) { TAKE1(b_dematerialize, P_EVENTS, 0, SYNC_LIMIT); }
static void c_collect(void) { trigger_case(b_collect, P_INTS, 1); }
static void c_delay_immediate(void) { TAKE1(b_delay_imm, P_INTS, 0, SYNC_LIMIT); }
static void c_delay_serial(void) { TAKE1(b_delay_serial, P_INTS, 0, ASYNC_LIMIT); }
static void c_delay_background(void) { TAKE1(b_delay_bg, P_INTS, 0, ASYNC_LIMIT); }
/* An endless source never leaves throttle a quiet interval, so it may send
   nothing (or, when the producer is preempted, a value): only the dispose.
   A value the scheduler's thread is delivering when the trigger fires holds
   take_until's gate, and that thread disposes (docs/behaviour.md#rule-4):
   across threads. With an hour's interval nothing is sent, and the dispose
   is on the producer's thread. */
static void c_throttle_serial(void) { trigger_case_limit(b_throttle_serial, P_INTS, 0, ASYNC_LIMIT); }
static void c_throttle_background(void) { trigger_case_limit(b_throttle_bg, P_INTS, 0, ASYNC_LIMIT); }
static void c_throttle_serial_quiet(void) { trigger_case(b_throttle_serial_quiet, P_INTS, 0); }
static void c_throttle_background_quiet(void) { trigger_case(b_throttle_bg_quiet, P_INTS, 0); }
static void c_timeout_serial(void) { TAKE1(b_timeout_serial, P_INTS, 0, SYNC_LIMIT); }
static void c_timeout_background(void) { TAKE1(b_timeout_bg, P_INTS, 0, SYNC_LIMIT); }
static void c_deliver_on_immediate(void) { TAKE1(b_deliver_imm, P_INTS, 0, SYNC_LIMIT); }
static void c_deliver_on_serial(void) { TAKE1(b_deliver_serial, P_INTS, 0, ASYNC_LIMIT); }
static void c_deliver_on_background(void) { TAKE1(b_deliver_bg, P_INTS, 0, ASYNC_LIMIT); }
/* Bounded: a BLOCK producer waiting for room is let go when take disposes. */
static void c_deliver_on_bounded_serial(void) { TAKE1(b_bounded_block_serial, P_INTS, 0, ASYNC_LIMIT); }
static void c_deliver_on_bounded_background(void) { TAKE1(b_bounded_block_bg, P_INTS, 0, ASYNC_LIMIT); }
static void c_deliver_on_bounded_drop_newest(void) { TAKE1(b_bounded_drop_serial, P_INTS, 0, ASYNC_LIMIT); }
/* subscribe_on: the producer and the take run on the scheduler's thread, so
   the dispose is synchronous there. */
static void c_subscribe_on_immediate(void) { TAKE1(b_subscribe_on_imm, P_INTS, 0, SYNC_LIMIT); }
static void c_subscribe_on_serial(void) { TAKE1(b_subscribe_on_serial, P_INTS, 0, SYNC_LIMIT); }
static void c_subscribe_on_background(void) { TAKE1(b_subscribe_on_bg, P_INTS, 0, SYNC_LIMIT); }
static void c_autoconnect_publish(void) { TAKE1(b_autoconnect_publish, P_INTS, 0, SYNC_LIMIT); }
static void c_autoconnect_multicast(void) { TAKE1(b_autoconnect_multicast, P_INTS, 0, SYNC_LIMIT); }

/* ---- A terminal event while the source runs: timeout ------------------------
   timeout(src, 20 ms) over the endless source: the timeout error arrives, the
   producer stops, and subscribe returns (the watchdog catches a hang). */
static void timeout_terminal(rpl_scheduler_t *s) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_signal_t *op = rpl_signal_timeout(src, 20 * MS, s);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(op, &r);
    CHECK(WAIT_FOR(terminated(&r)));
    CHECK_FAILED(r, RPL_ERROR_TIMEOUT);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    check_producer_stopped(CAP - 1);
    rpl_release(d);
    rpl_release(op);
    rpl_release(src);
    CHECK(WAIT_FOR(r.released == 1));
}
static void c_timeout_fires_serial(void) { timeout_terminal(get_serial()); }
static void c_timeout_fires_background(void) { timeout_terminal(rpl_scheduler_background()); }

/* replay_last(timeout(src)): the connection made by replay_last reaches the
   producer through the timeout; replay_last returns, and a subscriber gets the
   last value and the error. */
static void c_replay_last_timeout(void) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_signal_t *op = rpl_signal_timeout(src, 20 * MS, get_serial());
    rpl_signal_t *replayed = rpl_signal_replay_last(op);
    CHECK(replayed != NULL);
    check_producer_stopped(CAP - 1);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(replayed, &r);
    CHECK(WAIT_FOR(terminated(&r)));
    CHECK_EQ_INT(r.n, 1);  /* the latest value before the error */
    CHECK_FAILED(r, RPL_ERROR_TIMEOUT);
    rpl_release(d);
    rpl_release(replayed);
    rpl_release(op);
    rpl_release(src);
}

/* replay / replay_last / replay_lazily connect through a subject that nobody
   can dispose (by contract they never disconnect), so a take below them is
   what stops the producer: it must, and they replay what it sent. */
static void replay_case(rpl_signal_t *(*replay)(rpl_signal_t *), int lazy, const char *expect) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_signal_t *three = rpl_signal_take(src, 3);
    rpl_signal_t *replayed = replay(three);
    CHECK_EQ_INT(P.subscriptions, lazy ? 0 : 1);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(replayed, &r);
    CHECK_LOG(&r, expect);
    check_producer_stopped(3);
    rpl_release(d);
    rpl_release(replayed);
    rpl_release(three);
    rpl_release(src);
}
static void c_replay(void) { replay_case(rpl_signal_replay, 0, "0 1 2 C"); }
static void c_replay_last(void) { replay_case(rpl_signal_replay_last, 0, "2 C"); }
static void c_replay_lazily(void) { replay_case(rpl_signal_replay_lazily, 1, "0 1 2 C"); }

/* ---- Dispose from inside on_next ---------------------------------------------
   The subscription runs on a scheduler (subscribe_on), so subscribe returns the
   disposable while the producer runs; the first on_next waits for it and
   disposes it (the user's own dispose, not a take). */
typedef struct {
    rec_t rec;        /* first: ctx is both */
    _Atomic(rpl_disposable_t *) d;
} self_disposer_t;

static void dispose_on_next(void *ctx, const rpl_value *v) {
    self_disposer_t *sd = ctx;
    rec_next(&sd->rec, v);
    rpl_disposable_t *d;
    while (!(d = atomic_load(&sd->d))) sched_yield();
    rpl_disposable_dispose(d);
}

/* Subscribes sig with a recorder whose first on_next disposes the
   subscription, and waits for its release. The caller checks, then releases
   sd->d and frees sd. */
static self_disposer_t *run_self_disposing(rpl_signal_t *sig) {
    self_disposer_t *sd = calloc(1, sizeof *sd);
    atomic_store(&sd->d, rec_subscribe_fn(sig, &sd->rec, dispose_on_next));
    CHECK(WAIT_FOR(sd->rec.released == 1));
    return sd;
}
static void self_disposer_free(self_disposer_t *sd) {
    rpl_release(atomic_load(&sd->d));
    free(sd);
}

/* subscribe_on(op(src), s), disposed from the first on_next: exactly one value,
   no terminal event, the producer stopped. */
static void self_dispose_case(rpl_signal_t *sig, long limit) {
    self_disposer_t *sd = run_self_disposing(sig);
    CHECK_EQ_INT(sd->rec.n, 1);
    CHECK_OPEN(sd->rec);
    check_producer_stopped(limit);
    self_disposer_free(sd);
}
static void on_scheduler(rpl_signal_t *(*build)(rpl_signal_t *), rpl_scheduler_t *s, long limit) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_signal_t *op = build ? build(src) : rpl_retain(src);
    rpl_signal_t *sig = rpl_signal_subscribe_on(op, s);
    self_dispose_case(sig, limit);
    rpl_release(sig);
    rpl_release(op);
    rpl_release(src);
}
static void c_dispose_in_next_plain(void) { on_scheduler(NULL, get_serial(), SYNC_LIMIT); }
static void c_dispose_in_next_map(void) { on_scheduler(b_map, get_serial(), SYNC_LIMIT); }
static void c_dispose_in_next_take_until(void) { on_scheduler(b_take_until_never, get_serial(), SYNC_LIMIT); }
static void c_dispose_in_next_flatten_map(void) { on_scheduler(b_flatten_map_inner, get_serial(), SYNC_LIMIT); }
static void c_dispose_in_next_deliver_on(void) {
    on_scheduler(b_deliver_bg, get_serial(), ASYNC_LIMIT);
}

/* ReactiveObjC's "should stop repeating when disposed": a source that sends 1
   and completes, repeated forever, subscribed on a scheduler, disposed from
   on_next: one value, one subscription, and no endless resubscription. */
static atomic_int once_subscriptions;
static rpl_disposable_t *one_and_done(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    /* Past the cap the loop is broken: stop completing so the test ends. */
    if (atomic_fetch_add(&once_subscriptions, 1) >= CAP) return NULL;
    rpl_subscriber_send_next(s, rpl_int(1));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static void repeat_subscribe_on(rpl_scheduler_t *sched) {
    rpl_signal_t *src = rpl_signal_create(one_and_done, NULL, NULL);
    rpl_signal_t *rep = rpl_signal_repeat(src, RPL_FOREVER_COUNT);
    rpl_signal_t *sig = rpl_signal_subscribe_on(rep, sched);
    self_disposer_t *sd = run_self_disposing(sig);
    sleep_ms(20);  /* a broken repeat goes on resubscribing meanwhile */
    fprintf(stderr, "    %d subscription(s)\n", (int)once_subscriptions);
    CHECK_EQ_INT(once_subscriptions, 1);
    CHECK_SEQ(sd->rec, 1);
    CHECK_OPEN(sd->rec);
    self_disposer_free(sd);
    rpl_release(sig);
    rpl_release(rep);
    rpl_release(src);
}
static void c_repeat_subscribe_on_serial(void) { repeat_subscribe_on(get_serial()); }
static void c_repeat_subscribe_on_background(void) { repeat_subscribe_on(rpl_scheduler_background()); }

/* ---- Multicast: the connection disposed from inside the source's callback ----
   connect() while the source's subscribe callback still runs returns the same
   connection; disposing it from the subscriber's on_next must reach the
   producer, and the first connect returns. */
typedef struct {
    rec_t rec;        /* first: ctx is both */
    rpl_connection_t *c;
} conn_disposer_t;
static void disconnect_on_next(void *ctx, const rpl_value *v) {
    conn_disposer_t *cd = ctx;
    rec_next(&cd->rec, v);
    rpl_disposable_t *again = rpl_connection_connect(cd->c);
    CHECK(again != NULL);
    rpl_disposable_dispose(again);
    rpl_release(again);
}
/* publish (subject NULL) or multicast through subject. */
static void connect_case(rpl_subject_t *subject) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_connection_t *c = subject ? rpl_signal_multicast(src, subject) : rpl_signal_publish(src);
    conn_disposer_t cd;
    cd.c = c;
    rpl_disposable_t *d = rec_subscribe_fn(rpl_connection_signal(c), &cd.rec, disconnect_on_next);
    rpl_disposable_t *conn = rpl_connection_connect(c);
    CHECK(conn != NULL);
    CHECK(rpl_disposable_is_disposed(conn));
    CHECK_EQ_INT(cd.rec.n, 1);
    check_producer_stopped(SYNC_LIMIT);
    rpl_release(conn);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(c);
    rpl_release(src);
}
static void c_publish_connect(void) { connect_case(NULL); }
static void c_multicast_connect(void) {
    rpl_subject_t *subject = rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    connect_case(subject);
    rpl_release(subject);
}

/* ---- subscribe_subject: the subject's terminal event disposes its source
   subscriptions, also one still inside its subscribe callback. */
static rpl_subject_t *the_subject;
static void complete_on_next(void *ctx, const rpl_value *v) {
    rec_next(ctx, v);
    rpl_subject_send_completed(the_subject);
}
static void c_subscribe_subject(void) {
    rpl_signal_t *src = endless_source(P_INTS);
    the_subject = rpl_subject_create();
    rec_t r;
    rpl_disposable_t *d = rec_subscribe_fn(rpl_subject_as_signal(the_subject), &r, complete_on_next);
    rpl_disposable_t *feed = rpl_signal_subscribe_subject(src, the_subject);
    CHECK(feed != NULL);
    CHECK_LOG(&r, "0 C");
    check_producer_stopped(SYNC_LIMIT);
    rpl_release(feed);
    rpl_release(d);
    rpl_release(the_subject);
    rpl_release(src);
}

/* ---- defer and the blocking helpers ------------------------------------------ */
static rpl_signal_t *defer_factory(void *ctx) { return rpl_retain(ctx); }
static rpl_signal_t *b_defer(rpl_signal_t *s) { return rpl_signal_defer(defer_factory, s, NULL); }
static void c_defer(void) { TAKE1(b_defer, P_INTS, 0, SYNC_LIMIT); }

/* first takes one value and disposes: the producer stops at once. */
static void c_first(void) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_value v = rpl_nil();
    CHECK_EQ_INT(rpl_signal_first(src, &v, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT(rpl_value_type(&v), RPL_TYPE_INT);
    CHECK_EQ_INT(rpl_value_int(&v), 0);
    check_producer_stopped(SYNC_LIMIT);
    rpl_value_release(&v);
    rpl_release(src);
}
/* wait and to_array time out while the source is still inside its subscribe
   callback: the timeout must reach it, and the call return the timeout. */
static void c_wait_timeout(void) {
    rpl_signal_t *src = endless_source(P_INTS);
    CHECK_EQ_INT(rpl_signal_wait(src, 20 * MS), RPL_ERR_TIMEOUT);
    check_producer_stopped(CAP - 1);
    rpl_release(src);
}
static void c_to_array_timeout(void) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_value all = rpl_nil();
    CHECK_EQ_INT(rpl_signal_to_array(src, &all, 20 * MS), RPL_ERR_TIMEOUT);
    check_producer_stopped(CAP - 1);
    rpl_value_release(&all);
    rpl_release(src);
}

/* ---- The 0.2 operators, one file per group ------------------------------------ */
#include "rule3_creating.h"
#include "rule3_transforming.h"
#include "rule3_flattening.h"
#include "rule3_combining.h"

/* ---- The runner ---------------------------------------------------------------- */
typedef struct { const char *name; void (*fn)(void); } test_case;
#define CASE(n) { #n, c_##n }
static const test_case cases[] = {
    CASE(map), CASE(filter), CASE(scan), CASE(aggregate), CASE(distinct), CASE(take), CASE(skip),
    CASE(take_last), CASE(take_until), CASE(take_while), CASE(skip_while), CASE(do_next), CASE(do_error),
    CASE(do_completed), CASE(catch), CASE(catch_replacement), CASE(catch_to), CASE(catch_to_replacement),
    CASE(retry), CASE(retry_forever), CASE(repeat), CASE(concat_first), CASE(concat_second),
    CASE(merge_first), CASE(merge_second), CASE(combine_latest), CASE(zip), CASE(start_with), CASE(then),
    CASE(then_second), CASE(bind_outer), CASE(bind_inner), CASE(flatten_map_outer), CASE(flatten_map_inner),
    CASE(flatten_outer), CASE(flatten_inner), CASE(switch_outer), CASE(switch_inner), CASE(materialize),
    CASE(dematerialize), CASE(collect),
    CASE(delay_immediate), CASE(delay_serial), CASE(delay_background),
    CASE(throttle_serial), CASE(throttle_background), CASE(throttle_serial_quiet), CASE(throttle_background_quiet),
    CASE(timeout_serial), CASE(timeout_background), CASE(timeout_fires_serial), CASE(timeout_fires_background),
    CASE(deliver_on_immediate), CASE(deliver_on_serial), CASE(deliver_on_background),
    CASE(subscribe_on_immediate), CASE(subscribe_on_serial), CASE(subscribe_on_background),
    CASE(autoconnect_publish), CASE(autoconnect_multicast), CASE(publish_connect), CASE(multicast_connect),
    CASE(replay), CASE(replay_last), CASE(replay_lazily), CASE(replay_last_timeout),
    CASE(subscribe_subject), CASE(defer), CASE(first), CASE(wait_timeout), CASE(to_array_timeout),
    CASE(dispose_in_next_plain), CASE(dispose_in_next_map), CASE(dispose_in_next_take_until),
    CASE(dispose_in_next_flatten_map), CASE(dispose_in_next_deliver_on),
    CASE(deliver_on_bounded_serial), CASE(deliver_on_bounded_background), CASE(deliver_on_bounded_drop_newest),
    CASE(repeat_subscribe_on_serial), CASE(repeat_subscribe_on_background),
    RULE3_CREATING_CASES
    RULE3_TRANSFORMING_CASES
    RULE3_FLATTENING_CASES
    RULE3_COMBINING_CASES
};

static int selected(const char *name, int argc, char **argv) {
    if (argc < 2) return 1;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i])) return 1;
    return 0;
}

/* Runs one case in a child process; its diagnostics come back through a pipe
   and are printed under the case's line when it fails. The parent is the
   watchdog: a child still running after WATCHDOG_S is killed and reported as
   hung. (Not alarm() in the child: under valgrind a pending alarm keeps the
   runtime's timed waits from expiring.) */
static int run_case(const test_case *c) {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* The parent never touches the runtime, so the child starts clean. */
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        c->fn();
        exit(check_failed ? 1 : 0);  /* exit, not _exit: LeakSanitizer checks at exit */
    }
    close(fds[1]);
    char out[16384];
    size_t len = 0;
    int hung = 0;
    double deadline = now_s() + WATCHDOG_S;
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            hung = 1;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd pfd = { fds[0], POLLIN, 0 };
        if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0) continue;
        char buf[4096];
        ssize_t got = read(fds[0], buf, sizeof buf);
        if (got <= 0) break;  /* EOF: the child (and its threads) are gone */
        size_t keep = (size_t)got < sizeof out - 1 - len ? (size_t)got : sizeof out - 1 - len;
        memcpy(out + len, buf, keep);
        len += keep;
    }
    out[len] = 0;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    int ok = !hung && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok) printf("ok    %s\n", c->name);
    else if (hung)
        fprintf(stderr, "FAIL  %s: hung (watchdog, %u s)\n", c->name, WATCHDOG_S);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "FAIL  %s: killed by signal %d\n", c->name, WTERMSIG(status));
    else
        fprintf(stderr, "FAIL  %s\n", c->name);
    if (!ok) fprintf(stderr, "%s%s", out, len && out[len - 1] != '\n' ? "\n" : "");
    return ok;
}

int main(int argc, char **argv) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!selected(cases[i].name, argc, argv)) continue;
        if (run_case(&cases[i])) passed++;
        else failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
