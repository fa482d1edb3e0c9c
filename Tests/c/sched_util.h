/* Helpers shared by the scheduler tests (the recorder is recorder.h): a
   source the test sends into by hand, and counters for release callbacks. */
#ifndef RIPPLE_TEST_SCHED_UTIL_H
#define RIPPLE_TEST_SCHED_UTIL_H
#include "recorder.h"
#include <pthread.h>
#include <ripple.h>
#include <stdatomic.h>

/* --- Manual source: the test sends through src.sub ------------------------ */
typedef struct {
    rpl_subscriber_t *sub;   /* retained while subscribed */
    int subscriptions;
    int disposed;
    rpl_scheduler_t *subscribed_on;  /* current scheduler at subscription */
} src;

static inline void src_dispose(void *ctx) {
    src *s = ctx;
    s->disposed++;  /* the subscriber is released by src_cleanup, not here:
                       this runs inside a send on that subscriber */
}
static inline rpl_disposable_t *src_subscribe(void *ctx, rpl_subscriber_t *sub) {
    src *s = ctx;
    s->subscriptions++;
    s->subscribed_on = rpl_scheduler_current();
    rpl_release(s->sub);
    s->sub = rpl_retain(sub);
    s->disposed = 0;
    return rpl_disposable_create(src_dispose, s);
}
static inline rpl_signal_t *src_signal(src *s) { return rpl_signal_create(src_subscribe, s, NULL); }
static inline void src_next(src *s, int64_t i) { if (s->sub) rpl_subscriber_send_next(s->sub, rpl_int(i)); }
static inline void src_next_string(src *s, const char *str) { if (s->sub) rpl_subscriber_send_next(s->sub, rpl_string(str)); }
static inline void src_complete(src *s) { if (s->sub) rpl_subscriber_send_completed(s->sub); }
static inline void src_fail(src *s, int64_t code) {
    if (!s->sub) return;
    rpl_error_t *e = rpl_error_create("test", code, "boom");
    rpl_subscriber_send_error(s->sub, e);
    rpl_release(e);
}
static inline void src_cleanup(src *s) { rpl_release(s->sub); s->sub = NULL; }

/* --- An operator over a manual source, on a test scheduler, recorded -------- */
/* The set-up most operator tests share: a test scheduler ts, a manual source
   s and its signal sig; src_op_subscribe takes the operator built over sig
   (op) and subscribes the recorder r (its clock ts) to it (sub). */
typedef struct {
    rpl_scheduler_t *ts;
    src s;
    rpl_signal_t *sig, *op;
    rec_t r;
    rpl_disposable_t *sub;
} src_op;
static inline void src_op_open(src_op *f) {
    memset(f, 0, sizeof *f);
    f->ts = rpl_test_scheduler_create();
    f->sig = src_signal(&f->s);
    rec_init(&f->r);
    f->r.clock = f->ts;
}
static inline void src_op_subscribe(src_op *f, rpl_signal_t *op) {
    f->op = op;
    f->sub = rec_attach(op, &f->r);
}
/* Releases all of it (the source's subscriber too). */
static inline void src_op_close(src_op *f) {
    rpl_release(f->sub);
    rpl_release(f->op);
    rpl_release(f->sig);
    src_cleanup(&f->s);
    rpl_release(f->ts);
}

/* --- Counters ------------------------------------------------------------- */
static atomic_int releases __attribute__((unused));
static inline void count_release(void *ctx) { (void)ctx; atomic_fetch_add(&releases, 1); }

/* A one-shot gate threads can wait on (no timing involved). */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int open;
} gate;
#define GATE_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 }
static inline void gate_open(gate *g) {
    pthread_mutex_lock(&g->m); g->open++; pthread_cond_broadcast(&g->c); pthread_mutex_unlock(&g->m);
}
/* Waits until the gate has been opened at least n times. */
static inline void gate_wait(gate *g, int n) {
    pthread_mutex_lock(&g->m);
    while (g->open < n) pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}
#endif
