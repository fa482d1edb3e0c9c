/* RxJS's own marble tests, ported: each case below is a run-mode case of
   RxJS's spec/operators/<name>-spec.ts (named in the comment above it), with
   the same diagrams, run through Ripple's marble API against the operator
   Ripple has for it. The diagrams are RxJS's, spaces and all; subscription
   diagrams are compared without their spaces and trailing dashes.

   Departures, where Ripple follows ReactiveCocoa (or its own header) rather
   than RxJS, are tested as Ripple behaves and marked DEPARTURE with the
   reason (docs/marble-tests.md lists them):
   - take_until: the trigger's completion also ends the result, and its
     error is ignored (RAC's takeUntil:).
   - skip_until: a trigger that completes without a value means the result
     never completes (the subscription ends without an event).
   - delay: the completion is delayed too (RAC's delay:).
   - throttle_first: a value exactly ns after the last one passed passes
     (there is no timer; RxJS's window timer runs after that frame's value).
   - sample: each tick samples again, also when nothing new came (RAC).
   - Values that RxJS's projections make into strings ('b1') are Ripple's
     tuples (with_latest_from, combine_latest) and buffers are tuples. */
#include "marble.h"

static rpl_scheduler_t *T;
#define COLD(m) rpl_marble_cold(T, (m), NULL, 0)
#define HOT(m) rpl_marble_hot(T, (m), NULL, 0)
#define S(x) ((rpl_signal_t *)(x))
#define EXPECT(sig, sub, exp) MARBLE_EXPECT(T, (sig), (sub), (exp), NULL, 0)
#define EXPECT_V(sig, sub, exp, vals) MARBLE_EXPECT(T, (sig), (sub), (exp), (vals), sizeof(vals) / sizeof((vals)[0]))
#define MS 1000000ull

static void begin(void) { T = rpl_test_scheduler_create(); }
static void end(void *a, void *b, void *c, void *d) {
    rpl_release(a);
    rpl_release(b);
    rpl_release(c);
    rpl_release(d);
    rpl_release(T);
}

static bool odd(void *c, const rpl_value *v) { (void)c; return rpl_value_int(v) % 2 != 0; }
static bool prime(void *c, const rpl_value *v) {
    (void)c;
    int64_t n = rpl_value_int(v);
    if (n < 2) return false;
    for (int64_t d = 2; d * d <= n; d++) if (n % d == 0) return false;
    return true;
}
static bool below4(void *c, const rpl_value *v) { (void)c; return rpl_value_int(v) < 4; }
static rpl_value times10(void *c, const rpl_value *v) { (void)c; return rpl_int(rpl_value_int(v) * 10); }
static rpl_value sum(void *c, const rpl_value *acc, const rpl_value *v) {
    (void)c;
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}
static rpl_value pair(const char *s, int64_t i) {
    rpl_value items[2] = {rpl_string(s), rpl_int(i)};
    return rpl_tuple(items, 2);
}
static rpl_value strings(const char *const *s, size_t n) {
    rpl_value items[8];
    for (size_t i = 0; i < n; i++) items[i] = rpl_string(s[i]);
    return rpl_tuple(items, n);
}
static void release_table(rpl_marble_value *v, size_t n) {
    for (size_t i = 0; i < n; i++) rpl_value_release(&v[i].value);
}

/* take-spec: should take two values of an observable with many values */
static void take_two(void) {
    begin();
    rpl_signal_t *e1 = COLD(" --a-----b----c---d--|");
    rpl_signal_t *r = rpl_signal_take(e1, 2);
    EXPECT(r, NULL, "--a-----(b|)         ");
    MARBLE_SUBS(e1, "  ^-------!------------");
    end(e1, r, NULL, NULL);
}

/* take-spec: should work with empty */
static void take_empty(void) {
    begin();
    rpl_signal_t *e1 = COLD(" |");
    rpl_signal_t *r = rpl_signal_take(e1, 42);
    EXPECT(r, NULL, "|");
    MARBLE_SUBS(e1, "  (^!)");
    end(e1, r, NULL, NULL);
}

/* take-spec: should go on forever on never */
static void take_never(void) {
    begin();
    rpl_signal_t *e1 = COLD(" -");
    rpl_signal_t *r = rpl_signal_take(e1, 42);
    EXPECT(r, "^!", "-");
    MARBLE_SUBS(e1, "^!");
    end(e1, r, NULL, NULL);
}

/* take-spec: should take one values of an observable with many values */
static void take_one_hot(void) {
    begin();
    rpl_subject_t *e1 = HOT("--a--^--b----c---d--|");
    rpl_signal_t *r = rpl_signal_take(S(e1), 1);
    EXPECT(r, NULL, "   ---(b|)         ");
    MARBLE_SUBS(e1, "     ^--!------------");
    end(e1, r, NULL, NULL);
}

