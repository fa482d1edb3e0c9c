/* Reliability (issue 10): hostile sizes, out of memory, fork, the end of the
   virtual clock and deep values. Each test is a repro that crashed, hung or
   corrupted memory before its fix. */
#define _GNU_SOURCE
#include "check.h"
#include <ripple.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

/* Sanitizer allocators abort when they run out of memory unless told
   otherwise; the out-of-memory tests need malloc to return NULL. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "allocator_may_return_null=1:die_after_fork=0"; }

static int under_valgrind(void) {
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "valgrind") != NULL;
}

#define CHECK_FAILED_WITH(status) do { \
    CHECK_EQ_INT(rpl_last_error(), (status)); \
    CHECK(rpl_last_error_message()[0] != '\0'); \
} while (0)

static int is_nil(rpl_value v) { return rpl_value_type(&v) == RPL_TYPE_NIL; }

/* Waits for child pid at most seconds; kills it if it is still running.
   Returns its exit status (as waitpid), or -1 when it had to be killed. */
static int wait_child(pid_t pid, int seconds) {
    struct timespec pause = { 0, 5 * 1000 * 1000 };
    for (long i = 0; i < seconds * 200L; i++) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return st;
        if (r < 0 && errno != EINTR) return -2;
        nanosleep(&pause, NULL);
    }
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    return -1;
}

/* --- D1: lengths above PTRDIFF_MAX --------------------------------------- */

static void test_huge_lengths(void) {
    const size_t huge[] = { SIZE_MAX, (size_t)PTRDIFF_MAX + 1, SIZE_MAX / 2 + 12345 };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        CHECK(is_nil(rpl_string_n("abc", huge[i])));
        CHECK_FAILED_WITH(RPL_ERR_INVALID);
        CHECK(is_nil(rpl_bytes("abc", huge[i])));
        CHECK_FAILED_WITH(RPL_ERR_INVALID);
        CHECK(is_nil(rpl_bytes(NULL, huge[i])));
        CHECK(rpl_last_error() != RPL_OK);
        CHECK(is_nil(rpl_string_n(NULL, huge[i])));
        CHECK(rpl_last_error() != RPL_OK);
    }
    /* The ordinary cases still work, including embedded NULs and length 0. */
    rpl_value s = rpl_string_n("a\0b", 3);
    size_t len = 99;
    const char *p = rpl_value_string(&s, &len);
    CHECK(p != NULL && len == 3 && p[0] == 'a' && p[1] == '\0' && p[2] == 'b' && p[3] == '\0');
    rpl_value_release(&s);
    rpl_value e = rpl_bytes(NULL, 0);
    CHECK(rpl_value_type(&e) == RPL_TYPE_BYTES);
    rpl_value_bytes(&e, &len);
    CHECK_EQ_INT(len, 0);
    rpl_value_release(&e);
    rpl_value z = rpl_string_n(NULL, 0);
    CHECK(rpl_value_type(&z) == RPL_TYPE_STRING);
    rpl_value_release(&z);
}

/* --- D2: tuple counts no array can have ---------------------------------- */

static void test_huge_tuple_counts(void) {
    const size_t huge[] = { SIZE_MAX, SIZE_MAX / 16 + 1, (size_t)PTRDIFF_MAX / sizeof(rpl_value) + 1 };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        /* Boxed items: were they read or released, valgrind and ASan would
           see it (the array has two elements). */
        rpl_value items[2] = { rpl_string("x"), rpl_string("y") };
        CHECK(is_nil(rpl_tuple(items, huge[i])));
        CHECK_FAILED_WITH(RPL_ERR_INVALID);
        CHECK(rpl_value_type(&items[0]) == RPL_TYPE_STRING);  /* not consumed */
        rpl_value_release(&items[0]);
        rpl_value_release(&items[1]);
        CHECK(is_nil(rpl_tuple(NULL, huge[i])));
        CHECK(rpl_last_error() != RPL_OK);
    }
    rpl_value items[2] = { rpl_int(1), rpl_string("y") };
    rpl_value t = rpl_tuple(items, 2);
    CHECK_EQ_INT(rpl_value_tuple_count(&t), 2);
    rpl_value_release(&t);
}

