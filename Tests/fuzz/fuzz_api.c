/* API-sequence fuzzer (libFuzzer). Each input is a little program: every byte
 * pair picks an operation (create a subject, derive a signal through an
 * operator, subscribe, send, dispose, release, ...) and its operands among
 * the live handles. Every observer checks the contract as events arrive:
 *   - the grammar: next* (error | completed)?, nothing after a terminal event;
 *   - no callback after rpl_disposable_dispose returned (single thread here);
 *   - release(ctx) exactly once, and last;
 *   - at the end of the input, after every subscription is disposed and every
 *     handle released, every observer and every operator context has been
 *     released exactly once (and LeakSanitizer sees no block left).
 * A violation aborts, so libFuzzer keeps the input as a crash; an input that
 * runs for more than -timeout seconds (a hang) is kept too.
 *
 * The operations cover subjects (plain, behavior, replay), value and
 * combining operators, signals of signals (flatten, switch_to_latest), the
 * time operators on a test scheduler the input advances, multicast
 * connections (publish, connect, autoconnect), dispose from inside
 * on_next and re-entrant sends from on_next.
 * repeat, retry, concat, then and catch_to often take a signal with itself
 * (issue 10's D4: such pairs once formed reference cycles), also over
 * autoconnect chains (a multicast connection's subject once kept such a
 * subscription in a cycle). */
#include <ripple.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSIG 12
#define NSUB 16
#define NOBS 256

#define FAIL(...) do { fprintf(stderr, "fuzz_api: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

typedef struct obs {
    int used;
    int terminated;       /* error or completed seen */
    int disposed;         /* dispose returned */
    int released;         /* release(ctx) calls */
    int in_callback;
    long nexts;
    int dispose_in_next;  /* dispose its own subscription on the next value */
    int send_in_next;     /* sends left into a subject from on_next (re-entrant send);
                             a budget, since a queued re-entrant send returns at once */
    int slot;             /* its subscription slot, or -1 */
} obs_t;

static rpl_signal_t *sigs[NSIG];
static rpl_subject_t *subjects[NSIG];   /* subjects[i] set when sigs[i] is a subject */
static rpl_scheduler_t *clock_;          /* one test scheduler per input, for the time operators */
#define NCONN 4
static rpl_connection_t *conns[NCONN];  /* multicast connections */
static rpl_disposable_t *connected[NCONN];
static rpl_disposable_t *subs[NSUB];
static int sub_obs[NSUB];
static obs_t observers[NOBS];
static int nobs;
static long ctx_made, ctx_released;     /* operator contexts */

static void obs_enter(obs_t *o, const char *what) {
    if (o->released) FAIL("%s after release", what);
    if (o->disposed) FAIL("%s after dispose returned", what);
    if (o->terminated) FAIL("%s after a terminal event", what);
    if (o->in_callback) FAIL("%s while a callback of the same subscriber runs", what);
}

static rpl_subject_t *pick_subject(uint8_t b);
static int reentry;

static void on_next(void *ctx, const rpl_value *v) {
    obs_t *o = ctx;
    obs_enter(o, "next");
    (void)rpl_value_type(v);
    o->nexts++;
    if (o->send_in_next > 0 && reentry < 2) {
        o->send_in_next--;
        rpl_subject_t *subj = pick_subject((uint8_t)o->nexts);
        reentry++;
        if (subj) rpl_subject_send_next(subj, rpl_int(o->nexts));
        reentry--;
        if (o->released) FAIL("released during its own on_next");
    }
    if (o->dispose_in_next && o->slot >= 0 && subs[o->slot]) {
        o->in_callback = 1;
        rpl_disposable_dispose(subs[o->slot]);
        o->in_callback = 0;
        o->disposed = 1;
    }
}
static void on_error(void *ctx, const rpl_error_t *e) {
    obs_t *o = ctx;
    obs_enter(o, "error");
    (void)rpl_error_code(e);
    o->terminated = 1;
}
static void on_completed(void *ctx) {
    obs_t *o = ctx;
    obs_enter(o, "completed");
    o->terminated = 1;
}
static void on_release(void *ctx) {
    obs_t *o = ctx;
    if (o->released) FAIL("release ran twice");
    o->released = 1;
}