/* skip-spec: should skip values before a total */
static void skip_total(void) {
    begin();
    rpl_subject_t *source = HOT("--a--b--c--d--e--|");
    rpl_signal_t *r = rpl_signal_skip(S(source), 3);
    EXPECT(r, NULL, "  -----------d--e--|");
    MARBLE_SUBS(source, "      ^----------------!");
    end(source, r, NULL, NULL);
}

/* skip-spec: should allow unsubscribing explicitly and early */
static void skip_unsubscribe(void) {
    begin();
    rpl_subject_t *source = HOT("--a--b--c--d--e--|");
    rpl_signal_t *r = rpl_signal_skip(S(source), 2);
    EXPECT(r, "     ----------!       ", "  --------c--       ");
    MARBLE_SUBS(source, "      ^---------!       ");
    end(source, r, NULL, NULL);
}

/* skip-spec: should raise error if skip count is more than actual number of
   emits and source raises error */
static void skip_error(void) {
    begin();
    rpl_subject_t *source = HOT("--a--b--c--d--#");
    rpl_signal_t *r = rpl_signal_skip(S(source), 6);
    EXPECT(r, NULL, "  --------------#");
    MARBLE_SUBS(source, "      ^-------------!");
    end(source, r, NULL, NULL);
}

/* takeLast-spec: should take two values of an observable with many values */
static void take_last_two(void) {
    begin();
    rpl_signal_t *e1 = COLD("--a-----b----c---d--|    ");
    rpl_signal_t *r = rpl_signal_take_last(e1, 2);
    EXPECT(r, NULL, "--------------------(cd|)");
    MARBLE_SUBS(e1, " ^-------------------!    ");
    end(e1, r, NULL, NULL);
}

/* takeLast-spec: should take all element when try to take larger then source */
static void take_last_larger(void) {
    begin();
    rpl_signal_t *e1 = COLD(" --a-----b----c---d--|    ");
    rpl_signal_t *r = rpl_signal_take_last(e1, 5);
    EXPECT(r, NULL, "--------------------(abcd|)");
    MARBLE_SUBS(e1, "  ^-------------------!    ");
    end(e1, r, NULL, NULL);
}

/* takeWhile-spec: should take all elements until predicate is false */
static void take_while_false(void) {
    begin();
    rpl_subject_t *e1 = HOT("-1-^2--3--4--5--6--|");
    rpl_signal_t *r = rpl_signal_take_while(S(e1), below4, NULL, NULL);
    EXPECT(r, NULL, " -2--3--|         ");
    MARBLE_SUBS(e1, "   ^------!         ");
    end(e1, r, NULL, NULL);
}

/* skipWhile-spec: should skip all elements until predicate is false */
static void skip_while_false(void) {
    begin();
    rpl_subject_t *source = HOT("-1-^2--3--4--5--6--|");
    rpl_signal_t *r = rpl_signal_skip_while(S(source), below4, NULL, NULL);
    EXPECT(r, NULL, "     -------4--5--6--|");
    MARBLE_SUBS(source, "   ^---------------!");
    end(source, r, NULL, NULL);
}

/* filter-spec: should filter out even values */
static void filter_odd(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --0--1--2--3--4--|");
    rpl_signal_t *r = rpl_signal_filter(S(e1), odd, NULL, NULL);
    EXPECT(r, NULL, "-----1-----3-----|");
    MARBLE_SUBS(e1, "  ^----------------!");
    end(e1, r, NULL, NULL);
}

/* filter-spec: should filter in only prime numbers */
static void filter_prime(void) {
    begin();
    rpl_subject_t *e1 = HOT("-1--2--^-3-4-5-6--7-8--9--|");
    rpl_signal_t *r = rpl_signal_filter(S(e1), prime, NULL, NULL);
    EXPECT(r, NULL, "     --3---5----7-------|");
    MARBLE_SUBS(e1, "       ^------------------!");
    end(e1, r, NULL, NULL);
}

/* filter-spec: should filter in only prime numbers, source unsubscribes early */
static void filter_prime_unsubscribe(void) {
    begin();
    rpl_subject_t *e1 = HOT("-1--2--^-3-4-5-6--7-8--9--|");
    rpl_signal_t *r = rpl_signal_filter(S(e1), prime, NULL, NULL);
    EXPECT(r, "        ------------!       ", "     --3---5----7-       ");
    MARBLE_SUBS(e1, "       ^-----------!       ");
    end(e1, r, NULL, NULL);
}

