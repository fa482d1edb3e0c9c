/* Tracing rows of `make bench` (ripple.h "Names, tracing and counting"):
   what tracing costs while it is off - subject -> 1 subscriber, the path a
   trace flag is checked on, next to the floor - and, for scale, with a hook
   set, and with rpl_trace_write writing JSON lines to a file (the cost of
   leaving a trace on in a test run). The "off" row is the same measurement as bench_subjects' subject row;
   its ratio to the floor is the number to watch. Best of 3 runs and best
   100k-event chunk (the machine is shared: preemption only inflates). */
#include "bench.h"
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx += v->as.i; }
static void hook(void *ctx, const rpl_trace_event *e) { (void)e; (*(long *)ctx)++; }

/* ns per delivery, and the best chunk of `chunk` events. */
static void run(rpl_subject_t *s, long events, long chunk, double *best, double *best_chunk) {
    *best = 1e9;
    *best_chunk = 1e9;
    for (int round = 0; round < 3; round++) {
        double t0 = bench_now();
        for (long base = 0; base < events; base += chunk) {
            double c0 = bench_now();
            for (long i = base; i < base + chunk; i++) rpl_subject_send_next(s, rpl_int(i));
            double c = (bench_now() - c0) * 1e9 / (double)chunk;
            if (c < *best_chunk) *best_chunk = c;
        }
        double ns = (bench_now() - t0) * 1e9 / (double)events;
        if (ns < *best) *best = ns;
    }
}

void bench_trace(void) {
    const long events = 10 * 1000 * 1000L, chunk = 100 * 1000L;
    int64_t sum = 0;
    rpl_subject_t *s = rpl_subject_create();
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_int, &sum);
    double best, best_chunk;
    run(s, events, chunk, &best, &best_chunk);
    bench_row("trace off: subject -> 1 subscriber (10M)", best, "delivery", 0);
    bench_row("  same, best 100k-event chunk", best_chunk, "delivery", 0);

    long calls = 0;
    rpl_trace_set(hook, &calls);
    run(s, events / 10, chunk, &best, &best_chunk);
    rpl_trace_set(NULL, NULL);
    bench_row("trace on (counting hook): subject -> 1 subscriber (1M)", best, "delivery", 0);
    if (calls != 3 * events / 10) fprintf(stderr, "bench_trace: %ld hook calls, expected %ld\n", calls, 3 * events / 10);

    /* The built-in writer, to an unlinked file in /tmp: one JSON line per
       event, written out 32 KiB at a time. */
    char path[] = "/tmp/ripple-bench-trace-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    rpl_trace_write(fd);
    run(s, events / 10, chunk, &best, &best_chunk);
    rpl_trace_write(-1);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    bench_row("trace write (JSON lines to a file): subject -> 1 subscriber (1M)", best, "delivery", 0);
    bench_value_row("  trace written per event", (double)st.st_size / (double)(3 * events / 10), "bytes");
    rpl_release(d);
    rpl_release(s);
}