/* --- D6: allocation failure gives nil, not an abort ---------------------- */

#define BIG ((size_t)512 << 20)

/* In a child: limits the address space to what is mapped now plus a little,
   then asks for 512 MiB copies. Exit code: 0 all nil with RPL_ERR_NOMEM,
   10+ which check failed. */
static int oom_child(void) {
    /* Sources mapped before the limit: zero pages read as nil rpl_values and
       as bytes, and never need real memory. */
    size_t tuple_count = BIG / sizeof(rpl_value);
    void *src = mmap(NULL, BIG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (src == MAP_FAILED) return 2;
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1) return 3;
    fclose(f);
    struct rlimit lim;
    lim.rlim_cur = lim.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
    if (setrlimit(RLIMIT_AS, &lim) != 0) return 4;

    rpl_value v = rpl_bytes(src, BIG);
    if (!is_nil(v) || rpl_last_error() != RPL_ERR_NOMEM) return 10;
    v = rpl_string_n(src, BIG);
    if (!is_nil(v) || rpl_last_error() != RPL_ERR_NOMEM) return 11;
    v = rpl_tuple(src, tuple_count);
    if (!is_nil(v) || rpl_last_error() != RPL_ERR_NOMEM) return 12;
    /* Small values still work under the limit. */
    v = rpl_string("still fine");
    if (rpl_value_type(&v) != RPL_TYPE_STRING) return 13;
    rpl_value_release(&v);
    return 0;
}

static void test_out_of_memory(void) {
    if (under_valgrind()) {
        fprintf(stderr, "    skipped: valgrind manages the address space itself (RLIMIT_AS)\n");
        return;
    }
#if defined(UNDER_TSAN)
    fprintf(stderr, "    skipped: TSan's shadow mappings do not fit under RLIMIT_AS\n");
    return;
#endif
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(oom_child());
    CHECK(pid > 0);
    int st = wait_child(pid, 60);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        fprintf(stderr, "    oom child: status %d (exit %d, signal %d)\n", st,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* --- D7: the top of the virtual clock ------------------------------------- */

static void count_tick(void *ctx) { (*(int *)ctx)++; }
static void count_next(void *ctx, const rpl_value *v) { (void)v; (*(int *)ctx)++; }

static void test_clock_top(void) {
    /* interval UINT64_MAX: the second occurrence is past the end of time. */
    rpl_scheduler_t *s = rpl_test_scheduler_create();
    int ticks = 0;
    rpl_disposable_t *d = rpl_scheduler_repeat(s, 10, UINT64_MAX, count_tick, &ticks, NULL);
    CHECK(d != NULL);
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(s, UINT64_MAX), RPL_OK);
    CHECK_EQ_INT(ticks, 1);
    CHECK_EQ_INT(rpl_scheduler_now(s), UINT64_MAX);
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(s, 1000), RPL_OK);
    CHECK_EQ_INT(ticks, 1);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(s);

    /* A small interval that reaches the top exactly, then cannot go on. */
    s = rpl_test_scheduler_create();
    ticks = 0;
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(s, UINT64_MAX - 25), RPL_OK);
    d = rpl_scheduler_repeat(s, 5, 10, count_tick, &ticks, NULL);
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(s, UINT64_MAX), RPL_OK);
    CHECK_EQ_INT(ticks, 3);  /* at top-20, top-10, top */
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(s);

    /* The interval operator, and repeat's delay saturating at the top. */
    s = rpl_test_scheduler_create();
    int nexts = 0;
    rpl_signal_t *iv = rpl_signal_interval(UINT64_MAX, s);
    rpl_disposable_t *sub = rpl_signal_subscribe_next(iv, count_next, &nexts);
    ticks = 0;
    rpl_disposable_t *d2 = rpl_scheduler_repeat(s, UINT64_MAX, 1, count_tick, &ticks, NULL);
    CHECK_EQ_INT(rpl_test_scheduler_advance_by(s, UINT64_MAX), RPL_OK);
    CHECK_EQ_INT(nexts, 1);
    CHECK_EQ_INT(ticks, 1);
    CHECK_EQ_INT(rpl_test_scheduler_run(s), RPL_OK);  /* nothing left pending */
    rpl_disposable_dispose(sub);
    rpl_disposable_dispose(d2);
    rpl_release(sub);
    rpl_release(d2);
    rpl_release(iv);
    rpl_release(s);
}

