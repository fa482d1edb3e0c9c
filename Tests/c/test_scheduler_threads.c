/* Schedulers under threads: scheduling from several threads at once,
   cancelling before and during a run, deliver_on from several senders.
   Meant for ThreadSanitizer too; waits use gates, never sleeps. */
#include "sched_util.h"
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#include <sanitizer/lsan_interface.h>
#endif
#endif

#define THREADS 4

/* --- Several threads schedule on one serial scheduler ---------------------- */
typedef struct {
    rpl_scheduler_t *s;
    int id;
    long n;
} sched_arg;
static long last_seq[THREADS];
static atomic_long ran;
static int order_errors;
static atomic_int in_work;
static int overlaps;
static gate all_done = GATE_INIT;
static long expected_total;

typedef struct { int thread; long seq; } tagged;
static void serial_item(void *ctx) {
    tagged *t = ctx;
    if (atomic_fetch_add(&in_work, 1) != 0) overlaps++;
    if (t->seq != last_seq[t->thread] + 1) order_errors++;
    last_seq[t->thread] = t->seq;
    atomic_fetch_sub(&in_work, 1);
    if (atomic_fetch_add(&ran, 1) + 1 == expected_total) gate_open(&all_done);
}
static void free_release(void *ctx) { free(ctx); atomic_fetch_add(&releases, 1); }

static void *serial_producer(void *p) {
    sched_arg *a = p;
    for (long i = 0; i < a->n; i++) {
        tagged *t = malloc(sizeof *t);
        t->thread = a->id;
        t->seq = i;
        rpl_release(rpl_scheduler_schedule(a->s, serial_item, t, free_release));
    }
    return NULL;
}

