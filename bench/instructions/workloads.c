/* make bench-instructions: the workloads of the speed table (W1-W7), each run
   for a given number of units so that valgrind's callgrind can count the
   instructions one unit costs: the count of a run of n2 units minus that of
   n1 units, divided by n2 - n1, leaves out setup and teardown. Unlike a time,
   the figure does not move with the machine's load (same binary, same count).

   usage: workloads NAME UNITS     (NAME: w1 w2 w3 w4 w5 w5c w6 w6l w7 floor)
   A unit is: w1/w3 an event; w2 a delivery (one send reaches 100
   subscribers, so UNITS is rounded down to a multiple of 100); w4 a
   subscribe + dispose + release on a subject; w5/w5c one outer value through
   flatten_map; w6 one inner subject of flatten (created, sent to the outer,
   sent a value, completed, released; w6l the same beside 1000 open
   inners); w7 a whole return(1) -> map -> subscribe -> dispose
   pipeline; floor a C call through a volatile function pointer. */
#include "../bench.h"
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t total;
static void on_int(void *ctx, const rpl_value *v) { (void)ctx; total += v->as.i; }

static rpl_signal_t *to_return(void *ctx, const rpl_value *v) { (void)ctx; return rpl_signal_return(*v); }

static rpl_disposable_t *send_one(void *ctx, rpl_subscriber_t *s) {
    rpl_subscriber_send_next(s, rpl_int((int64_t)(intptr_t)ctx));
    rpl_subscriber_send_completed(s);
    return NULL;
}
static rpl_signal_t *to_created(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_signal_create(send_one, (void *)(intptr_t)v->as.i, NULL);
}

/* Sends `events` ints into a subject that `subs` subscribers watch through
   `op` (NULL: the subject itself). */
static void through_subject(long events, int subs, rpl_signal_t *(*op)(rpl_signal_t *)) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *sig = op ? op(rpl_subject_as_signal(s)) : rpl_retain(rpl_subject_as_signal(s));
    rpl_disposable_t **d = calloc((size_t)subs, sizeof *d);
    for (int i = 0; i < subs; i++) d[i] = rpl_signal_subscribe_next(sig, on_int, NULL);
    for (long i = 0; i < events; i++) rpl_subject_send_next(s, rpl_int(i));
    rpl_subject_send_completed(s);
    for (int i = 0; i < subs; i++) rpl_release(d[i]);
    free(d);
    rpl_release(sig);
    rpl_release(s);
}

static rpl_signal_t *flatten_return(rpl_signal_t *src) { return rpl_signal_flatten_map(src, to_return, NULL, NULL); }
static rpl_signal_t *flatten_created(rpl_signal_t *src) { return rpl_signal_flatten_map(src, to_created, NULL, NULL); }

/* Inner subjects through flatten: each is created, sent to the outer
   subject, sent one value and completed; `live` inners stay open meanwhile
   (the cost must not grow with them). */
static void flatten_subjects(long n, int live) {
    rpl_subject_t *outer = rpl_subject_create();
    rpl_signal_t *flat = rpl_signal_flatten(rpl_subject_as_signal(outer));
    rpl_disposable_t *d = rpl_signal_subscribe_next(flat, on_int, NULL);
    rpl_subject_t **open = calloc((size_t)live + 1, sizeof *open);
    for (int i = 0; i < live; i++) {
        open[i] = rpl_subject_create();
        rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(open[i])));
    }
    for (long i = 0; i < n; i++) {
        rpl_subject_t *in = rpl_subject_create();
        rpl_subject_send_next(outer, rpl_signal_value(rpl_subject_as_signal(in)));
        rpl_subject_send_next(in, rpl_int(i));
        rpl_subject_send_completed(in);
        rpl_release(in);
    }
    for (int i = 0; i < live; i++) {
        rpl_subject_send_completed(open[i]);
        rpl_release(open[i]);
    }
    free(open);
    rpl_subject_send_completed(outer);
    rpl_release(d);
    rpl_release(flat);
    rpl_release(outer);
}

static void subscribe_dispose(long n) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_int;
    for (long i = 0; i < n; i++) {
        rpl_disposable_t *d = rpl_signal_subscribe(rpl_subject_as_signal(s), &o);
        rpl_disposable_dispose(d);
        rpl_release(d);
    }
    rpl_release(s);
}

static void pipelines(long n) {
    for (long i = 0; i < n; i++) bench_pipeline_once(&total);
}

static void floor_calls(long n) {
    void (*volatile fn)(void *, const rpl_value *) = on_int;
    rpl_value v = rpl_int(1);
    for (long i = 0; i < n; i++) fn(NULL, &v);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s w1|w2|w3|w4|w5|w5c|w6|w6l|w7|floor UNITS\n", argv[0]);
        return 2;
    }
    const char *w = argv[1];
    long n = atol(argv[2]);
    if (!strcmp(w, "w1")) through_subject(n, 1, NULL);
    else if (!strcmp(w, "w2")) through_subject(n / 100, 100, NULL);
    else if (!strcmp(w, "w3")) through_subject(n, 1, bench_chain);
    else if (!strcmp(w, "w4")) subscribe_dispose(n);
    else if (!strcmp(w, "w5")) through_subject(n, 1, flatten_return);
    else if (!strcmp(w, "w5c")) through_subject(n, 1, flatten_created);
    else if (!strcmp(w, "w6")) flatten_subjects(n, 0);
    else if (!strcmp(w, "w6l")) flatten_subjects(n, 1000);
    else if (!strcmp(w, "w7")) pipelines(n);
    else if (!strcmp(w, "floor")) floor_calls(n);
    else {
        fprintf(stderr, "unknown workload %s\n", w);
        return 2;
    }
    printf("%lld\n", (long long)total);
    return 0;
}
