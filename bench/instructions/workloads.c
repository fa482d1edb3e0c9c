/* make bench-instructions: the workloads of the speed table (W1-W7), each run
   for a given number of units so that valgrind's callgrind can count the
   instructions one unit costs: the count of a run of n2 units minus that of
   n1 units, divided by n2 - n1, leaves out setup and teardown. Unlike a time,
   the figure does not move with the machine's load (same binary, same count).

   usage: workloads NAME UNITS     (NAME: w1 w2 w3 w4 w5 w5c w6 w6l w7 ref1
                                  ref3 ref4 floor handle d1 d100 db100 ds zip
                                  delay rl imm)
   A unit is: w1/w3 an event; w2 a delivery (one send reaches 100
   subscribers, so UNITS is rounded down to a multiple of 100); w4 a
   subscribe + dispose + release on a subject; w5/w5c one outer value through
   flatten_map; w6 one inner subject of flatten (created, sent to the outer,
   sent a value, completed, released; w6l the same beside 1000 open
   inners); w7 a whole return(1) -> map -> subscribe -> dispose
   pipeline; floor a C call through a volatile function pointer; handle a
   signal handle made and freed (rpl_signal_return, rpl_release): the least
   a handle the C API returns costs, which W4, W5 and W7 pay once per
   handle they make. ref1, ref3 and ref4: W1's, W3's and W4's units
   through the C references of reference.c (the same work in plain C, with
   the rules' checks and no Ripple code).
   The queues (one FIFO type behind them all): d1 an event through
   subject -> deliver_on(test scheduler) -> subscriber, the scheduler run
   after each send; d100 the same with the scheduler run after every 100
   sends (a unit is still an event); db100 the same through
   deliver_on_bounded (capacity 128, BLOCK); ds an event through
   deliver_on(serial scheduler), sent as fast as possible (its drain polls
   between batches, so the figure moves a little from run to run); zip one
   pair through zip of two subjects; delay an event through delay(1 ns, test
   scheduler), run after every 100 sends; rl a job scheduled on a run loop,
   run after every 100; imm a job scheduled from inside immediate work (the
   trampoline's queue). */
#include "../bench.h"
#include "reference.h"
#include <ripple.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int64_t total;
static void on_int(void *ctx, const rpl_value *v) { (void)ctx; total += v->as.i; }

static void on_tuple(void *ctx, const rpl_value *v) {
    (void)ctx;
    total += (int64_t)rpl_value_tuple_count(v);
}

static rpl_signal_t *to_return(void *ctx, const rpl_value *v) { (void)ctx; return rpl_signal_return(*v); }

static rpl_disposable_t *send_one(void *ctx, rpl_subscriber_t *s) {
    rpl_subscriber_send_next(s, rpl_int((int64_t)(intptr_t)ctx));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static rpl_signal_t *to_created(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_signal_create(send_one, (void *)(intptr_t)v->as.i, NULL);
}

/* Sends `events` ints into a subject that `subs` subscribers watch through
   `op` (NULL: the subject itself). */
static void through_subject(long events, int subs, rpl_signal_t *(*op)(rpl_signal_t *)) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *sig = op ? op(rpl_subject_as_signal(s)) : rpl_retain(rpl_subject_as_signal(s));
    rpl_disposable_t **d = calloc((size_t)subs, sizeof *d);
    for (int i = 0; i < subs; i++) d[i] = rpl_signal_subscribe_next(sig, on_int, NULL);
    for (long i = 0; i < events; i++) rpl_subject_send_next(s, rpl_int(i));
    rpl_subject_send_completed(s);
    for (int i = 0; i < subs; i++) rpl_release(d[i]);
    free(d);
    rpl_release(sig);
    rpl_release(s);
}

static rpl_signal_t *flatten_return(rpl_signal_t *src) { return rpl_signal_flatten_map(src, to_return, NULL, NULL); }
static rpl_signal_t *flatten_created(rpl_signal_t *src) { return rpl_signal_flatten_map(src, to_created, NULL, NULL); }

/* Inner subjects through flatten: each is created, sent to the outer
   subject, sent one value and completed; `live` inners stay open meanwhile
   (the cost must not grow with them). */
