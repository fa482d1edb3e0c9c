/* Rule 3a cases for the 0.2 flattening operators; included by test_rule3.c, which
   provides the endless producer and the TAKE1-style helpers. */

/* flatten_max, concat_all, concat_map: the endless source as the outer signal,
   as a running inner, and as an inner that waited for an earlier one. */
static rpl_signal_t *flatten_max2(rpl_signal_t *s) { return rpl_signal_flatten_max(s, 2); }
static rpl_signal_t *b_flatten_max_outer(rpl_signal_t *s) { return flatten_max2(s); }
static rpl_signal_t *b_flatten_max_inner(rpl_signal_t *s) { return outer_of(s, flatten_max2); }
static rpl_signal_t *b_concat_all_outer(rpl_signal_t *s) { return rpl_signal_concat_all(s); }
static rpl_signal_t *b_concat_all_inner(rpl_signal_t *s) { return outer_of(s, rpl_signal_concat_all); }
/* An outer sending (seven, src): src waits until seven has completed. */
static rpl_signal_t *b_concat_all_waiting(rpl_signal_t *s) {
    rpl_signal_t *first = seven();
    rpl_value vs[2] = { rpl_signal_value(first), rpl_signal_value(s) };
    rpl_signal_t *a = rpl_signal_return(vs[0]), *b = rpl_signal_return(vs[1]);
    rpl_signal_t *outer = pair(rpl_signal_concat, a, b);
    rpl_release(first);
    return released_after(outer, rpl_signal_concat_all(outer));
}
static rpl_signal_t *b_concat_map_outer(rpl_signal_t *s) { return rpl_signal_concat_map(s, return_it, NULL, NULL); }
static rpl_signal_t *b_concat_map_inner(rpl_signal_t *s) {
    rpl_signal_t *one = seven();
    return released_after(one, rpl_signal_concat_map(one, to_src, s, NULL));
}
static void c_flatten_max_outer(void) { TAKE1(b_flatten_max_outer, P_SIGNALS, 0, SYNC_LIMIT); }
static void c_flatten_max_inner(void) { TAKE1(b_flatten_max_inner, P_INTS, 0, SYNC_LIMIT); }
static void c_concat_all_outer(void) { TAKE1(b_concat_all_outer, P_SIGNALS, 0, SYNC_LIMIT); }
static void c_concat_all_inner(void) { TAKE1(b_concat_all_inner, P_INTS, 0, SYNC_LIMIT); }
static void c_concat_all_waiting(void) {
    const int64_t e[] = {7, 0};
    take_case(b_concat_all_waiting, P_INTS, 2, e, SYNC_LIMIT);
}
static void c_concat_map_outer(void) { TAKE1(b_concat_map_outer, P_INTS, 0, SYNC_LIMIT); }
static void c_concat_map_inner(void) { TAKE1(b_concat_map_inner, P_INTS, 0, SYNC_LIMIT); }

/* switch_if_empty: the endless source as sig, and as the other signal. */
static rpl_signal_t *b_switch_if_empty_first(rpl_signal_t *s) {
    return pair(rpl_signal_switch_if_empty, rpl_retain(s), rpl_signal_empty());
}
static rpl_signal_t *b_switch_if_empty_other(rpl_signal_t *s) {
    return pair(rpl_signal_switch_if_empty, rpl_signal_empty(), rpl_retain(s));
}
static void c_switch_if_empty_first(void) { TAKE1(b_switch_if_empty_first, P_INTS, 0, SYNC_LIMIT); }
static void c_switch_if_empty_other(void) { TAKE1(b_switch_if_empty_other, P_INTS, 0, SYNC_LIMIT); }

/* if and switch_cases: the endless source as the condition (mapped to bools,
   or as ints for the keys), and as the signal followed. */
static rpl_value always_true(void *ctx, const rpl_value *v) { (void)ctx; (void)v; return rpl_bool(true); }
static rpl_signal_t *b_if_cond(rpl_signal_t *s) {
    rpl_signal_t *cond = rpl_signal_map(s, always_true, NULL, NULL);
    rpl_signal_t *t = seven(), *f = rpl_signal_never();
    rpl_signal_t *r = rpl_signal_if(cond, t, f);
    rpl_release(cond);
    rpl_release(t);
    rpl_release(f);
    return r;
}
static rpl_signal_t *b_if_then(rpl_signal_t *s) {
    rpl_signal_t *cond = rpl_signal_return(rpl_bool(true)), *f = rpl_signal_never();
    rpl_signal_t *r = rpl_signal_if(cond, s, f);
    rpl_release(cond);
    rpl_release(f);
    return r;
}
static rpl_signal_t *b_switch_cases_key(rpl_signal_t *s) {
    rpl_signal_t *t = seven();
    rpl_value keys[1] = { rpl_int(0) };
    rpl_signal_t *cases[1] = { t };
    return released_after(t, rpl_signal_switch_cases(s, keys, cases, 1, t));
}
static rpl_signal_t *b_switch_cases_case(rpl_signal_t *s) {
    rpl_signal_t *key = rpl_signal_return(rpl_int(1));
    rpl_value keys[1] = { rpl_int(1) };
    rpl_signal_t *cases[1] = { s };
    return released_after(key, rpl_signal_switch_cases(key, keys, cases, 1, NULL));
}
static void c_if_cond(void) { TAKE1(b_if_cond, P_INTS, 7, SYNC_LIMIT); }
static void c_if_then(void) { TAKE1(b_if_then, P_INTS, 0, SYNC_LIMIT); }
static void c_switch_cases_key(void) { TAKE1(b_switch_cases_key, P_INTS, 7, SYNC_LIMIT); }
static void c_switch_cases_case(void) { TAKE1(b_switch_cases_case, P_INTS, 0, SYNC_LIMIT); }

#define RULE3_FLATTENING_CASES \
    CASE(flatten_max_outer), CASE(flatten_max_inner), CASE(concat_all_outer), CASE(concat_all_inner), \
    CASE(concat_all_waiting), CASE(concat_map_outer), CASE(concat_map_inner), \
    CASE(switch_if_empty_first), CASE(switch_if_empty_other), CASE(if_cond), CASE(if_then), \
    CASE(switch_cases_key), CASE(switch_cases_case),
