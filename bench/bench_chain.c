/* The operator chain of the bench rows, one definition for the C table
   (bench_operators.c) and for the C-API baseline of the C++ rows
   (bench_cpp.cpp): map(+1) -> filter(even) -> scan(sum), C callbacks reading
   ints with v->as.i. No other dependency, so bench_cpp links it alone. */
#include "bench.h"
#include <ripple.h>
#include <stddef.h>

static rpl_value plus1(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(v->as.i + 1); }
static bool even(void *ctx, const rpl_value *v) { (void)ctx; return (v->as.i & 1) == 0; }
static rpl_value sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return rpl_int(acc->as.i + v->as.i);
}

rpl_signal_t *bench_chain(rpl_signal_t *src) {
    rpl_signal_t *m = rpl_signal_map(src, plus1, NULL, NULL);
    rpl_signal_t *f = rpl_signal_filter(m, even, NULL, NULL);
    rpl_signal_t *s = rpl_signal_scan(f, rpl_int(0), sum, NULL, NULL);
    rpl_release(f);
    rpl_release(m);
    return s;
}
