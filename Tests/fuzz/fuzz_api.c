#define _POSIX_C_SOURCE 200809L
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
 * on_next and re-entrant sends from on_next. bind and flatten_map return
 * the input's subjects as inner signals, and the blocking helpers (first,
 * wait, to_array with timeout 0 or a short one) run on any signal the input
 * made, some while another thread sends into a subject (issue 21, defect 3).
 * repeat, retry, concat, then and catch_to often take a signal with itself
 * (issue 10's D4: such pairs once formed reference cycles), also over
 * autoconnect chains (a multicast connection's subject once kept such a
 * subscription in a cycle).
 *
 * The 0.2 operators are here too: from_array, range, timer, start_eagerly and
 * start_lazily (their bodies may keep the subscriber, which later operations
 * send into), share, the time operators of 0.2 on the test scheduler, the
 * fused transforming and testing operators, flatten_max, concat_map,
 * concat_all, switch_if_empty, if, switch_cases, with_latest_from, sample,
 * take_until_replacement, skip_until and group_by (an observer may adopt a
 * group, or any signal value it gets, as a new signal and subscribe to it from
 * on_next). Sends carry ints, strings, bools, nil and tuples, so the boolean
 * and tuple operators see both their types and the wrong ones. Every operator
 * callback's context is counted (released exactly once; a use after release
 * is an ASan report since it is freed), and one context in eight makes its
 * callback fail through rpl_callback_fail every few calls; rpl_callback_fail
 * must return RPL_OK there, and RPL_ERR_INVALID in observer callbacks, in
 * start bodies and in do_dispose's callback. Each signal carries a weight
 * (how many events one subscription can make at once): an operation whose
 * result would weigh more than WCAP is skipped, so nested cold sources stay
 * fast. Each also carries its multicast links (see sig_info), so that no
 * input builds a program that loops for ever by the rules.
 *
 * The OS sources (issue 26) take a run loop the input drives (os_run) and a
 * pipe of its own: read_lines, read and fd_readable on its read end, write
 * of a live signal to its write end (wrong types included), and the sources
 * whose setup fails at subscription (file_changes of a missing path,
 * child_exit of a process that is not a child: an error event on the loop);
 * with bad arguments (fd -1 or closed, max_line / max_chunk 0, SIGKILL,
 * SIGSTOP or an out-of-range signal, pid <= 0, a NULL path, the immediate
 * or the test scheduler) each must return NULL with the right RPL_ERR_*. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <ripple.h>
#include <semaphore.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSIG 12
#define NSUB 16
#define NOBS 256
#define NSTART 4

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
    int adopt;            /* adopt signal values (and group_by's groups) it gets */
    unsigned from;        /* the subscribed signal's sig_info.from */
} obs_t;

static rpl_signal_t *sigs[NSIG];
static rpl_subject_t *subjects[NSIG];   /* subjects[i] set when sigs[i] is a subject */
static rpl_scheduler_t *clock_;          /* one test scheduler per input, for the time operators */
#define NCONN 4
static rpl_connection_t *conns[NCONN];  /* multicast connections */
static rpl_disposable_t *connected[NCONN];
static rpl_disposable_t *subs[NSUB];
static int reserved[NSUB];              /* a subscribe in progress holds the slot */
static rpl_subscriber_t *starts[NSTART]; /* subscribers start bodies kept open */
static int sub_obs[NSUB];
static obs_t observers[NOBS];
static int nobs;
static long ctx_made, ctx_released;     /* operator contexts */

/* The thread running the input. A blocking helper's timer thread may
   deliver queued events, and so does a thread sending while the input
   runs a blocking helper (see the blocking operation); there an observer only
   checks and counts, and an operator callback touches none of the input's
   tables (subjects, start bodies' subscribers, the clock): they belong to
   this thread. */
static pthread_t input_thread;
static bool on_input_thread(void) { return pthread_equal(pthread_self(), input_thread); }

static void obs_enter(obs_t *o, const char *what) {
    if (o->released) FAIL("%s after release", what);
    if (o->disposed) FAIL("%s after dispose returned", what);
    if (o->terminated) FAIL("%s after a terminal event", what);
    if (o->in_callback) FAIL("%s while a callback of the same subscriber runs", what);
}

static rpl_subject_t *pick_subject(uint8_t b);
static int put_signal(rpl_signal_t *s, rpl_subject_t *subj);
static void subscribe(rpl_signal_t *s, uint8_t b, unsigned from);
/* What the input knows of a signal, to keep its programs finite.
   weight: a bound on the events one subscription to it can make at once
   (cold sources like range, repeat, and operators subscribing their inputs
   afresh multiply it); an operation whose result would weigh more than WCAP
   is skipped, so nesting them (switch_cases over switch_cases over a range,
   ...) cannot make an input exponentially slow.
   from, joins: bitmasks over the connection slots: the connections whose
   subject its events may come from, and those that subscribing it may
   connect (an autoconnect signal, and what is made from one). A switch
   (if, switch_cases) whose cases may connect a connection its key signal
   carries is skipped: each key disposes the case (the last autoconnect
   subscriber leaving disconnects, rule 13) and subscribes it again, which
   connects, and connecting a source that replays (a behavior subject) sends
   the next key, for ever. That is the rules working, not a hang to find;
   Ripple queues the re-entrant sends (D8), so nothing overflows either. */
typedef struct sig_info { unsigned long weight; unsigned from, joins; } sig_info;
static sig_info cur;   /* of the signal being made */
static int reentry;

/* Outside operator callbacks rpl_callback_fail changes nothing. */
static void fail_refused(const char *where) {
    rpl_status st = rpl_callback_fail(rpl_error_create("fuzz", 1, "refused"));
    if (st != RPL_ERR_INVALID) FAIL("rpl_callback_fail returned %d in %s", (int)st, where);
}

