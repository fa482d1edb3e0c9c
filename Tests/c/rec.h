/* A recording observer for the subject and multicast tests: it appends each
   event to a text log ("1 2 C", "E5" for an error of code 5, "R" for the
   release), so a test compares the whole history with one string. */
#ifndef RIPPLE_TEST_REC_H
#define RIPPLE_TEST_REC_H
#include <ripple.h>
#include <stdio.h>
#include <string.h>

typedef struct rec {
    char log[8192];
    int nexts, completed, errors, released;
    int64_t last;
} rec_t;

static void rec_append(rec_t *r, const char *s) {
    size_t n = strlen(r->log);
    if (n && n + 1 < sizeof r->log) r->log[n++] = ' ';
    snprintf(r->log + n, sizeof r->log - n, "%s", s);
}
static void rec_next(void *ctx, const rpl_value *v) {
    rec_t *r = ctx;
    char b[64];
    if (rpl_value_type(v) == RPL_TYPE_STRING) snprintf(b, sizeof b, "%s", rpl_value_string(v, NULL));
    else snprintf(b, sizeof b, "%lld", (long long)rpl_value_int(v));
    r->nexts++;
    r->last = rpl_value_int(v);
    rec_append(r, b);
}
static void rec_error(void *ctx, const rpl_error_t *e) {
    rec_t *r = ctx;
    char b[32];
    snprintf(b, sizeof b, "E%lld", (long long)rpl_error_code(e));
    r->errors++;
    rec_append(r, b);
}
static void rec_completed(void *ctx) {
    rec_t *r = ctx;
    r->completed++;
    rec_append(r, "C");
}
static void rec_release(void *ctx) {
    rec_t *r = ctx;
    r->released++;
    rec_append(r, "R");
}
static rpl_observer rec_observer(rec_t *r) {
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = rec_next;
    o.on_error = rec_error;
    o.on_completed = rec_completed;
    o.release = rec_release;
    o.ctx = r;
    return o;
}
/* Subscribes r to sig (a signal or a subject). */
__attribute__((unused)) static rpl_disposable_t *rec_sub(void *sig, rec_t *r) {
    rpl_observer o = rec_observer(r);
    return rpl_signal_subscribe((rpl_signal_t *)sig, &o);
}
#define CHECK_LOG(r, expected) do { \
    if (strcmp((r)->log, expected) == 0) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: log \"%s\" != \"%s\"\n", __FILE__, __LINE__, (r)->log, expected); } \
} while (0)

/* A value whose destructor counts, to check that values are consumed. */
static int dtor_count __attribute__((unused));
__attribute__((unused)) static void count_dtor(void *p) { (void)p; __atomic_fetch_add(&dtor_count, 1, __ATOMIC_SEQ_CST); }

#endif
