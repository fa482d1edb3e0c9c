/* The event-loop adapter tests (make loops-check): one set of cases, run
 * against each host loop. A test program (test_glib.c, test_uv.c,
 * test_event.c) defines its host's hooks, includes this file, and calls
 * loop_tests() from main, beside its host's own cases:
 *
 *   static void host_init(void);             the host loop, on this thread
 *   static void host_fini(void);             frees it (all attachments detached)
 *   static void *host_attach(rpl_run_loop_t *loop);   the adapter's attach
 *   static void host_detach(void *attachment);        the adapter's detach
 *   static void host_iterate(void);          one blocking iteration
 *   static void *host_timer(uint64_t ms, atomic_int *fired);  a one-shot host
 *                                            timer that sets *fired
 *   static void host_timer_cancel(void *t);  cancels it (fired or not)
 *
 * Every wait runs the host loop until a condition holds or a host timer (the
 * watchdog, LOOP_DEADLINE_MS) fires, so a lost wake-up fails the case instead
 * of hanging; make's timeout guards the whole program too.
 *
 * Each case checks what a program relies on: events arrive on the host
 * loop's thread (the thread running main), from a run-loop timer, from a
 * subject sent into on another thread, and from an OS source; an idle
 * attachment sleeps; endless run-loop work does not starve the host's own
 * sources; detaching stops the driving at once, also from inside run-loop
 * work; the attachment keeps the run loop alive; and the work left pending
 * stays on the run loop. */
#ifndef RIPPLE_LOOP_TEST_H
#define RIPPLE_LOOP_TEST_H
#include "check.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define LOOP_DEADLINE_MS 10000

static pthread_t host_thread;

static void host_init(void);
static void host_fini(void);
static void *host_attach(rpl_run_loop_t *loop);
static void host_detach(void *attachment);
static void host_iterate(void);
static void *host_timer(uint64_t ms, atomic_int *fired);
static void host_timer_cancel(void *t);

static uint64_t loop_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t loop_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs the host loop until *flag is non-zero (true) or the deadline passed
   (false, and the case fails where it checks the result). */
static int loop_run_until(atomic_int *flag) {
    atomic_int late = 0;
    void *t = host_timer(LOOP_DEADLINE_MS, &late);
    while (!atomic_load(flag) && !atomic_load(&late)) host_iterate();
    host_timer_cancel(t);
    return atomic_load(flag) != 0;
}

/* Runs the host loop for ms. */
static void loop_run_for(uint64_t ms) {
    atomic_int done = 0;
    void *t = host_timer(ms, &done);
    while (!atomic_load(&done)) host_iterate();
    host_timer_cancel(t);
}

/* --- An observer that checks where each event arrives ------------------- */

typedef struct seen {
    atomic_int n, completed, errors, off_thread, released;
    int64_t ints[512];
    char lines[4][32];
    int64_t error_code;
} seen_t;

static void seen_next(void *ctx, const rpl_value *v) {
    seen_t *s = (seen_t *)ctx;
    int i = atomic_load(&s->n);
    if (!pthread_equal(pthread_self(), host_thread)) atomic_fetch_add(&s->off_thread, 1);
    if (rpl_value_type(v) == RPL_TYPE_STRING) {
        if (i < 4) snprintf(s->lines[i], sizeof s->lines[i], "%s", rpl_value_string(v, NULL));
    } else if (i < 512) {
        s->ints[i] = rpl_value_int(v);
    }
    atomic_fetch_add(&s->n, 1);
}
static void seen_error(void *ctx, const rpl_error_t *e) {
    seen_t *s = (seen_t *)ctx;
    if (!pthread_equal(pthread_self(), host_thread)) atomic_fetch_add(&s->off_thread, 1);
    s->error_code = rpl_error_code(e);
    atomic_fetch_add(&s->errors, 1);
}
static void seen_completed(void *ctx) {
    seen_t *s = (seen_t *)ctx;
    if (!pthread_equal(pthread_self(), host_thread)) atomic_fetch_add(&s->off_thread, 1);
    atomic_fetch_add(&s->completed, 1);
}
static void seen_release(void *ctx) { atomic_fetch_add(&((seen_t *)ctx)->released, 1); }

static rpl_disposable_t *seen_subscribe(rpl_signal_t *sig, seen_t *s) {
    memset(s, 0, sizeof *s);
    rpl_observer o = observer_of(seen_next, seen_error, seen_completed, seen_release, s);
    return rpl_signal_subscribe(sig, &o);
}

/* --- Cases --------------------------------------------------------------- */