/* Operator callbacks: a counted context, released exactly once. */
typedef struct op_ctx { int released; int k; } op_ctx;
static op_ctx *new_ctx(int k) {
    op_ctx *c = calloc(1, sizeof *c);
    c->k = k;
    ctx_made++;
    return c;
}
static void ctx_release(void *ctx) {
    op_ctx *c = ctx;
    if (c->released) FAIL("operator context released twice");
    c->released = 1;
    ctx_released++;
    free(c);
}
static rpl_value op_map(void *ctx, const rpl_value *v) {
    return rpl_int(rpl_value_int(v) + ((op_ctx *)ctx)->k);
}
static bool op_pred(void *ctx, const rpl_value *v) {
    return (rpl_value_int(v) + ((op_ctx *)ctx)->k) % 3 != 0;
}
static rpl_value op_reduce(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}

static int put_signal(rpl_signal_t *s, rpl_subject_t *subj) {
    if (!s) FAIL("an operator failed: %s", rpl_last_error_message());
    for (int i = 0; i < NSIG; i++)
        if (!sigs[i]) { sigs[i] = s; subjects[i] = subj; return i; }
    rpl_release(s);
    return -1;
}
static int pick_index(uint8_t b) {
    for (int i = 0; i < NSIG; i++)
        if (sigs[(b + i) % NSIG]) return (b + i) % NSIG;
    return -1;
}
static rpl_signal_t *pick_signal(uint8_t b) {
    int i = pick_index(b);
    return i >= 0 ? sigs[i] : NULL;
}
static rpl_subject_t *pick_subject(uint8_t b) {
    for (int i = 0; i < NSIG; i++) {
        rpl_subject_t *s = subjects[(b + i) % NSIG];
        if (s) return s;
    }
    return NULL;
}

static void subscribe(rpl_signal_t *s, uint8_t b) {
    int slot = -1;
    for (int i = 0; i < NSUB; i++) if (!subs[i]) { slot = i; break; }
    if (slot < 0 || nobs >= NOBS || !s) return;
    obs_t *o = &observers[nobs];
    memset(o, 0, sizeof *o);
    o->used = 1;
    o->slot = slot;
    o->dispose_in_next = (b & 7) == 0;
    o->send_in_next = (b & 7) == 1 ? 3 : 0;
    sub_obs[slot] = nobs++;
    rpl_observer ob = RPL_OBSERVER_INIT;
    ob.on_next = on_next;
    ob.on_error = on_error;
    ob.on_completed = on_completed;
    ob.release = on_release;
    ob.ctx = o;
    /* Store the slot first: a synchronous on_next may dispose it. */
    rpl_disposable_t *d = rpl_signal_subscribe(s, &ob);
    if (!d) FAIL("subscribe failed: %s", rpl_last_error_message());
    subs[slot] = d;
}

static void dispose_slot(int slot) {
    if (!subs[slot]) return;
    obs_t *o = &observers[sub_obs[slot]];
    rpl_disposable_dispose(subs[slot]);
    o->disposed = 1;
    /* dispose returned with no callback running: release has run. */
    if (o->released != 1) FAIL("release has not run when dispose returned");
    rpl_release(subs[slot]);
    subs[slot] = NULL;
}

/* FUZZ_TRACE=1 prints each operation, to turn a saved input into a repro. */
static const char *const op_names[51] = {
    "subject", "behavior_subject", "replay_subject", "map", "filter", "take", "skip", "scan",
    "distinct_until_changed", "merge", "combine_latest", "zip", "take_until", "start_with", "return/empty",
    "subscribe", "subscribe", "send_next", "send_next", "send_completed", "send_error", "dispose",
    "release_signal", "take_while", "delay", "throttle", "timeout", "deliver_on", "subscribe_on",
    "interval", "advance_by", "advance_by", "send_signal_value", "switch_to_latest", "flatten",
    "take_last", "collect", "materialize", "skip_while", "replay_last", "publish", "connect",
    "dispose_connection", "autoconnect", "concat", "then", "catch_to", "repeat", "retry",
    "deliver_on_bounded", "replay_lazily",
};

static void trace(uint8_t op, uint8_t b) {
    static int on = -1;
    if (on < 0) on = getenv("FUZZ_TRACE") != NULL;
    if (!on) return;
    int s = -1, t = -1;
    for (int i = 0; i < NSIG && s < 0; i++) if (sigs[(b + i) % NSIG]) s = (b + i) % NSIG;
    for (int i = 0; i < NSIG && t < 0; i++) if (sigs[((b >> 3) + i) % NSIG]) t = ((b >> 3) + i) % NSIG;
    fprintf(stderr, "fuzz_api: %-22s b=%3d  s=sig%d t=sig%d\n", op_names[op], b, s, t);
}

