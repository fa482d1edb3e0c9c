/* Helpers of the NATS test programs: checks, a recorder observer that
   waits for what it expects, and a watchdog. Tests/nats/run.py starts the
   servers and passes their URLs. */
#ifndef NATS_TEST_H
#define NATS_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ripple_nats.h>

static int nt_passed, nt_failed;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) nt_passed++;                                                        \
        else {                                                                        \
            nt_failed++;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s (last error %d: %s)\n", __FILE__, \
                    __LINE__, #cond, rpl_last_error(), rpl_last_error_message());     \
        }                                                                             \
    } while (0)

static void nt_on_alarm(int sig) {
    (void)sig;
    static const char m[] = "watchdog: the test took too long (deadlock?)\n";
    if (write(2, m, sizeof m - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

/* A deadlock fails the run instead of stalling it. */
static void nt_watchdog(unsigned seconds) {
    signal(SIGALRM, nt_on_alarm);
    alarm(seconds);
}

static uint64_t nt_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void nt_sleep_us(unsigned us) {
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000L };
    nanosleep(&ts, NULL);
}

static void nt_sleep_ms(unsigned ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* ---- recorder: every event, in order ---- */
/* The counters are atomic and the values array never moves, so a test may
   read what a recorder holds while messages still arrive (TSan-clean):
   values[i] is written before count passes i. */
enum { REC_CAP = 1 << 17 };
typedef struct rec {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rpl_value *values;  /* REC_CAP slots */
    _Atomic size_t count;
    _Atomic int completed, errors, released;
    char domain[64];    /* of the last error, written before errors counts it */
    int64_t code;
    char message[512];
    unsigned delay_ms;  /* on_next sleeps this long (a slow consumer) */
} rec;

static void rec_init(rec *r) {
    memset(r, 0, sizeof *r);
    r->values = calloc(REC_CAP, sizeof *r->values);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
}

static void rec_free(rec *r) {
    for (size_t i = 0; i < r->count; i++) rpl_value_release(&r->values[i]);
    free(r->values);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
}

static void rec_next(void *ctx, const rpl_value *v) {
    rec *r = ctx;
    if (r->delay_ms) nt_sleep_ms(r->delay_ms);
    pthread_mutex_lock(&r->mu);
    if (r->count == REC_CAP) abort();
    r->values[r->count] = rpl_value_copy(v);
    r->count++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void rec_error(void *ctx, const rpl_error_t *e) {
    rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    snprintf(r->domain, sizeof r->domain, "%s", rpl_error_domain(e));
    r->code = rpl_error_code(e);
    snprintf(r->message, sizeof r->message, "%s", rpl_error_message(e));
    r->errors++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void rec_completed(void *ctx) {
    rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    r->completed++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void rec_release(void *ctx) {
    rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    r->released++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static rpl_disposable_t *rec_subscribe(rpl_signal_t *s, rec *r) {
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = rec_next;
    o.on_error = rec_error;
    o.on_completed = rec_completed;
    o.release = rec_release;
    o.ctx = r;
    return rpl_signal_subscribe(s, &o);
}

/* Waits until pred holds or ms passed; true if it holds. */
#define REC_WAIT(r, ms, pred)                                                    \
    ({                                                                           \
        uint64_t dl_ = nt_now_ns() + (uint64_t)(ms) * 1000000u;                  \
        pthread_mutex_lock(&(r)->mu);                                            \
        while (!(pred) && nt_now_ns() < dl_) {                                   \
            struct timespec ts_;                                                 \
            clock_gettime(CLOCK_REALTIME, &ts_);                                 \
            ts_.tv_nsec += 20000000;                                             \
            if (ts_.tv_nsec >= 1000000000) { ts_.tv_sec++; ts_.tv_nsec -= 1000000000; } \
            pthread_cond_timedwait(&(r)->cv, &(r)->mu, &ts_);                    \
        }                                                                        \
        bool ok_ = (pred);                                                       \
        pthread_mutex_unlock(&(r)->mu);                                          \
        ok_;                                                                     \
    })

static int nt_report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, nt_passed, nt_failed);
    return nt_failed ? 1 : 0;
}

#endif