static void test_serial_from_threads(void) {
    rpl_scheduler_t *s = rpl_scheduler_create_serial("mt.serial");
    long n = test_scale(20000, 500);
    expected_total = n * THREADS;
    atomic_store(&ran, 0);
    atomic_store(&releases, 0);
    for (int i = 0; i < THREADS; i++) last_seq[i] = -1;
    pthread_t t[THREADS];
    sched_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (sched_arg){s, i, n};
        pthread_create(&t[i], NULL, serial_producer, &args[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    rpl_release(s);  /* pending work keeps it alive */
    gate_wait(&all_done, 1);
    CHECK_EQ_INT(atomic_load(&ran), expected_total);
    CHECK_EQ_INT(order_errors, 0);  /* FIFO per sending thread */
    CHECK_EQ_INT(overlaps, 0);      /* one at a time */
    for (int i = 0; i < THREADS; i++) CHECK_EQ_INT(last_seq[i], n - 1);
    /* Each release runs after its item; the last may still be in flight. */
    while (atomic_load(&releases) < expected_total) sched_yield();
    CHECK_EQ_INT(atomic_load(&releases), expected_total);
}

/* --- Several threads on the background pool --------------------------------- */
static atomic_long bg_ran;
static gate bg_done = GATE_INIT;
static long bg_expected;
static void bg_item(void *ctx) {
    (void)ctx;
    if (rpl_scheduler_current() != rpl_scheduler_background()) order_errors++;
    if (atomic_fetch_add(&bg_ran, 1) + 1 == bg_expected) gate_open(&bg_done);
}
static void *bg_producer(void *p) {
    sched_arg *a = p;
    for (long i = 0; i < a->n; i++) rpl_release(rpl_scheduler_schedule(a->s, bg_item, NULL, count_release));
    return NULL;
}
static void test_background_from_threads(void) {
    long n = test_scale(20000, 500);
    bg_expected = n * THREADS;
    atomic_store(&releases, 0);
    order_errors = 0;
    pthread_t t[THREADS];
    sched_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (sched_arg){rpl_scheduler_background(), i, n};
        pthread_create(&t[i], NULL, bg_producer, &args[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    gate_wait(&bg_done, 1);
    CHECK_EQ_INT(atomic_load(&bg_ran), bg_expected);
    CHECK_EQ_INT(order_errors, 0);
    while (atomic_load(&releases) < bg_expected) sched_yield();
    CHECK_EQ_INT(atomic_load(&releases), bg_expected);
}

/* --- Schedule and cancel race: every context released exactly once ----------- */
typedef struct { atomic_int ran; atomic_int released; } raced;
static void raced_run(void *ctx) {
    raced *r = ctx;
    if (atomic_load(&r->released)) order_errors++;  /* never run after release */
    atomic_fetch_add(&r->ran, 1);
}
static void raced_release(void *ctx) {
    raced *r = ctx;
    atomic_fetch_add(&r->released, 1);
    atomic_fetch_add(&releases, 1);
}
static void *cancel_racer(void *p) {
    sched_arg *a = p;
    raced *rs = calloc((size_t)a->n, sizeof *rs);
    for (long i = 0; i < a->n; i++) {
        rpl_disposable_t *d = (i % 2)
            ? rpl_scheduler_schedule(a->s, raced_run, &rs[i], raced_release)
            : rpl_scheduler_after(a->s, 1000, raced_run, &rs[i], raced_release);
        rpl_disposable_dispose(d);
        rpl_release(d);
    }
    /* Wait for every release, then check each item ran at most once. */
    for (long i = 0; i < a->n; i++) {
        while (atomic_load(&rs[i].released) == 0) sched_yield();
        if (atomic_load(&rs[i].released) != 1 || atomic_load(&rs[i].ran) > 1) order_errors++;
    }
    free(rs);
    return NULL;
}
static void test_cancel_race(void) {
    rpl_scheduler_t *ser = rpl_scheduler_create_serial("race");
    long n = test_scale(5000, 200);
    atomic_store(&releases, 0);
    order_errors = 0;
    pthread_t t[THREADS];
    sched_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (sched_arg){i % 2 ? ser : rpl_scheduler_background(), i, n};
        pthread_create(&t[i], NULL, cancel_racer, &args[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK_EQ_INT(order_errors, 0);
    CHECK_EQ_INT(atomic_load(&releases), n * THREADS);
    rpl_release(ser);
}

/* --- Cancel during a run: the run finishes, release comes after it ------------ */
static gate in_run = GATE_INIT, let_go = GATE_INIT, released_gate = GATE_INIT;
static atomic_int run_finished;
static int release_saw_finished;
static void long_item(void *ctx) {
    (void)ctx;
    gate_open(&in_run);
    gate_wait(&let_go, 1);
    atomic_store(&run_finished, 1);
}
static void long_release(void *ctx) {
    (void)ctx;
    release_saw_finished = atomic_load(&run_finished);
    gate_open(&released_gate);
}
static void test_cancel_during_run(void) {
    rpl_scheduler_t *s = rpl_scheduler_create_serial("during");
    rpl_disposable_t *d = rpl_scheduler_schedule(s, long_item, NULL, long_release);
    gate_wait(&in_run, 1);
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_OK);   /* does not wait for the run */
    CHECK_EQ_INT(released_gate.open, 0);
    gate_open(&let_go);
    gate_wait(&released_gate, 1);
    CHECK_EQ_INT(release_saw_finished, 1);
    rpl_release(d);
    rpl_release(s);
}

/* --- A repeating item disposed from another thread ------------------------------ */
static atomic_int ticks;
static gate five_ticks = GATE_INIT, repeat_released = GATE_INIT;
static int ticks_at_release;
static void tick(void *ctx) { (void)ctx; if (atomic_fetch_add(&ticks, 1) + 1 == 5) gate_open(&five_ticks); }
static void tick_release(void *ctx) { (void)ctx; ticks_at_release = atomic_load(&ticks); gate_open(&repeat_released); }
static void test_repeat_disposed_from_other_thread(void) {
    rpl_scheduler_t *s = rpl_scheduler_create_serial("repeat");
    rpl_disposable_t *d = rpl_scheduler_repeat(s, 0, 100000, tick, NULL, tick_release);  /* 0.1 ms */
    gate_wait(&five_ticks, 1);
    rpl_disposable_dispose(d);
    gate_wait(&repeat_released, 1);
    int after = atomic_load(&ticks);
    CHECK(after >= 5);
    CHECK_EQ_INT(ticks_at_release, after);  /* no run after the release */
    rpl_release(d);
    rpl_release(s);
}

/* --- deliver_on from several sending threads ------------------------------------- */
static src shared_src;
static long deliver_last[THREADS];
static int deliver_errors;
static atomic_int deliver_in_cb;
static long delivered;
static gate delivered_all = GATE_INIT;
static rpl_scheduler_t *deliver_target;
static void deliver_next(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (atomic_fetch_add(&deliver_in_cb, 1) != 0) deliver_errors++;
    if (rpl_scheduler_current() != deliver_target) deliver_errors++;
    int64_t x = rpl_value_int(v);
    int th = (int)(x >> 32);
    long seq = (long)(x & 0xffffffff);
    if (seq != deliver_last[th] + 1) deliver_errors++;
    deliver_last[th] = seq;
    delivered++;
    atomic_fetch_sub(&deliver_in_cb, 1);
}
static void deliver_completed(void *ctx) { (void)ctx; gate_open(&delivered_all); }
static void *deliver_sender(void *p) {
    sched_arg *a = p;
    for (long i = 0; i < a->n; i++)
        rpl_subscriber_send_next(shared_src.sub, rpl_int(((int64_t)a->id << 32) | i));
    return NULL;
}
static void test_deliver_on_from_threads(void) {
    deliver_target = rpl_scheduler_create_serial("deliver");
    rpl_signal_t *sig = src_signal(&shared_src);
    rpl_signal_t *on = rpl_signal_deliver_on(sig, deliver_target);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = deliver_next;
    o.on_completed = deliver_completed;
    rpl_disposable_t *sub = rpl_signal_subscribe(on, &o);
    for (int i = 0; i < THREADS; i++) deliver_last[i] = -1;
    long n = test_scale(50000, 1000);
    pthread_t t[THREADS];
    sched_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (sched_arg){NULL, i, n};
        pthread_create(&t[i], NULL, deliver_sender, &args[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    src_complete(&shared_src);
    gate_wait(&delivered_all, 1);
    CHECK_EQ_INT(delivered, n * THREADS);
    CHECK_EQ_INT(deliver_errors, 0);
    rpl_release(sub);
    rpl_release(on);
    rpl_release(sig);
    src_cleanup(&shared_src);
    rpl_release(deliver_target);
}

/* --- Dispose racing with delivery on another thread ------------------------------- */
static atomic_int after_dispose_calls;
static atomic_int disposed_flag;
static gate dispose_released = GATE_INIT;
static void race_next(void *ctx, const rpl_value *v) {
    (void)ctx; (void)v;
    if (atomic_load(&disposed_flag)) atomic_fetch_add(&after_dispose_calls, 1);
}
static void race_release(void *ctx) { (void)ctx; gate_open(&dispose_released); }
static void test_dispose_while_delivering(void) {
    rpl_scheduler_t *s = rpl_scheduler_create_serial("dispose");
    rpl_signal_t *iv = rpl_signal_interval(50000, rpl_scheduler_background());
    rpl_signal_t *on = rpl_signal_deliver_on(iv, s);
    int rounds = (int)test_scale(20, 3);
    for (int r = 0; r < rounds; r++) {
        atomic_store(&disposed_flag, 0);
        rpl_observer o = RPL_OBSERVER_INIT;
        o.on_next = race_next;
        o.release = race_release;
        rpl_disposable_t *sub = rpl_signal_subscribe(on, &o);
        rpl_disposable_dispose(sub);
        gate_wait(&dispose_released, r + 1);   /* release always comes */
        atomic_store(&disposed_flag, 1);       /* after the release: no more calls */
        rpl_release(sub);
    }
    CHECK_EQ_INT(atomic_load(&after_dispose_calls), 0);
    rpl_release(on);
    rpl_release(iv);
    rpl_release(s);
}

/* throttle on a real scheduler racing with completion: whatever the timing,
   values arrive in increasing order, the last value arrives, and the
   completion comes last (a firing timer never lets it overtake its value). */
typedef struct {
    pthread_mutex_t m;
    int64_t last;
    int bad;
    int completed;
    int after_complete;
    gate done;
} throttle_rec;
static void thr_next(void *ctx, const rpl_value *v) {
    throttle_rec *r = ctx;
    pthread_mutex_lock(&r->m);
    int64_t x = rpl_value_int(v);
    if (r->completed) r->after_complete++;
    if (x <= r->last) r->bad++;
    r->last = x;
    pthread_mutex_unlock(&r->m);
}
static void thr_completed(void *ctx) {
    throttle_rec *r = ctx;
    pthread_mutex_lock(&r->m);
    r->completed++;
    pthread_mutex_unlock(&r->m);
}
static void thr_release(void *ctx) { gate_open(&((throttle_rec *)ctx)->done); }
static void test_throttle_race_with_completion(void) {
    rpl_scheduler_t *s = rpl_scheduler_create_serial("throttle");
    src so = {0};
    rpl_signal_t *sig = src_signal(&so);
    rpl_signal_t *t = rpl_signal_throttle(sig, 20000, s);  /* 20 µs */
    int rounds = (int)test_scale(200, 20);
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        throttle_rec rec_ = {PTHREAD_MUTEX_INITIALIZER, -1, 0, 0, 0, GATE_INIT};
        rpl_observer o = RPL_OBSERVER_INIT;
        o.on_next = thr_next;
        o.on_completed = thr_completed;
        o.release = thr_release;
        o.ctx = &rec_;
        rpl_disposable_t *sub = rpl_signal_subscribe(t, &o);
        for (int i = 0; i < 50; i++) src_next(&so, i);
        src_complete(&so);
        gate_wait(&rec_.done, 1);
        pthread_mutex_lock(&rec_.m);
        if (rec_.bad || rec_.after_complete || rec_.completed != 1 || rec_.last != 49) bad++;
        pthread_mutex_unlock(&rec_.m);
        rpl_release(sub);
        src_cleanup(&so);
    }
    CHECK_EQ_INT(bad, 0);
    rpl_release(t);
    rpl_release(sig);
    rpl_release(s);
}

/* --- A pool thread's last error ------------------------------------------------
   A job that fails a call on a worker thread gets that thread's own last error,
   like any thread, and the caller's is untouched. The worker keeps the record
   until it exits, reachable meanwhile: under ASan, a leak check run while the
   workers live finds nothing. */
static gate worker_errors_done = GATE_INIT;
static atomic_int worker_error_mismatches;
static void fail_on_worker(void *ctx) {
    (void)ctx;
    if (rpl_set_last_error(RPL_ERR_INVALID, "failed on a worker") != RPL_ERR_INVALID ||
        rpl_last_error() != RPL_ERR_INVALID || strcmp(rpl_last_error_message(), "failed on a worker") != 0)
        atomic_fetch_add(&worker_error_mismatches, 1);
    gate_open(&worker_errors_done);
}
static void test_worker_last_error(void) {
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("errors");
    rpl_scheduler_t *on[2] = { rpl_scheduler_background(), serial };
    for (int i = 0; i < 2; i++) {
        rpl_release(rpl_scheduler_schedule(on[i], fail_on_worker, NULL, NULL));
        gate_wait(&worker_errors_done, i + 1);
    }
    CHECK_EQ_INT(atomic_load(&worker_error_mismatches), 0);
    CHECK_EQ_INT(rpl_last_error(), RPL_OK);  /* this thread's own is untouched */
#ifdef HAVE_LSAN
    CHECK_EQ_INT(__lsan_do_recoverable_leak_check(), 0);
#endif
    rpl_release(serial);
}

int main(void) {
    RUN(test_serial_from_threads);
    RUN(test_background_from_threads);
    RUN(test_cancel_race);
    RUN(test_cancel_during_run);
    RUN(test_repeat_disposed_from_other_thread);
    RUN(test_deliver_on_from_threads);
    RUN(test_dispose_while_delivering);
    RUN(test_throttle_race_with_completion);
    RUN(test_worker_last_error);
    CHECK_DONE();
}