static void run(const uint8_t *data, size_t size) {
    clock_ = rpl_test_scheduler_create();
    for (size_t i = 0; i + 1 < size; i += 2) {
        uint8_t op = data[i] % 51, b = data[i + 1];
        trace(op, b);
        rpl_signal_t *s = pick_signal(b), *t = pick_signal((uint8_t)(b >> 3));
        rpl_subject_t *subj = pick_subject(b);
        switch (op) {
        case 0: { rpl_subject_t *x = rpl_subject_create(); put_signal(rpl_subject_as_signal(x), x); break; }
        case 1: { rpl_subject_t *x = rpl_behavior_subject_create(rpl_int(b)); put_signal(rpl_subject_as_signal(x), x); break; }
        case 2: { rpl_subject_t *x = rpl_replay_subject_create(1 + b % 4); put_signal(rpl_subject_as_signal(x), x); break; }
        case 3: if (s) put_signal(rpl_signal_map(s, op_map, new_ctx(b), ctx_release), NULL); break;
        case 4: if (s) put_signal(rpl_signal_filter(s, op_pred, new_ctx(b), ctx_release), NULL); break;
        case 5: if (s) put_signal(rpl_signal_take(s, b % 5), NULL); break;
        case 6: if (s) put_signal(rpl_signal_skip(s, b % 3), NULL); break;
        case 7: if (s) put_signal(rpl_signal_scan(s, rpl_int(0), op_reduce, new_ctx(b), ctx_release), NULL); break;
        case 8: if (s) put_signal(rpl_signal_distinct_until_changed(s), NULL); break;
        case 9: if (s && t) { rpl_signal_t *two[2] = { s, t }; put_signal(rpl_signal_merge(two, 2), NULL); } break;
        case 10: if (s && t) { rpl_signal_t *two[2] = { s, t }; put_signal(rpl_signal_combine_latest(two, 2), NULL); } break;
        case 11: if (s && t) { rpl_signal_t *two[2] = { s, t }; put_signal(rpl_signal_zip(two, 2), NULL); } break;
        case 12: if (s && t) put_signal(rpl_signal_take_until(s, t), NULL); break;
        case 13: if (s) put_signal(rpl_signal_start_with(s, rpl_int(b)), NULL); break;
        case 14: put_signal(b & 1 ? rpl_signal_return(rpl_int(b)) : rpl_signal_empty(), NULL); break;
        case 15: case 16: subscribe(s, b); break;
        case 17: case 18: if (subj) rpl_subject_send_next(subj, b & 1 ? rpl_int(b) : rpl_string("s")); break;
        case 19: if (subj && b % 4 == 0) rpl_subject_send_completed(subj); break;
        case 20: if (subj && b % 4 == 0) {
            rpl_error_t *e = rpl_error_create("fuzz", b, "e");
            rpl_subject_send_error(subj, e);  /* retains e */
            rpl_release(e);
        } break;
        case 21: dispose_slot(b % NSUB); break;
        case 22: { /* release a signal handle (subscriptions keep what they need) */
            int k = b % NSIG;
            if (sigs[k]) { rpl_release(sigs[k]); sigs[k] = NULL; subjects[k] = NULL; }
            break;
        }
        case 23: if (s) put_signal(rpl_signal_take_while(s, op_pred, new_ctx(b), ctx_release), NULL); break;
        /* Time operators on the virtual clock, and the clock itself. */
        case 24: if (s) put_signal(rpl_signal_delay(s, (uint64_t)b * 10, clock_), NULL); break;
        case 25: if (s) put_signal(rpl_signal_throttle(s, (uint64_t)b * 10, clock_), NULL); break;
        case 26: if (s) put_signal(rpl_signal_timeout(s, (uint64_t)b * 10, clock_), NULL); break;
        case 27: if (s) put_signal(rpl_signal_deliver_on(s, clock_), NULL); break;
        case 28: if (s) put_signal(rpl_signal_subscribe_on(s, clock_), NULL); break;
        case 29: put_signal(rpl_signal_interval(10 + (uint64_t)b * 10, clock_), NULL); break;
        case 30: case 31: rpl_test_scheduler_advance_by(clock_, (uint64_t)b * 8); break;
        /* Signals of signals. */
        case 32: if (subj) {
            /* A fresh inner signal: a value referring back to the subject
               (which may store it) would be a cycle the program made. */
            rpl_signal_t *inner = b % 3 == 0 ? rpl_signal_return(rpl_int(b))
                                : b % 3 == 1 ? rpl_signal_empty() : rpl_signal_interval(5 + b, clock_);
            rpl_subject_send_next(subj, rpl_signal_value(inner));
            rpl_release(inner);
        } break;
        case 33: if (s) put_signal(rpl_signal_switch_to_latest(s), NULL); break;
        case 34: if (s) put_signal(rpl_signal_flatten(s), NULL); break;
        case 35: if (s) put_signal(rpl_signal_take_last(s, b % 4), NULL); break;
        case 36: if (s) put_signal(rpl_signal_collect(s), NULL); break;
        case 37: if (s) put_signal(rpl_signal_materialize(s), NULL); break;
        case 38: if (s) put_signal(rpl_signal_skip_while(s, op_pred, new_ctx(b), ctx_release), NULL); break;
        case 39: if (s) put_signal(rpl_signal_replay_last(s), NULL); break;
        /* Multicast connections. */
        case 40: if (s) {
            int k = b % NCONN;
            if (connected[k]) { rpl_disposable_dispose(connected[k]); rpl_release(connected[k]); connected[k] = NULL; }
            rpl_release(conns[k]);
            conns[k] = rpl_signal_publish(s);
            put_signal(rpl_retain(rpl_connection_signal(conns[k])), NULL);
        } break;
        case 41: {
            int k = b % NCONN;
            if (!conns[k]) break;
            rpl_disposable_t *d = rpl_connection_connect(conns[k]);
            if (!d) FAIL("connect failed: %s", rpl_last_error_message());
            if (connected[k] && connected[k] != d) FAIL("a second connect did not return the live connection");
            rpl_release(connected[k]);
            connected[k] = d;
        } break;
        case 42: {
            int k = b % NCONN;
            if (connected[k]) { rpl_disposable_dispose(connected[k]); rpl_release(connected[k]); connected[k] = NULL; }
        } break;
        case 43: if (conns[b % NCONN]) put_signal(rpl_connection_autoconnect(conns[b % NCONN]), NULL); break;
        /* Every policy; on the test scheduler a BLOCK send never waits (it
           fails the signal instead), so this stays single-threaded. */
        case 49: if (s) put_signal(rpl_signal_deliver_on_bounded(s, clock_, 1 + (b >> 2) % 4, (rpl_overflow)(b % 4)), NULL); break;
        case 50: if (s) put_signal(rpl_signal_replay_lazily(s), NULL); break;
        case 44: if (s && t) put_signal(rpl_signal_concat(s, t), NULL); break;
        case 45: if (s && t) put_signal(rpl_signal_then(s, t), NULL); break;
        case 46: if (s && t) put_signal(rpl_signal_catch_to(s, t), NULL); break;
        case 47: if (s) put_signal(rpl_signal_repeat(s, b % 4), NULL); break;
        case 48: if (s) put_signal(rpl_signal_retry(s, b % 4), NULL); break;
        }
    }
}

