/* Rule 3a cases for the 0.2 creating operators; included by test_rule3.c, which
   provides the endless producer and the TAKE1-style helpers. */

/* ---- Sources: from_array, range and timer stop between values once a take
   below them has ended the subscription. A do_next between counts what left
   the source. */
static atomic_long cr_passed;
static void cr_count(void *ctx, const rpl_value *v) { (void)ctx; (void)v; atomic_fetch_add(&cr_passed, 1); }

/* take(do_next(sig, count), n): the log, and at most n values left sig. */
static void cr_source_case(rpl_signal_t *sig, size_t n, const char *expect) {
    atomic_store(&cr_passed, 0);
    rpl_signal_t *counted = rpl_signal_do_next(sig, cr_count, NULL, NULL);
    rpl_signal_t *t = rpl_signal_take(counted, n);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(t, &r);
    CHECK(WAIT_FOR(terminated(&r)));
    CHECK_LOG(&r, expect);
    fprintf(stderr, "    %ld value(s) left the source\n", (long)cr_passed);
    CHECK_EQ_INT(cr_passed, n);
    rpl_release(d);
    rpl_release(t);
    rpl_release(counted);
    rpl_release(sig);
    CHECK(WAIT_FOR(r.released == 1));
}
static void c_from_array(void) {
    enum { N = 100000 };
    rpl_value *vs = malloc(N * sizeof *vs);
    for (int i = 0; i < N; i++) vs[i] = rpl_int(i);
    rpl_signal_t *sig = rpl_signal_from_array(vs, N);  /* consumes the values */
    free(vs);
    cr_source_case(sig, 1, "0 C");
}
static void c_range(void) { cr_source_case(rpl_signal_range(0, (size_t)INT64_MAX), 2, "0 1 C"); }
static void c_timer(void) { cr_source_case(rpl_signal_timer(MS, get_serial()), 1, "0 C"); }

/* ---- start_lazily / start_eagerly: a take below the result ends the
   subscriber's subscription while the body is still sending (on the
   immediate scheduler, inside subscribe); nothing more reaches it. By design
   the body's own work is never cancelled (RAC; semantics 27): it sends all
   of its values into the replay, once. */
#define CR_BODY_VALUES 1000
static atomic_int cr_body_calls;
static rpl_disposable_t *cr_body(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    atomic_fetch_add(&cr_body_calls, 1);
    for (long i = 0; i < CR_BODY_VALUES && !rpl_subscriber_is_disposed(s); i++) {
        rpl_subscriber_send_next(s, rpl_int(i));
        atomic_fetch_add(&cr_passed, 1);
    }
    rpl_subscriber_send_completed(s);
    return NULL;
}
static void cr_start_case(rpl_signal_t *(*start)(rpl_scheduler_t *, rpl_subscribe_fn, void *, rpl_release_fn)) {
    atomic_store(&cr_passed, 0);
    rpl_signal_t *sig = start(rpl_scheduler_immediate(), cr_body, NULL, NULL);
    rpl_signal_t *t = rpl_signal_take(sig, 1);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(t, &r);
    CHECK_LOG(&r, "0 C");
    CHECK_EQ_INT(cr_body_calls, 1);
    CHECK_EQ_INT(cr_passed, CR_BODY_VALUES);
    rec_t r2;  /* a second take gets the replay */
    rpl_disposable_t *d2 = rec_subscribe(t, &r2);
    CHECK_LOG(&r2, "0 C");
    CHECK_EQ_INT(cr_body_calls, 1);
    rpl_release(d2);
    rpl_release(d);
    rpl_release(t);
    rpl_release(sig);
}
static void c_start_lazily(void) { cr_start_case(rpl_signal_start_lazily); }
static void c_start_eagerly(void) { cr_start_case(rpl_signal_start_eagerly); }

