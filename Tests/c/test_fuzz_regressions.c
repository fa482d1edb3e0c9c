/* Regressions found by the API-sequence fuzzer (Tests/fuzz/fuzz_api.c), one
   test per finding, each the minimized input written out as C. */
#include "check.h"
#include "recorder.h"

/* ---- start_lazily kept its replay_lazily handle, not its connecting side ----
   Fuzz input (FUZZ_TRACE=1): start_lazily(immediate, a body that sends a value
   and leaves its subscriber open), switch_if_empty(s, s), replay_last, then
   every handle released. The start signal (a subscribe_on over the
   replay_lazily of the body) held the replay_lazily *handle*, which keeps the
   replay subject strongly; switch_if_empty (or concat, repeat, ... ) keeps the
   start signal to subscribe later, and the replay subject keeps that
   subscription: a cycle, so 20 runtime objects and the body's context were
   never freed. The C API's own subscribe_on over rpl_signal_replay_lazily
   keeps only the connecting side (asSource) and never leaked; start_lazily
   now does the same. */
typedef struct {
    int released, disposed;
    int keep;                 /* keep the subscriber (released by the test) */
    rpl_subscriber_t *kept;
} body_t;

static void body_release(void *ctx) { ((body_t *)ctx)->released++; }
static void body_disposed(void *ctx) { ((body_t *)ctx)->disposed++; }
static rpl_disposable_t *open_body(void *ctx, rpl_subscriber_t *s) {
    body_t *b = ctx;
    rpl_subscriber_send_next(s, rpl_int(1));  /* and never ends it */
    if (b->keep) b->kept = rpl_retain(s);
    return rpl_disposable_create(body_disposed, b);
}

typedef rpl_signal_t *(*start_fn)(rpl_scheduler_t *s, rpl_subscribe_fn fn, void *ctx, rpl_release_fn release);
typedef rpl_signal_t *(*pair_fn)(rpl_signal_t *a, rpl_signal_t *b);

static void check_start_with_itself(start_fn start, pair_fn pair, int keep) {
    size_t live0 = check_live_settled();
    body_t b = {0};
    b.keep = keep;
    rpl_signal_t *s = start(rpl_scheduler_immediate(), open_body, &b, body_release);
    rpl_signal_t *p = pair(s, s);
    rpl_signal_t *last = rpl_signal_replay_last(p);  /* connected for good */
    CHECK(last != NULL);
    rpl_release(last);
    rpl_release(p);
    rpl_release(s);
    rpl_release(b.kept);  /* nothing can send any more (rule 6a) */
    CHECK_EQ_INT(b.released, 1);
    size_t live = check_live_now();
    CHECK_EQ_INT(live, live0);
}

static void test_start_with_itself_no_cycle(void) {
    for (int keep = 0; keep < 2; keep++) {
        check_start_with_itself(rpl_signal_start_lazily, rpl_signal_switch_if_empty, keep);
        check_start_with_itself(rpl_signal_start_lazily, rpl_signal_concat, keep);
        check_start_with_itself(rpl_signal_start_eagerly, rpl_signal_switch_if_empty, keep);
        check_start_with_itself(rpl_signal_start_eagerly, rpl_signal_concat, keep);
    }
}

/* The replay is unchanged: a later subscriber still gets what the body sent,
   then, once nothing can send any more, the end without an event. */
static void test_start_replay_after_subscriber_dropped(void) {
    body_t b = {0};
    b.keep = 1;
    rpl_signal_t *s = rpl_signal_start_lazily(rpl_scheduler_immediate(), open_body, &b, body_release);
    rec_t o1 = {0}, o2 = {0};
    rpl_disposable_t *d1 = rec_attach(s, &o1);
    CHECK_EQ_INT(o1.n, 1);
    rpl_subscriber_send_next(b.kept, rpl_int(2));
    CHECK_EQ_INT(o1.n, 2);
    rpl_release(b.kept);  /* the body lets go without ending it */
    b.kept = NULL;
    rpl_disposable_t *d2 = rec_attach(s, &o2);
    CHECK_EQ_INT(o2.n, 2);  /* the replay */
    CHECK_EQ_INT(o2.completed + o2.errors, 0);
    rpl_disposable_dispose(d1);
    rpl_disposable_dispose(d2);
    rpl_release(d1);
    rpl_release(d2);
    CHECK_EQ_INT(o1.completed + o1.errors, 0);
    CHECK_EQ_INT(o1.released, 1);
    CHECK_EQ_INT(o2.released, 1);
    rpl_release(s);
    CHECK_EQ_INT(b.released, 1);
}