static size_t live_at_start;   /* runtime objects alive before the input */

static void finish(void) {
    for (int i = 0; i < NSUB; i++) dispose_slot(i);
    for (int i = 0; i < NSIG; i++) { rpl_release(sigs[i]); sigs[i] = NULL; subjects[i] = NULL; }
    for (int k = 0; k < NCONN; k++) {
        if (connected[k]) { rpl_disposable_dispose(connected[k]); rpl_release(connected[k]); connected[k] = NULL; }
        rpl_release(conns[k]);
        conns[k] = NULL;
    }
    rpl_release(clock_);
    clock_ = NULL;
    for (int i = 0; i < nobs; i++)
        if (observers[i].released != 1) FAIL("observer %d released %d times at the end", i, observers[i].released);
    if (ctx_made != ctx_released) FAIL("%ld operator contexts made, %ld released", ctx_made, ctx_released);
    /* Everything is synchronous here (test scheduler, immediate work), so
       every runtime object the input made is gone now: a reference cycle
       anywhere among them would keep some alive (and LeakSanitizer runs
       with no suppression). The thread's last signal error is kept. */
    size_t live = rpl_live_objects() - (rpl_last_signal_error() != NULL);
    if (live != live_at_start) FAIL("%zu runtime objects alive after the input, %zu before (a cycle?)", live, live_at_start);
    nobs = 0;
    ctx_made = ctx_released = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    live_at_start = rpl_live_objects() - (rpl_last_signal_error() != NULL);
    run(data, size);
    finish();
    return 0;
}
