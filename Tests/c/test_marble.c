/* The marble API (ripple.h, "Marble tests"): diagrams, values, hot and cold
   marbles, record, expect and its diff, subscription logs, and bad input. */
#include "marble.h"

#define MS 1000000ull

/* Refused with RPL_ERR_INVALID and exactly this message. */
static void check_invalid(rpl_signal_t *sig, const char *message) {
    CHECK(sig == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    if (strcmp(rpl_last_error_message(), message) != 0) {
        check_failed++;
        fprintf(stderr, "FAIL message \"%s\", want \"%s\"\n", rpl_last_error_message(), message);
    }
    rpl_release(sig);
}

static void cold_default_values(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *c = rpl_marble_cold(t, "-1-a-|", NULL, 0);
    /* Nothing plays until the scheduler runs, frame 0 included. */
    rpl_value all;
    CHECK_EQ_INT(rpl_signal_to_array(c, &all, 0), RPL_ERR_TIMEOUT);
    /* Digits are ints, other characters one-character strings. */
    MARBLE_EXPECT(t, c, NULL, "-1-a-|", NULL, 0);
    rpl_marble_value v[] = {{'x', rpl_int(1)}, {'y', rpl_string("a")}};
    MARBLE_EXPECT(t, c, NULL, "-x-y-|", v, 2);
    rpl_value_release(&v[0].value);
    rpl_value_release(&v[1].value);
    /* Each expect starts at the scheduler's time and runs to the end. */
    CHECK_EQ_INT(rpl_scheduler_now(t), 10 * MS);
    rpl_release(c);
    rpl_release(t);
}

static void record_draws(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_marble_value in[] = {{'a', rpl_int(10)}, {'b', rpl_double(2.5)}, {'c', rpl_string("long")}};
    rpl_signal_t *c = rpl_marble_cold(t, "a-(bc)-d 100ms 7-#", in, 3);
    /* Without a table: 10 and 2.5 have no digit, "long" no character, 'd' and 7 do. */
    MARBLE_RECORD(t, c, NULL, NULL, 0, "?-(?" "?)-d 100ms 7-#");
    rpl_marble_value out[] = {{'A', rpl_int(10)}, {'B', rpl_double(2.5)}, {'C', rpl_string("long")}};
    MARBLE_RECORD(t, c, NULL, out, 3, "A-(BC)-d 100ms 7-#");
    /* A subscription diagram: from its '^', until its '!'. */
    MARBLE_RECORD(t, c, "--^--!", out, 3, "--A-(BC)");
    MARBLE_SUBS(c, "^ 109ms !\n110ms ^ 109ms !\n222ms ^--!");
    for (int i = 0; i < 3; i++) rpl_value_release(&out[i].value);
    rpl_release(c);
    rpl_release(t);
}

static void time_progression(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    /* 'a 10ms b': b 11 frames after a; 1.5s and 2m; a progression needs a
       space after it, else it is values. */
    rpl_signal_t *c = rpl_marble_cold(t, "a 10ms b 1.5s c 2m |", NULL, 0);
    MARBLE_EXPECT(t, c, NULL, "a----------b 1500ms c 2m |", NULL, 0);
    MARBLE_RECORD(t, c, NULL, NULL, 0, "a----------b 1500ms c 2m |");
    rpl_signal_t *v = rpl_marble_cold(t, "10ms", NULL, 0);
    rpl_marble_value s[] = {{'m', rpl_string("m")}, {'s', rpl_string("s")}};
    MARBLE_EXPECT(t, v, NULL, "10ms", s, 2);
    rpl_value_release(&s[0].value);
    rpl_value_release(&s[1].value);
    /* Between frames: 0.5 ms. */
    rpl_signal_t *d = rpl_signal_delay(v, MS / 2, t);
    MARBLE_RECORD(t, d, NULL, NULL, 0, "0.5ms 10ms");  /* 0.5 ms, then one a frame: reads back the same */
    rpl_release(d);
    rpl_release(v);
    rpl_release(c);
    rpl_release(t);
}

static void hot_frames(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    /* Values before '^' reach nobody; the one in the frame of '^' does. */
    rpl_subject_t *h = rpl_marble_hot(t, "-a-^b-c-|", NULL, 0);
    MARBLE_EXPECT(t, h, NULL, "-b-c-|", NULL, 0);  /* '^' takes a frame */
    MARBLE_SUBS(h, "^----!");
    /* A terminal event before '^' ends the subject before frame 0. */
    rpl_subject_t *done = rpl_marble_hot(t, "-a-|-^--", NULL, 0);
    CHECK(rpl_subject_is_terminated(done));
    MARBLE_EXPECT(t, done, NULL, "|", NULL, 0);
    MARBLE_SUBS(done, "(^!)");
    /* A subscription at a frame gets that frame's hot value; one ended at a
       frame gets none of it. */
    rpl_subject_t *h2 = rpl_marble_hot(t, "a-b-c-d-|", NULL, 0);
    MARBLE_EXPECT(t, h2, "--^---!", "--b-c-", NULL, 0);
    MARBLE_SUBS(h2, "--^---!");
    /* It is a subject like any other. */
    CHECK_EQ_INT(rpl_subject_send_next(h2, rpl_int(1)), RPL_OK);
    rpl_release(h2);
    rpl_release(done);
    rpl_release(h);
    rpl_release(t);
}

static void expect_keeps_subscription(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_subject_t *h = rpl_marble_hot(t, "-a---", NULL, 0);
    MARBLE_EXPECT(t, h, NULL, "-a", NULL, 0);
    MARBLE_SUBS(h, "^");  /* still subscribed: no '!' */
    CHECK_EQ_INT(rpl_subject_subscriber_count(h), 1);
    rpl_signal_t *c = rpl_marble_cold(t, "-a-", NULL, 0);
    MARBLE_EXPECT(t, c, NULL, "-a-", NULL, 0);
    MARBLE_SUBS(c, "^");
    rpl_release(c);
    rpl_release(h);
    rpl_release(t);
}

static void error_marble(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *c = rpl_marble_cold(t, "-#", NULL, 0);
    CHECK_EQ_INT(rpl_marble_expect(t, c, NULL, "-#", NULL, 0), RPL_OK);
    /* An event value has no character: '?'. */
    rpl_signal_t *m = rpl_signal_materialize(c);
    MARBLE_RECORD(t, m, NULL, NULL, 0, "-(?|)");
    rpl_release(m);
    rpl_release(c);
    rpl_release(t);
}

static int errors_seen;
static char error_text[64];
static void on_error(void *ctx, const rpl_error_t *e) {
    (void)ctx;
    errors_seen++;
    snprintf(error_text, sizeof error_text, "%s %lld %s", rpl_error_domain(e), (long long)rpl_error_code(e),
             rpl_error_message(e));
}

static void error_domain(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *c = rpl_marble_cold(t, "#", NULL, 0);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_error = on_error;
    rpl_disposable_t *d = rpl_signal_subscribe(c, &o);
    rpl_test_scheduler_run(t);
    CHECK_EQ_INT(errors_seen, 1);
    CHECK(strcmp(error_text, "marble 1 error") == 0);
    rpl_release(d);
    rpl_release(c);
    rpl_release(t);
}

static void expect_diff(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *c = rpl_marble_cold(t, "--a-c-|", NULL, 0);
    CHECK_EQ_INT(rpl_marble_expect(t, c, NULL, "--a-b-|", NULL, 0), RPL_ERR_FAILED);
    CHECK(strcmp(rpl_last_error_message(),
                 "rpl_marble_expect: at frame 4 expected value 'b', got value 'c'\n"
                 "expected: --a-b-|\n"
                 "actual:   --a-c-|\n"
                 "              ^") == 0);
    /* Timing: the same events a frame apart. */
    CHECK_EQ_INT(rpl_marble_expect(t, c, NULL, "--a--c-|", NULL, 0), RPL_ERR_FAILED);
    CHECK(strstr(rpl_last_error_message(), "at frame 4 expected value 'c', got value 'c'\n") != NULL);
    /* Missing and extra events. */
    CHECK_EQ_INT(rpl_marble_expect(t, c, NULL, "--a-c-", NULL, 0), RPL_ERR_FAILED);
    CHECK(strstr(rpl_last_error_message(), "at frame 6 expected nothing, got completion\n") != NULL);
    CHECK_EQ_INT(rpl_marble_expect(t, c, NULL, "--a-c-d|", NULL, 0), RPL_ERR_FAILED);
    CHECK(strstr(rpl_last_error_message(), "at frame 6 expected value 'd', got completion\n") != NULL);
    /* '#' matches any error, and only an error. */
    rpl_error_t *mine = rpl_error_create("mine", 7, "x");
    rpl_signal_t *e = rpl_signal_error(mine);
    rpl_release(mine);
    MARBLE_EXPECT(t, e, NULL, "#", NULL, 0);
    CHECK_EQ_INT(rpl_marble_expect(t, e, NULL, "|", NULL, 0), RPL_ERR_FAILED);
    CHECK(strstr(rpl_last_error_message(), "expected completion, got an error") != NULL);
    rpl_release(e);
    rpl_release(c);
    rpl_release(t);
}

static void groups(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    /* A group takes as many frames as it has characters. */
    rpl_signal_t *c = rpl_marble_cold(t, "(ab)c(d|)", NULL, 0);
    MARBLE_EXPECT(t, c, NULL, "(ab)c(d|)", NULL, 0);
    rpl_release(c);
    rpl_release(t);
    t = rpl_test_scheduler_create();
    /* An event less than a group's width after it cannot be drawn where it
       is: it is drawn late, and the first line gives the frames. */
    rpl_subject_t *a = rpl_marble_hot(t, "(ab)", NULL, 0);
    rpl_subject_t *b = rpl_marble_hot(t, "-c", NULL, 0);
    rpl_signal_t *in[] = {(rpl_signal_t *)a, (rpl_signal_t *)b};
    rpl_signal_t *m = rpl_signal_merge(in, 2);
    CHECK_EQ_INT(rpl_marble_expect(t, m, "^---!", "(ab)c", NULL, 0), RPL_ERR_FAILED);
    CHECK(strcmp(rpl_last_error_message(),
                 "rpl_marble_expect: at frame 1 expected value 'c', got value 'c'\n"
                 "expected: (ab)c\n"
                 "actual:   (ab)c\n"
                 "              ^") == 0);
    rpl_release(m);
    rpl_release(a);
    rpl_release(b);
    rpl_release(t);
}

static void subscriptions_log(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *c = rpl_marble_cold(t, "-a-----b-----|", NULL, 0);
    MARBLE_SUBS(c, "");
    rpl_signal_t *both[] = {c, c};
    rpl_signal_t *m = rpl_signal_merge(both, 2);
    MARBLE_EXPECT(t, m, "-^", "--(aa)--(bb)--|", NULL, 0);
    MARBLE_SUBS(c, "-^------------!\n-^------------!");
    rpl_release(m);
    /* Frames from the marble's creation. */
    rpl_signal_t *cc = rpl_signal_concat(c, c);
    MARBLE_EXPECT(t, cc, NULL, "-a-----b------a-----b-----|", NULL, 0);
    MARBLE_SUBS(c, "-^------------!\n-^------------!\n"
                   "--------------^------------!\n---------------------------^------------!");
    rpl_release(cc);
    rpl_release(c);
    rpl_release(t);
}

static void bad_diagrams(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    check_invalid(rpl_marble_cold(t, "a|b", NULL, 0), "rpl_marble_cold: column 3 of \"a|b\": an event after '|'");
    check_invalid(rpl_marble_cold(t, "-#-|", NULL, 0), "rpl_marble_cold: column 4 of \"-#-|\": an event after '#'");
    check_invalid(rpl_marble_cold(t, "--(ab", NULL, 0), "rpl_marble_cold: column 3 of \"--(ab\": '(' without ')'");
    check_invalid(rpl_marble_cold(t, "ab)", NULL, 0), "rpl_marble_cold: column 3 of \"ab)\": ')' without '('");
    check_invalid(rpl_marble_cold(t, "((a))", NULL, 0), "rpl_marble_cold: column 2 of \"((a))\": '(' inside a group");
    check_invalid(rpl_marble_cold(t, "-^-a", NULL, 0),
                  "rpl_marble_cold: column 2 of \"-^-a\": '^' in a cold diagram (a cold signal starts when it is subscribed)");
    check_invalid(rpl_marble_cold(t, "a!", NULL, 0),
                  "rpl_marble_cold: column 2 of \"a!\": '!' in a diagram of events (only a subscription diagram unsubscribes)");
    check_invalid((rpl_signal_t *)rpl_marble_hot(t, "^-^", NULL, 0), "rpl_marble_hot: column 3 of \"^-^\": a second '^'");
    check_invalid((rpl_signal_t *)rpl_marble_hot(t, "(^a)", NULL, 0), "rpl_marble_hot: column 2 of \"(^a)\": '^' inside a group");
    check_invalid(rpl_marble_cold(t, "99999999999999999999ms a", NULL, 0),
                  "rpl_marble_cold: column 1 of \"99999999999999999999ms a\": the time progression is too long");
    /* Columns count characters, not bytes. */
    check_invalid(rpl_marble_cold(t, "é|x", NULL, 0), "rpl_marble_cold: column 3 of \"é|x\": an event after '|'");

    rpl_signal_t *c = rpl_marble_cold(t, "a|", NULL, 0);
    rpl_value v = rpl_marble_record(t, c, "^^", NULL, 0);
    CHECK_EQ_INT(rpl_value_type(&v), RPL_TYPE_NIL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(strcmp(rpl_last_error_message(), "rpl_marble_record: column 2 of \"^^\": a second '^'") == 0);
    CHECK_EQ_INT(rpl_marble_expect(t, c, "!^", "a|", NULL, 0), RPL_ERR_INVALID);
    CHECK(strcmp(rpl_last_error_message(), "rpl_marble_expect: column 2 of \"!^\": '^' after '!'") == 0);
    CHECK_EQ_INT(rpl_marble_expect(t, c, "^!!", "a|", NULL, 0), RPL_ERR_INVALID);
    CHECK(strcmp(rpl_last_error_message(), "rpl_marble_expect: column 3 of \"^!!\": a second '!'") == 0);
    CHECK_EQ_INT(rpl_marble_expect(t, c, "^-a", "a|", NULL, 0), RPL_ERR_INVALID);
    CHECK(strstr(rpl_last_error_message(), "column 3 of \"^-a\": 'a' in a subscription diagram") != NULL);
    CHECK_EQ_INT(rpl_marble_expect(t, c, NULL, "a|a", NULL, 0), RPL_ERR_INVALID);
    CHECK(strcmp(rpl_last_error_message(), "rpl_marble_expect: column 3 of \"a|a\": an event after '|'") == 0);
    /* A '!' with no '^' subscribes at frame 0 (RxJS). */
    MARBLE_EXPECT(t, c, "---!", "a|", NULL, 0);
    rpl_release(c);
    rpl_release(t);
}

static void bad_arguments(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_scheduler_t *serial = rpl_scheduler_create_serial(NULL);
    size_t live = rpl_live_objects();
    /* Values are consumed also on failure: the strings below do not leak. */
    rpl_marble_value v[] = {{'a', rpl_string("one")}};
    CHECK(rpl_marble_cold(NULL, "a", v, 1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    v[0].value = rpl_string("one");
    CHECK(rpl_marble_cold(serial, "a", v, 1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(strcmp(rpl_last_error_message(), "rpl_marble_cold: expected a test scheduler") == 0);
    v[0].value = rpl_string("one");
    CHECK(rpl_marble_hot(t, NULL, v, 1) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_marble_cold(t, "a", NULL, 2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_marble_cold(t, "a", v, SIZE_MAX) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    rpl_marble_value bad[] = {{'-', rpl_int(1)}, {'b', rpl_string("x")}};
    CHECK(rpl_marble_cold(t, "a", bad, 2) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(strcmp(rpl_last_error_message(),
                 "rpl_marble_cold: values[0] has the key '-', which a diagram cannot use as a value") == 0);
    rpl_marble_value twice[] = {{'a', rpl_int(1)}, {'a', rpl_string("x")}};
    CHECK(rpl_marble_hot(t, "a", twice, 2) == NULL);
    CHECK(strcmp(rpl_last_error_message(), "rpl_marble_hot: values[1] repeats the key 'a'") == 0);
    rpl_marble_value unlisted[] = {{'a', rpl_string("x")}, {'b', {.type = 99}}};
    CHECK(rpl_marble_cold(t, "a", unlisted, 2) == NULL);
    CHECK(strcmp(rpl_last_error_message(), "rpl_marble_cold: values[1] has type 99, which ripple.h does not list") == 0);
    /* A bad diagram consumes the values too. */
    rpl_marble_value ok[] = {{'a', rpl_string("x")}};
    CHECK(rpl_marble_cold(t, "a|a", ok, 1) == NULL);
    CHECK_EQ_INT(rpl_live_objects(), live);

    rpl_signal_t *c = rpl_marble_cold(t, "a|", NULL, 0);
    rpl_value r = rpl_marble_record(t, NULL, NULL, NULL, 0);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    r = rpl_marble_record(serial, c, NULL, NULL, 0);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    r = rpl_marble_record(t, (rpl_signal_t *)t, NULL, NULL, 0);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    r = rpl_marble_record(t, c, NULL, NULL, 1);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_value_type(&r), RPL_TYPE_NIL);
    CHECK_EQ_INT(rpl_marble_expect(t, c, NULL, NULL, NULL, 0), RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_marble_expect(NULL, c, NULL, "a|", NULL, 0), RPL_ERR_NULL);
    /* A table lent to record or expect is not consumed. */
    rpl_marble_value lent[] = {{'x', rpl_string("a")}};
    MARBLE_EXPECT(t, c, NULL, "x|", lent, 1);
    MARBLE_RECORD(t, c, NULL, lent, 1, "x|");
    rpl_value_release(&lent[0].value);
    rpl_value s = rpl_marble_subscriptions(NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_signal_t *plain = rpl_signal_never();
    s = rpl_marble_subscriptions(plain);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_value_type(&s), RPL_TYPE_NIL);
    rpl_subject_t *subject = rpl_subject_create();
    s = rpl_marble_subscriptions((rpl_signal_t *)subject);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(subject);
    rpl_release(plain);
    rpl_release(c);
    rpl_release(serial);
    rpl_release(t);
}

static void scheduler_freed(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *c = rpl_marble_cold(t, "-a-|", NULL, 0);
    rpl_subject_t *h = rpl_marble_hot(t, "-a-|", NULL, 0);
    rpl_disposable_t *d = rpl_signal_subscribe_next(c, NULL, NULL);
    CHECK(d == NULL);
    rpl_release(t);
    /* Pending events are dropped; a new subscription ends at once. */
    rpl_observer o = RPL_OBSERVER_INIT;
    d = rpl_signal_subscribe(c, &o);
    CHECK(rpl_disposable_is_disposed(d));
    rpl_release(d);
    rpl_release(h);
    rpl_release(c);
}

/* Work without end (an interval) stops 60,000 frames past the diagrams. */
static void endless_work(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *tick = rpl_signal_interval(1000 * MS, t);
    rpl_value v = rpl_marble_record(t, tick, "---", NULL, 0);
    size_t len = 0;
    CHECK(rpl_value_string(&v, &len) != NULL);
    CHECK_EQ_INT(rpl_scheduler_now(t), 60000 * MS);  /* the last tick */
    CHECK(strncmp(rpl_value_string(&v, NULL), "1s 0 999ms 1 999ms 2", 20) == 0);
    rpl_value_release(&v);
    rpl_release(tick);
    rpl_release(t);
}

/* The names a trace shows. */
static void names(void) {
    rpl_scheduler_t *t = rpl_test_scheduler_create();
    rpl_signal_t *c = rpl_marble_cold(t, "-a-|", NULL, 0);
    rpl_subject_t *h = rpl_marble_hot(t, "^-b", NULL, 0);
    CHECK(strcmp(rpl_signal_name(c), "+cold: -a-|") == 0);
    CHECK(strcmp(rpl_signal_name((rpl_signal_t *)h), "+hot: ^-b") == 0);
    rpl_release(h);
    rpl_release(c);
    rpl_release(t);
}

int main(void) {
    RUN(cold_default_values);
    RUN(record_draws);
    RUN(time_progression);
    RUN(hot_frames);
    RUN(expect_keeps_subscription);
    RUN(error_marble);
    RUN(error_domain);
    RUN(expect_diff);
    RUN(groups);
    RUN(subscriptions_log);
    RUN(bad_diagrams);
    RUN(bad_arguments);
    RUN(scheduler_freed);
    RUN(endless_work);
    RUN(names);
    CHECK_DONE();
}
