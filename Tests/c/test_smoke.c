/* Smoke test of the core path; the full suite is in test_core*.c. */
#include "check.h"
#include <ripple.h>

static void add(void *ctx, const rpl_value *v) { *(int64_t *)ctx += rpl_value_int(v); }

int main(void) {
    int64_t sum = 0;
    rpl_signal_t *s = rpl_signal_return(rpl_int(5));
    rpl_disposable_t *d = rpl_signal_subscribe_next(s, add, &sum);
    CHECK(d != NULL);
    CHECK_EQ_INT(sum, 5);
    CHECK(rpl_disposable_is_disposed(d));
    rpl_release(d);
    rpl_release(s);
    CHECK(rpl_signal_subscribe_next(NULL, add, &sum) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK_DONE();
}