/* ---- an operator over a multicast subject kept its autoconnect side ----
   Fuzz input (FUZZ_TRACE=1, minimized): behavior_subject b, not(b), take,
   publish(b) (its subject p), autoconnect(p's connection) a, switch_cases(p,
   {0: a, 1: b, true: take}) four times, switch_cases(that, {}, default
   not(b)), replay_last, then every handle released: 19 runtime objects were
   never freed. The cycle: p's hub keeps the subscription to p (the switch's
   key); that subscription keeps its cases, among them a's connecting side
   (asSource); the side keeps the connection's core, and the core held p
   strongly while nothing was subscribed through autoconnect (so an operator
   keeping the side can connect later). The core now holds p weakly while p
   has any subscriber, not only one through autoconnect; concat(p, a) made
   the same cycle. */
static void check_operator_over_multicast_subject(int shape) {
    size_t live0 = check_live_settled();
    rpl_subject_t *b = rpl_behavior_subject_create(rpl_int(5));
    rpl_signal_t *bs = rpl_subject_as_signal(b);
    rpl_connection_t *c = rpl_signal_publish(bs);
    rpl_signal_t *p = rpl_retain(rpl_connection_signal(c));
    rpl_signal_t *a = rpl_connection_autoconnect(c);
    rpl_signal_t *nb = rpl_signal_not(bs);
    rpl_signal_t *op;
    if (shape == 0) {
        rpl_value keys[3] = { rpl_int(0), rpl_int(1), rpl_bool(true) };
        rpl_signal_t *take = rpl_signal_take(nb, 1);
        rpl_signal_t *cases[3] = { a, bs, take };
        rpl_signal_t *sw = rpl_signal_switch_cases(p, keys, cases, 3, NULL);
        op = rpl_signal_switch_cases(sw, NULL, NULL, 0, nb);
        rpl_release(sw);
        rpl_release(take);
    } else {
        op = rpl_signal_concat(p, a);
    }
    CHECK(op != NULL);
    rec_t o = {0};
    rpl_disposable_t *d = rec_attach(op, &o);
    CHECK(d != NULL);
    rpl_signal_t *last = rpl_signal_replay_last(op);  /* connected for good */
    CHECK(last != NULL);
    rpl_release(d);
    rpl_release(last);
    rpl_release(op);
    rpl_release(nb);
    rpl_release(a);
    rpl_release(p);
    CHECK_EQ_INT(o.released, 0);  /* the connection can still connect p */
    rpl_release(c);
    rpl_release(b);
    CHECK_EQ_INT(o.released, 1);  /* nothing can send any more (rule 6a) */
    CHECK_EQ_INT(o.completed + o.errors, 0);
    size_t live = check_live_now();
    CHECK_EQ_INT(live, live0);
}

static void test_operator_over_multicast_subject_no_cycle(void) {
    check_operator_over_multicast_subject(0);
    check_operator_over_multicast_subject(1);
}

/* The chain still works while the connection is held: connecting sends b's
   value into p, and concat's first part gets it. */
static void test_operator_over_multicast_subject_connects(void) {
    rpl_subject_t *b = rpl_behavior_subject_create(rpl_int(5));
    rpl_connection_t *c = rpl_signal_publish(rpl_subject_as_signal(b));
    rpl_signal_t *a = rpl_connection_autoconnect(c);
    rpl_signal_t *op = rpl_signal_concat(rpl_connection_signal(c), a);
    rec_t o = {0};
    rpl_disposable_t *d = rec_attach(op, &o);
    rpl_release(op);
    rpl_release(a);
    rpl_disposable_t *k = rpl_connection_connect(c);
    CHECK_EQ_INT(o.n, 1);
    rpl_subject_send_next(b, rpl_int(6));
    CHECK_EQ_INT(o.n, 2);
    rpl_disposable_dispose(d);
    rpl_release(d);
    CHECK_EQ_INT(o.released, 1);
    rpl_disposable_dispose(k);
    rpl_release(k);
    rpl_release(c);
    rpl_release(b);
}

/* ---- a subscriber freed while its subject was delivering to it ----
   Fuzz input (minimized by hand): a behavior subject s; switch_cases over
   concat(s, ...) whose case flattens s, whose inner fails at once; subscribe,
   send. s delivers to concat's input; inside that delivery the flatten
   subscribes to s (a nested join, whose replay runs at once), and the inner's
   error disposes the whole chain, concat's input included. The hub kept only
   one "current subscriber", which the nested replay had replaced, so it let
   go of concat's input at once: the input, its sink and concat's relay were
   freed while their own delivery was still running (heap-use-after-free in
   the relay's gate). The hub now counts its deliveries to each subscriber,
   nested ones included.

   The same in plain C: A's on_next subscribes B to the same subject; B's
   replay disposes A's subscription and drops its handle. A's release must
   wait until A's on_next has returned, and nothing may touch freed memory
   (valgrind sees that; the release order is asserted here). `through`: A is
   subscribed to concat(s, never), so A's delivery runs inside concat's
   relay, as in the fuzz input. */