/* --- D8: deep tuples ---------------------------------------------------- */

static rpl_value deep_tuple(long depth, const char *leaf) {
    rpl_value t = rpl_string(leaf);
    for (long i = 0; i < depth; i++) {
        rpl_value pair[2] = { t, rpl_int(i) };
        t = rpl_tuple(pair, 2);
    }
    return t;
}

static void test_deep_tuples(void) {
    long depth = 200000;
    rpl_value a = deep_tuple(depth, "leaf");
    rpl_value b = deep_tuple(depth, "leaf");
    rpl_value c = deep_tuple(depth, "other");
    CHECK(rpl_value_equal(&a, &b));
    CHECK(!rpl_value_equal(&a, &c));
    /* A deep tuple shared by two parents, released in either order. */
    rpl_value shared = rpl_value_copy(&a);
    rpl_value two[2] = { rpl_value_copy(&a), rpl_value_copy(&b) };
    rpl_value both = rpl_tuple(two, 2);
    rpl_value_release(&a);
    rpl_value_release(&both);
    rpl_value_release(&b);
    CHECK_EQ_INT(rpl_value_tuple_count(&shared), 2);
    rpl_value_release(&shared);
    rpl_value_release(&c);
    CHECK(is_nil(shared));
}

/* --- D3: fork without exec ------------------------------------------------ */

static pthread_barrier_t fork_barrier;

static void add_next(void *ctx, const rpl_value *v) { *(int64_t *)ctx += rpl_value_int(v); }
static rpl_value twice(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(2 * rpl_value_int(v)); }

/* First use of the runtime in the child, from two threads at once: the
   runtime's one-time initializations take its locks under contention. */
static void bump(void *ctx) { atomic_fetch_add((atomic_int *)ctx, 1); }

/* Runs one job on the background pool and waits for it (10 s at most). */
static int background_job_runs(void) {
    atomic_int ran = 0;
    rpl_disposable_t *d = rpl_scheduler_schedule(rpl_scheduler_background(), bump, &ran, NULL);
    struct timespec pause = { 0, 1000 * 1000 };
    for (int i = 0; i < 10000 && !atomic_load(&ran); i++) nanosleep(&pause, NULL);
    rpl_release(d);
    return atomic_load(&ran) == 1;
}

static void *fork_worker(void *arg) {
    (void)arg;
    pthread_barrier_wait(&fork_barrier);
    /* The pool's workers stayed in the parent: the child's pool starts its own. */
    if (!background_job_runs()) return NULL;
    int64_t sum = 0;
    for (int round = 0; round < 20; round++) {
        rpl_subject_t *subj = rpl_subject_create();
        rpl_signal_t *m = rpl_signal_map(rpl_subject_as_signal(subj), twice, NULL, NULL);
        rpl_disposable_t *d = rpl_signal_subscribe_next(m, add_next, &sum);
        for (int i = 1; i <= 10; i++) rpl_subject_send_next(subj, rpl_int(i));
        rpl_value t = deep_tuple(3, "x");
        rpl_value_release(&t);
        rpl_scheduler_t *ts = rpl_test_scheduler_create();
        rpl_release(ts);
        rpl_disposable_dispose(d);
        rpl_release(d);
        rpl_release(m);
        rpl_release(subj);
    }
    return (void *)(intptr_t)(sum == 20 * 110);
}

static int fork_child(void) {
    pthread_t th;
    if (pthread_barrier_init(&fork_barrier, NULL, 2) != 0) return 2;
    if (pthread_create(&th, NULL, fork_worker, NULL) != 0) return 3;
    void *mine = fork_worker(NULL);
    void *theirs = NULL;
    pthread_join(th, &theirs);
    return mine && theirs ? 0 : 4;
}

