/* Rule 3a cases for the 0.2 transforming operators; included by test_rule3.c, which
   provides the endless producer and the TAKE1-style helpers. */

/* Callbacks and value makers for these cases. */
static rpl_value tr3_pair(void *ctx, const rpl_value *v) {
    (void)ctx;
    rpl_value items[2] = { rpl_value_copy(v), rpl_int(1) };
    return rpl_tuple(items, 2);
}
static rpl_value tr3_bool(void *ctx, const rpl_value *v) { (void)ctx; return rpl_bool(rpl_value_int(v) % 2 == 0); }
static rpl_value tr3_bools(void *ctx, const rpl_value *v) {
    (void)ctx;
    rpl_value items[2] = { rpl_bool(true), rpl_bool(rpl_value_int(v) % 2 == 0) };
    return rpl_tuple(items, 2);
}
static rpl_value tr3_first(void *ctx, const rpl_value *items, size_t count) { (void)ctx; return count ? rpl_value_copy(&items[0]) : rpl_nil(); }
static rpl_value tr3_prev_minus(void *ctx, const rpl_value *prev, const rpl_value *cur) {
    (void)ctx;
    return rpl_int(rpl_value_int(cur) - rpl_value_int(prev));
}
static bool tr3_equal(void *ctx, const rpl_value *a, const rpl_value *b) { (void)ctx; return rpl_value_equal(a, b); }
static bool tr3_never(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return false; }
static bool tr3_from_3(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) >= 3; }
static atomic_int tr3_side_calls;
static void tr3_side(void *ctx) { (void)ctx; atomic_fetch_add(&tr3_side_calls, 1); }

/* op(map(src, m)), the map released (op retains it). */
static rpl_signal_t *tr3_over(rpl_signal_t *s, rpl_map_fn m, rpl_signal_t *(*op)(rpl_signal_t *)) {
    rpl_signal_t *mapped = rpl_signal_map(s, m, NULL, NULL);
    return released_after(mapped, op(mapped));
}

static rpl_signal_t *b_map_replace(rpl_signal_t *s) { return rpl_signal_map_replace(s, rpl_int(7)); }
static rpl_signal_t *b_ignore(rpl_signal_t *s) { return rpl_signal_ignore(s, rpl_int(0)); }
static rpl_signal_t *b_ignore_values(rpl_signal_t *s) { return rpl_signal_ignore_values(s); }
static rpl_signal_t *b_reduce_each_op(rpl_signal_t *s) { return rpl_signal_reduce_each(s, tr3_first, NULL, NULL); }
static rpl_signal_t *b_reduce_each(rpl_signal_t *s) { return tr3_over(s, tr3_pair, b_reduce_each_op); }
static rpl_signal_t *b_combine_previous(rpl_signal_t *s) {
    return rpl_signal_combine_previous(s, rpl_int(-5), tr3_prev_minus, NULL, NULL);
}
static rpl_signal_t *b_distinct_with(rpl_signal_t *s) { return rpl_signal_distinct_until_changed_with(s, tr3_equal, NULL, NULL); }
static rpl_signal_t *b_buffer(rpl_signal_t *s) { return rpl_signal_buffer(s, 3); }
static rpl_signal_t *b_not(rpl_signal_t *s) { return tr3_over(s, tr3_bool, rpl_signal_not); }
static rpl_signal_t *b_and(rpl_signal_t *s) { return tr3_over(s, tr3_bools, rpl_signal_and); }
static rpl_signal_t *b_or(rpl_signal_t *s) { return tr3_over(s, tr3_bools, rpl_signal_or); }
static rpl_signal_t *b_any(rpl_signal_t *s) { return rpl_signal_any(s, tr3_from_3, NULL, NULL); }
static rpl_signal_t *b_any_undecided(rpl_signal_t *s) { return rpl_signal_any(s, tr3_never, NULL, NULL); }
static rpl_signal_t *b_all(rpl_signal_t *s) { return rpl_signal_all(s, tr3_never, NULL, NULL); }
static rpl_signal_t *b_all_undecided(rpl_signal_t *s) { return rpl_signal_all(s, always, NULL, NULL); }
static rpl_signal_t *b_default_if_empty(rpl_signal_t *s) { return rpl_signal_default_if_empty(s, rpl_int(9)); }
static rpl_signal_t *b_initially(rpl_signal_t *s) { return rpl_signal_initially(s, tr3_side, NULL, NULL); }
static rpl_signal_t *b_finally(rpl_signal_t *s) { return rpl_signal_finally(s, tr3_side, NULL, NULL); }
static rpl_signal_t *b_do_dispose(rpl_signal_t *s) { return rpl_signal_do_dispose(s, tr3_side, NULL, NULL); }

static void c_map_replace(void) { TAKE1(b_map_replace, P_INTS, 7, SYNC_LIMIT); }
static void c_ignore(void) { TAKE1(b_ignore, P_INTS, 1, SYNC_LIMIT); }
static void c_ignore_values(void) { trigger_case(b_ignore_values, P_INTS, 1); }
static void c_reduce_each(void) { TAKE1(b_reduce_each, P_INTS, 0, SYNC_LIMIT); }
static void c_combine_previous(void) { TAKE1(b_combine_previous, P_INTS, 5, SYNC_LIMIT); }
static void c_distinct_with(void) { TAKE1(b_distinct_with, P_INTS, 0, SYNC_LIMIT); }
/* buffer, not, and, or, any, all send tuples or bools: one value of any kind. */
static void c_buffer(void) { take_case(b_buffer, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_not(void) { take_case(b_not, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_and(void) { take_case(b_and, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_or(void) { take_case(b_or, P_INTS, 1, NULL, SYNC_LIMIT); }
/* any and all decided by a value: their own short circuit stops the producer. */
static void c_any(void) { take_case(b_any, P_INTS, 1, NULL, SYNC_LIMIT); }
static void c_all(void) { take_case(b_all, P_INTS, 1, NULL, SYNC_LIMIT); }
/* Undecided, they send nothing: the trigger's dispose must reach the producer. */
static void c_any_undecided(void) { trigger_case(b_any_undecided, P_INTS, 1); }
static void c_all_undecided(void) { trigger_case(b_all_undecided, P_INTS, 1); }
static void c_default_if_empty(void) { TAKE1(b_default_if_empty, P_INTS, 0, SYNC_LIMIT); }
static void c_initially(void) {
    TAKE1(b_initially, P_INTS, 0, SYNC_LIMIT);
    CHECK_EQ_INT(tr3_side_calls, 1);
}
static void c_finally(void) {
    TAKE1(b_finally, P_INTS, 0, SYNC_LIMIT);
    CHECK_EQ_INT(tr3_side_calls, 0);  /* ended by the downstream take: no terminal event */
}
static void c_do_dispose(void) {
    TAKE1(b_do_dispose, P_INTS, 0, SYNC_LIMIT);
    CHECK_EQ_INT(tr3_side_calls, 1);
}

#define RULE3_TRANSFORMING_CASES \
    CASE(map_replace), CASE(ignore), CASE(ignore_values), CASE(reduce_each), CASE(combine_previous), \
    CASE(distinct_with), CASE(buffer), CASE(not), CASE(and), CASE(or), CASE(any), CASE(all), \
    CASE(any_undecided), CASE(all_undecided), CASE(default_if_empty), CASE(initially), CASE(finally), \
    CASE(do_dispose),