/* A run-loop timer fires on the host thread, no earlier than due. */
static void test_timer(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    void *att = host_attach(loop);
    CHECK(att != NULL);
    rpl_signal_t *t = rpl_signal_timer(30000000u, rpl_run_loop_scheduler(loop));
    seen_t s;
    uint64_t start = loop_now_ns();
    rpl_disposable_t *d = seen_subscribe(t, &s);
    CHECK(loop_run_until(&s.completed));
    CHECK(loop_now_ns() - start >= 30000000u);
    CHECK_EQ_INT(atomic_load(&s.n), 1);
    CHECK_EQ_INT(atomic_load(&s.off_thread), 0);
    CHECK_EQ_INT(atomic_load(&s.released), 1);
    host_detach(att);
    rpl_release(d);
    rpl_release(t);
    rpl_release(loop);
}

typedef struct sender {
    rpl_subject_t *subject;
    int count;
} sender_t;

static void *sender_main(void *arg) {
    sender_t *w = (sender_t *)arg;
    for (int i = 0; i < w->count; i++) {
        rpl_subject_send_next(w->subject, rpl_int(i));
        if (i % 16 == 0) nanosleep(&(struct timespec){0, 200000}, NULL);  // the host loop sleeps in between
    }
    rpl_subject_send_completed(w->subject);
    return NULL;
}

/* Values a worker thread sends into a subject reach a subscriber through
   deliver_on(run loop) on the host thread, in order, then the completion. */
static void test_cross_thread_subject(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    void *att = host_attach(loop);
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *on_loop = rpl_signal_deliver_on((rpl_signal_t *)subj, rpl_run_loop_scheduler(loop));
    seen_t s;
    rpl_disposable_t *d = seen_subscribe(on_loop, &s);
    sender_t w = {subj, (int)test_scale(500, 100)};
    pthread_t th;
    pthread_create(&th, NULL, sender_main, &w);
    CHECK(loop_run_until(&s.completed));
    pthread_join(th, NULL);
    CHECK_EQ_INT(atomic_load(&s.n), w.count);
    int in_order = 1;
    for (int i = 0; i < w.count && i < 512; i++) in_order &= s.ints[i] == i;
    CHECK(in_order);
    CHECK_EQ_INT(atomic_load(&s.off_thread), 0);
    host_detach(att);
    rpl_release(d);
    rpl_release(on_loop);
    rpl_release(subj);
    rpl_release(loop);
}

/* An attachment with nothing to run lets the host loop sleep: 200 ms of
   waiting costs little CPU time on the host thread. */
static void test_idle_sleeps(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    void *att = host_attach(loop);
    uint64_t cpu = loop_cpu_ns();
    loop_run_for(200);
    cpu = loop_cpu_ns() - cpu;
    if (cpu >= 50000000u) fprintf(stderr, "    host thread used %llu ns of CPU while idle\n", (unsigned long long)cpu);
    CHECK(cpu < 50000000u);
    host_detach(att);
    rpl_release(loop);
}

typedef struct endless {
    rpl_scheduler_t *s;
    atomic_long runs;
    atomic_int released;
} endless_t;

static void endless_release(void *ctx) { atomic_fetch_add(&((endless_t *)ctx)->released, 1); }
static void endless_run(void *ctx) {
    endless_t *e = (endless_t *)ctx;
    atomic_fetch_add(&e->runs, 1);
    rpl_disposable_t *d = rpl_scheduler_schedule(e->s, endless_run, e, endless_release);
    rpl_release(d);
}

/* Run-loop work that keeps scheduling more cannot starve the host loop's own
   sources: a host timer still fires. Freeing the run loop then cancels the
   work still pending on it. */
static void test_fairness(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    endless_t e = {rpl_run_loop_scheduler(loop), 0, 0};
    rpl_release(rpl_scheduler_schedule(e.s, endless_run, &e, endless_release));
    void *att = host_attach(loop);
    atomic_int fired = 0;
    void *t = host_timer(20, &fired);
    CHECK(loop_run_until(&fired));
    host_timer_cancel(t);
    CHECK(atomic_load(&e.runs) > 0);
    host_detach(att);
    long runs = atomic_load(&e.runs);
    loop_run_for(20);  // detached: nothing more runs from the host
    CHECK_EQ_INT(atomic_load(&e.runs), runs);
    rpl_release(loop);
    CHECK_EQ_INT(atomic_load(&e.released), runs + 1);  // each ran item, and the cancelled one
}

typedef struct detacher {
    void *att;
    rpl_scheduler_t *s;
    atomic_int first, second, second_released;
} detacher_t;