/* ---- Operators over the endless producer ------------------------------------- */
static bool cr_never(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return false; }
static bool cr_always(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return true; }
static rpl_signal_t *b_share(rpl_signal_t *s) { return rpl_signal_share(s, 0); }
static rpl_signal_t *b_share_replay(rpl_signal_t *s) { return rpl_signal_share(s, RPL_REPLAY_UNLIMITED); }
static rpl_signal_t *b_delay_subscription(rpl_signal_t *s) { return rpl_signal_delay_subscription(s, MS, get_serial()); }
static rpl_signal_t *b_throttle_first(rpl_signal_t *s) {
    return rpl_signal_throttle_first(s, 1000 * MS, rpl_scheduler_immediate());
}
static rpl_signal_t *b_throttle_if_passing(rpl_signal_t *s) {
    return rpl_signal_throttle_if(s, MS, get_serial(), cr_never, NULL, NULL);
}
static rpl_signal_t *b_throttle_if_held(rpl_signal_t *s) {
    return rpl_signal_throttle_if(s, MS, get_serial(), cr_always, NULL, NULL);
}
static rpl_signal_t *b_buffer_with_time(rpl_signal_t *s) { return rpl_signal_buffer_with_time(s, MS, get_serial()); }
static rpl_signal_t *b_buffer_with_time_quiet(rpl_signal_t *s) { return rpl_signal_buffer_with_time(s, HOUR, get_serial()); }
static rpl_signal_t *b_throttle_if_held_quiet(rpl_signal_t *s) {
    return rpl_signal_throttle_if(s, HOUR, get_serial(), cr_always, NULL, NULL);
}

/* The last subscriber leaving disconnects: the dispose reaches the producer. */
static void c_share(void) { TAKE1(b_share, P_INTS, 0, SYNC_LIMIT); }
static void c_share_replay(void) { TAKE1(b_share_replay, P_INTS, 0, SYNC_LIMIT); }
/* The producer runs on the serial thread, where the take disposes. */
static void c_delay_subscription(void) { TAKE1(b_delay_subscription, P_INTS, 0, SYNC_LIMIT); }
static void c_throttle_first(void) { TAKE1(b_throttle_first, P_INTS, 0, SYNC_LIMIT); }
/* Values failing the test pass at once (through the relay). */
static void c_throttle_if_passing(void) { TAKE1(b_throttle_if_passing, P_INTS, 0, SYNC_LIMIT); }
/* Held values: an endless source never leaves a quiet interval, so only the
   dispose (take_until, fired by the producer) is checked, as for throttle,
   across threads, and on the producer's thread with an hour's interval. */
static void c_throttle_if_held(void) { trigger_case_limit(b_throttle_if_held, P_INTS, 0, ASYNC_LIMIT); }
static void c_throttle_if_held_quiet(void) { trigger_case(b_throttle_if_held_quiet, P_INTS, 0); }
/* A batch may go out on the serial thread while the producer runs: no value
   count is checked, only that the dispose reaches the producer. When the
   trigger fires during a batch's delivery, take_until's completion is left to
   the serial thread, which holds the gate (docs/behaviour.md#rule-4), and
   that thread disposes: across threads, however long a loaded machine keeps
   it waiting. With no batch due (an interval of an hour), the dispose is made
   on the producer's thread at once. */
static void c_buffer_with_time(void) { trigger_case_limit(b_buffer_with_time, P_INTS, 0, ASYNC_LIMIT); }
static void c_buffer_with_time_quiet(void) { trigger_case(b_buffer_with_time_quiet, P_INTS, 0); }

#define RULE3_CREATING_CASES \
    CASE(from_array), CASE(range), CASE(timer), CASE(start_lazily), CASE(start_eagerly), \
    CASE(share), CASE(share_replay), CASE(delay_subscription), CASE(throttle_first), \
    CASE(throttle_if_passing), CASE(throttle_if_held), CASE(throttle_if_held_quiet), CASE(buffer_with_time), CASE(buffer_with_time_quiet),