/* filter-spec: should filter in only prime numbers, source throws */
static void filter_prime_throws(void) {
    begin();
    rpl_subject_t *e1 = HOT("-1--2--^-3-4-5-6--7-8--9--#");
    rpl_signal_t *r = rpl_signal_filter(S(e1), prime, NULL, NULL);
    EXPECT(r, NULL, "     --3---5----7-------#");
    MARBLE_SUBS(e1, "       ^------------------!");
    end(e1, r, NULL, NULL);
}

/* map-spec: should map multiple values (x => 10 * x) */
static void map_multiple(void) {
    begin();
    rpl_signal_t *e1 = COLD(" --1--2--3--|");
    rpl_signal_t *r = rpl_signal_map(e1, times10, NULL, NULL);
    rpl_marble_value v[] = {{'x', rpl_int(10)}, {'y', rpl_int(20)}, {'z', rpl_int(30)}};
    EXPECT_V(r, NULL, "--x--y--z--|", v);
    MARBLE_SUBS(e1, "  ^----------!");
    end(e1, r, NULL, NULL);
}

/* scan-spec: should scan */
static void scan_sum(void) {
    begin();
    rpl_marble_value in[] = {{'a', rpl_int(1)}, {'b', rpl_int(3)}, {'c', rpl_int(5)}};
    rpl_subject_t *e1 = rpl_marble_hot(T, "  --a--b--c--|", in, 3);
    rpl_signal_t *r = rpl_signal_scan(S(e1), rpl_int(0), sum, NULL, NULL);
    rpl_marble_value out[] = {{'x', rpl_int(1)}, {'y', rpl_int(4)}, {'z', rpl_int(9)}};
    EXPECT_V(r, NULL, "--x--y--z--|", out);
    MARBLE_SUBS(e1, "  ^----------!");
    end(e1, r, NULL, NULL);
}

/* distinctUntilChanged-spec: should distinguish between values (digits) */
static void distinct_digits(void) {
    begin();
    rpl_subject_t *e1 = HOT("  -1--2-2----1-3-|");
    rpl_signal_t *r = rpl_signal_distinct_until_changed(S(e1));
    EXPECT(r, NULL, "-1--2------1-3-|");
    MARBLE_SUBS(e1, "  ^--------------!");
    end(e1, r, NULL, NULL);
}

/* distinctUntilChanged-spec: should distinguish between values (letters) */
static void distinct_letters(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--a--a--b--b--a--|");
    rpl_signal_t *r = rpl_signal_distinct_until_changed(S(e1));
    EXPECT(r, NULL, "--a--------b-----a--|");
    MARBLE_SUBS(e1, "  ^-------------------!");
    end(e1, r, NULL, NULL);
}

/* distinctUntilChanged-spec: should complete if source is empty */
static void distinct_empty(void) {
    begin();
    rpl_signal_t *e1 = COLD(" |   ");
    rpl_signal_t *r = rpl_signal_distinct_until_changed(e1);
    EXPECT(r, NULL, "|   ");
    MARBLE_SUBS(e1, "  (^!)");
    end(e1, r, NULL, NULL);
}

/* concatWith-spec: should concatenate two cold observables */
static void concat_two_cold(void) {
    begin();
    rpl_signal_t *e1 = COLD(" --a--b-|");
    rpl_signal_t *e2 = COLD("        --x---y--|");
    rpl_signal_t *r = rpl_signal_concat(e1, e2);
    EXPECT(r, NULL, "--a--b---x---y--|");
    end(e1, e2, r, NULL);
}

/* concatWith-spec: should complete without emit if both sources are empty */
static void concat_both_empty(void) {
    begin();
    rpl_signal_t *e1 = COLD(" --|");
    rpl_signal_t *e2 = COLD("   ----|");
    rpl_signal_t *r = rpl_signal_concat(e1, e2);
    EXPECT(r, NULL, "------|");
    MARBLE_SUBS(e1, "  ^-!");
    MARBLE_SUBS(e2, "  --^---!");
    end(e1, e2, r, NULL);
}

/* concatWith-spec: should not complete if first source does not completes */
static void concat_first_never(void) {
    begin();
    rpl_signal_t *e1 = COLD(" ---");
    rpl_signal_t *e2 = COLD("    --|");
    rpl_signal_t *r = rpl_signal_concat(e1, e2);
    EXPECT(r, "^!", "---");
    MARBLE_SUBS(e1, "^!");
    MARBLE_SUBS(e2, "");
    end(e1, e2, r, NULL);
}