static void flatten_subjects(long n, int live) {
    rpl_subject_t *outer = rpl_subject_create();
    rpl_signal_t *flat = rpl_signal_flatten(rpl_subject_as_signal(outer));
    rpl_disposable_t *d = rpl_signal_subscribe_next(flat, on_int, NULL);
    rpl_subject_t **open = calloc((size_t)live + 1, sizeof *open);
    for (int i = 0; i < live; i++) {
        open[i] = rpl_subject_create();
        rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(open[i])));
    }
    for (long i = 0; i < n; i++) {
        rpl_subject_t *in = rpl_subject_create();
        rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(in)));
        rpl_subject_send_next(in, rpl_int(i));
        rpl_subject_send_completed(in);
        rpl_release(in);
    }
    for (int i = 0; i < live; i++) {
        rpl_subject_send_completed(open[i]);
        rpl_release(open[i]);
    }
    free(open);
    rpl_subject_send_completed(outer);
    rpl_release(d);
    rpl_release(flat);
    rpl_release(outer);
}

static void subscribe_dispose(long n) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_int;
    for (long i = 0; i < n; i++) {
        rpl_disposable_t *d = rpl_signal_subscribe(rpl_subject_as_signal(s), &o);
        rpl_disposable_dispose(d);
        rpl_release(d);
    }
    rpl_release(s);
}

/* The C references (reference.c) of W1, W3 and W4: the same callbacks,
   the rules' checks in plain C instead of the library, and loops written
   like through_subject's and subscribe_dispose's on purpose, so that the
   benchmark's own share of each count is the same. */
static void ref_through_subject(long events, bool chain) {
    ref_subject *s = ref_subject_create();
    ref_member *m;
    if (chain) {
        bench_chain_fns fns = bench_chain_callbacks();
        m = ref_subscribe_chain(s, fns.map, fns.filter, fns.scan, on_int);
    } else {
        rpl_observer o = RPL_OBSERVER_INIT;
        o.on_next = on_int;
        m = ref_subscribe(s, &o);
    }
    for (long i = 0; i < events; i++) ref_subject_send_next(s, rpl_int(i));
    if (chain) {
        ref_unsubscribe_chain(m);
    } else {
        ref_dispose(m);
        ref_release(m);
    }
    ref_subject_destroy(s);
}

static void ref_subscribe_dispose(long n) {
    ref_subject *s = ref_subject_create();
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_int;
    for (long i = 0; i < n; i++) {
        ref_member *m = ref_subscribe(s, &o);
        ref_dispose(m);
        ref_release(m);
    }
    ref_subject_destroy(s);
}

static void pipelines(long n) {
    for (long i = 0; i < n; i++) bench_pipeline_once(&total);
}

static rpl_signal_t *deliver_on(rpl_signal_t *src, rpl_scheduler_t *s) { return rpl_signal_deliver_on(src, s); }
static rpl_signal_t *deliver_on_bounded(rpl_signal_t *src, rpl_scheduler_t *s) {
    return rpl_signal_deliver_on_bounded(src, s, 128, RPL_OVERFLOW_BLOCK);
}
static rpl_signal_t *delay_1ns(rpl_signal_t *src, rpl_scheduler_t *s) { return rpl_signal_delay(src, 1, s); }

/* Sends `n` ints into a subject watched through `op` on a test scheduler,
   running the scheduler after every `batch` sends. */
static void through_test_scheduler(long n, long batch, rpl_signal_t *(*op)(rpl_signal_t *, rpl_scheduler_t *)) {
    rpl_scheduler_t *sched = rpl_test_scheduler_create();
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *sig = op(rpl_subject_as_signal(s), sched);
    rpl_disposable_t *d = rpl_signal_subscribe_next(sig, on_int, NULL);
    for (long i = 0; i < n; i += batch) {
        for (long j = 0; j < batch; j++) rpl_subject_send_next(s, rpl_int(i + j));
        rpl_test_scheduler_run(sched);
    }
    rpl_subject_send_completed(s);
    rpl_test_scheduler_run(sched);
    rpl_release(d);
    rpl_release(sig);
    rpl_release(s);
    rpl_release(sched);
}

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;
static void on_done(void *ctx) {
    (void)ctx;
    pthread_mutex_lock(&done_lock);
    done = 1;
    pthread_cond_signal(&done_cond);
    pthread_mutex_unlock(&done_lock);
}

/* Sends `n` ints into a subject watched through deliver_on(a serial
   scheduler) and waits for the completion to arrive. */
