/* Stress: N threads (default 8) of random sends, subscribes, disposes and
 * operator chains (including hops to a serial scheduler and the background
 * pool) on shared subjects for a given time. Every observer checks
 * the contract as events arrive, from any thread:
 *   - never two callbacks of one subscriber at the same time;
 *   - the grammar: nothing after error or completed;
 *   - nothing after release(ctx), which runs exactly once;
 *   - at the end (every subscription disposed or its handle released, the
 *     subjects completed and released) every observer and operator context
 *     has been released exactly once.
 * The chains include the 0.2 operators (creating, sharing, time on the
 * serial scheduler, transforming, testing, flattening, choosing, combining
 * with a second subject, group_by, deliver_on_bounded, zip, and flatten,
 * bind and flatten_map whose inner signals are the subjects themselves),
 * and the blocking helpers (timeout 0 or a short one) run on such chains
 * while the other threads send; one operator context in four fails its
 * callback through rpl_callback_fail on some values (which must return
 * RPL_OK there, and RPL_ERR_INVALID in observers, start bodies and
 * do_dispose's callback).
 * Prints the figures and exits 1 on any violation.
 *   usage: stress [seconds] [threads]  */
#define _GNU_SOURCE
#include <ripple.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSUBJ 6
#define MAXSUBS 32

typedef struct obs {
    atomic_int in_callback, terminated, released;
    atomic_long nexts;
} obs_t;

static rpl_subject_t *subjects[NSUBJ];
static atomic_long violations, events, sends, subscriptions, disposes, released_obs, made_obs, blocking;
static atomic_long ctx_made, ctx_released;
static atomic_int stop;

static void violation(const char *what) {
    if (atomic_fetch_add(&violations, 1) < 20) fprintf(stderr, "stress: violation: %s\n", what);
}

static void fail_refused(const char *where);
static void enter(obs_t *o, const char *what) {
    if (atomic_load(&o->released)) violation(what);
    if (atomic_load(&o->terminated)) violation("event after a terminal event");
    if (atomic_exchange(&o->in_callback, 1)) violation("two callbacks of one subscriber at once");
}
static void leave(obs_t *o) { atomic_store(&o->in_callback, 0); }

static void on_next(void *ctx, const rpl_value *v) {
    obs_t *o = ctx;
    enter(o, "next after release");
    (void)rpl_value_int(v);
    if (atomic_fetch_add(&o->nexts, 1) % 16 == 0) fail_refused("rpl_callback_fail accepted in on_next");
    atomic_fetch_add(&events, 1);
    leave(o);
}
static void on_error(void *ctx, const rpl_error_t *e) {
    obs_t *o = ctx;
    (void)e;
    enter(o, "error after release");
    atomic_store(&o->terminated, 1);
    leave(o);
}
static void on_completed(void *ctx) {
    obs_t *o = ctx;
    enter(o, "completed after release");
    atomic_store(&o->terminated, 1);
    leave(o);
}
static void on_release(void *ctx) {
    obs_t *o = ctx;
    if (atomic_exchange(&o->released, 1)) violation("release ran twice");
    if (atomic_load(&o->in_callback)) violation("release while a callback runs");
    atomic_fetch_add(&released_obs, 1);
}

