/* Stress: N threads (default 8) of random sends, subscribes, disposes and
 * operator chains (including hops to a serial scheduler and the background
 * pool) on shared subjects for a given time. Every observer checks
 * the contract as events arrive, from any thread:
 *   - never two callbacks of one subscriber at the same time;
 *   - the grammar: nothing after error or completed;
 *   - nothing after release(ctx), which runs exactly once;
 *   - at the end (every subscription disposed, every handle released) every
 *     observer and operator context has been released exactly once.
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
static rpl_scheduler_t *serial;
static atomic_long violations, events, sends, subscriptions, disposes, released_obs, made_obs;
static atomic_long ctx_made, ctx_released;
static atomic_int stop;

static void violation(const char *what) {
    if (atomic_fetch_add(&violations, 1) < 20) fprintf(stderr, "stress: violation: %s\n", what);
}

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
    atomic_fetch_add(&o->nexts, 1);
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

typedef struct op_ctx { atomic_int released; int k; } op_ctx;
static op_ctx *new_ctx(int k) {
    op_ctx *c = calloc(1, sizeof *c);
    c->k = k;
    atomic_fetch_add(&ctx_made, 1);
    return c;
}
static void ctx_release(void *ctx) {
    op_ctx *c = ctx;
    if (atomic_exchange(&c->released, 1)) violation("operator context released twice");
    atomic_fetch_add(&ctx_released, 1);
    free(c);
}
static rpl_value op_map(void *ctx, const rpl_value *v) { return rpl_int(rpl_value_int(v) + ((op_ctx *)ctx)->k); }
static bool op_pred(void *ctx, const rpl_value *v) { return (rpl_value_int(v) + ((op_ctx *)ctx)->k) % 3 != 0; }
static rpl_value op_sum(void *ctx, const rpl_value *a, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(a) + rpl_value_int(v));
}

static unsigned next_rand(unsigned *s) { *s = *s * 1103515245u + 12345u; return *s >> 8; }

/* A random chain of 0-3 operators over one or two subjects (+1). */
static rpl_signal_t *chain(unsigned *r) {
    rpl_signal_t *s = rpl_retain(rpl_subject_as_signal(subjects[next_rand(r) % NSUBJ]));
    int n = (int)(next_rand(r) % 4);
    for (int i = 0; i < n; i++) {
        rpl_signal_t *t = NULL;
        int k = (int)(next_rand(r) % 100);
        switch (next_rand(r) % 9) {
        case 0: t = rpl_signal_map(s, op_map, new_ctx(k), ctx_release); break;
        case 1: t = rpl_signal_filter(s, op_pred, new_ctx(k), ctx_release); break;
        case 2: t = rpl_signal_take(s, (size_t)(k % 50)); break;
        case 3: t = rpl_signal_scan(s, rpl_int(0), op_sum, new_ctx(k), ctx_release); break;
        case 4: t = rpl_signal_distinct_until_changed(s); break;
        case 5: {
            rpl_signal_t *two[2] = { s, rpl_subject_as_signal(subjects[k % NSUBJ]) };
            t = rpl_signal_merge(two, 2);
            break;
        }
        case 6: {
            rpl_signal_t *two[2] = { s, rpl_subject_as_signal(subjects[k % NSUBJ]) };
            t = rpl_signal_combine_latest(two, 2);
            break;
        }
        /* Hops to worker threads. */
        case 7: t = rpl_signal_deliver_on(s, k % 2 ? serial : rpl_scheduler_background()); break;
        case 8: t = rpl_signal_subscribe_on(s, serial); break;
        }
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
        unsigned op = next_rand(&r) % 10;
        if (op < 6) {
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
            rpl_disposable_dispose(subs[i].d);
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
    for (int i = 0; i < NSUBJ; i++) { rpl_subject_send_completed(subjects[i]); rpl_release(subjects[i]); }
    /* A callback running on a worker thread when its subscription was
       disposed releases the observer when it returns: wait for those (10 s
       at most) before checking and freeing. */
    for (int i = 0; i < 1000 && (atomic_load(&released_obs) != atomic_load(&made_obs) ||
                                 atomic_load(&ctx_released) != atomic_load(&ctx_made)); i++) {
        struct timespec ms = { 0, 10 * 1000 * 1000 };
        nanosleep(&ms, NULL);
    }
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
           "%ld/%ld observers released, %ld unreleased, %ld violations\n",
           nthreads, took, atomic_load(&sends), atomic_load(&events), atomic_load(&subscriptions),
           atomic_load(&disposes), atomic_load(&released_obs), atomic_load(&made_obs), unreleased,
           atomic_load(&violations));
    return atomic_load(&violations) ? 1 : 0;
}