static void test_fork(void) {
    int children = (int)test_scale(40, 4);
    int ok = 0;
    for (int i = 0; i < children; i++) {
        /* The first children fork before this process used Ripple at all
           (the runtime was only loaded), the rest after. */
        if (i == children / 2) {
            int64_t sum = 0;
            rpl_subject_t *subj = rpl_subject_create();
            rpl_disposable_t *d = rpl_signal_subscribe_next(rpl_subject_as_signal(subj), add_next, &sum);
            rpl_subject_send_next(subj, rpl_int(1));
            CHECK_EQ_INT(sum, 1);
            CHECK(background_job_runs());
            rpl_release(d);
            rpl_release(subj);
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) _exit(fork_child());
        int st = wait_child(pid, 30);
        if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) ok++;
        else fprintf(stderr, "    child %d: %s (status %d)\n", i, st == -1 ? "hung, killed" : "failed", st);
    }
    CHECK_EQ_INT(ok, children);
}

/* An argument runs only the tests whose name contains it. */
static const char *only;
#define RUN_SOME(fn) do { if (!only || strstr(#fn, only)) RUN(fn); } while (0)

/* D5: disposing your own subscription from on_next, while an operator emits
   from the source's terminal event (take_last, collect, aggregate,
   materialize), ends delivery: nothing arrives after dispose returned. */
typedef struct {
    rpl_disposable_t *self;
    int nexts, completed, errors, released, after_dispose;
    int disposed;
} d5_t;
static void d5_next(void *ctx, const rpl_value *v) {
    (void)v;
    d5_t *c = ctx;
    if (c->disposed) c->after_dispose++;
    c->nexts++;
    rpl_disposable_dispose(c->self);
    c->disposed = 1;
}
static void d5_error(void *ctx, const rpl_error_t *e) { (void)e; d5_t *c = ctx; c->after_dispose += c->disposed; c->errors++; }
static void d5_completed(void *ctx) { d5_t *c = ctx; c->after_dispose += c->disposed; c->completed++; }
static void d5_release(void *ctx) { ((d5_t *)ctx)->released++; }
static rpl_value d5_add(void *ctx, const rpl_value *a, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(a) + rpl_value_int(v));
}
static void test_no_events_after_dispose(void) {
    for (int k = 0; k < 5; k++) {
        rpl_subject_t *s = rpl_subject_create();
        rpl_signal_t *src = (rpl_signal_t *)s;
        rpl_signal_t *inner = k == 4 ? rpl_signal_materialize(src) : NULL;
        rpl_signal_t *op = k == 0 ? rpl_signal_take_last(src, 3)
                         : k == 1 ? rpl_signal_collect(src)
                         : k == 2 ? rpl_signal_aggregate(src, rpl_int(0), d5_add, NULL, NULL)
                         : k == 3 ? rpl_signal_materialize(src)
                                  : rpl_signal_take_last(inner, 3);
        d5_t c;
        memset(&c, 0, sizeof c);
        rpl_observer o = observer_of(d5_next, d5_error, d5_completed, d5_release, &c);
        c.self = rpl_signal_subscribe(op, &o);
        if (k == 3) {
            /* materialize sends each event at once: the first value ends it */
            rpl_subject_send_next(s, rpl_int(1));
            rpl_subject_send_next(s, rpl_int(2));
        } else {
            for (int i = 1; i <= 3; i++) rpl_subject_send_next(s, rpl_int(i));
            rpl_subject_send_completed(s);
        }
        CHECK_EQ_INT(c.nexts, 1);
        CHECK_EQ_INT(c.after_dispose, 0);
        CHECK_EQ_INT(c.completed, 0);
        CHECK_EQ_INT(c.errors, 0);
        CHECK_EQ_INT(c.released, 1);
        rpl_release(op);
        rpl_release(inner);
        rpl_release(c.self);
        rpl_release(s);
    }
}

/* D4: repeat, retry, concat, then and catch_to of a subject with itself
   (also through an operator) keep nothing in a cycle: once every handle is
   released, the subscription ends and its release runs. A subject that has
   ended still gives late subscribers its terminal event, and a replay
   subject nobody can send into still replays what it kept. */