/* A signal value, or a (key, group) tuple of group_by: keep the signal as a
   new one of the input's, and maybe subscribe to it at once (a group then
   gets the value that made it). */
static void adopt(obs_t *o, const rpl_value *v) {
    rpl_signal_t *inner = NULL;
    rpl_value item = rpl_nil();
    if (rpl_value_type(v) == RPL_TYPE_SIGNAL) inner = rpl_value_signal(v);
    else if (rpl_value_type(v) == RPL_TYPE_TUPLE && rpl_value_tuple_count(v) == 2) {
        item = rpl_value_tuple_at(v, 1);
        inner = rpl_value_signal(&item);
    }
    if (inner) {
        /* A group is hot, and made from what o subscribed; other signal
           values are fresh (send_signal_value). Neither connects. */
        sig_info made = cur;
        cur = (sig_info){ 1, o->from, 0 };
        put_signal(rpl_retain(inner), NULL);
        cur = made;
        if (o->nexts & 1) subscribe(inner, (uint8_t)(o->nexts * 37), o->from);
    }
    rpl_value_release(&item);
}


static void on_next(void *ctx, const rpl_value *v) {
    obs_t *o = ctx;
    obs_enter(o, "next");
    (void)rpl_value_type(v);
    o->nexts++;
    if (o->nexts % 4 == 1) fail_refused("on_next");
    if (!on_input_thread()) return;
    if (o->adopt) adopt(o, v);
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
    fail_refused("on_error");
}
static void on_completed(void *ctx) {
    obs_t *o = ctx;
    obs_enter(o, "completed");
    o->terminated = 1;
    fail_refused("on_completed");
}
static void on_release(void *ctx) {
    obs_t *o = ctx;
    if (__atomic_exchange_n(&o->released, 1, __ATOMIC_ACQ_REL)) FAIL("release ran twice");
}

/* Operator callbacks: a counted context, released exactly once (and freed,
   so a callback after its release is an ASan report). One context in eight
   fails its callback every `fail` calls. */
typedef struct op_ctx { int released; int k; int fail; int calls; } op_ctx;
/* The counts are atomic: once a blocking helper ran, a context may be
   released on its timer's thread (the last subscription holding its signal
   ends there) while this thread releases another, and a plain increment from
   both loses one (a run once reported "3 operator contexts made, 2
   released" that no replay showed). */
static op_ctx *new_ctx(int k) {
    op_ctx *c = calloc(1, sizeof *c);
    c->k = k;
    c->fail = ((k >> 5) & 7) == 7 ? 1 + (k & 3) : 0;
    __atomic_fetch_add(&ctx_made, 1, __ATOMIC_ACQ_REL);
    return c;
}
static void ctx_release(void *ctx) {
    op_ctx *c = ctx;
    if (__atomic_exchange_n(&c->released, 1, __ATOMIC_ACQ_REL)) FAIL("operator context released twice");
    __atomic_fetch_add(&ctx_released, 1, __ATOMIC_ACQ_REL);
    free(c);
}
/* Inside an operator callback: maybe fail it (rpl_callback_fail must take it). */
static void maybe_fail(void *ctx) {
    op_ctx *c = ctx;
    c->calls++;
    if (!c->fail || c->calls % c->fail) return;
    rpl_status st = rpl_callback_fail(c->calls & 1 ? NULL : rpl_error_create("fuzz", c->k, "callback failed"));
    if (st != RPL_OK) FAIL("rpl_callback_fail returned %d in an operator callback", (int)st);
}
/* Sums wrap (range reaches INT64_MAX): no signed overflow. */
static int64_t add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static rpl_value op_map(void *ctx, const rpl_value *v) {
    maybe_fail(ctx);
    return rpl_int(add(rpl_value_int(v), ((op_ctx *)ctx)->k));
}
static bool op_pred(void *ctx, const rpl_value *v) {
    maybe_fail(ctx);
    return add(rpl_value_int(v), ((op_ctx *)ctx)->k) % 3 != 0;
}
static rpl_value op_reduce(void *ctx, const rpl_value *acc, const rpl_value *v) {
    maybe_fail(ctx);
    return rpl_int(add(rpl_value_int(acc), rpl_value_int(v)));
}
/* A value of any of the types the operators look at, chosen by b. */
static rpl_value make_value(uint8_t b) {
    switch ((b >> 1) % 8) {
    case 4: return rpl_string("s");
    case 5: return rpl_bool(b & 1);
    case 6: return rpl_nil();
    case 7: {
        rpl_value two[2];
        if (b & 1) { two[0] = rpl_bool(b & 2); two[1] = rpl_bool(b & 4); }
        else { two[0] = rpl_int(b); two[1] = rpl_string("t"); }
        return rpl_tuple(two, 2);
    }
    default: return rpl_int(b);
    }
}
/* reduce_each: the last item (a group_by tuple gives its group), or a sum. */
static rpl_value op_reduce_each(void *ctx, const rpl_value *items, size_t count) {
    maybe_fail(ctx);
    if ((((op_ctx *)ctx)->k & 1) && count) return rpl_value_copy(&items[count - 1]);
    int64_t sum = (int64_t)count;
    for (size_t i = 0; i < count; i++) sum = add(sum, rpl_value_int(&items[i]));
    return rpl_int(sum);
}
/* combine_previous: a tuple (previous, v), a bool or a sum. */
static rpl_value op_combine(void *ctx, const rpl_value *prev, const rpl_value *v) {
    maybe_fail(ctx);
    switch (((op_ctx *)ctx)->k % 3) {
    case 0: { rpl_value two[2] = { rpl_value_copy(prev), rpl_value_copy(v) }; return rpl_tuple(two, 2); }
    case 1: return rpl_bool(rpl_value_int(prev) < rpl_value_int(v));
    default: return rpl_int(add(rpl_value_int(prev), rpl_value_int(v)));
    }
}
static bool op_equal(void *ctx, const rpl_value *a, const rpl_value *b) {
    maybe_fail(ctx);
    if (((op_ctx *)ctx)->k & 1) return rpl_value_equal(a, b);
    return rpl_value_int(a) % 2 == rpl_value_int(b) % 2;
}
static rpl_value op_key(void *ctx, const rpl_value *v) {
    maybe_fail(ctx);
    switch (rpl_value_type(v)) {
    case RPL_TYPE_INT: return rpl_int(rpl_value_int(v) % (1 + ((op_ctx *)ctx)->k % 3));
    case RPL_TYPE_STRING: case RPL_TYPE_BOOL: return rpl_value_copy(v);
    default: return rpl_nil();
    }
}
static void op_do(void *ctx) { maybe_fail(ctx); }
static void op_do_dispose(void *ctx) {
    ((op_ctx *)ctx)->calls++;
    fail_refused("do_dispose's callback");
}
static void op_disposed(void *ctx) { ((op_ctx *)ctx)->calls++; }
/* concat_map: a fresh inner signal for v, or NULL (empty), or a handle that
   is not a signal (an RPL_ERROR_CALLBACK failure). */
