/* Rule 3a cases for the 0.2 combining operators; included by test_rule3.c, which
   provides the endless producer and the TAKE1-style helpers. */

/* An input that has sent 7 and stays open: sample's source, with_latest_from's
   other. */
static rpl_signal_t *seven_open(void) { return pair(rpl_signal_concat, seven(), rpl_signal_never()); }
static rpl_signal_t *b_wlf_source(rpl_signal_t *s) { return pair(rpl_signal_with_latest_from, rpl_retain(s), seven_open()); }
/* other is subscribed first: the endless producer as other sends nothing on. */
static rpl_signal_t *b_wlf_other(rpl_signal_t *s) { return pair(rpl_signal_with_latest_from, seven(), rpl_retain(s)); }
static rpl_signal_t *b_sample_source(rpl_signal_t *s) { return pair(rpl_signal_sample, rpl_retain(s), rpl_signal_never()); }
static rpl_signal_t *b_sample_sampler(rpl_signal_t *s) { return pair(rpl_signal_sample, seven_open(), rpl_retain(s)); }
static rpl_signal_t *b_tur_source(rpl_signal_t *s) {
    return pair(rpl_signal_take_until_replacement, rpl_retain(s), rpl_signal_never());
}
static rpl_signal_t *b_tur_replacement(rpl_signal_t *s) {
    return pair(rpl_signal_take_until_replacement, rpl_signal_never(), rpl_retain(s));
}
/* skip_until subscribes the source first (RxSwift), so an endless source
   sends nothing on: the dispose must reach it. */
static rpl_signal_t *b_skip_until_source(rpl_signal_t *s) { return pair(rpl_signal_skip_until, rpl_retain(s), seven()); }
static rpl_signal_t *b_skip_until_trigger(rpl_signal_t *s) {
    return pair(rpl_signal_skip_until, rpl_signal_never(), rpl_retain(s));
}
static rpl_value key_parity(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(rpl_value_int(v) % 2); }
static rpl_signal_t *b_group_by(rpl_signal_t *s) { return rpl_signal_group_by(s, key_parity, NULL, NULL); }

static void c_with_latest_from(void) { take_case(b_wlf_source, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_with_latest_from_other(void) { trigger_case(b_wlf_other, P_INTS, 1); }
static void c_sample_source(void) { trigger_case(b_sample_source, P_INTS, 1); }
static void c_sample_sampler(void) { TAKE1(b_sample_sampler, P_INTS, 7, SYNC_LIMIT); }
static void c_take_until_replacement(void) { TAKE1(b_tur_source, P_INTS, 0, SYNC_LIMIT); }
static void c_take_until_replacement_r(void) { TAKE1(b_tur_replacement, P_INTS, 0, SYNC_LIMIT); }
static void c_skip_until(void) { trigger_case(b_skip_until_source, P_INTS, 1); }
/* The trigger is disposed at its first value: that dispose reaches the
   endless trigger while it is still inside its subscribe callback. */
static void c_skip_until_trigger(void) {
    rpl_signal_t *src = endless_source(P_INTS);
    rpl_signal_t *op = b_skip_until_trigger(src);
    CHECK(op != NULL);
    rec_t r;
    rpl_disposable_t *d = rec_subscribe(op, &r);
    check_producer_stopped(SYNC_LIMIT);
    CHECK_EQ_INT(r.n, 0);
    CHECK_OPEN(r);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(op);
    rpl_release(src);
    CHECK(WAIT_FOR(r.released == 1));
}
static void c_group_by(void) { take_case(b_group_by, P_INTS, 1, NULL, SYNC_LIMIT); }

#define RULE3_COMBINING_CASES \
    CASE(with_latest_from), CASE(with_latest_from_other), CASE(sample_source), CASE(sample_sampler), \
    CASE(take_until_replacement), CASE(take_until_replacement_r), CASE(skip_until), CASE(skip_until_trigger), \
    CASE(group_by),