typedef struct {
    rpl_signal_t *subject;
    rpl_disposable_t *a_handle;   /* disposed and released by B */
    rpl_disposable_t *b_handle;   /* released by the test */
    int in_a_next, a_nexts, a_released, a_released_inside, b_nexts, b_released;
} nest_t;

static void b_next(void *ctx, const rpl_value *v) {
    (void)v;
    nest_t *n = ctx;
    n->b_nexts++;
    if (n->a_handle) {
        rpl_disposable_t *a = n->a_handle;
        n->a_handle = NULL;
        rpl_disposable_dispose(a);
        rpl_release(a);
    }
}
static void b_release(void *ctx) { ((nest_t *)ctx)->b_released++; }
static void a_next(void *ctx, const rpl_value *v) {
    (void)v;
    nest_t *n = ctx;
    n->in_a_next = 1;
    n->a_nexts++;
    if (!n->b_handle) {
        rpl_observer ob = RPL_OBSERVER_INIT;
        ob.on_next = b_next;
        ob.release = b_release;
        ob.ctx = n;
        n->b_handle = rpl_signal_subscribe(n->subject, &ob);  /* its replay runs here */
    }
    n->in_a_next = 0;
}
static void a_release(void *ctx) {
    nest_t *n = ctx;
    n->a_released++;
    if (n->in_a_next) n->a_released_inside++;
}

static void check_disposed_in_nested_replay(int kind, int through) {
    size_t live0 = check_live_settled();
    rpl_subject_t *subj = kind == 0 ? rpl_behavior_subject_create(rpl_int(0))
                        : rpl_replay_subject_create(kind == 1 ? 1 : RPL_REPLAY_UNLIMITED);
    nest_t n = {0};
    n.subject = rpl_subject_as_signal(subj);
    rpl_signal_t *never = rpl_signal_never();
    rpl_signal_t *src = through ? rpl_signal_concat(n.subject, never) : rpl_retain(n.subject);
    rpl_observer ob = RPL_OBSERVER_INIT;
    ob.on_next = a_next;
    ob.release = a_release;
    ob.ctx = &n;
    n.a_handle = rpl_signal_subscribe(src, &ob);
    CHECK(n.a_handle != NULL);
    rpl_release(src);
    rpl_release(never);
    CHECK_EQ_INT(rpl_subject_send_next(subj, rpl_int(1)), RPL_OK);
    /* A behavior subject replays its value to A as A subscribes: all of it
       then happens inside A's own replay (B's replay nested in it), and B
       also gets the value sent next. */
    int b0 = kind == 0 ? 2 : 1;
    CHECK_EQ_INT(n.a_nexts, 1);
    CHECK_EQ_INT(n.b_nexts, b0);           /* the replay of the value A got */
    CHECK(n.a_handle == NULL);             /* B disposed A */
    CHECK_EQ_INT(n.a_released, 1);         /* once A's on_next had returned */
    CHECK_EQ_INT(n.a_released_inside, 0);
    CHECK_EQ_INT(rpl_subject_send_next(subj, rpl_int(2)), RPL_OK);
    CHECK_EQ_INT(n.a_nexts, 1);            /* nothing after dispose (rule 6) */
    CHECK_EQ_INT(n.b_nexts, b0 + 1);
    rpl_disposable_dispose(n.b_handle);
    rpl_release(n.b_handle);
    CHECK_EQ_INT(n.b_released, 1);
    rpl_release(subj);
    size_t live = check_live_now();
    CHECK_EQ_INT(live, live0);
}

static void test_disposed_in_nested_replay(void) {
    for (int through = 0; through < 2; through++) {
        for (int kind = 0; kind < 3; kind++) check_disposed_in_nested_replay(kind, through);
    }
}

/* ---- A switch over a publish whose case reconnects it ----
   Fuzz input reconnect-feedback-loop.bin (a libFuzzer timeout, not a runtime
   bug): switch_cases over a publish of a behavior subject, whose case is that
   connection's autoconnect signal. Each key disposes the case (the last
   autoconnect subscriber leaving disconnects, rule 13) and subscribes it
   again, which connects; connecting subscribes the behavior subject, whose
   replay is the next key: a loop that never ends by the rules (the fuzzer now
   skips such switches). Here a take(n) on the keys ends it. Each turn's key
   is sent from inside the previous turn's delivery, so it is queued (D8): the
   loop runs at a flat stack depth, however many turns, where a runtime that
   delivered it at once would recurse until the stack overflows. */
