#define _POSIX_C_SOURCE 200809L
/* A relay's terminal event, or its source's end without one
   (docs/behaviour.md#lifetime-relay), queued behind another delivery (rules 1, 2, 5). The relayed operators whose relay has one upstream
   (buffer_with_time, throttle_if, throttle, delay, subscribe_on,
   delay_subscription) forward the upstream's completion or error into the
   relay's gate. When that gate is owned at that moment (by this thread, from
   inside the relay's own callback; or by the scheduler's thread, delivering
   a tick), the event is queued for the owner. The upstream subscription then
   ends, and the relay must not be disposed then: the queued values and the
   terminal event still reach the observer, before its release. (The bug this
   pins: the upstream's end disposed the relay at once, which dropped the
   queued events, so the observer got its release without its terminal
   event; test_ops_creating's threaded case hit it about 1 run in 100.)
   Each case is deterministic: no sleep decides the interleaving. */
#include "check.h"
#include <ripple.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull

static void sleep_us(long us) { nanosleep(&(struct timespec){us / 1000000, (us % 1000000) * 1000L}, NULL); }

/* ---- The operators --------------------------------------------------------------- */
static bool odd_only(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) % 2 != 0; }
static rpl_signal_t *op_buffer(rpl_signal_t *s, rpl_scheduler_t *sc) { return rpl_signal_buffer_with_time(s, MS, sc); }
static rpl_signal_t *op_throttle_if(rpl_signal_t *s, rpl_scheduler_t *sc) {
    return rpl_signal_throttle_if(s, MS, sc, odd_only, NULL, NULL);
}
static rpl_signal_t *op_throttle(rpl_signal_t *s, rpl_scheduler_t *sc) { return rpl_signal_throttle(s, MS, sc); }
static rpl_signal_t *op_delay(rpl_signal_t *s, rpl_scheduler_t *sc) { return rpl_signal_delay(s, MS, sc); }
static rpl_signal_t *op_subscribe_on(rpl_signal_t *s, rpl_scheduler_t *sc) { return rpl_signal_subscribe_on(s, sc); }
static rpl_signal_t *op_delay_subscription(rpl_signal_t *s, rpl_scheduler_t *sc) {
    return rpl_signal_delay_subscription(s, MS, sc);
}

typedef enum { END_COMPLETED, END_ERROR, END_FREED } ending;

typedef struct {
    const char *name;
    rpl_signal_t *(*make)(rpl_signal_t *, rpl_scheduler_t *);
    bool timed;              /* the first value reaches the observer from a timer */
    const char *after[3];    /* the log when 2 follows the first value, then (by `ending`)
                                completion, an error, or the subject is freed */
} op_case;

/* Freed (docs/behaviour.md#lifetime-relay): the relay's input is gone, so
   nothing new can reach it, but what reached it before still arrives (rule
   2), also what the operator holds for later (buffer_with_time's batch,
   throttle's pending value, delay's timers); and while the handle is held
   the subscription does not end (#lifetime-handle): its release runs when
   the handle goes. */
static const op_case ops[] = {
    { "buffer_with_time",   op_buffer,             true,  { "(1) (2) C", "(1) E",   "(1) (2)" } },
    { "throttle_if",        op_throttle_if,        true,  { "1 2 C",     "1 2 E",   "1 2" } },  /* 2 is even: sent at once */
    { "throttle",           op_throttle,           true,  { "1 2 C",     "1 E",     "1 2" } },
    { "delay",              op_delay,              true,  { "1 2 C",     "1 E",     "1 2" } },
    { "subscribe_on",       op_subscribe_on,       false, { "1 2 C",     "1 2 E",   "1 2" } },
    { "delay_subscription", op_delay_subscription, false, { "1 2 C",     "1 2 E",   "1 2" } },
};
static const char *const ending_names[3] = { "completion", "error", "subject freed" };

/* ---- The observer ------------------------------------------------------------------ */
/* On the first value it sends 2 and then ends the subject (a terminal event,
   or releasing its only handle) at once, from inside the callback (the
   re-entrant case), or it tells the main thread it is inside and waits until
   the main thread has done so (the cross-thread case). */
typedef struct {
    rpl_subject_t *subject;  /* NULL once freed */
    ending end;
    bool block;              /* cross-thread: wait for `go` instead of sending */
    char log[128];
    atomic_int firsts, entered, go, completed, failed, released, values;
} race_t;

static void log_add(race_t *r, const char *s) {
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, "%s%s", n ? " " : "", s);
}
static void send_tail(race_t *r) {
    rpl_subject_send_next(r->subject, rpl_int(2));
    if (r->end == END_ERROR) {
        rpl_error_t *e = rpl_error_create("race", 7, "boom");
        rpl_subject_send_error(r->subject, e);
        rpl_release(e);
    } else if (r->end == END_COMPLETED) {
        rpl_subject_send_completed(r->subject);
    } else {
        rpl_subject_t *s = r->subject;
        r->subject = NULL;
        rpl_release(s);  /* the operator keeps no handle: the subject is freed */
    }
}
static void race_next(void *ctx, const rpl_value *v) {
    race_t *r = ctx;
    char buf[64];
    if (rpl_value_type(v) == RPL_TYPE_TUPLE) {
        size_t n = 0;
        buf[n++] = '(';
        for (size_t k = 0, c = rpl_value_tuple_count(v); k < c; k++) {
            rpl_value item = rpl_value_tuple_at(v, k);
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%lld", k ? "," : "", (long long)rpl_value_int(&item));
            rpl_value_release(&item);
        }
        snprintf(buf + n, sizeof buf - n, ")");
    } else {
        snprintf(buf, sizeof buf, "%lld", (long long)rpl_value_int(v));
    }
    log_add(r, buf);
    atomic_fetch_add(&r->values, 1);
    if (atomic_fetch_add(&r->firsts, 1) != 0) return;
    if (!r->block) return send_tail(r);
    atomic_store(&r->entered, 1);
    for (int i = 0; i < 10000 && !atomic_load(&r->go); i++) sleep_us(1000);  /* bounded: 10 s */
}
static void race_error(void *ctx, const rpl_error_t *e) {
    race_t *r = ctx;
    log_add(r, rpl_error_code(e) == 7 ? "E" : "E?");
    atomic_fetch_add(&r->failed, 1);
}
static void race_completed(void *ctx) {
    race_t *r = ctx;
    log_add(r, "C");
    atomic_fetch_add(&r->completed, 1);
}
static void race_release(void *ctx) { atomic_fetch_add(&((race_t *)ctx)->released, 1); }