static void detacher_second(void *ctx) { atomic_fetch_add(&((detacher_t *)ctx)->second, 1); }
static void detacher_second_release(void *ctx) { atomic_fetch_add(&((detacher_t *)ctx)->second_released, 1); }
static void detacher_first(void *ctx) {
    detacher_t *x = (detacher_t *)ctx;
    atomic_fetch_add(&x->first, 1);
    host_detach(x->att);
    rpl_release(rpl_scheduler_schedule(x->s, detacher_second, x, detacher_second_release));
}

/* The attachment keeps the run loop alive after the program released its
   reference; run-loop work may detach its own attachment, after which
   nothing more runs from the host, and the run loop, now unreferenced, is
   freed, cancelling the work left on it. */
static void test_detach_from_work(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    detacher_t x;
    memset(&x, 0, sizeof x);
    x.s = rpl_run_loop_scheduler(loop);
    x.att = host_attach(loop);
    rpl_release(rpl_scheduler_schedule(x.s, detacher_first, &x, NULL));
    rpl_release(loop);  // the attachment's reference is the only one now
    CHECK(loop_run_until(&x.first));
    loop_run_for(20);
    CHECK_EQ_INT(atomic_load(&x.second), 0);
    CHECK_EQ_INT(atomic_load(&x.second_released), 1);
}

static void count_run(void *ctx) { atomic_fetch_add((atomic_int *)ctx, 1); }

/* Work pending at detach stays on the run loop and runs when it is driven
   again: by hand, or by a new attachment. */
static void test_detach_keeps_pending(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_scheduler_t *s = rpl_run_loop_scheduler(loop);
    void *att = host_attach(loop);
    host_detach(att);
    atomic_int ran = 0;
    rpl_release(rpl_scheduler_schedule(s, count_run, &ran, NULL));
    loop_run_for(20);
    CHECK_EQ_INT(atomic_load(&ran), 0);
    CHECK_EQ_INT(rpl_run_loop_run_until_idle(loop), 1);
    CHECK_EQ_INT(atomic_load(&ran), 1);
    atomic_int again = 0;
    rpl_release(rpl_scheduler_schedule(s, count_run, &again, NULL));
    att = host_attach(loop);
    CHECK(att != NULL);
    CHECK(loop_run_until(&again));
    host_detach(att);
    rpl_release(loop);
}

typedef struct line_writer {
    int fd;
    int count;
} line_writer_t;

static void *line_writer_main(void *arg) {
    line_writer_t *w = (line_writer_t *)arg;
    char buf[32];
    for (int i = 0; i < w->count; i++) {
        int n = snprintf(buf, sizeof buf, "line %d\n", i);
        if (write(w->fd, buf, (size_t)n) != n) break;
        if (i % 16 == 0) nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    close(w->fd);  // end of input: the signal completes
    return NULL;
}

/* The lines another thread writes into a pipe arrive through read_lines on
   the run loop, on the host thread, in order, then the completion at end of
   input: the run loop's descriptor wakes the host loop for its OS sources. */
static void test_read_lines(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    void *att = host_attach(loop);
    int p[2];
    CHECK(pipe(p) == 0);
    rpl_signal_t *lines = rpl_signal_read_lines(p[0], 64, rpl_run_loop_scheduler(loop));
    seen_t s;
    rpl_disposable_t *d = seen_subscribe(lines, &s);
    line_writer_t w = {p[1], (int)test_scale(500, 100)};
    pthread_t th;
    pthread_create(&th, NULL, line_writer_main, &w);
    CHECK(loop_run_until(&s.completed));
    pthread_join(th, NULL);
    CHECK_EQ_INT(atomic_load(&s.n), w.count);
    CHECK(strcmp(s.lines[0], "line 0") == 0 && strcmp(s.lines[3], "line 3") == 0);
    CHECK_EQ_INT(atomic_load(&s.errors), 0);
    CHECK_EQ_INT(atomic_load(&s.off_thread), 0);
    host_detach(att);
    rpl_release(d);
    rpl_release(lines);
    close(p[0]);
    rpl_release(loop);
}

/* Bad run loops are refused with Ripple's last error. */
static void test_bad_loop(void) {
    CHECK(host_attach(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    rpl_subject_t *subj = rpl_subject_create();
    CHECK(host_attach((rpl_run_loop_t *)subj) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(subj);
    host_detach(NULL);  // a no-op
}

static void loop_tests(void) {
    RUN(test_timer);
    RUN(test_cross_thread_subject);
    RUN(test_read_lines);
    RUN(test_idle_sleeps);
    RUN(test_fairness);
    RUN(test_detach_from_work);
    RUN(test_detach_keeps_pending);
    RUN(test_bad_loop);
}

#endif
