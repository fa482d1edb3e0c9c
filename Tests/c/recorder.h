/* The recording observer of the C tests (one for every test file).
 *
 * It keeps, per subscription:
 * - a text log of the events, e.g. "1 2 (1,a) C", "E5" for an error of code 5,
 *   so a test compares the whole history with one string (CHECK_LOG);
 *   strings appear as their text, nil as "nil", tuples as "(a,b)";
 * - the values as ints and types (ints[], types[]), with the time on `clock`
 *   (when set) and the current scheduler of each delivery (at[], current[]);
 * - counters: n (values), completed, errors, released, after_terminal (events
 *   after a terminal one: a grammar violation), overlap (two callbacks ran at
 *   once: a serialization violation);
 * - the error's code and domain, and the time of the terminal event (end_at).
 *
 * Two per-file options, set before including:
 * - REC_LOG_RELEASE: the release is logged too, as "R" (the subject tests
 *   check that it comes last);
 * - REC_KEEP_LAST: `last` holds a copy of the last value (release it with
 *   rec_clear), for tests that look inside tuples and events.
 *
 * Counters are atomic: callbacks may run on a scheduler's thread while the
 * test thread polls them. */
#ifndef RIPPLE_TEST_RECORDER_H
#define RIPPLE_TEST_RECORDER_H
#include "check.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <ripple.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define REC_MAX 256
typedef struct rec {
    char log[8192];
    size_t loglen;                 /* strlen(log), kept to append in O(1) */
    atomic_int n;                  /* values received */
    atomic_int completed, errors, released, after_terminal;
    int64_t ints[REC_MAX];         /* rpl_value_int of each value */
    int types[REC_MAX];            /* rpl_value_type of each value */
    uint64_t at[REC_MAX];          /* clock time of each value (0 without clock) */
    rpl_scheduler_t *current[REC_MAX]; /* rpl_scheduler_current() at each value */
    int64_t last_int;              /* rpl_value_int of the last value */
    rpl_value last;                /* with REC_KEEP_LAST: a copy of the last value */
    int64_t error_code;
    char error_domain[32];
    rpl_scheduler_t *clock;        /* read at each event, if set */
    uint64_t end_at;               /* clock time of the terminal event */
    atomic_int inside, overlap;    /* a callback is running / two ran at once */
} rec_t;

static void rec_append(rec_t *r, const char *s) {
    size_t n = r->loglen;
    if (n >= sizeof r->log || r->log[n] != '\0' || (n && r->log[n - 1] == '\0')) n = strlen(r->log);
    if (n + 1 >= sizeof r->log) return;
    int w = snprintf(r->log + n, sizeof r->log - n, "%s%s", n ? " " : "", s);
    n += (size_t)w;
    r->loglen = n < sizeof r->log ? n : sizeof r->log - 1;
}

static void rec_render(const rpl_value *v, char *buf, size_t cap) {
    switch (rpl_value_type(v)) {
    case RPL_TYPE_INT: snprintf(buf, cap, "%lld", (long long)rpl_value_int(v)); break;
    case RPL_TYPE_NIL: snprintf(buf, cap, "nil"); break;
    case RPL_TYPE_STRING: snprintf(buf, cap, "%s", rpl_value_string(v, NULL)); break;
    case RPL_TYPE_TUPLE: {
        size_t n = rpl_value_tuple_count(v), used = 0;
        used += (size_t)snprintf(buf + used, cap - used, "(");
        for (size_t i = 0; i < n && used < cap; i++) {
            rpl_value item = rpl_value_tuple_at(v, i);
            char tmp[64];
            rec_render(&item, tmp, sizeof tmp);
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? "," : "", tmp);
            rpl_value_release(&item);
        }
        if (used < cap) snprintf(buf + used, cap - used, ")");
        break;
    }
    default: snprintf(buf, cap, "<type %d>", (int)rpl_value_type(v)); break;
    }
}

static void rec_enter(rec_t *r) {
    if (atomic_fetch_add(&r->inside, 1) != 0) atomic_store(&r->overlap, 1);
}
static void rec_leave(rec_t *r) { atomic_fetch_sub(&r->inside, 1); }
static uint64_t rec_time(const rec_t *r) { return r->clock ? rpl_scheduler_now(r->clock) : 0; }