/* The values `want` lists (its words that are not C or E). */
static int want_values(const char *want) {
    int n = 0;
    for (const char *p = want; *p; p++)
        if ((p == want || p[-1] == ' ') && *p != 'C' && *p != 'E') n++;
    return n;
}

/* Checks the outcome and releases the handle d. */
static void check_outcome(const op_case *c, race_t *r, const char *how, rpl_disposable_t *d) {
    const char *want = c->after[r->end];
    if (r->end == END_FREED) {
        /* The handle is held: no release yet (#lifetime-handle); then it goes,
           and with it the last reference (#lifetime-unreachable). */
        CHECK_EQ_INT(atomic_load(&r->released), 0);
        rpl_release(d);
        for (int i = 0; i < 10000 && !atomic_load(&r->released); i++) sleep_us(1000);
    } else {
        rpl_release(d);
    }
    if (strcmp(r->log, want) != 0)
        fprintf(stderr, "    %s, %s, %s: got \"%s\", want \"%s\"\n", c->name, how,
                ending_names[r->end], r->log, want);
    CHECK(strcmp(r->log, want) == 0);
    CHECK_EQ_INT(atomic_load(&r->completed), r->end == END_COMPLETED);
    CHECK_EQ_INT(atomic_load(&r->failed), r->end == END_ERROR);
    CHECK_EQ_INT(atomic_load(&r->released), 1);
}

static rpl_disposable_t *race_subscribe(rpl_signal_t *o, race_t *r) {
    rpl_observer obs = observer_of(race_next, race_error, race_completed, race_release, r);
    return rpl_signal_subscribe(o, &obs);
}

/* ---- Re-entrant: the observer ends the source from inside the relay's callback ---- */
/* This thread owns the relay's gate while the callback runs, so what the
   callback sends into the subject reaches the relay as queued messages. */
static void reentrant_case(const op_case *c, ending end) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_subject_t *subject = rpl_subject_create();
    rpl_signal_t *sig = rpl_subject_as_signal(subject);
    rpl_signal_t *o = c->make(sig, ts);
    race_t r = { .subject = subject, .end = end };
    rpl_disposable_t *d = race_subscribe(o, &r);
    rpl_test_scheduler_advance_by(ts, 2 * MS);  /* subscribe_on, delay_subscription: subscribed now */
    rpl_subject_send_next(subject, rpl_int(1));
    rpl_test_scheduler_advance_by(ts, 2 * MS);  /* the timed ones: 1 goes out now */
    rpl_test_scheduler_advance_by(ts, 2 * MS);  /* delay: 2 and the completion */
    check_outcome(c, &r, "re-entrant", d);
    rpl_release(o);
    rpl_release(r.subject);
    rpl_release(ts);
}

static void test_reentrant_terminal(void) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (ending e = END_COMPLETED; e <= END_FREED; e++) reentrant_case(&ops[i], e);
}

/* ---- Cross-thread: the scheduler's thread owns the relay's gate ------------------ */
/* The tick that sends 1 holds the relay's gate on the serial scheduler's
   thread (its callback waits); meanwhile this thread sends 2 and the terminal
   event into the subject. It is delivering (the subject's send), so it does
   not wait for the relay's gate: both are queued for the scheduler's thread,
   and the upstream subscription ends before that thread lets go. */
static void threaded_case(const op_case *c, ending end) {
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("gate-races");
    rpl_subject_t *subject = rpl_subject_create();
    rpl_signal_t *sig = rpl_subject_as_signal(subject);
    rpl_signal_t *o = c->make(sig, serial);
    race_t r = { .subject = subject, .end = end, .block = true };
    rpl_disposable_t *d = race_subscribe(o, &r);
    rpl_subject_send_next(subject, rpl_int(1));
    for (int i = 0; i < 10000 && !atomic_load(&r.entered); i++) sleep_us(1000);
    CHECK(atomic_load(&r.entered));
    send_tail(&r);
    atomic_store(&r.go, 1);
    /* Until it ended, or (freed) until every value arrived. */
    int n = want_values(c->after[end]);
    for (int i = 0; i < 10000 && !atomic_load(&r.released) && !(end == END_FREED && atomic_load(&r.values) >= n); i++)
        sleep_us(1000);
    check_outcome(c, &r, "cross-thread", d);
    rpl_release(o);
    rpl_release(r.subject);
    rpl_release(serial);
}

static void test_threaded_terminal(void) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (!ops[i].timed) continue;  /* the others deliver on the sender's thread */
        for (ending e = END_COMPLETED; e <= END_FREED; e++) threaded_case(&ops[i], e);
    }
}

int main(void) {
    alarm(120);  /* watchdog: a lost wake-up or a deadlock fails instead of hanging */
    RUN(test_reentrant_terminal);
    RUN(test_threaded_terminal);
    alarm(0);
    CHECK_DONE();
}