static void deliver_on_serial(long n) {
    rpl_scheduler_t *sched = rpl_scheduler_create_serial("bench");
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *sig = rpl_signal_deliver_on(rpl_subject_as_signal(s), sched);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_int;
    o.on_completed = on_done;
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    for (long i = 0; i < n; i++) rpl_subject_send_next(s, rpl_int(i));
    rpl_subject_send_completed(s);
    pthread_mutex_lock(&done_lock);
    while (!done) pthread_cond_wait(&done_cond, &done_lock);
    pthread_mutex_unlock(&done_lock);
    rpl_release(d);
    rpl_release(sig);
    rpl_release(s);
    rpl_release(sched);
}

static void zip_pairs(long n) {
    rpl_subject_t *a = rpl_subject_create(), *b = rpl_subject_create();
    rpl_signal_t *in[2] = { rpl_subject_as_signal(a), rpl_subject_as_signal(b) };
    rpl_signal_t *zip = rpl_signal_zip(in, 2);
    rpl_disposable_t *d = rpl_signal_subscribe_next(zip, on_tuple, NULL);
    for (long i = 0; i < n; i++) {
        rpl_subject_send_next(a, rpl_int(i));
        rpl_subject_send_next(b, rpl_int(i));
    }
    rpl_subject_send_completed(a);
    rpl_release(d);
    rpl_release(zip);
    rpl_release(a);
    rpl_release(b);
}

static void count_job(void *ctx) { (void)ctx; total++; }

static void run_loop_jobs(long n) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_scheduler_t *sched = rpl_run_loop_scheduler(loop);
    for (long i = 0; i < n; i += 100) {
        for (long j = 0; j < 100; j++) rpl_release(rpl_scheduler_schedule(sched, count_job, NULL, NULL));
        rpl_run_loop_run_until_idle(loop);
    }
    rpl_release(loop);
}

static void schedule_nested(void *ctx) {
    long n = (long)(intptr_t)ctx;
    for (long i = 0; i < n; i++) rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), count_job, NULL, NULL));
}

static void floor_calls(long n) {
    void (*volatile fn)(void *, const rpl_value *) = on_int;
    rpl_value v = rpl_int(1);
    for (long i = 0; i < n; i++) fn(NULL, &v);
}

static void handles(long n) {
    rpl_value v = rpl_int(1);
    for (long i = 0; i < n; i++) rpl_release(rpl_signal_return(v));
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s w1|w2|w3|w4|w5|w5c|w6|w6l|w7|ref1|ref3|ref4|floor|handle|d1|d100|db100|ds|zip|delay|rl|imm UNITS\n", argv[0]);
        return 2;
    }
    const char *w = argv[1];
    long n = atol(argv[2]);
    if (!strcmp(w, "w1")) through_subject(n, 1, NULL);
    else if (!strcmp(w, "w2")) through_subject(n / 100, 100, NULL);
    else if (!strcmp(w, "w3")) through_subject(n, 1, bench_chain);
    else if (!strcmp(w, "w4")) subscribe_dispose(n);
    else if (!strcmp(w, "w5")) through_subject(n, 1, flatten_return);
    else if (!strcmp(w, "w5c")) through_subject(n, 1, flatten_created);
    else if (!strcmp(w, "w6")) flatten_subjects(n, 0);
    else if (!strcmp(w, "w6l")) flatten_subjects(n, 1000);
    else if (!strcmp(w, "w7")) pipelines(n);
    else if (!strcmp(w, "ref1")) ref_through_subject(n, false);
    else if (!strcmp(w, "ref3")) ref_through_subject(n, true);
    else if (!strcmp(w, "ref4")) ref_subscribe_dispose(n);
    else if (!strcmp(w, "floor")) floor_calls(n);
    else if (!strcmp(w, "handle")) handles(n);
    else if (!strcmp(w, "d1")) through_test_scheduler(n, 1, deliver_on);
    else if (!strcmp(w, "d100")) through_test_scheduler(n / 100 * 100, 100, deliver_on);
    else if (!strcmp(w, "db100")) through_test_scheduler(n / 100 * 100, 100, deliver_on_bounded);
    else if (!strcmp(w, "ds")) deliver_on_serial(n);
    else if (!strcmp(w, "zip")) zip_pairs(n);
    else if (!strcmp(w, "delay")) through_test_scheduler(n / 100 * 100, 100, delay_1ns);
    else if (!strcmp(w, "rl")) run_loop_jobs(n / 100 * 100);
    else if (!strcmp(w, "imm")) rpl_release(rpl_scheduler_schedule(rpl_scheduler_immediate(), schedule_nested,
                                                                    (void *)(intptr_t)n, NULL));
    else {
        fprintf(stderr, "unknown workload %s\n", w);
        return 2;
    }
    printf("%lld\n", (long long)total);
    return 0;
}