static void rec_next(void *ctx, const rpl_value *v) {
    rec_t *r = ctx;
    rec_enter(r);
    if (r->completed || r->errors) r->after_terminal++;
    int i = r->n;
    if (i < REC_MAX) {
        r->ints[i] = rpl_value_int(v);
        r->types[i] = (int)rpl_value_type(v);
        r->at[i] = rec_time(r);
        r->current[i] = rpl_scheduler_current();
    }
    r->last_int = rpl_value_int(v);
#ifdef REC_KEEP_LAST
    rpl_value_release(&r->last);
    r->last = rpl_value_copy(v);
#endif
    char buf[256];
    rec_render(v, buf, sizeof buf);
    rec_append(r, buf);
    r->n++;
    rec_leave(r);
}
static void rec_error(void *ctx, const rpl_error_t *e) {
    rec_t *r = ctx;
    rec_enter(r);
    if (r->completed || r->errors) r->after_terminal++;
    r->error_code = rpl_error_code(e);
    snprintf(r->error_domain, sizeof r->error_domain, "%s", rpl_error_domain(e));
    r->end_at = rec_time(r);
    char buf[32];
    snprintf(buf, sizeof buf, "E%lld", (long long)r->error_code);
    rec_append(r, buf);
    r->errors++;
    rec_leave(r);
}
static void rec_completed(void *ctx) {
    rec_t *r = ctx;
    rec_enter(r);
    if (r->completed || r->errors) r->after_terminal++;
    r->end_at = rec_time(r);
    rec_append(r, "C");
    r->completed++;
    rec_leave(r);
}
static void rec_release(void *ctx) {
    rec_t *r = ctx;
#ifdef REC_LOG_RELEASE
    rec_append(r, "R");
#endif
    r->released++;
}

static void rec_init(rec_t *r) {
    memset(r, 0, sizeof *r);
    r->last = rpl_nil();
}
/* Releases the copy of the last value (REC_KEEP_LAST). */
static void rec_clear(rec_t *r) { rpl_value_release(&r->last); }

static rpl_observer rec_observer(rec_t *r) {
    return observer_of(rec_next, rec_error, rec_completed, rec_release, r);
}
/* Subscribes r as it is (a signal or a subject; r keeps what it recorded
   before, and its clock) and returns the disposable (+1). */
static rpl_disposable_t *rec_attach(void *sig, rec_t *r) {
    rpl_observer o = rec_observer(r);
    return rpl_signal_subscribe((rpl_signal_t *)sig, &o);
}
/* Subscribes r, initialized here, to s and returns the disposable (+1). */
static rpl_disposable_t *rec_subscribe(rpl_signal_t *s, rec_t *r) {
    rec_init(r);
    return rec_attach(s, r);
}
/* Subscribes r, initialized here, with on_next in place of rec_next (it gets
   r as ctx, so r may be the first member of a larger context, and on_next
   calls rec_next itself); returns the disposable (+1). */
static rpl_disposable_t *rec_subscribe_fn(rpl_signal_t *s, rec_t *r, void (*on_next)(void *ctx, const rpl_value *v)) {
    rec_init(r);
    rpl_observer o = rec_observer(r);
    o.on_next = on_next;
    return rpl_signal_subscribe(s, &o);
}
/* Subscribes, then disposes and releases the subscription: the log of what
   arrived synchronously. */
static const char *rec_run(rpl_signal_t *s, rec_t *r) {
    rpl_disposable_t *d = rec_subscribe(s, r);
    rpl_disposable_dispose(d);
    rpl_release(d);
    return r->log;
}

/* r received exactly these ints (printing what it got when not). */
static int rec_is(const rec_t *r, const int64_t *expected, int n) {
    if (r->n != n) {
        fprintf(stderr, "    got %d values:", (int)r->n);
        for (int i = 0; i < r->n && i < REC_MAX; i++) fprintf(stderr, " %lld", (long long)r->ints[i]);
        fprintf(stderr, "\n");
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (r->ints[i] != expected[i] || r->types[i] != RPL_TYPE_INT) {
            fprintf(stderr, "    value %d: got %lld (type %d), expected %lld\n", i, (long long)r->ints[i],
                    r->types[i], (long long)expected[i]);
            return 0;
        }
    return 1;
}
/* CHECK_SEQ(r, 1, 2, 3): r received exactly these ints. */
#define CHECK_SEQ(r, ...) do { \
    const int64_t check_e_[] = {__VA_ARGS__}; \
    CHECK(rec_is(&(r), check_e_, (int)(sizeof check_e_ / sizeof check_e_[0]))); \
} while (0)
#define CHECK_COMPLETED(r) do { CHECK_EQ_INT((r).completed, 1); CHECK_EQ_INT((r).errors, 0); \
                                CHECK_EQ_INT((r).after_terminal, 0); } while (0)
#define CHECK_FAILED(r, code) do { CHECK_EQ_INT((r).errors, 1); CHECK_EQ_INT((r).error_code, (code)); \
                                   CHECK_EQ_INT((r).completed, 0); CHECK_EQ_INT((r).after_terminal, 0); } while (0)
#define CHECK_OPEN(r) do { CHECK_EQ_INT((r).completed, 0); CHECK_EQ_INT((r).errors, 0); } while (0)
/* CHECK_LOG(r, "1 2 C"): the whole log. */
#define CHECK_LOG(r, expected) do { \
    if (strcmp((r)->log, expected) == 0) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: log \"%s\" != \"%s\"\n", __FILE__, __LINE__, (r)->log, expected); } \
} while (0)
#define CHECK_STR(a, b) do { \
    const char *check_sa_ = (a), *check_sb_ = (b); \
    if (strcmp(check_sa_, check_sb_) == 0) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", \
                                   __FILE__, __LINE__, #a, #b, check_sa_, check_sb_); } \
} while (0)

#endif
