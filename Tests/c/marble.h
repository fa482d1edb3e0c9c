/* Helpers for the marble tests: MARBLE_EXPECT counts a check and prints
   rpl_marble_expect's diff when it fails. */
#ifndef RIPPLE_TEST_MARBLE_H
#define RIPPLE_TEST_MARBLE_H
#include "check.h"

#define MARBLE_EXPECT(t, sig, sub, expected, vals, n) do { \
    rpl_status marble_st_ = rpl_marble_expect((t), (rpl_signal_t *)(sig), (sub), (expected), (vals), (n)); \
    if (marble_st_ == RPL_OK) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, rpl_last_error_message()); } \
} while (0)

/* `s` without the spaces and dashes that only align RxJS's subscription
   diagrams (leading spaces, trailing spaces and dashes, on each line). */
static inline void marble_trim(const char *s, char *out, size_t cap) {
    size_t n = 0;
    int line_start = 1;
    for (; *s && n + 1 < cap; s++) {
        if (*s == ' ' && line_start) continue;
        if (*s == '\n') {
            while (n > 0 && (out[n - 1] == '-' || out[n - 1] == ' ')) n--;
            line_start = 1;
        } else {
            line_start = 0;
        }
        out[n++] = *s;
    }
    while (n > 0 && (out[n - 1] == '-' || out[n - 1] == ' ')) n--;
    out[n] = 0;
}

/* Checks that rpl_marble_subscriptions(m) is `want` (lines joined by '\n';
   compared after marble_trim). */
#define MARBLE_SUBS(m, want) do { \
    rpl_value marble_v_ = rpl_marble_subscriptions((rpl_signal_t *)(m)); \
    const char *marble_s_ = rpl_value_string(&marble_v_, NULL); \
    char marble_w_[512]; \
    marble_trim((want), marble_w_, sizeof marble_w_); \
    if (marble_s_ && strcmp(marble_s_, marble_w_) == 0) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: subscriptions \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
                                   marble_s_ ? marble_s_ : "(null)", (want)); } \
    rpl_value_release(&marble_v_); \
} while (0)

/* Checks that rpl_marble_record gives `want`. */
#define MARBLE_RECORD(t, sig, sub, vals, n, want) do { \
    rpl_value marble_v_ = rpl_marble_record((t), (rpl_signal_t *)(sig), (sub), (vals), (n)); \
    const char *marble_s_ = rpl_value_string(&marble_v_, NULL); \
    if (marble_s_ && strcmp(marble_s_, (want)) == 0) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "FAIL %s:%d: recorded \"%s\", want \"%s\" (%s)\n", __FILE__, __LINE__, \
                                   marble_s_ ? marble_s_ : "(null)", (want), rpl_last_error_message()); } \
    rpl_value_release(&marble_v_); \
} while (0)

#endif
