/* Built by `make check-install` against a freshly installed prefix through
   pkg-config, and run with only that prefix's lib directory on the path. */
#include <ripple.h>
#include <stdio.h>

static void on_next(void *ctx, const rpl_value *v) { *(int64_t *)ctx += rpl_value_int(v); }

int main(void) {
    if (rpl_version() != RPL_VERSION_NUMBER) return 1;
    int64_t sum = 0;
    rpl_signal_t *s = rpl_signal_return(rpl_int(42));
    rpl_disposable_t *d = rpl_signal_subscribe_next(s, on_next, &sum);
    rpl_release(d);
    rpl_release(s);
    printf("installed libripple %s: got %lld\n", rpl_version_string(), (long long)sum);
    return sum == 42 ? 0 : 1;
}