typedef struct op_ctx { atomic_int released; int k; int fail; } op_ctx;
static op_ctx *new_ctx(int k) {
    op_ctx *c = calloc(1, sizeof *c);
    c->k = k;
    c->fail = k % 4 == 3;
    atomic_fetch_add(&ctx_made, 1);
    return c;
}
static void ctx_release(void *ctx) {
    op_ctx *c = ctx;
    if (atomic_exchange(&c->released, 1)) violation("operator context released twice");
    atomic_fetch_add(&ctx_released, 1);
    free(c);
}
#define CB(fn, k) fn, new_ctx(k), ctx_release
static atomic_long callback_fails;
/* Inside an operator callback: fail it on some values. */
static void maybe_fail(void *ctx, const rpl_value *v) {
    op_ctx *c = ctx;
    if (atomic_load(&c->released)) violation("operator callback after its context's release");
    if (!c->fail || (rpl_value_int(v) + c->k) % 13 != 0) return;
    if (rpl_callback_fail(rpl_error_create("stress", c->k, "callback failed")) != RPL_OK)
        violation("rpl_callback_fail refused in an operator callback");
    atomic_fetch_add(&callback_fails, 1);
}
static void fail_refused(const char *where) {
    if (rpl_callback_fail(NULL) != RPL_ERR_INVALID) violation(where);
}
static rpl_value op_map(void *ctx, const rpl_value *v) { maybe_fail(ctx, v); return rpl_int(rpl_value_int(v) + ((op_ctx *)ctx)->k); }
static bool op_pred(void *ctx, const rpl_value *v) { maybe_fail(ctx, v); return (rpl_value_int(v) + ((op_ctx *)ctx)->k) % 3 != 0; }
static rpl_value op_sum(void *ctx, const rpl_value *a, const rpl_value *v) {
    maybe_fail(ctx, v);
    return rpl_int(rpl_value_int(a) + rpl_value_int(v));
}
static rpl_value op_bool(void *ctx, const rpl_value *v) { maybe_fail(ctx, v); return rpl_bool(rpl_value_int(v) % 2 == 0); }
static rpl_value op_mod3(void *ctx, const rpl_value *v) { maybe_fail(ctx, v); return rpl_int(rpl_value_int(v) % 3); }
static bool op_equal(void *ctx, const rpl_value *a, const rpl_value *b) {
    maybe_fail(ctx, b);
    return rpl_value_int(a) % 4 == rpl_value_int(b) % 4;
}
/* reduce_each: the sum of the int items, or the last item (a group). */
static rpl_value op_sum_items(void *ctx, const rpl_value *items, size_t n) {
    op_ctx *c = ctx;
    if (n) maybe_fail(ctx, &items[0]);
    if (c->k < 0 && n) return rpl_value_copy(&items[n - 1]);
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += rpl_value_int(&items[i]);
    return rpl_int(sum);
}
static rpl_value op_key(void *ctx, const rpl_value *v) { maybe_fail(ctx, v); return rpl_int(rpl_value_int(v) % 3); }
static void op_do(void *ctx) {
    op_ctx *c = ctx;
    if (atomic_load(&c->released)) violation("operator callback after its context's release");
    if (c->fail && c->k % 8 == 7 && rpl_callback_fail(NULL) != RPL_OK) violation("rpl_callback_fail refused in initially/finally");
}
static void op_do_dispose(void *ctx) {
    if (atomic_load(&((op_ctx *)ctx)->released)) violation("do_dispose after its context's release");
    fail_refused("rpl_callback_fail accepted in do_dispose's callback");
}
static rpl_scheduler_t *serial;
/* A fresh inner signal for v: a range, an array, a value, a timer, nothing. */
static rpl_signal_t *inner_for(int64_t i, int k) {
    switch ((i + k) % 5) {
    case 0: return rpl_signal_range(i, 2);
    case 1: { rpl_value two[2] = { rpl_int(i), rpl_int(k) }; return rpl_signal_from_array(two, 2); }
    case 2: return rpl_signal_return(rpl_int(i));
    case 3: return rpl_signal_timer(20000, serial);
    default: return NULL;
    }
}
static rpl_signal_t *op_concat_map(void *ctx, const rpl_value *v) {
    maybe_fail(ctx, v);
    return inner_for(rpl_value_int(v), ((op_ctx *)ctx)->k);
}
static rpl_value op_to_signal(void *ctx, const rpl_value *v) {
    maybe_fail(ctx, v);
    rpl_signal_t *s = inner_for(rpl_value_int(v), ((op_ctx *)ctx)->k);
    if (!s) return rpl_nil();  /* an empty inner */
    rpl_value sv = rpl_signal_value(s);
    rpl_release(s);
    return sv;
}
/* Flattening over the subjects themselves (their inner subscriptions are
   hub subscriptions, ended by other threads' sends): the subject picked by
   v, as a signal value; bind stops the outer side on some values. */