/* mergeWith-spec: should handle merging two hot observables */
static void merge_two_hot(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a-----b-----c----|");
    rpl_subject_t *e2 = HOT("-----d-----e-----f---|");
    rpl_signal_t *in[] = {S(e1), S(e2)};
    rpl_signal_t *r = rpl_signal_merge(in, 2);
    EXPECT(r, NULL, "--a--d--b--e--c--f---|");
    MARBLE_SUBS(e1, "  ^------------------!");
    MARBLE_SUBS(e2, "  ^--------------------!");
    end(e1, e2, r, NULL);
}

/* mergeWith-spec: should merge cold and cold */
static void merge_cold_cold(void) {
    begin();
    rpl_signal_t *e1 = COLD(" ---a-----b-----c----|");
    rpl_signal_t *e2 = COLD(" ------x-----y-----z----|");
    rpl_signal_t *in[] = {e1, e2};
    rpl_signal_t *r = rpl_signal_merge(in, 2);
    EXPECT(r, NULL, "---a--x--b--y--c--z----|");
    MARBLE_SUBS(e1, "  ^-------------------!");
    MARBLE_SUBS(e2, "  ^----------------------!");
    end(e1, e2, r, NULL);
}

/* mergeWith-spec: should merge hot and cold */
static void merge_hot_cold(void) {
    begin();
    rpl_subject_t *e1 = HOT("---a-^---b-----c----|");
    rpl_signal_t *e2 = COLD("    --x-----y-----z----|");
    rpl_signal_t *in[] = {S(e1), e2};
    rpl_signal_t *r = rpl_signal_merge(in, 2);
    EXPECT(r, NULL, "   --x-b---y-c---z----|");
    MARBLE_SUBS(e1, "     ^--------------!");
    MARBLE_SUBS(e2, "     ^------------------!");
    end(e1, e2, r, NULL);
}

/* startWith-spec: should prepend to a cold Observable */
static void start_with_cold(void) {
    begin();
    rpl_signal_t *e1 = COLD(" ---a--b--c--|");
    rpl_signal_t *r = rpl_signal_start_with(e1, rpl_string("s"));
    EXPECT(r, NULL, "s--a--b--c--|");
    MARBLE_SUBS(e1, "  ^-----------!");
    end(e1, r, NULL, NULL);
}

/* startWith-spec: should start with given value and does not completes if
   source does not completes */
static void start_with_no_completion(void) {
    begin();
    rpl_subject_t *e1 = HOT("  ----a-");
    rpl_signal_t *r = rpl_signal_start_with(S(e1), rpl_string("x"));
    EXPECT(r, "^-----!", "x---a-");
    MARBLE_SUBS(e1, "^-----!");
    end(e1, r, NULL, NULL);
}

/* takeUntil-spec: should take values until notifier emits */
static void take_until_emits(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--e--f--g--|");
    rpl_subject_t *e2 = HOT("  -------------z--|       ");
    rpl_signal_t *r = rpl_signal_take_until(S(e1), S(e2));
    EXPECT(r, NULL, "--a--b--c--d-|          ");
    MARBLE_SUBS(e1, "  ^------------!          ");
    MARBLE_SUBS(e2, "  ^------------!          ");
    end(e1, e2, r, NULL);
}

/* takeUntil-spec: should take values and raises error when notifier raises
   error. DEPARTURE: Ripple ignores the trigger's error (RAC) and goes on. */
static void take_until_notifier_error(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--e--f--g--|");
    rpl_subject_t *e2 = HOT("  -------------#          ");
    rpl_signal_t *r = rpl_signal_take_until(S(e1), S(e2));
    EXPECT(r, NULL, "--a--b--c--d--e--f--g--|");  /* RxJS: --a--b--c--d-# */
    MARBLE_SUBS(e1, "  ^----------------------!");
    MARBLE_SUBS(e2, "  ^------------!          ");
    end(e1, e2, r, NULL);
}

/* takeUntil-spec: should take all values when notifier is empty.
   DEPARTURE: the trigger's completion ends the result (RAC). */
static void take_until_notifier_empty(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--e--f--g--|");
    rpl_subject_t *e2 = HOT("  -------------|          ");
    rpl_signal_t *r = rpl_signal_take_until(S(e1), S(e2));
    EXPECT(r, NULL, "--a--b--c--d-|");  /* RxJS: --a--b--c--d--e--f--g--| */
    MARBLE_SUBS(e1, "  ^------------!");
    MARBLE_SUBS(e2, "  ^------------!          ");
    end(e1, e2, r, NULL);
}