static int d4_released;
static void d4_release(void *ctx) { (void)ctx; d4_released++; }
static rpl_value d4_id(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_copy(v); }
static void d4_count_next(void *ctx, const rpl_value *v) { (void)v; (*(int *)ctx)++; }
/* The five operators with x twice, and concat(other, x). */
static rpl_signal_t *d4_op(int k, rpl_signal_t *x, rpl_signal_t *other) {
    return k == 0 ? rpl_signal_repeat(x, 3)
         : k == 1 ? rpl_signal_retry(x, 3)
         : k == 2 ? rpl_signal_concat(x, x)
         : k == 3 ? rpl_signal_then(x, x)
         : k == 4 ? rpl_signal_catch_to(x, x)
                  : rpl_signal_concat(other, x);
}
/* Subscribes to op (counting values into *nexts) and sends 1 into s. */
static rpl_disposable_t *d4_subscribe(rpl_signal_t *op, rpl_subject_t *s, int *nexts) {
    d4_released = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = d4_count_next;
    o.ctx = nexts;
    o.release = d4_release;
    rpl_disposable_t *d = rpl_signal_subscribe(op, &o);
    CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(1)), RPL_OK);
    return d;
}
/* Subscribes to d4_op(k, x, other), sends 1 into s, and releases the
   operator and the subscription's handle. */