static rpl_signal_t *subject_for(int64_t i, int k) {
    return rpl_retain(rpl_subject_as_signal(subjects[(size_t)(i + k) % NSUBJ]));
}
static rpl_value op_to_subject(void *ctx, const rpl_value *v) {
    maybe_fail(ctx, v);
    rpl_signal_t *s = subject_for(rpl_value_int(v), ((op_ctx *)ctx)->k);
    rpl_value sv = rpl_signal_value(s);
    rpl_release(s);
    return sv;
}
static rpl_signal_t *op_flatten_map_subject(void *ctx, const rpl_value *v) {
    maybe_fail(ctx, v);
    int64_t i = rpl_value_int(v);
    return i % 3 ? subject_for(i, ((op_ctx *)ctx)->k) : inner_for(i, ((op_ctx *)ctx)->k);
}
static rpl_signal_t *op_bind_subject(void *ctx, const rpl_value *v, bool *stop) {
    maybe_fail(ctx, v);
    int64_t i = rpl_value_int(v);
    if (i % 7 == 0) *stop = true;
    return i % 11 == 0 ? NULL : subject_for(i, ((op_ctx *)ctx)->k);
}
static void op_disposed(void *ctx) { (void)ctx; }
/* start_lazily / start_eagerly: a few values, then completed or an error. */
static rpl_disposable_t *op_start(void *ctx, rpl_subscriber_t *sub) {
    op_ctx *c = ctx;
    fail_refused("rpl_callback_fail accepted in a start body");
    for (int i = 0; i < c->k % 4; i++) rpl_subscriber_send_next(sub, rpl_int(c->k + i));
    if (c->k % 5 == 0) rpl_subscriber_send_error(sub, NULL);
    else rpl_subscriber_send_completed(sub);
    return c->k % 2 ? NULL : rpl_disposable_create_with_release(op_disposed, new_ctx(c->k), ctx_release);
}

static unsigned next_rand(unsigned *s) { *s = *s * 1103515245u + 12345u; return *s >> 8; }

