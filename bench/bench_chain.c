/* The operator chain of the bench rows and the W7 pipeline, one definition for the C table
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

static void add_to(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }

void bench_pipeline_once(int64_t *sum) {
    rpl_signal_t *r = rpl_signal_return(rpl_int(1));
    rpl_signal_t *m = rpl_signal_map(r, plus1, NULL, NULL);
    rpl_disposable_t *d = rpl_signal_subscribe_next(m, add_to, sum);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(m);
    rpl_release(r);
}

bench_chain_fns bench_chain_callbacks(void) { return (bench_chain_fns){ plus1, even, sum }; }

rpl_signal_t *bench_chain(rpl_signal_t *src) {
    rpl_signal_t *m = rpl_signal_map(src, plus1, NULL, NULL);
    rpl_signal_t *f = rpl_signal_filter(m, even, NULL, NULL);
    rpl_signal_t *s = rpl_signal_scan(f, rpl_int(0), sum, NULL, NULL);
    rpl_release(f);
    rpl_release(m);
    return s;
}
