/* Tiny test harness for the C tests: CHECK records a failure and goes on;
   each program ends with CHECK_DONE(), which prints "N passed, M failed". */
#ifndef RIPPLE_TEST_CHECK_H
#define RIPPLE_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Runs one test function, printing its name. */
#define RUN(fn) do { fprintf(stderr, "  %s\n", #fn); fn(); } while (0)

/* RIPPLE_TEST_QUICK=1 (set under valgrind and TSan) shrinks stress loops. */
static inline long test_scale(long full, long quick) {
    const char *q = getenv("RIPPLE_TEST_QUICK");
    return (q && *q && strcmp(q, "0") != 0) ? quick : full;
}

#define CHECK_DONE() do { \
    printf("%d passed, %d failed\n", check_passed, check_failed); \
    return check_failed ? 1 : 0; \
} while (0)

#endif