/* skipUntil-spec: should skip values until another observable notifies */
static void skip_until_notifies(void) {
    begin();
    rpl_subject_t *e1 = HOT("    --a--b--c--d--e----|");
    rpl_subject_t *skip = HOT("  ---------x------|   ");
    rpl_signal_t *r = rpl_signal_skip_until(S(e1), S(skip));
    EXPECT(r, NULL, "  -----------d--e----|");
    MARBLE_SUBS(e1, "    ^------------------!");
    MARBLE_SUBS(skip, "  ^--------!          ");
    end(e1, skip, r, NULL);
}

/* skipUntil-spec: should raise an error if notifier throws and source is hot */
static void skip_until_notifier_error(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--e--|");
    rpl_subject_t *skip = HOT("-------------#    ");
    rpl_signal_t *r = rpl_signal_skip_until(S(e1), S(skip));
    EXPECT(r, NULL, "-------------#    ");
    MARBLE_SUBS(e1, "  ^------------!    ");
    MARBLE_SUBS(skip, "^------------!    ");
    end(e1, skip, r, NULL);
}

/* skipUntil-spec: should skip all elements when notifier does not emit and
   completes early. DEPARTURE: the result then never completes (the
   subscription ends without an event; ripple.h, rpl_signal_skip_until). */
static void skip_until_notifier_completes(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--e--|");
    rpl_subject_t *skip = HOT("------------|     ");
    rpl_signal_t *r = rpl_signal_skip_until(S(e1), S(skip));
    EXPECT(r, NULL, "-----------------");  /* RxJS: -----------------| */
    MARBLE_SUBS(e1, "  ^----------------!");
    MARBLE_SUBS(skip, "^-----------!     ");
    end(e1, skip, r, NULL);
}

/* catchError-spec: should catch error and replace with a cold Observable */
static void catch_replace(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--#       ");
    rpl_signal_t *e2 = COLD("         -1-2-3-|");
    rpl_signal_t *r = rpl_signal_catch_to(S(e1), e2);
    EXPECT(r, NULL, "--a--b---1-2-3-|");
    end(e1, e2, r, NULL);
}

/* catchError-spec: should catch error and replace it with a cold Observable */
static void catch_replace_subscriptions(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--#          ");
    rpl_signal_t *e2 = COLD("         1-2-3-4-5-|");
    rpl_signal_t *r = rpl_signal_catch_to(S(e1), e2);
    EXPECT(r, NULL, "--a--b--1-2-3-4-5-|");
    MARBLE_SUBS(e1, "  ^-------!          ");
    MARBLE_SUBS(e2, "  --------^---------!");
    end(e1, e2, r, NULL);
}

/* retry-spec: should handle a basic source that emits next then errors, count=3 */
static void retry_count(void) {
    begin();
    rpl_signal_t *source = COLD("--1-2-3-#");
    rpl_signal_t *r = rpl_signal_retry(source, 2);
    EXPECT(r, NULL, "   --1-2-3---1-2-3---1-2-3-#");
    MARBLE_SUBS(source, "^-------!\n--------^-------!\n----------------^-------!");
    end(source, r, NULL, NULL);
}

/* retry-spec: should handle an empty source */
static void retry_empty(void) {
    begin();
    rpl_signal_t *source = COLD("|  ");
    rpl_signal_t *r = rpl_signal_retry(source, RPL_FOREVER_COUNT);
    EXPECT(r, NULL, "   |  ");
    MARBLE_SUBS(source, "      (^!)");
    end(source, r, NULL, NULL);
}

/* repeat-spec: should resubscribe count number of times */
static void repeat_count(void) {
    begin();
    rpl_signal_t *e1 = COLD(" --a--b--|                ");
    rpl_signal_t *r = rpl_signal_repeat(e1, 3);
    EXPECT(r, NULL, "--a--b----a--b----a--b--|");
    MARBLE_SUBS(e1, "^-------!\n--------^-------!\n----------------^-------!");
    end(e1, r, NULL, NULL);
}

/* repeat-spec: should resubscribe multiple times */
static void repeat_nested(void) {
    begin();
    rpl_signal_t *e1 = COLD(" --a--b--|                        ");
    rpl_signal_t *inner = rpl_signal_repeat(e1, 2);
    rpl_signal_t *r = rpl_signal_repeat(inner, 2);
    EXPECT(r, NULL, "--a--b----a--b----a--b----a--b--|");
    MARBLE_SUBS(e1, "^-------!\n--------^-------!\n----------------^-------!\n------------------------^-------!");
    end(e1, inner, r, NULL);
}