typedef struct {
    int connects;
    char *lowest, *highest;   /* stack addresses seen at each connect */
} turns_t;

static void count_connect(void *ctx) {
    turns_t *t = ctx;
    /* The frame, not a local: ASan may put locals on a heap "fake stack". */
    char *here = __builtin_frame_address(0);
    t->connects++;
    if (!t->lowest || here < t->lowest) t->lowest = here;
    if (!t->highest || here > t->highest) t->highest = here;
}

static void test_reconnect_feedback_loop_is_flat(void) {
    enum { KEYS = 20000 };
    size_t live0 = check_live_settled();
    turns_t t = {0};
    rpl_subject_t *b = rpl_behavior_subject_create(rpl_int(0));
    rpl_signal_t *counted = rpl_signal_initially(rpl_subject_as_signal(b), count_connect, &t, NULL);
    rpl_connection_t *conn = rpl_signal_publish(counted);
    rpl_signal_t *keys = rpl_signal_take(rpl_connection_signal(conn), KEYS);
    rpl_signal_t *auto_ = rpl_connection_autoconnect(conn);
    rpl_signal_t *sw = rpl_signal_switch_cases(keys, NULL, NULL, 0, auto_);
    CHECK(counted && conn && keys && auto_ && sw);

    rec_t r = {0};
    rpl_disposable_t *d = rec_attach(sw, &r);
    CHECK_EQ_INT(t.connects, 0);            /* the keys alone do not connect */
    /* A first autoconnect subscriber connects: key 0 subscribes the case. */
    rec_t first = {0};
    rpl_disposable_t *x = rec_attach(auto_, &first);
    CHECK_EQ_INT(t.connects, 1);
    rpl_disposable_dispose(x);               /* the case still holds it */
    CHECK_EQ_INT(t.connects, 1);
    /* The next key starts the loop; take ends it after KEYS keys. */
    CHECK_EQ_INT(rpl_subject_send_next(b, rpl_int(1)), RPL_OK);
    CHECK_EQ_INT(t.connects, KEYS);
    CHECK((size_t)(t.highest - t.lowest) < 64 * 1024);
    CHECK_EQ_INT(r.completed, 0);            /* the last case is still open */
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(x);
    rpl_release(sw);
    rpl_release(auto_);
    rpl_release(keys);
    rpl_release(conn);
    rpl_release(counted);
    rpl_release(b);
    size_t live = check_live_now();
    CHECK_EQ_INT(live, live0);
}

/* ---- An attach that ended its own subscription freed its sink under it ----
   Found by the 60-second fuzz of `make check` (2026-11-27; the input,
   attach-ends-subscription.bin, is racy: with_latest_from over one replay
   subject behind a blocking first whose timer disposed the relay from a
   worker thread). A subscriber's sink chain is kept by the subscriber alone,
   and `attach` runs on it: an attach that ends the subscription (the relay's
   sink of an ended relay; here, deterministically, the sink feeding a subject
   that has already terminated, which disposes its new source subscription at
   once) ran its finish inside the attach, which freed the sink it was running
   on (heap-use-after-free under valgrind). Finish now waits for the attach.
   Sources that end, do not, and a subject ended by an error. */
static void test_attach_ends_subscription(void) {
    size_t live0 = check_live_settled();
    for (int i = 0; i < 4; i++) {
        rpl_subject_t *target = rpl_subject_create();
        if (i % 2) rpl_subject_send_error(target, NULL);
        else rpl_subject_send_completed(target);
        rpl_signal_t *src = i < 2 ? rpl_signal_never() : rpl_signal_return(rpl_int(1));
        rpl_disposable_t *d = rpl_signal_subscribe_subject(src, target);
        CHECK(d != NULL);
        CHECK(rpl_disposable_is_disposed(d));
        rec_t r;
        rpl_release(rec_subscribe(rpl_subject_as_signal(target), &r));
        CHECK_EQ_INT(r.n, 0);  /* what src sent did not reach the ended subject */
        CHECK_EQ_INT(r.completed + r.errors, 1);
        CHECK_EQ_INT(r.released, 1);
        rpl_release(d);
        rpl_release(src);
        rpl_release(target);
    }
    CHECK_EQ_INT(check_live_now(), live0);
}

int main(void) {
    RUN(test_start_with_itself_no_cycle);
    RUN(test_start_replay_after_subscriber_dropped);
    RUN(test_operator_over_multicast_subject_no_cycle);
    RUN(test_operator_over_multicast_subject_connects);
    RUN(test_disposed_in_nested_replay);
    RUN(test_reconnect_feedback_loop_is_flat);
    RUN(test_attach_ends_subscription);
    CHECK_DONE();
}
