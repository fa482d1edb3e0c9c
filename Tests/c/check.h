/* Tiny test harness for the C tests: CHECK records a failure and goes on;
   each program ends with CHECK_DONE(), which prints "N passed, M failed". */
#ifndef RIPPLE_TEST_CHECK_H
#define RIPPLE_TEST_CHECK_H
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

static int check_passed, check_failed;

#define CHECK(cond) do { \
    if (cond) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_EQ_INT(a, b) do { \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
    if (check_a_ == check_b_) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n", \
                                   __FILE__, __LINE__, #a, #b, check_a_, check_b_); } \
} while (0)

/* An observer with these callbacks (NULL: that event is ignored) and ctx. */
static inline rpl_observer observer_of(void (*on_next)(void *, const rpl_value *),
                                       void (*on_error)(void *, const rpl_error_t *), void (*on_completed)(void *),
                                       rpl_release_fn release, void *ctx) {
    return (rpl_observer){RPL_OBSERVER_VERSION, on_next, on_error, on_completed, release, ctx};
}

/* Runs one test function, printing its name. */
/* RIPPLE_TEST_LIVE=1 also prints the live-object count after each (to find
   the test that leaks when CHECK_DONE reports one). */
#define RUN(fn) do { fprintf(stderr, "  %s\n", #fn); fn(); \
    if (getenv("RIPPLE_TEST_LIVE")) fprintf(stderr, "    live objects: %zu\n", rpl_live_objects()); } while (0)

/* RIPPLE_TEST_QUICK=1 (set under valgrind and TSan) shrinks stress loops. */
static inline long test_scale(long full, long quick) {
    const char *q = getenv("RIPPLE_TEST_QUICK");
    return (q && *q && strcmp(q, "0") != 0) ? quick : full;
}

/* Leak check without valgrind: the runtime objects alive at the end are
   those alive at the start (taken before main). The shared schedulers are not
   counted (never freed), and this thread's rpl_last_signal_error is kept by
   design, so it is not a leak. Work finishing on other threads (a worker
   dropping its job, a serial scheduler's thread ending) may still hold
   objects for a moment: wait up to 5 s for the count to come back. */
static size_t check_live_start;
__attribute__((constructor)) static void check_live_baseline(void) { check_live_start = rpl_live_objects(); }
/* The count (less the kept signal error) once it is back to the start's, or
   after 5 s. A test comparing counts takes its own baseline after this, so an
   object an earlier test's work frees late cannot move the count under it. */
static inline size_t check_live_now(void) { return rpl_live_objects() - (rpl_last_signal_error() != NULL); }
static inline size_t check_live_settled(void) {
    size_t now = 0;
    for (int i = 0; i < 500; i++) {
        now = check_live_now();
        if (now == check_live_start) break;
        thrd_sleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    return now;
}
static inline void check_live_objects(void) {
    size_t now = check_live_settled();
    if (now == check_live_start) { check_passed++; }
    else { check_failed++; fprintf(stderr, "FAIL %s: %zu runtime objects alive at the end, %zu at the start (a leak)\n",
                                   __FILE__, now, check_live_start); }
}

#define CHECK_DONE() do { \
    check_live_objects(); \
    printf("%d passed, %d failed\n", check_passed, check_failed); \
    return check_failed ? 1 : 0; \
} while (0)

#endif