/* A random chain of 0-3 operators over one or more subjects (+1). */
static rpl_signal_t *chain(unsigned *r) {
    rpl_signal_t *s = rpl_retain(rpl_subject_as_signal(subjects[next_rand(r) % NSUBJ]));
    int n = (int)(next_rand(r) % 4);
    for (int i = 0; i < n; i++) {
        rpl_signal_t *t = NULL, *u = NULL, *w = NULL;
        int k = (int)(next_rand(r) % 100);
        rpl_signal_t *other = rpl_subject_as_signal(subjects[k % NSUBJ]);
        switch (next_rand(r) % 41) {
        case 0: t = rpl_signal_map(s, CB(op_map, k)); break;
        case 1: t = rpl_signal_filter(s, CB(op_pred, k)); break;
        case 2: t = rpl_signal_take(s, (size_t)(k % 50)); break;
        case 3: t = rpl_signal_scan(s, rpl_int(0), CB(op_sum, k)); break;
        case 4: t = rpl_signal_distinct_until_changed(s); break;
        case 5: {
            rpl_signal_t *two[2] = { s, other };
            t = rpl_signal_merge(two, 2);
            break;
        }
        case 6: {
            rpl_signal_t *two[2] = { s, other };
            t = rpl_signal_combine_latest(two, 2);
            break;
        }
        /* Hops to worker threads. */
        case 7: t = rpl_signal_deliver_on(s, k % 2 ? serial : rpl_scheduler_background()); break;
        case 8: t = rpl_signal_subscribe_on(s, serial); break;
        /* The 0.2 operators. Transforming and testing. */
        case 9: t = rpl_signal_map_replace(s, rpl_int(k)); break;
        case 10: t = k % 5 ? rpl_signal_ignore(s, rpl_int(k)) : rpl_signal_ignore_values(s); break;
        case 11: t = rpl_signal_combine_previous(s, rpl_int(k), CB(op_sum, k)); break;
        case 12: t = rpl_signal_distinct_until_changed_with(s, CB(op_equal, k)); break;
        case 13: u = rpl_signal_buffer(s, 1 + (size_t)(k % 3)); t = rpl_signal_reduce_each(u, CB(op_sum_items, k)); break;
        case 14: t = k % 2 ? rpl_signal_any(s, CB(op_pred, k)) : rpl_signal_all(s, CB(op_pred, k)); break;
        case 15: t = rpl_signal_default_if_empty(s, rpl_int(k)); break;
        case 16: t = k % 3 == 0 ? rpl_signal_initially(s, CB(op_do, k))
                   : k % 3 == 1 ? rpl_signal_finally(s, CB(op_do, k)) : rpl_signal_do_dispose(s, CB(op_do_dispose, k)); break;
        case 17: {
            u = rpl_signal_map(s, CB(op_bool, k));
            if (k % 3 == 0) t = rpl_signal_not(u);
            else {
                w = rpl_signal_buffer(u, 2);
                t = k % 3 == 1 ? rpl_signal_and(w) : rpl_signal_or(w);
            }
            break;
        }
        /* Time (real, short) on the serial scheduler or the clock. */
        case 18: t = rpl_signal_throttle_first(s, 50000, k % 2 ? serial : rpl_scheduler_immediate()); break;
        case 19: t = rpl_signal_throttle_if(s, 100000, serial, CB(op_pred, k)); break;
        case 20: u = rpl_signal_buffer_with_time(s, 200000, serial); t = rpl_signal_reduce_each(u, CB(op_sum_items, k)); break;
        case 21: t = rpl_signal_delay_subscription(s, 100000, serial); break;
        case 22: t = rpl_signal_share(s, (size_t)(k % 3)); break;
        /* With a second subject. */
        case 23: u = rpl_signal_with_latest_from(s, other); t = rpl_signal_reduce_each(u, CB(op_sum_items, k)); break;
        case 24: t = rpl_signal_sample(s, other); break;
        case 25: t = rpl_signal_take_until_replacement(s, other); break;
        case 26: t = rpl_signal_skip_until(s, other); break;
        case 27: t = rpl_signal_switch_if_empty(s, other); break;
        /* Flattening, choosing, grouping. */
        case 28: t = rpl_signal_concat_map(s, CB(op_concat_map, k)); break;
        case 29: u = rpl_signal_map(s, CB(op_to_signal, k)); t = k % 4 == 3 ? rpl_signal_concat_all(u) : rpl_signal_flatten_max(u, (size_t)(k % 3)); break;
        case 30: {
            /* (key, group) tuples -> the groups -> their values */
            u = rpl_signal_group_by(s, CB(op_key, k));
            w = rpl_signal_reduce_each(u, CB(op_sum_items, -1 - k));
            t = rpl_signal_flatten_max(w, (size_t)(k % 3));
            break;
        }
        case 31: {
            u = rpl_signal_map(s, CB(op_bool, k));
            t = rpl_signal_if(u, other, rpl_subject_as_signal(subjects[(k + 1) % NSUBJ]));
            break;
        }
        case 32: {
            u = rpl_signal_map(s, CB(op_mod3, k));
            rpl_value keys[2] = { rpl_int(0), rpl_int(1) };
            rpl_signal_t *cases[2] = { other, rpl_subject_as_signal(subjects[(k + 1) % NSUBJ]) };
            t = rpl_signal_switch_cases(u, keys, cases, 2, k % 2 ? rpl_subject_as_signal(subjects[(k + 2) % NSUBJ]) : NULL);
            break;
        }
        /* Creating, merged in. */
        case 33: {
            rpl_scheduler_t *on = k % 3 == 0 ? rpl_scheduler_immediate() : serial;
            u = k % 2 ? rpl_signal_start_lazily(on, CB(op_start, k)) : rpl_signal_start_eagerly(on, CB(op_start, k));
            rpl_signal_t *two[2] = { s, u };
            t = rpl_signal_merge(two, 2);
            break;
        }
        case 34: {
            rpl_value vs[3] = { rpl_int(k), rpl_int(k + 1), rpl_int(k + 2) };
            u = k % 2 ? rpl_signal_from_array(vs, 3) : rpl_signal_range(k, 3);
            if (k % 2 == 0) for (int j = 0; j < 3; j++) rpl_value_release(&vs[j]);
            t = rpl_signal_concat(u, s);
            break;
        }
        case 35: {
            u = rpl_signal_timer(100000, serial);
            rpl_signal_t *two[2] = { s, u };
            t = rpl_signal_merge(two, 2);
            break;
        }
        /* Flattening over subjects (issue 21, defect 3). */
        case 36: u = rpl_signal_map(s, CB(op_to_subject, k)); t = rpl_signal_flatten(u); break;
        case 37: t = rpl_signal_bind(s, CB(op_bind_subject, k)); break;
        case 38: t = rpl_signal_flatten_map(s, CB(op_flatten_map_subject, k)); break;
        /* A bounded hop (every policy) and zip: the shapes next to which a
           blocking helper's dispose once seemed to lose a release. */
        case 39: t = rpl_signal_deliver_on_bounded(s, k % 2 ? serial : rpl_scheduler_background(),
                                                   1 + (size_t)(k % 3), (rpl_overflow)(k / 2 % 4)); break;
        case 40: {
            rpl_signal_t *two[2] = { s, other };
            t = rpl_signal_zip(two, 2);
            break;
        }
        }
        rpl_release(w);
        rpl_release(u);
        rpl_release(s);
        s = t;
        if (!s) { violation("operator failed"); return NULL; }
    }
    return s;
}