static rpl_signal_t *op_concat_map(void *ctx, const rpl_value *v) {
    maybe_fail(ctx);
    op_ctx *c = ctx;
    int64_t i = rpl_value_int(v);
    switch ((c->k + c->calls) % 8) {
    case 0: return NULL;
    case 1: return rpl_signal_return(rpl_value_copy(v));
    case 2: return rpl_signal_empty();
    case 3: return rpl_signal_range(i, (size_t)(c->k % 3));
    case 4: { rpl_value two[2] = { rpl_value_copy(v), rpl_int(c->k) }; return rpl_signal_from_array(two, 2); }
    case 5: return on_input_thread() ? rpl_signal_timer((uint64_t)(c->k % 8) * 10, clock_) : rpl_signal_empty();
    case 6: {
        rpl_error_t *e = rpl_error_create("fuzz", i, "inner");
        rpl_signal_t *s = rpl_signal_error(e);
        rpl_release(e);
        return s;
    }
    default: return (rpl_signal_t *)rpl_disposable_create(NULL, NULL);
    }
}
/* flatten_map and bind over subjects (issue 21, defect 3): the inner is one
   of the input's subjects (as a signal, retained) or a fresh one as above;
   bind sets stop on some values. */
static rpl_signal_t *subject_inner(op_ctx *c, const rpl_value *v) {
    if (!on_input_thread()) return NULL;
    rpl_subject_t *x = pick_subject((uint8_t)(c->k + c->calls + (uint64_t)rpl_value_int(v)));
    return x ? rpl_retain(rpl_subject_as_signal(x)) : NULL;
}
static rpl_signal_t *op_flatten_map(void *ctx, const rpl_value *v) {
    op_ctx *c = ctx;
    if ((c->k + c->calls) % 3 == 0) return op_concat_map(ctx, v);
    maybe_fail(ctx);
    c->calls++;
    return subject_inner(c, v);
}
static rpl_signal_t *op_bind(void *ctx, const rpl_value *v, bool *stop) {
    op_ctx *c = ctx;
    if ((c->k + c->calls) % 5 == 4) *stop = true;
    return op_flatten_map(ctx, v);
}
/* start_lazily / start_eagerly: sends k % 4 values, then completes, fails,
   or stays open (the subscriber kept in starts[] for later sends, or not
   kept at all); returns NULL or a counted disposable. Not an operator
   callback: rpl_callback_fail is refused. */
static rpl_disposable_t *op_start(void *ctx, rpl_subscriber_t *sub) {
    op_ctx *c = ctx;
    c->calls++;
    if (c->calls > 1) FAIL("a start body ran twice");
    fail_refused("a start body");
    for (int i = 0; i < c->k % 4; i++) rpl_subscriber_send_next(sub, make_value((uint8_t)(c->k + i * 29)));
    switch ((c->k >> 2) & 3) {
    case 0: rpl_subscriber_send_completed(sub); break;
    case 1: {
        rpl_error_t *e = rpl_error_create("fuzz", c->k, "start");
        rpl_subscriber_send_error(sub, e);
        rpl_release(e);
    } break;
    case 2:
        for (int i = 0; on_input_thread() && i < NSTART; i++)
            if (!starts[i]) { starts[i] = rpl_retain(sub); break; }
        break;
    default: break;
    }
    if (c->k & 16) return NULL;
    return rpl_disposable_create_with_release(op_disposed, new_ctx(c->k), ctx_release);
}

#define WCAP 1024
static sig_info info[NSIG];
static sig_info conn_info[NCONN];   /* of each connection's autoconnect signal */
static unsigned long wmul(unsigned long a, unsigned long b) { return a > WCAP || b > WCAP ? WCAP + 1 : a * b; }