static void d4_case(int k, rpl_subject_t *s, rpl_signal_t *x, rpl_signal_t *other) {
    rpl_signal_t *op = d4_op(k, x, other);
    int nexts = 0;
    rpl_release(d4_subscribe(op, s, &nexts));
    rpl_release(op);
}
static void test_no_cycles_through_subjects(void) {
    for (int k = 0; k < 6; k++) {
        rpl_subject_t *s = rpl_subject_create();
        rpl_signal_t *src = (rpl_signal_t *)s;
        rpl_signal_t *m = rpl_signal_map(src, d4_id, NULL, NULL);
        d4_case(k, s, src, m);
        rpl_release(m);
        CHECK_EQ_INT(d4_released, 0);  /* the subject can still send */
        rpl_release(s);
        CHECK_EQ_INT(d4_released, 1);  /* now nothing can: it ends */
    }
    /* A completed subject kept only by an operator: late subscribers still
       get the completion. */
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *m = rpl_signal_map((rpl_signal_t *)s, d4_id, NULL, NULL);
    rpl_subject_send_completed(s);
    rpl_release(s);
    CHECK_EQ_INT(rpl_signal_wait(m, RPL_FOREVER), RPL_OK);
    rpl_release(m);
    /* A replay subject nobody can send into: its replay, then the end. */
    rpl_subject_t *r = rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    rpl_subject_send_next(r, rpl_int(7));
    rpl_subject_send_next(r, rpl_int(8));
    rpl_signal_t *rm = rpl_signal_map((rpl_signal_t *)r, d4_id, NULL, NULL);
    rpl_release(r);
    rpl_value first;
    CHECK_EQ_INT(rpl_signal_first(rm, &first, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT(rpl_value_int(&first), 7);
    rpl_release(rm);
}

/* D4 through multicast connections: the same operators over a signal with
   an autoconnect upstream, e.g. then(map(autoconnect(c)), ...). Their state
   keeps the signal to subscribe later; through autoconnect that reaches the
   connection and its subject, whose subscribers include that very
   subscription. Once nothing can send into the subject any more - its source
   and every handle that could connect it are gone - the subscription ends
   and its release runs; while any of them is held, it lives. */
static void test_no_cycles_through_connections(void) {
    for (int variant = 0; variant < 3; variant++)
    for (int k = 0; k < 6; k++) {
        rpl_subject_t *s = rpl_subject_create();   /* the hot source */
        rpl_subject_t *r = variant == 2 ? rpl_replay_subject_create(1) : NULL;
        rpl_connection_t *c = r ? rpl_signal_multicast((rpl_signal_t *)s, r) : rpl_signal_publish((rpl_signal_t *)s);
        rpl_signal_t *a = rpl_connection_autoconnect(c);
        rpl_signal_t *m = rpl_signal_map(a, d4_id, NULL, NULL);
        rpl_signal_t *op = d4_op(k, m, a);
        int nexts = 0;
        rpl_disposable_t *d = d4_subscribe(op, s, &nexts);
        const int each = k == 3 ? 0 : 1;   /* then ignores the first signal's values */
        CHECK_EQ_INT(nexts, each);
        rpl_release(d);
        rpl_release(op);
        rpl_release(m);
        rpl_release(a);
        if (variant == 1) {
            /* The connection's handle can connect again: it keeps the
               subscription, even with the source gone. */
            rpl_release(s);
            CHECK_EQ_INT(d4_released, 0);
            rpl_release(c);
            CHECK_EQ_INT(d4_released, 1);
            continue;
        }
        rpl_release(c);
        CHECK_EQ_INT(rpl_subject_send_next(s, rpl_int(2)), RPL_OK);  /* still connected */
        CHECK_EQ_INT(nexts, 2 * each);
        CHECK_EQ_INT(d4_released, 0);
        rpl_release(s);
        if (r) {  /* the multicast subject can still send */
            CHECK_EQ_INT(d4_released, 0);
            CHECK_EQ_INT(rpl_subject_send_next(r, rpl_int(3)), RPL_OK);
            CHECK_EQ_INT(nexts, 3 * each);
            rpl_release(r);
        }
        CHECK_EQ_INT(d4_released, 1);  /* now nothing can: it ends */
    }
    /* replay_lazily: connected for good on its first subscription; the
       same operators over it keep nothing in a cycle. */
    for (int k = 0; k < 6; k++) {
        rpl_subject_t *s = rpl_subject_create();
        rpl_signal_t *l = rpl_signal_replay_lazily((rpl_signal_t *)s);
        rpl_signal_t *m = rpl_signal_map(l, d4_id, NULL, NULL);
        d4_case(k, s, m, l);
        rpl_release(m);
        rpl_release(l);
        CHECK_EQ_INT(d4_released, 0);  /* the source can still send */
        rpl_release(s);
        CHECK_EQ_INT(d4_released, 1);
    }
    /* The common C pattern still works: release the connection and the
       autoconnect handle right after building the chain, subscribe later. */
    rpl_subject_t *s = rpl_subject_create();
    rpl_connection_t *c = rpl_signal_publish((rpl_signal_t *)s);
    rpl_signal_t *a = rpl_connection_autoconnect(c);
    rpl_release(c);
    rpl_signal_t *m = rpl_signal_map(a, d4_id, NULL, NULL);
    rpl_release(a);
    for (int round = 0; round < 2; round++) {   /* connects, disconnects, connects again */
        int nexts = 0;
        rpl_disposable_t *d = d4_subscribe(m, s, &nexts);
        CHECK_EQ_INT(rpl_subject_subscriber_count(s), 1);
        CHECK_EQ_INT(nexts, 1);
        rpl_disposable_dispose(d);
        rpl_release(d);
        CHECK_EQ_INT(d4_released, 1);
        CHECK_EQ_INT(rpl_subject_subscriber_count(s), 0);
    }
    rpl_release(m);
    rpl_release(s);
}

/* Magic words: every handle starts with its kind's 32-bit magic word, which
   every entry point checks and freeing poisons. Zero-filled memory and a
   stray pointer are refused with RPL_ERR_KIND (before, a zeroed block passed
   as a signal: rpl_signal_take(zeroed, 1) succeeded). */
static void magic_release(void *ctx) { (*(int *)ctx)++; }
static void magic_action(void *ctx) { (void)ctx; }
static void test_handle_magic(void) {
    static _Alignas(16) unsigned char zeroed[512];
    static _Alignas(16) unsigned char junk[512];
    memset(junk, 0xA5, sizeof junk);
    void *bad[2] = { zeroed, junk };
    for (int i = 0; i < 2; i++) {
        void *p = bad[i];
        CHECK(rpl_signal_take((rpl_signal_t *)p, 1) == NULL);
        CHECK_FAILED_WITH(RPL_ERR_KIND);
        CHECK(strstr(rpl_last_error_message(), "not a Ripple handle") != NULL);
        CHECK(rpl_signal_map((rpl_signal_t *)p, NULL, NULL, NULL) == NULL);
        CHECK_FAILED_WITH(RPL_ERR_KIND);
        CHECK_EQ_INT(rpl_subject_send_next((rpl_subject_t *)p, rpl_int(1)), RPL_ERR_KIND);
        CHECK_EQ_INT(rpl_subscriber_send_next((rpl_subscriber_t *)p, rpl_string("consumed")), RPL_ERR_KIND);
        CHECK_EQ_INT(rpl_disposable_dispose((rpl_disposable_t *)p), RPL_ERR_KIND);
        CHECK(rpl_disposable_is_disposed((rpl_disposable_t *)p) == false);
        CHECK(rpl_scheduler_schedule((rpl_scheduler_t *)p, magic_action, NULL, NULL) == NULL);
        CHECK_FAILED_WITH(RPL_ERR_KIND);
        CHECK(rpl_connection_connect((rpl_connection_t *)p) == NULL);
        CHECK_FAILED_WITH(RPL_ERR_KIND);
        CHECK_EQ_INT(rpl_error_code((rpl_error_t *)p), 0);
        int released = 0;
        rpl_observer o = RPL_OBSERVER_INIT;
        o.ctx = &released;
        o.release = magic_release;
        CHECK(rpl_signal_subscribe((rpl_signal_t *)p, &o) == NULL);
        CHECK_FAILED_WITH(RPL_ERR_KIND);
        CHECK_EQ_INT(released, 1);
        CHECK(rpl_retain(p) == NULL);
        CHECK_FAILED_WITH(RPL_ERR_KIND);
        rpl_release(p);  /* refused, nothing touched */
        CHECK_FAILED_WITH(RPL_ERR_KIND);
        CHECK_EQ_INT(rpl_callback_fail((rpl_error_t *)p), RPL_ERR_KIND);
    }
    /* Nothing was written into them. */
    for (size_t i = 0; i < sizeof zeroed; i++) if (zeroed[i] != 0 || junk[i] != 0xA5) { CHECK(!"written"); break; }

    /* A freed handle: its memory still holds the poisoned magic word until
       the allocator reuses it, so the first call after the last release is
       refused with RPL_ERR_MISUSE (one call per freed object: the error
       message the call allocates may reuse the block). Reading freed memory
       is what this checks, so it runs only where that read is not itself
       reported: not under valgrind or ASan (both would flag the read, which
       is the point of their own use-after-free checks). */
    if (under_valgrind()) return;
#ifndef UNDER_ASAN
    rpl_signal_t *s = rpl_signal_return(rpl_int(1));
    rpl_release(s);
    CHECK(rpl_signal_take(s, 1) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_MISUSE);
    CHECK(strstr(rpl_last_error_message(), "freed") != NULL);

    rpl_subject_t *subj = rpl_subject_create();
    rpl_release(subj);
    CHECK_EQ_INT(rpl_subject_send_next(subj, rpl_int(1)), RPL_ERR_MISUSE);

    CHECK(rpl_signal_take(NULL, 1) == NULL);   /* another error first (not in between:
                                                  its message could reuse the block) */
    rpl_error_t *e = rpl_error_create("test", 1, "m");
    rpl_release(e);
    rpl_release(e);                            /* a double release: refused */
    CHECK_FAILED_WITH(RPL_ERR_MISUSE);

    rpl_disposable_t *d = rpl_disposable_create(magic_action, NULL);
    rpl_release(d);
    CHECK_EQ_INT(rpl_disposable_dispose(d), RPL_ERR_MISUSE);
    CHECK_EQ_INT(rpl_status_string(RPL_ERR_MISUSE)[0] != 'u', 1);
#endif
}

int main(int argc, char **argv) {
    only = argc > 1 ? argv[1] : NULL;
    /* Fork first, while this process has one thread and has not used Ripple. */
    RUN_SOME(test_fork);
    RUN_SOME(test_huge_lengths);
    RUN_SOME(test_huge_tuple_counts);
    RUN_SOME(test_out_of_memory);
    RUN_SOME(test_clock_top);
    RUN_SOME(test_deep_tuples);
    RUN_SOME(test_no_events_after_dispose);
    RUN_SOME(test_no_cycles_through_subjects);
    RUN_SOME(test_no_cycles_through_connections);
    RUN_SOME(test_handle_magic);
    CHECK_DONE();
}
