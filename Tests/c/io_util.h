/* Helpers of the OS source tests (test_io_*.c): waiting for a recorder on a
   thread-backed scheduler or by driving a run loop, pipes, a watchdog. */
#ifndef RIPPLE_TEST_IO_UTIL_H
#define RIPPLE_TEST_IO_UTIL_H
#define _GNU_SOURCE
#include "recorder.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* A hang fails the test program instead of stalling the run. */
static inline void io_watchdog(unsigned seconds) { alarm(seconds); }

static inline uint64_t io_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Drives loop (if any) or sleeps, until *done returns true or ms pass;
   returns whether it became true. */
typedef int (*io_cond)(void *ctx);
static inline int io_wait(rpl_run_loop_t *loop, io_cond done, void *ctx, int ms) {
    uint64_t end = io_now_ms() + (uint64_t)ms;
    while (!done(ctx)) {
        if (io_now_ms() >= end) return 0;
        if (loop) {
            struct pollfd p = {rpl_run_loop_fd(loop), POLLIN, 0};
            (void)poll(&p, 1, 10);
            rpl_run_loop_run_until_idle(loop);
        } else {
            nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        }
    }
    return 1;
}
static inline int rec_ended(void *ctx) { rec_t *r = ctx; return r->completed || r->errors; }
static inline int rec_released(void *ctx) { rec_t *r = ctx; return r->released > 0; }
typedef struct { rec_t *r; int n; } rec_count;
static inline int rec_has(void *ctx) { rec_count *c = ctx; return c->r->n >= c->n; }
/* Waits until r has n values (on loop or a thread-backed scheduler). */
static inline int io_wait_values(rpl_run_loop_t *loop, rec_t *r, int n, int ms) {
    rec_count c = {r, n};
    return io_wait(loop, rec_has, &c, ms);
}

/* A fresh recorder r subscribed to sig; the disposable (+1). */
static inline rpl_disposable_t *io_record(rpl_signal_t *sig, rec_t *r) {
    rec_init(r);
    return rec_subscribe(sig, r);
}

/* A pipe, read_lines over its read end (lines of at most max_line bytes,
   delivered on s) and a fresh recorder r subscribed to it (sub, +1). */
typedef struct { int fd[2]; rpl_signal_t *sig; rpl_disposable_t *sub; rec_t r; } io_lines;
static inline void io_lines_open(io_lines *t, size_t max_line, rpl_scheduler_t *s) {
    CHECK(pipe(t->fd) == 0);
    t->sig = rpl_signal_read_lines(t->fd[0], max_line, s);
    t->sub = io_record(t->sig, &t->r);
}
/* Closes the write end: the reader sees EOF. */
static inline void io_lines_eof(io_lines *t) { close(t->fd[1]); t->fd[1] = -1; }
/* Releases the subscription and the signal, closes the ends still open. */
static inline void io_lines_close(io_lines *t) {
    rpl_release(t->sub);
    rpl_release(t->sig);
    close(t->fd[0]);
    if (t->fd[1] >= 0) close(t->fd[1]);
}

/* Records sig (released here) in r until it ends, driving loop if any: it
   fails with errno err. */
static inline void io_expect_errno(rpl_signal_t *sig, rpl_run_loop_t *loop, rec_t *r, int err) {
    rpl_disposable_t *d = io_record(sig, r);
    CHECK(io_wait(loop, rec_ended, r, 5000));
    CHECK_FAILED(*r, err);
    rpl_release(d);
    rpl_release(sig);
}

/* Writes all of buf to fd (blocking). */
static inline void io_write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) { struct pollfd q = {fd, POLLOUT, 0}; poll(&q, 1, 100); continue; }
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}
static inline void io_write_str(int fd, const char *s) { io_write_all(fd, s, strlen(s)); }

/* A scheduler of each kind the sources accept; the run loop is returned
   too (driven by io_wait), else NULL. */
typedef struct { rpl_scheduler_t *s; rpl_run_loop_t *loop; const char *name; } io_sched;
static inline io_sched io_sched_make(int kind) {
    io_sched r = {0};
    switch (kind) {
    case 0: r.loop = rpl_run_loop_create(); r.s = rpl_run_loop_scheduler(r.loop); r.name = "run loop"; break;
    case 1: r.s = rpl_scheduler_create_serial("io-test"); r.name = "serial"; break;
    default: r.s = rpl_retain(rpl_scheduler_background()); r.name = "background"; break;
    }
    return r;
}
static inline void io_sched_free(io_sched *k) {
    if (k->loop) rpl_release(k->loop); else rpl_release(k->s);
}
#endif