static int put_signal(rpl_signal_t *s, rpl_subject_t *subj) {
    if (!s) FAIL("an operator failed: %s", rpl_last_error_message());
    for (int i = 0; i < NSIG; i++)
        if (!sigs[i]) { sigs[i] = s; subjects[i] = subj; info[i] = cur; return i; }
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
static sig_info pick_info(uint8_t b) {
    int i = pick_index(b);
    return i >= 0 ? info[i] : (sig_info){ 1, 0, 0 };
}
/* Made from x and y: the links of both, and weight w. */
static sig_info joined(sig_info x, sig_info y, unsigned long w) {
    return (sig_info){ w, x.from | y.from, x.joins | y.joins };
}
/* What op would make (see sig_info); *loops set if it is a switch that would
   feed itself. */
static sig_info op_info(uint8_t op, uint8_t b, bool *loops) {
    sig_info s = pick_info(b), t = pick_info((uint8_t)(b >> 3));
    *loops = false;
    switch (op) {
    case 0: case 1: case 2: case 14: case 29: case 53: return (sig_info){ 1, 0, 0 };
    case 89: if (b % 12 != 3) return (sig_info){ 1, 0, 0 }; return s;  /* write carries s's links */
    case 54: case 55: return (sig_info){ 4, 0, 0 };
    case 91: case 92: return (sig_info){ 9, 0, 0 };  /* a marble diagram: at most 9 events */
    case 51: return (sig_info){ 1 + b % 4, 0, 0 };
    case 52: return (sig_info){ 1 + b % 6, 0, 0 };
    case 9: case 10: case 11: case 12: case 44: case 45: case 46:
    case 80: case 83: case 84: case 85: case 86: return joined(s, t, wmul(s.weight, t.weight));
    case 47: case 48: s.weight = wmul(s.weight, 1 + b % 4); return s;
    case 78: case 95: case 96: s.weight = wmul(s.weight, 3); return s;
    case 40: {  /* publish: the connection's subject carries s's events */
        unsigned k = 1u << (b % NCONN);
        return (sig_info){ s.weight, s.from | k, 0 };
    }
    case 43: return conn_info[b % NCONN];
    case 81: {
        sig_info u = pick_info((uint8_t)(b * 7 + 3)), cases = joined(t, u, wmul(t.weight, u.weight));
        *loops = (cases.joins & s.from) != 0;
        return joined(s, cases, wmul(s.weight, cases.weight));
    }
    case 82: {
        sig_info cases = t;
        for (int j = 0; j < 3; j++) {
            sig_info c = pick_info((uint8_t)(b + 5 * j + 1));
            cases = joined(cases, c, c.weight > cases.weight ? c.weight : cases.weight);
        }
        *loops = (cases.joins & s.from) != 0;
        return joined(s, cases, wmul(s.weight, cases.weight));
    }
    default: return s;
    }
}
static rpl_subject_t *pick_subject(uint8_t b) {
    for (int i = 0; i < NSIG; i++) {
        rpl_subject_t *s = subjects[(b + i) % NSIG];
        if (s) return s;
    }
    return NULL;
}

static void subscribe(rpl_signal_t *s, uint8_t b, unsigned from) {
    int slot = -1;
    for (int i = 0; i < NSUB; i++) if (!subs[i] && !reserved[i]) { slot = i; break; }
    if (slot < 0 || nobs >= NOBS || !s) return;
    obs_t *o = &observers[nobs];
    memset(o, 0, sizeof *o);
    o->used = 1;
    o->slot = slot;
    o->dispose_in_next = (b & 7) == 0;
    o->send_in_next = (b & 7) == 1 ? 3 : 0;
    o->adopt = (b & 7) == 2 || (b & 7) == 3;
    o->from = from;
    sub_obs[slot] = nobs++;
    rpl_observer ob = RPL_OBSERVER_INIT;
    ob.on_next = on_next;
    ob.on_error = on_error;
    ob.on_completed = on_completed;
    ob.release = on_release;
    ob.ctx = o;
    /* Hold the slot: a synchronous on_next may subscribe (adopt) too. */
    reserved[slot] = 1;
    rpl_disposable_t *d = rpl_signal_subscribe(s, &ob);
    reserved[slot] = 0;
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
#define NOPS 99
static const char *const op_names[NOPS] = {
    "subject", "behavior_subject", "replay_subject", "map", "filter", "take", "skip", "scan",
    "distinct_until_changed", "merge", "combine_latest", "zip", "take_until", "start_with", "return/empty",
    "subscribe", "subscribe", "send_next", "send_next", "send_completed", "send_error", "dispose",
    "release_signal", "take_while", "delay", "throttle", "timeout", "deliver_on", "subscribe_on",
    "interval", "advance_by", "advance_by", "send_signal_value", "switch_to_latest", "flatten",
    "take_last", "collect", "materialize", "skip_while", "replay_last", "publish", "connect",
    "dispose_connection", "autoconnect", "concat", "then", "catch_to", "repeat", "retry",
    "deliver_on_bounded", "replay_lazily",
    "from_array", "range", "timer", "start_eagerly", "start_lazily", "share", "delay_subscription",
    "throttle_first", "throttle_if", "buffer_with_time", "map_replace", "ignore", "ignore_values",
    "reduce_each", "combine_previous", "distinct_until_changed_with", "buffer", "not", "and", "or",
    "any", "all", "default_if_empty", "initially", "finally", "do_dispose", "flatten_max", "concat_map",
    "concat_all", "switch_if_empty", "if", "switch_cases", "with_latest_from", "sample",
    "take_until_replacement", "skip_until", "group_by", "start_send", "os_source", "os_run",
    "marble_cold", "marble_hot", "marble_roundtrip",
    "trace_write", "bind", "flatten_map",
    "blocking", "set_last_error",
};

/* A marble diagram of up to 9 characters from b, often a bad one. */
static void make_marbles(uint8_t b, char *out) {
    static const char alphabet[] = "-a1(b)|#^! 2ms -";
    size_t n = b % 10;
    unsigned x = b * 2654435761u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        out[i] = alphabet[(x >> 16) % (sizeof alphabet - 1)];
    }
    out[n] = 0;
}

/* A marble diagram refused must be RPL_ERR_INVALID with its column. */
static void check_refused(const void *made, const char *marbles) {
    if (made) return;
    if (rpl_last_error() != RPL_ERR_INVALID || !strstr(rpl_last_error_message(), "column "))
        FAIL("marble \"%s\" refused without a column: %s", marbles, rpl_last_error_message());
}

static void trace(uint8_t op, uint8_t b) {
    static int on = -1;
    if (on < 0) on = getenv("FUZZ_TRACE") != NULL;
    if (!on) return;
    int s = -1, t = -1;
    for (int i = 0; i < NSIG && s < 0; i++) if (sigs[(b + i) % NSIG]) s = (b + i) % NSIG;
    for (int i = 0; i < NSIG && t < 0; i++) if (sigs[((b >> 3) + i) % NSIG]) t = ((b >> 3) + i) % NSIG;
    fprintf(stderr, "fuzz_api: %-22s b=%3d  s=sig%d t=sig%d\n", op_names[op], b, s, t);
}

/* --- The OS sources: a run loop and a pipe per input ---------------------- */
static rpl_run_loop_t *os_loop;
static int os_pipe[2] = {-1, -1};

static void os_setup(void) {
    if (os_loop) return;
    os_loop = rpl_run_loop_create();
    if (!os_loop || pipe2(os_pipe, O_NONBLOCK | O_CLOEXEC) != 0) FAIL("no run loop or pipe for the OS sources");
}
/* A refused call: NULL and the status expected. */
static void os_refused(rpl_signal_t *sig, rpl_status want, const char *what) {
    if (sig) FAIL("%s was not refused", what);
    if (rpl_last_error() != want) FAIL("%s: status %d, not %d", what, (int)rpl_last_error(), (int)want);
}
static void os_source(rpl_signal_t *s, uint8_t b) {
    os_setup();
    rpl_scheduler_t *loop = rpl_run_loop_scheduler(os_loop);
    int closed = dup(os_pipe[0]);
    close(closed);
    switch (b % 12) {
    case 0: put_signal(rpl_signal_read_lines(os_pipe[0], 1 + b / 12 % 16, loop), NULL); break;
    case 1: put_signal(rpl_signal_read(os_pipe[0], 1 + b / 12 % 8, loop), NULL); break;
    case 2: put_signal(rpl_signal_fd_readable(os_pipe[0], loop), NULL); break;
    case 3: if (s) put_signal(rpl_signal_write(s, os_pipe[1], loop), NULL); break;
    case 4: put_signal(rpl_signal_file_changes("/nonexistent/ripple-fuzz", loop), NULL); break;
    case 5: put_signal(rpl_signal_child_exit(1, loop), NULL); break;  /* not a child: ECHILD */
    case 6: os_refused(rpl_signal_read_lines(b & 1 ? -1 : closed, 8, loop), RPL_ERR_INVALID, "read_lines of a bad fd"); break;
    case 7: os_refused(b & 1 ? rpl_signal_read_lines(os_pipe[0], 0, loop) : rpl_signal_read(os_pipe[0], 0, loop),
                       RPL_ERR_INVALID, "a zero max_line / max_chunk"); break;
    case 8: {
        static const int bad[] = { 9 /* SIGKILL */, 19 /* SIGSTOP */, 0, -1, 65, 1000 };  /* <signal.h>'s NSIG clashes */
        os_refused(rpl_signal_os_signal(bad[b / 12 % 6], loop), RPL_ERR_INVALID, "a signal that cannot be watched");
    } break;
    case 9: os_refused(rpl_signal_child_exit(-(int64_t)(b / 12), loop), RPL_ERR_INVALID, "pid <= 0"); break;
    case 10: os_refused(rpl_signal_file_changes(NULL, loop), RPL_ERR_NULL, "a NULL path"); break;
    default:
        os_refused(rpl_signal_accept(os_pipe[0], b & 1 ? rpl_scheduler_immediate() : clock_), RPL_ERR_INVALID,
                   "an OS source on the immediate or a test scheduler");
        break;
    }
}
/* Writes a few bytes (some lines) into the pipe and runs the loop. */
static void os_run(uint8_t b) {
    os_setup();
    static const char *const text[4] = { "a\n", "bc\nd", "\r\n", "0123456789abcdefghij\n" };
    ssize_t w = write(os_pipe[1], text[b % 4], strlen(text[b % 4]));
    (void)w;
    if (b & 0x80) {  /* drain what nobody reads, so the pipe never fills */
        char sink[256];
        while (read(os_pipe[0], sink, sizeof sink) > 0) {}
    }
    rpl_run_loop_run_until_idle(os_loop);
}

/* A thread that sends a few values (ints, and a fresh inner signal) into a
   subject while the input thread runs a blocking helper; its deliveries run
   the observers and operator callbacks there (see input_thread).
   Detached, and waited for through `sender_done`, not joined: ASan keeps a
   joined thread in its registry under its kernel thread id, so once the ids
   wrap (pid_max; a 10-minute run makes several times that many threads)
   LeakSanitizer takes a live thread with a reused id for that finished one
   ("not found in registry") and scans neither its stack nor its TLS. It then
   reported the last-error records of live background workers (held in their
   TLS) as leaked. A detached thread leaves the registry when it exits. */
typedef struct { rpl_subject_t *subject; int count; uint8_t b; } sender_job;
static sem_t sender_done;  /* static: posted last, never destroyed */
static void *sender_thread(void *p) {
    sender_job *j = p;
    for (int i = 0; i < j->count; i++) {
        if (i == 1 && (j->b & 16)) {
            rpl_signal_t *inner = rpl_signal_return(rpl_int(i));
            rpl_subject_send_next(j->subject, rpl_signal_value(inner));
            rpl_release(inner);
        } else rpl_subject_send_next(j->subject, rpl_int((int64_t)j->b + i));
    }
    sem_post(&sender_done);  /* j (on the input thread's stack) is not touched after */
    return NULL;
}
static bool start_sender(sender_job *job) {
    static pthread_attr_t detached;
    static bool ready;
    if (!ready) {
        if (sem_init(&sender_done, 0, 0) != 0 || pthread_attr_init(&detached) != 0 ||
            pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED) != 0)
            FAIL("cannot set up the sender thread");
        ready = true;
    }
    pthread_t th;
    return pthread_create(&th, &detached, sender_thread, job) == 0;
}
/* Waits until the sender has made its last call (what pthread_join gave). */
static void wait_sender(void) {
    while (sem_wait(&sender_done) != 0)
        if (errno != EINTR) FAIL("sem_wait: %s", strerror(errno));
}

