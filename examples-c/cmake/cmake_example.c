/* Built through find_package(Ripple): counts the values of a cold signal. */
#include <ripple.h>
#include <stdio.h>

static rpl_disposable_t *count_to_three(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    for (int64_t i = 1; i <= 3; i++) rpl_subscriber_send_next(s, rpl_int(i));
    rpl_subscriber_send_completed(s);
    return NULL;
}

int main(void) {
    rpl_signal_t *sig = rpl_signal_create(count_to_three, NULL, NULL);
    rpl_value all = rpl_nil();
    rpl_status st = rpl_signal_to_array(sig, &all, RPL_FOREVER);
    printf("cmake example (libripple %s): status %d, %zu values:", rpl_version_string(), st,
           rpl_value_tuple_count(&all));
    for (size_t i = 0; i < rpl_value_tuple_count(&all); i++) {
        rpl_value v = rpl_value_tuple_at(&all, i);
        printf(" %lld", (long long)rpl_value_int(&v));
        rpl_value_release(&v);
    }
    printf("\n");
    rpl_value_release(&all);
    rpl_release(sig);
    return st == RPL_OK ? 0 : 1;
}
