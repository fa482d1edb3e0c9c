#include "ripple_support.h"

__thread ripple_thread_state ripple_tls
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
