/* Scheduler costs: deliver_on to a serial scheduler (sender to callback),
   a send into a full deliver_on_bounded queue that drops its oldest value,
   and scheduling one work item on a serial scheduler. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include <pthread.h>
#include <ripple.h>
#include <stdatomic.h>
#include <stdio.h>

typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int done;
} bench_gate;

static void gate_open_(bench_gate *g) {
    pthread_mutex_lock(&g->m);
    g->done = 1;
    pthread_cond_broadcast(&g->c);
    pthread_mutex_unlock(&g->m);
}
static void gate_wait_(bench_gate *g) {
    pthread_mutex_lock(&g->m);
    while (!g->done) pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}

static rpl_subscriber_t *bench_sub;
static rpl_disposable_t *keep_subscriber(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    bench_sub = rpl_retain(s);
    return NULL;
}

static int64_t received;
static void count_next(void *ctx, const rpl_value *v) { (void)ctx; received += rpl_value_int(v) >= 0; }
static void completed(void *ctx) { gate_open_(ctx); }

/* deliver_on(serial): the sender keeps the queue busy; the time runs from the
   first send to the completion callback on the serial thread. */
static void bench_deliver_on(long n) {
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("bench.deliver");
    rpl_signal_t *src = rpl_signal_create(keep_subscriber, NULL, NULL);
    rpl_signal_t *on = rpl_signal_deliver_on(src, serial);
    bench_gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = count_next;
    o.on_completed = completed;
    o.ctx = &g;
    received = 0;
    rpl_disposable_t *d = rpl_signal_subscribe(on, &o);
    uint64_t a0 = bench_allocations();
    double t0 = bench_now();
    for (long i = 0; i < n; i++) rpl_subscriber_send_next(bench_sub, rpl_int(i));
    rpl_subscriber_send_completed(bench_sub);
    gate_wait_(&g);
    double t1 = bench_now();
    uint64_t a1 = bench_allocations();
    if (received != n) fprintf(stderr, "deliver_on: received %lld of %ld\n", (long long)received, n);
    bench_row("deliver_on(serial), sender to callback", (t1 - t0) * 1e9 / (double)n, "event",
              (double)(a1 - a0) / (double)n);
    rpl_release(d);
    rpl_release(on);
    rpl_release(src);
    rpl_release(bench_sub);
    bench_sub = NULL;
    rpl_release(serial);
}

/* deliver_on_bounded(DROP_OLDEST) on a test scheduler (which runs nothing
   until asked): every send past the capacity drops the oldest waiting value.
   The queue is compacted now and then; the row shows that this stays O(1)
   per send whatever the capacity. */
static void bench_drop_oldest(size_t capacity, long n) {
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *src = rpl_signal_create(keep_subscriber, NULL, NULL);
    rpl_signal_t *on = rpl_signal_deliver_on_bounded(src, ts, capacity, RPL_OVERFLOW_DROP_OLDEST);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = count_next;
    received = 0;
    rpl_disposable_t *d = rpl_signal_subscribe(on, &o);
    for (size_t i = 0; i < capacity; i++) rpl_subscriber_send_next(bench_sub, rpl_int((int64_t)i));
    uint64_t a0 = bench_allocations();
    double t0 = bench_now();
    for (long i = 0; i < n; i++) rpl_subscriber_send_next(bench_sub, rpl_int(i));
    double t1 = bench_now();
    uint64_t a1 = bench_allocations();
    rpl_test_scheduler_run(ts);
    if (received != (int64_t)capacity)
        fprintf(stderr, "deliver_on_bounded: received %lld of %zu\n", (long long)received, capacity);
    char name[96];
    snprintf(name, sizeof name, "deliver_on_bounded(DROP_OLDEST, %zu), full", capacity);
    bench_row(name, (t1 - t0) * 1e9 / (double)n, "send", (double)(a1 - a0) / (double)n);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(on);
    rpl_release(src);
    rpl_release(bench_sub);
    bench_sub = NULL;
    rpl_release(ts);
}

static atomic_long items_run;
static bench_gate items_gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
static long items_expected;
static void item(void *ctx) {
    (void)ctx;
    if (atomic_fetch_add(&items_run, 1) + 1 == items_expected) gate_open_(&items_gate);
}

/* rpl_scheduler_schedule on a serial scheduler: schedule to run, per item. */
static void bench_schedule(long n) {
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("bench.schedule");
    items_expected = n;
    uint64_t a0 = bench_allocations();
    double t0 = bench_now();
    for (long i = 0; i < n; i++) rpl_release(rpl_scheduler_schedule(serial, item, NULL, NULL));
    gate_wait_(&items_gate);
    double t1 = bench_now();
    uint64_t a1 = bench_allocations();
    bench_row("rpl_scheduler_schedule(serial), per item", (t1 - t0) * 1e9 / (double)n, "item",
              (double)(a1 - a0) / (double)n);
    rpl_release(serial);
}

void bench_schedulers(void) {
    bench_deliver_on(10000000);
    bench_drop_oldest(16, 4000000);
    bench_drop_oldest(65536, 4000000);
    bench_schedule(1000000);
}