typedef struct sub { rpl_disposable_t *d; obs_t *o; } sub_t;

static void *worker(void *arg) {
    unsigned r = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    sub_t subs[MAXSUBS];
    int nsubs = 0;
    obs_t **all = NULL;
    size_t nall = 0, capall = 0;
    while (!atomic_load(&stop)) {
        unsigned op = next_rand(&r) % 11;
        if (op == 10) {
            /* A blocking helper with timeout 0 or a short one on a chain
               (defect 3's shape) while the other threads send: it
               subscribes, gives up at once or soon, and disposes. */
            static const uint64_t timeouts[4] = { 0, 0, 20000, 200000 };
            rpl_signal_t *s = chain(&r);
            if (!s) continue;
            rpl_value v = rpl_nil();
            uint64_t t = timeouts[next_rand(&r) % 4];
            switch (next_rand(&r) % 3) {
            case 0: (void)rpl_signal_first(s, &v, t); break;
            case 1: (void)rpl_signal_wait(s, t); break;
            default: (void)rpl_signal_to_array(s, &v, t); break;
            }
            rpl_value_release(&v);
            rpl_release(s);
            atomic_fetch_add(&blocking, 1);
        } else if (op < 6) {
            rpl_subject_send_next(subjects[next_rand(&r) % NSUBJ], rpl_int((int64_t)(next_rand(&r) % 1000)));
            atomic_fetch_add(&sends, 1);
        } else if (op < 8 && nsubs < MAXSUBS) {
            rpl_signal_t *s = chain(&r);
            if (!s) continue;
            obs_t *o = calloc(1, sizeof *o);
            if (nall == capall) { capall = capall ? capall * 2 : 64; all = realloc(all, capall * sizeof *all); }
            all[nall++] = o;
            rpl_observer ob = RPL_OBSERVER_INIT;
            ob.on_next = on_next; ob.on_error = on_error; ob.on_completed = on_completed;
            ob.release = on_release; ob.ctx = o;
            atomic_fetch_add(&made_obs, 1);
            rpl_disposable_t *d = rpl_signal_subscribe(s, &ob);
            rpl_release(s);
            if (!d) { violation("subscribe failed"); continue; }
            subs[nsubs++] = (sub_t){ d, o };
            atomic_fetch_add(&subscriptions, 1);
        } else if (nsubs > 0) {
            int i = (int)(next_rand(&r) % (unsigned)nsubs);
            /* One in sixteen handles is released without a dispose: the
               subscription then lives while its sources can reach it. */
            if (next_rand(&r) % 16) rpl_disposable_dispose(subs[i].d);
            rpl_release(subs[i].d);
            subs[i] = subs[--nsubs];
            atomic_fetch_add(&disposes, 1);
        }
    }
    for (int i = 0; i < nsubs; i++) { rpl_disposable_dispose(subs[i].d); rpl_release(subs[i].d); }
    /* Hand the observers back for the final check (freed by main). */
    all = realloc(all, (nall + 1) * sizeof *all);
    all[nall] = NULL;
    return all;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    int nthreads = argc > 2 ? atoi(argv[2]) : 8;
    if (nthreads < 1 || nthreads > 64) nthreads = 8;
    serial = rpl_scheduler_create_serial("stress");
    for (int i = 0; i < NSUBJ; i++) subjects[i] = i % 3 == 2 ? rpl_behavior_subject_create(rpl_int(i)) : rpl_subject_create();
    pthread_t th[64];
    double t0 = now_s();
    for (int i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    struct timespec pause = { 0, 50 * 1000 * 1000 };
    while (now_s() - t0 < seconds) nanosleep(&pause, NULL);
    atomic_store(&stop, 1);
    obs_t **lists[64];
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], (void **)&lists[i]);
    double took = now_s() - t0;
    /* Completed, not yet released: a callback still running (a timer's, on
       the serial scheduler) may pick a subject as an inner signal. */
    for (int i = 0; i < NSUBJ; i++) rpl_subject_send_completed(subjects[i]);
    /* A callback running on a worker thread when its subscription was
       disposed releases the observer when it returns: wait for those (10 s
       at most) before checking and freeing. */
    for (int i = 0; i < 1000 && (atomic_load(&released_obs) != atomic_load(&made_obs) ||
                                 atomic_load(&ctx_released) != atomic_load(&ctx_made)); i++) {
        struct timespec ms = { 0, 10 * 1000 * 1000 };
        nanosleep(&ms, NULL);
    }
    for (int i = 0; i < NSUBJ; i++) rpl_release(subjects[i]);
    rpl_release(serial);
    long unreleased = 0;
    for (int i = 0; i < nthreads; i++) {
        for (obs_t **p = lists[i]; *p; p++) {
            if (atomic_load(&(*p)->released) != 1) unreleased++;
            free(*p);
        }
        free(lists[i]);
    }
    if (unreleased) violation("an observer was never released");
    if (atomic_load(&ctx_made) != atomic_load(&ctx_released)) violation("an operator context was never released");
    printf("stress: %d threads x %.1f s: %ld sends, %ld events delivered, %ld subscriptions, %ld disposes, "
           "%ld/%ld observers released, %ld unreleased, %ld/%ld contexts released, %ld callback failures, "
           "%ld blocking calls, %ld violations\n",
           nthreads, took, atomic_load(&sends), atomic_load(&events), atomic_load(&subscriptions),
           atomic_load(&disposes), atomic_load(&released_obs), atomic_load(&made_obs), unreleased,
           atomic_load(&ctx_released), atomic_load(&ctx_made), atomic_load(&callback_fails),
           atomic_load(&blocking), atomic_load(&violations));
    return atomic_load(&violations) ? 1 : 0;
}