static void run(const uint8_t *data, size_t size) {
    input_thread = pthread_self();
    clock_ = rpl_test_scheduler_create();
    for (size_t i = 0; i + 1 < size; i += 2) {
        uint8_t op = data[i] % NOPS, b = data[i + 1];
        trace(op, b);
        bool loops;
        cur = op_info(op, b, &loops);
        if (cur.weight > WCAP || loops) continue;
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
        case 15: case 16: subscribe(s, b, pick_info(b).from); break;
        case 17: case 18: if (subj) rpl_subject_send_next(subj, make_value(b)); break;
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
            /* Its autoconnect signal carries what the published one does,
               and subscribing it connects this connection (and s). */
            conn_info[k] = (sig_info){ cur.weight, cur.from, pick_info(b).joins | 1u << k };
            put_signal(rpl_retain(rpl_connection_signal(conns[k])), NULL);
        } break;
        case 41: {
            int k = b % NCONN;
            if (!conns[k]) break;
            /* The held connection may have been disposed since by the last
               autoconnect subscriber leaving (rule 13: there is one
               connection); then a connect may subscribe again. */
            bool live = connected[k] && !rpl_disposable_is_disposed(connected[k]);
            rpl_disposable_t *d = rpl_connection_connect(conns[k]);
            if (!d) FAIL("connect failed: %s", rpl_last_error_message());
            if (live && connected[k] != d) FAIL("a second connect did not return the live connection");
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
        /* The 0.2 operators. Creating. */
        case 51: {
            rpl_value vs[3];
            size_t n = b % 4;
            for (size_t j = 0; j < n; j++) vs[j] = make_value((uint8_t)(b + j * 53));
            put_signal(rpl_signal_from_array(vs, n), NULL);
        } break;
        case 52: {
            size_t n = b % 6;
            int64_t start = b & 0x80 ? INT64_MAX - (b & 7) : (int64_t)b - 100;
            rpl_signal_t *r = rpl_signal_range(start, n);
            bool over = n > 0 && start > INT64_MAX - (int64_t)(n - 1);
            if (over) {
                if (r || rpl_last_error() != RPL_ERR_INVALID) FAIL("range past INT64_MAX was not refused");
            } else put_signal(r, NULL);
        } break;
        case 53: put_signal(rpl_signal_timer((uint64_t)b * 10, clock_), NULL); break;
        case 54: case 55: {
            rpl_scheduler_t *on = b & 0x40 ? rpl_scheduler_immediate() : clock_;
            put_signal(op == 54 ? rpl_signal_start_eagerly(on, op_start, new_ctx(b), ctx_release)
                                : rpl_signal_start_lazily(on, op_start, new_ctx(b), ctx_release), NULL);
        } break;
        case 56: if (s) {
            static const size_t replay[4] = { 0, 1, 2, RPL_REPLAY_UNLIMITED };
            put_signal(rpl_signal_share(s, replay[b % 4]), NULL);
        } break;
        /* Time, on the virtual clock. */
        case 57: if (s) put_signal(rpl_signal_delay_subscription(s, (uint64_t)b * 10, clock_), NULL); break;
        case 58: if (s) put_signal(rpl_signal_throttle_first(s, (uint64_t)b * 10, clock_), NULL); break;
        case 59: if (s) put_signal(rpl_signal_throttle_if(s, (uint64_t)b * 10, clock_, op_pred, new_ctx(b), ctx_release), NULL); break;
        case 60: if (s) put_signal(rpl_signal_buffer_with_time(s, (uint64_t)b * 10, clock_), NULL); break;
        /* Transforming and testing. */
        case 61: if (s) put_signal(rpl_signal_map_replace(s, make_value(b)), NULL); break;
        case 62: if (s) put_signal(rpl_signal_ignore(s, make_value(b)), NULL); break;
        case 63: if (s) put_signal(rpl_signal_ignore_values(s), NULL); break;
        case 64: if (s) put_signal(rpl_signal_reduce_each(s, op_reduce_each, new_ctx(b), ctx_release), NULL); break;
        case 65: if (s) put_signal(rpl_signal_combine_previous(s, make_value(b), op_combine, new_ctx(b), ctx_release), NULL); break;
        case 66: if (s) put_signal(rpl_signal_distinct_until_changed_with(s, op_equal, new_ctx(b), ctx_release), NULL); break;
        case 67: if (s) put_signal(rpl_signal_buffer(s, 1 + b % 4), NULL); break;
        case 68: if (s) put_signal(rpl_signal_not(s), NULL); break;
        case 69: if (s) put_signal(rpl_signal_and(s), NULL); break;
        case 70: if (s) put_signal(rpl_signal_or(s), NULL); break;
        case 71: if (s) put_signal(rpl_signal_any(s, op_pred, new_ctx(b), ctx_release), NULL); break;
        case 72: if (s) put_signal(rpl_signal_all(s, op_pred, new_ctx(b), ctx_release), NULL); break;
        case 73: if (s) put_signal(rpl_signal_default_if_empty(s, make_value(b)), NULL); break;
        case 74: if (s) put_signal(rpl_signal_initially(s, op_do, new_ctx(b), ctx_release), NULL); break;
        case 75: if (s) put_signal(rpl_signal_finally(s, op_do, new_ctx(b), ctx_release), NULL); break;
        case 76: if (s) put_signal(rpl_signal_do_dispose(s, op_do_dispose, new_ctx(b), ctx_release), NULL); break;
        /* Flattening and choosing. */
        case 77: if (s) put_signal(rpl_signal_flatten_max(s, b % 4), NULL); break;
        case 78: if (s) put_signal(rpl_signal_concat_map(s, op_concat_map, new_ctx(b), ctx_release), NULL); break;
        case 79: if (s) put_signal(rpl_signal_concat_all(s), NULL); break;
        case 80: if (s && t) put_signal(rpl_signal_switch_if_empty(s, t), NULL); break;
        case 81: if (s && t) {
            rpl_signal_t *u = pick_signal((uint8_t)(b * 7 + 3));
            put_signal(rpl_signal_if(s, t, u), NULL);
        } break;
        case 82: if (s) {
            size_t n = b % 4;
            rpl_value keys[3] = { rpl_int(0), rpl_int(1), b & 8 ? rpl_bool(true) : rpl_nil() };
            rpl_signal_t *cases[3];
            for (size_t j = 0; j < 3; j++) cases[j] = pick_signal((uint8_t)(b + 5 * j + 1));
            rpl_signal_t *dflt = b & 0x80 ? NULL : t;
            put_signal(rpl_signal_switch_cases(s, keys, cases, n < 3 ? n : 3, dflt), NULL);
            for (size_t j = n < 3 ? n : 3; j < 3; j++) rpl_value_release(&keys[j]);
        } break;
        /* Combining with a second signal, and grouping. */
        case 83: if (s && t) put_signal(rpl_signal_with_latest_from(s, t), NULL); break;
        case 84: if (s && t) put_signal(rpl_signal_sample(s, t), NULL); break;
        case 85: if (s && t) put_signal(rpl_signal_take_until_replacement(s, t), NULL); break;
        case 86: if (s && t) put_signal(rpl_signal_skip_until(s, t), NULL); break;
        case 87: if (s) put_signal(rpl_signal_group_by(s, op_key, new_ctx(b), ctx_release), NULL); break;
        case 89: os_source(s, b); break;
        case 90: os_run(b); break;
        /* Marble tests: cold and hot marbles on the input's clock (a bad
           diagram is refused with its column; the table is consumed either
           way), and, on a scheduler of its own (the input's may hold work
           without end), a cold marble whose recording must read back as
           what it did. Every subscription log is a string. */
        case 91: case 92: {
            char m[16];
            make_marbles(b, m);
            rpl_marble_value v[1] = { { 'a', make_value((uint8_t)(b * 3)) } };
            if (op == 91) {
                rpl_signal_t *c = rpl_marble_cold(clock_, m, v, b & 1);
                check_refused(c, m);
                if (c) put_signal(c, NULL);
            } else {
                rpl_subject_t *h = rpl_marble_hot(clock_, m, v, b & 1);
                check_refused(h, m);
                if (h) put_signal(rpl_subject_as_signal(h), h);
            }
            if (!(b & 1)) rpl_value_release(&v[0].value);
            if (s) {
                rpl_value log = rpl_marble_subscriptions(s);
                if (rpl_value_type(&log) != RPL_TYPE_STRING && rpl_last_error() != RPL_ERR_KIND)
                    FAIL("rpl_marble_subscriptions: %s", rpl_last_error_message());
                rpl_value_release(&log);
            }
        } break;
        case 93: {
            char m[16];
            make_marbles(b, m);
            rpl_scheduler_t *own = rpl_test_scheduler_create();
            rpl_signal_t *c = rpl_marble_cold(own, m, NULL, 0);
            check_refused(c, m);
            if (c) {
                rpl_signal_t *r = b & 0x80 ? rpl_signal_take(c, b % 3) : rpl_retain(c);
                rpl_value drawn = rpl_marble_record(own, r, b & 0x40 ? "-^--!" : NULL, NULL, 0);
                const char *text = rpl_value_string(&drawn, NULL);
                if (!text) FAIL("rpl_marble_record: %s", rpl_last_error_message());
                if (rpl_marble_expect(own, r, b & 0x40 ? "-^--!" : NULL, text, NULL, 0) != RPL_OK)
                    FAIL("marble \"%s\" recorded as \"%s\" does not read back: %s", m, text, rpl_last_error_message());
                rpl_value_release(&drawn);
                rpl_release(r);
                rpl_release(c);
            }
            rpl_release(own);
        } break;
        /* Flattening over subjects, and the blocking helpers (timeout 0 or
           a short one) on what the input made (issue 21, defect 3): the
           helper's timer runs on the background scheduler, so the dispose
           that ends the wait may race with the subscribe, and with a
           delivery on a thread sending meanwhile. */
        case 95: if (s) put_signal(rpl_signal_bind(s, op_bind, new_ctx(b), ctx_release), NULL); break;
        case 96: if (s) put_signal(rpl_signal_flatten_map(s, op_flatten_map, new_ctx(b), ctx_release), NULL); break;
        case 97: if (s && pick_info(b).weight <= 64) {
            /* Timeout 0 or a short one; while it runs, another thread may
               send into one of the input's subjects (the helper's deadline
               and dispose then race with a delivery on that thread). Its
               timer, on the background scheduler, may dispose from that
               thread (and deliver there what this thread queued meanwhile),
               but the helper returns only once that is over
               (docs/behaviour.md#blocking-helpers) and the sending thread
               is joined: so every check stays strict afterwards (a release
               has run when dispose returns, every release has run at the
               end). Only the cancelled timer job may still hold a runtime
               object for a moment: the final count waits for it. */
            static const uint64_t timeouts[4] = { 0, 0, 20000, 200000 };
            sender_job job = { subj ? rpl_retain(subj) : NULL, 1 + (b >> 5) % 4, b };
            bool sending = job.subject && (b / 12) % 2 && start_sender(&job);
            rpl_value v = rpl_nil();
            rpl_status st;
            uint64_t t = timeouts[(b / 3) % 4];
            switch (b % 3) {
            case 0: st = rpl_signal_first(s, &v, t); break;
            case 1: st = rpl_signal_wait(s, t); break;
            default: st = rpl_signal_to_array(s, &v, t); break;
            }
            if (st != RPL_OK && st != RPL_ERR_TIMEOUT && st != RPL_ERR_NO_VALUE && st != RPL_ERR_FAILED)
                FAIL("blocking helper returned %d: %s", (int)st, rpl_last_error_message());
            rpl_value_release(&v);
            if (sending) wait_sender();
            rpl_release(job.subject);
        } break;
        case 88: { /* into a subscriber a start body kept open */
            rpl_subscriber_t *sub = starts[b % NSTART];
            if (!sub) break;
            if (b & 0x60) rpl_subscriber_send_next(sub, make_value(b));
            else if (b & 0x80) rpl_subscriber_send_completed(sub);
            else {
                rpl_error_t *e = rpl_error_create("fuzz", b, "late");
                rpl_subscriber_send_error(sub, e);
                rpl_release(e);
            }
        } break;
        case 94: { /* the trace writer: every later event goes through it as a JSON line */
            static int sink = -1;
            if (sink < 0) sink = open("/dev/null", O_WRONLY);
            int fd = b % 4 == 0 ? -1 : b % 4 == 3 ? -2 - (b >> 2) : sink;
            rpl_status st = rpl_trace_write(fd);
            if (fd < -1 && st != RPL_ERR_INVALID) FAIL("rpl_trace_write(%d) was not refused", fd);
            if (fd >= -1 && st != RPL_OK) FAIL("rpl_trace_write(%d): %s", fd, rpl_last_error_message());
        } break;
        case 98: { /* a layered library's error: any RPL_ERR_* is kept, anything else refused */
            rpl_status want = -(rpl_status)(b % 12);  /* 0 (refused) .. -11 (not a status: refused) */
            bool valid = want < 0 && want >= RPL_ERR_DEPTH;
            const char *msg = b & 0x80 ? NULL : "fuzz: layered failure";
            rpl_status st = rpl_set_last_error(want, msg);
            if (valid ? st != want || rpl_last_error() != want : st != RPL_ERR_INVALID || rpl_last_error() != RPL_ERR_INVALID)
                FAIL("rpl_set_last_error(%d) returned %d, last error %d", (int)want, (int)st, (int)rpl_last_error());
            if (valid && strcmp(rpl_last_error_message(), msg ? msg : rpl_status_string(want)) != 0)
                FAIL("rpl_set_last_error(%d): message \"%s\"", (int)want, rpl_last_error_message());
        } break;
        }
    }
}