/* repeat-spec: should complete without emit when count is zero */
static void repeat_zero(void) {
    begin();
    rpl_signal_t *e1 = COLD("--a--b--|");
    rpl_signal_t *r = rpl_signal_repeat(e1, 0);
    EXPECT(r, NULL, "|");
    MARBLE_SUBS(e1, "");
    end(e1, r, NULL, NULL);
}

/* delay-spec: should delay by specified timeframe. DEPARTURE: the
   completion is delayed too (RAC's delay:). */
static void delay_timeframe(void) {
    begin();
    rpl_subject_t *e1 = HOT("  ---a--b--|");
    rpl_signal_t *r = rpl_signal_delay(S(e1), 2 * MS, T);
    EXPECT(r, NULL, "-----a--b--|");  /* RxJS: -----a--b| */
    MARBLE_SUBS(e1, "  ^--------!");
    end(e1, r, NULL, NULL);
}

/* delay-spec: should raise error when source raises error */
static void delay_error(void) {
    begin();
    rpl_subject_t *e1 = HOT("  ---a---b---#");
    rpl_signal_t *r = rpl_signal_delay(S(e1), 3 * MS, T);
    EXPECT(r, NULL, "------a---b#");
    MARBLE_SUBS(e1, "  ^----------!");
    end(e1, r, NULL, NULL);
}

/* debounceTime-spec: should debounce values by 2 time units */
static void debounce_two(void) {
    begin();
    rpl_subject_t *e1 = HOT("  -a--bc--d---|");
    rpl_signal_t *r = rpl_signal_throttle(S(e1), 2 * MS, T);
    EXPECT(r, NULL, "---a---c--d-|");
    MARBLE_SUBS(e1, "  ^-----------!");
    end(e1, r, NULL, NULL);
}

/* debounceTime-spec: should delay all elements by the specified time */
static void debounce_delay_all(void) {
    begin();
    rpl_subject_t *e1 = HOT("  -a--------b------c----|");
    rpl_signal_t *r = rpl_signal_throttle(S(e1), 5 * MS, T);
    EXPECT(r, NULL, "------a--------b------(c|)");
    MARBLE_SUBS(e1, "  ^---------------------!");
    end(e1, r, NULL, NULL);
}

/* debounceTime-spec: should debounce and delay element by the specified time */
static void debounce_group(void) {
    begin();
    rpl_subject_t *e1 = HOT("  -a--(bc)-----------d-------|");
    rpl_signal_t *r = rpl_signal_throttle(S(e1), 5 * MS, T);
    EXPECT(r, NULL, "---------c--------------d--|");
    MARBLE_SUBS(e1, "  ^--------------------------!");
    end(e1, r, NULL, NULL);
}

/* throttleTime-spec: should immediately emit the first value in each time window */
static void throttle_time_first(void) {
    begin();
    rpl_subject_t *e1 = HOT("  -a-x-y----b---x-cx---|");
    rpl_signal_t *r = rpl_signal_throttle_first(S(e1), 5 * MS, T);
    EXPECT(r, NULL, "-a--------b-----c----|");
    MARBLE_SUBS(e1, "    ^--------------------!");
    end(e1, r, NULL, NULL);
}

/* throttleTime-spec: should handle a busy producer emitting a regular
   repeating sequence. DEPARTURE: a value exactly 5 frames after the last
   one passed passes (no window timer). */
static void throttle_time_busy(void) {
    begin();
    rpl_subject_t *e1 = HOT("  abcdefabcdefabcdefabcdefa|");
    rpl_signal_t *r = rpl_signal_throttle_first(S(e1), 5 * MS, T);
    EXPECT(r, NULL, "a----f----e----d----c----|");  /* RxJS: a-----a-----a-----a-----a| */
    MARBLE_SUBS(e1, "    ^------------------------!");
    end(e1, r, NULL, NULL);
}

/* timeout-spec: should timeout after a specified timeout period */
static void timeout_period(void) {
    begin();
    rpl_signal_t *e1 = COLD(" -------a--b--|");
    rpl_signal_t *r = rpl_signal_timeout(e1, 5 * MS, T);
    EXPECT(r, NULL, "-----#        ");
    MARBLE_SUBS(e1, "  ^----!        ");
    end(e1, r, NULL, NULL);
}

/* bufferCount-spec: should emit buffers at buffersize of intervals if not specified */
static void buffer_count(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--e--f--|");
    rpl_signal_t *r = rpl_signal_buffer(S(e1), 2);
    const char *x[] = {"a", "b"}, *y[] = {"c", "d"}, *z[] = {"e", "f"};
    rpl_marble_value v[] = {{'x', strings(x, 2)}, {'y', strings(y, 2)}, {'z', strings(z, 2)}};
    EXPECT_V(r, NULL, "-----x-----y-----z--|", v);
    release_table(v, 3);
    end(e1, r, NULL, NULL);
}

