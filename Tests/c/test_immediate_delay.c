/* delay on the immediate scheduler (issue 10, D9): a due time already
   reached costs no sleep. The program counts the library's sleeps by
   defining clock_nanosleep itself (the executable's definition is the one
   the library binds to), so the test asserts behaviour, not timing. */
#define _GNU_SOURCE
#include "check.h"
#include <ripple.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long sleeps;
int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem) {
    sleeps++;
    long r = syscall(SYS_clock_nanosleep, clock, flags, req, rem);
    return r < 0 ? (int)-r : (int)r;  /* the raw syscall returns -errno */
}

static long seen;
static void on_next(void *ctx, const rpl_value *v) { (void)ctx; seen += rpl_value_int(v) >= 0; }
static rpl_disposable_t *many(void *ctx, rpl_subscriber_t *s) {
    long n = *(long *)ctx;
    for (long i = 0; i < n; i++) rpl_subscriber_send_next(s, rpl_int(i));
    rpl_subscriber_send_completed(s);
    return NULL;
}

static void test_delay_zero_does_not_sleep(void) {
    long n = 1000;
    rpl_signal_t *src = rpl_signal_create(many, &n, NULL);
    rpl_signal_t *d = rpl_signal_delay(src, 0, rpl_scheduler_immediate());
    sleeps = 0;
    seen = 0;
    CHECK_EQ_INT(rpl_signal_wait(d, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT(seen, 0);  /* wait does not deliver values; to_array below does */
    rpl_value all;
    CHECK_EQ_INT(rpl_signal_to_array(d, &all, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT((long)rpl_value_tuple_count(&all), n);
    rpl_value_release(&all);
    CHECK_EQ_INT(sleeps, 0);
    rpl_release(d);
    rpl_release(src);
}

/* A delay that is not yet due still sleeps on the immediate scheduler. */
static void test_positive_delay_sleeps(void) {
    long n = 3;
    rpl_signal_t *src = rpl_signal_create(many, &n, NULL);
    rpl_signal_t *d = rpl_signal_delay(src, 1000000, rpl_scheduler_immediate());  /* 1 ms */
    sleeps = 0;
    rpl_disposable_t *x = rpl_signal_subscribe_next(d, on_next, NULL);
    CHECK(sleeps >= 1);
    rpl_release(x);
    rpl_release(d);
    rpl_release(src);
}

int main(void) {
    alarm(60);  /* a hang fails instead of stalling CI */
    RUN(test_delay_zero_does_not_sleep);
    RUN(test_positive_delay_sleeps);
    CHECK_DONE();
}
