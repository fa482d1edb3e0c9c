#include "ripple_support.h"
#include <stdlib.h>

__thread ripple_thread_state ripple_tls
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

ripple_stripe ripple_stripes[RIPPLE_STRIPES] = {
    [0 ... RIPPLE_STRIPES - 1] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER }
};

int ripple_can_allocate(size_t n) {
    /* volatile: the compiler may not drop an unused malloc/free pair. */
    void *volatile p = malloc(n);
    int ok = p != NULL;
    free(p);
    return ok;
}