/* bufferCount-spec: should emit partial buffers if source completes before
   reaching specified buffer count */
static void buffer_partial(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--|");
    rpl_signal_t *r = rpl_signal_buffer(S(e1), 5);
    const char *x[] = {"a", "b", "c", "d"};
    rpl_marble_value v[] = {{'x', strings(x, 4)}};
    EXPECT_V(r, NULL, "--------------(x|)", v);
    release_table(v, 1);
    end(e1, r, NULL, NULL);
}

/* defaultIfEmpty-spec: should return the Observable if empty */
static void default_if_empty_hot(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --------|");
    rpl_signal_t *r = rpl_signal_default_if_empty(S(e1), rpl_int(42));
    rpl_marble_value v[] = {{'x', rpl_int(42)}};
    EXPECT_V(r, NULL, "--------(x|)", v);
    MARBLE_SUBS(e1, "  ^-------!");
    end(e1, r, NULL, NULL);
}

/* defaultIfEmpty-spec: should return the argument if Observable is empty */
static void default_if_empty_cold(void) {
    begin();
    rpl_signal_t *e1 = COLD(" |");
    rpl_signal_t *r = rpl_signal_default_if_empty(e1, rpl_string("x"));
    EXPECT(r, NULL, "(x|)");
    MARBLE_SUBS(e1, "  (^!)");
    end(e1, r, NULL, NULL);
}

/* defaultIfEmpty-spec: should return the Observable if not empty with a default value */
static void default_if_empty_not_empty(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--|");
    rpl_signal_t *r = rpl_signal_default_if_empty(S(e1), rpl_string("x"));
    EXPECT(r, NULL, "--a--b--|");
    MARBLE_SUBS(e1, "  ^-------!");
    end(e1, r, NULL, NULL);
}

/* ignoreElements-spec: should ignore all the elements of the source */
static void ignore_all(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--b--c--d--|");
    rpl_signal_t *r = rpl_signal_ignore_values(S(e1));
    EXPECT(r, NULL, "--------------|");
    MARBLE_SUBS(e1, "  ^-------------!");
    end(e1, r, NULL, NULL);
}

/* ignoreElements-spec: should propagate errors from the source */
static void ignore_error(void) {
    begin();
    rpl_subject_t *e1 = HOT("  --a--#");
    rpl_signal_t *r = rpl_signal_ignore_values(S(e1));
    EXPECT(r, NULL, "-----#");
    MARBLE_SUBS(e1, "  ^----!");
    end(e1, r, NULL, NULL);
}

/* switchAll-spec: should switch a hot observable of cold observables */
static void switch_all(void) {
    begin();
    rpl_signal_t *x = COLD("    --a---b--c---d--|      ");
    rpl_signal_t *y = COLD("           ----e---f--g---|");
    rpl_marble_value v[] = {{'x', rpl_signal_value(x)}, {'y', rpl_signal_value(y)}};
    rpl_subject_t *e1 = rpl_marble_hot(T, "  --x------y-------|       ", v, 2);
    rpl_signal_t *r = rpl_signal_switch_to_latest(S(e1));
    EXPECT(r, NULL, "----a---b----e---f--g---|");
    MARBLE_SUBS(x, "   --^------!               ");
    MARBLE_SUBS(y, "   ---------^--------------!");
    MARBLE_SUBS(e1, "  ^----------------!       ");
    end(x, y, e1, r);
}

/* withLatestFrom-spec: should combine events from cold observables */
static void with_latest_from_cold(void) {
    begin();
    rpl_signal_t *e2 = COLD(" --1--2-3-4---|   ");
    rpl_signal_t *e1 = COLD(" -a--b-----c-d-e-|");
    rpl_signal_t *r = rpl_signal_with_latest_from(e1, e2);
    rpl_marble_value v[] = {{'B', pair("b", 1)}, {'C', pair("c", 4)}, {'D', pair("d", 4)}, {'E', pair("e", 4)}};
    EXPECT_V(r, NULL, "----B-----C-D-E-|", v);
    MARBLE_SUBS(e1, "  ^---------------!");
    MARBLE_SUBS(e2, "  ^------------!   ");
    release_table(v, 4);
    end(e1, e2, r, NULL);
}