/* Runtime objects alive before the first input: every input must come back
   to it. Taken once (not per input): a background thread (the scheduler
   freeing a cancelled timer job at its due time) changes the sum of the
   per-thread counts for a moment, and a baseline read in that moment would
   be one off for the whole input (seen after 2,120 runs of one input). The
   end of each input waits for the count to come back, so a passing moment
   there costs a retry, not a false finding. */
static size_t live_at_start;
static bool live_baseline_taken;

static void finish(void) {
    rpl_trace_write(-1);
    for (int i = 0; i < NSUB; i++) dispose_slot(i);
    for (int i = 0; i < NSIG; i++) { rpl_release(sigs[i]); sigs[i] = NULL; subjects[i] = NULL; }
    for (int k = 0; k < NCONN; k++) {
        if (connected[k]) { rpl_disposable_dispose(connected[k]); rpl_release(connected[k]); connected[k] = NULL; }
        rpl_release(conns[k]);
        conns[k] = NULL;
        conn_info[k] = (sig_info){ 0, 0, 0 };
    }
    for (int i = 0; i < NSTART; i++) { rpl_release(starts[i]); starts[i] = NULL; }
    if (os_loop) {
        rpl_release(os_loop);  /* pending work is cancelled with it */
        os_loop = NULL;
        close(os_pipe[0]);
        close(os_pipe[1]);
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
    /* (A blocking helper's timer job, cancelled, may still be returning on
       the background scheduler's thread: wait for it, up to 3 s, 3x the 1 s
       a scheduler's worker may sleep while a timer is pending.) */
    for (int i = 0; i < 3000 && live != live_at_start; i++) {
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
        live = rpl_live_objects() - (rpl_last_signal_error() != NULL);
    }
    if (live != live_at_start) FAIL("%zu runtime objects alive after the input, %zu before (a cycle?)", live, live_at_start);
    nobs = 0;
    ctx_made = ctx_released = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    if (!live_baseline_taken) {
        live_at_start = rpl_live_objects() - (rpl_last_signal_error() != NULL);
        live_baseline_taken = true;
    }
    run(data, size);
    finish();
    return 0;
}
