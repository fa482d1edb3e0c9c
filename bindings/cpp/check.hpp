// The C++ tests' checks (test_ripple.cpp, test_nats.cpp), no framework: CHECK
// records a failure and goes on; the test's main prints "N passed, M failed"
// and exits non-zero on any failure.
#ifndef RIPPLE_TEST_CHECK_HPP
#define RIPPLE_TEST_CHECK_HPP

#include <cstdio>

static int passed, failed;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (cond) passed++;                                                      \
        else { failed++; std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
    } while (0)

#define CHECK_EQ(a, b)                                                           \
    do {                                                                         \
        auto check_a_ = (a);                                                     \
        auto check_b_ = (b);                                                     \
        if (check_a_ == check_b_) passed++;                                      \
        else { failed++; std::fprintf(stderr, "FAIL %s:%d: %s == %s\n", __FILE__, __LINE__, #a, #b); } \
    } while (0)

#endif