/* combineLatestWith-spec: should combine events from two cold observables */
static void combine_latest_cold(void) {
    begin();
    rpl_signal_t *e1 = COLD(" -a--b-----c-d-e-|");
    rpl_signal_t *e2 = COLD(" --1--2-3-4---|   ");
    rpl_signal_t *in[] = {e1, e2};
    rpl_signal_t *r = rpl_signal_combine_latest(in, 2);
    rpl_marble_value v[] = {{'A', pair("a", 1)}, {'B', pair("b", 1)}, {'C', pair("b", 2)}, {'D', pair("b", 3)},
                            {'E', pair("b", 4)}, {'F', pair("c", 4)}, {'G', pair("d", 4)}, {'H', pair("e", 4)}};
    EXPECT_V(r, NULL, "--A-BC-D-EF-G-H-|", v);
    release_table(v, 8);
    end(e1, e2, r, NULL);
}

/* combineLatestWith-spec: should work with two nevers */
static void combine_latest_nevers(void) {
    begin();
    rpl_signal_t *e1 = COLD(" -");
    rpl_signal_t *e2 = COLD(" -");
    rpl_signal_t *in[] = {e1, e2};
    rpl_signal_t *r = rpl_signal_combine_latest(in, 2);
    EXPECT(r, "^!", "-");
    MARBLE_SUBS(e1, "^!");
    MARBLE_SUBS(e2, "^!");
    end(e1, e2, r, NULL);
}

/* sample-spec: should get samples when the notifier emits. DEPARTURE: the
   tick at frame 20 samples c again (RAC's sample:). */
static void sample_ticks(void) {
    begin();
    rpl_subject_t *e1 = HOT("  ---a----b---c----------d-----|   ");
    rpl_subject_t *e2 = HOT("  -----x----------x---x------x---| ");
    rpl_signal_t *r = rpl_signal_sample(S(e1), S(e2));
    EXPECT(r, NULL, "-----a----------c---c------d-|   ");  /* RxJS: -----a----------c----------d-| */
    MARBLE_SUBS(e1, "  ^----------------------------!   ");
    MARBLE_SUBS(e2, "  ^----------------------------!   ");
    end(e1, e2, r, NULL);
}

/* sample-spec: should sample nothing if source has not nexted at all */
static void sample_nothing(void) {
    begin();
    rpl_subject_t *e1 = HOT("----a-^------------|");
    rpl_subject_t *e2 = HOT("      -----x-------|");
    rpl_signal_t *r = rpl_signal_sample(S(e1), S(e2));
    EXPECT(r, NULL, "    -------------|");
    MARBLE_SUBS(e1, "      ^------------!");
    MARBLE_SUBS(e2, "      ^------------!");
    end(e1, e2, r, NULL);
}

int main(void) {
    RUN(take_two);
    RUN(take_empty);
    RUN(take_never);
    RUN(take_one_hot);
    RUN(skip_total);
    RUN(skip_unsubscribe);
    RUN(skip_error);
    RUN(take_last_two);
    RUN(take_last_larger);
    RUN(take_while_false);
    RUN(skip_while_false);
    RUN(filter_odd);
    RUN(filter_prime);
    RUN(filter_prime_unsubscribe);
    RUN(filter_prime_throws);
    RUN(map_multiple);
    RUN(scan_sum);
    RUN(distinct_digits);
    RUN(distinct_letters);
    RUN(distinct_empty);
    RUN(concat_two_cold);
    RUN(concat_both_empty);
    RUN(concat_first_never);
    RUN(merge_two_hot);
    RUN(merge_cold_cold);
    RUN(merge_hot_cold);
    RUN(start_with_cold);
    RUN(start_with_no_completion);
    RUN(take_until_emits);
    RUN(take_until_notifier_error);
    RUN(take_until_notifier_empty);
    RUN(skip_until_notifies);
    RUN(skip_until_notifier_error);
    RUN(skip_until_notifier_completes);
    RUN(catch_replace);
    RUN(catch_replace_subscriptions);
    RUN(retry_count);
    RUN(retry_empty);
    RUN(repeat_count);
    RUN(repeat_nested);
    RUN(repeat_zero);
    RUN(delay_timeframe);
    RUN(delay_error);
    RUN(debounce_two);
    RUN(debounce_delay_all);
    RUN(debounce_group);
    RUN(throttle_time_first);
    RUN(throttle_time_busy);
    RUN(timeout_period);
    RUN(buffer_count);
    RUN(buffer_partial);
    RUN(default_if_empty_hot);
    RUN(default_if_empty_cold);
    RUN(default_if_empty_not_empty);
    RUN(ignore_all);
    RUN(ignore_error);
    RUN(switch_all);
    RUN(with_latest_from_cold);
    RUN(combine_latest_cold);
    RUN(combine_latest_nevers);
    RUN(sample_ticks);
    RUN(sample_nothing);
    CHECK_DONE();
}
