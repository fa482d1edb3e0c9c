/* The program the timeline test traces (mk/trace.mk): it never calls
   rpl_trace_write; RIPPLE_TRACE does. A few named signals over about
   40 ms, on two threads: values, a completion, an error, a take that
   ends early, and a subscription disposed by hand. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <ripple.h>
#include <stdio.h>
#include <time.h>

static void pause_ms(long ms) { nanosleep(&(struct timespec){0, ms * 1000000L}, NULL); }
static void ignore(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static rpl_value doubled(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(rpl_value_int(v) * 2); }
static bool is_odd(void *ctx, const rpl_value *v) { (void)ctx; return rpl_value_int(v) % 2 != 0; }
static void subscribe(rpl_signal_t *sig, rpl_disposable_t **out) { *out = rpl_signal_subscribe_next(sig, ignore, NULL); }

static void *ticker(void *arg) {
    rpl_subject_t *ticks = arg;
    for (int i = 0; i < 6; i++) {
        pause_ms(6);
        rpl_subject_send_next(ticks, rpl_string(i % 2 ? "tock" : "tick"));
    }
    rpl_subject_send_completed(ticks);
    return NULL;
}

int main(void) {
    rpl_subject_t *clicks = rpl_subject_create(), *ticks = rpl_subject_create();
    rpl_signal_set_name((rpl_signal_t *)clicks, "clicks");
    rpl_signal_set_name((rpl_signal_t *)ticks, "ticks");
    rpl_signal_t *twice = rpl_signal_map((rpl_signal_t *)clicks, doubled, NULL, NULL);
    rpl_signal_t *odd = rpl_signal_filter((rpl_signal_t *)clicks, is_odd, NULL, NULL);
    rpl_signal_t *first3 = rpl_signal_take((rpl_signal_t *)clicks, 3);
    rpl_disposable_t *d[6];
    subscribe((rpl_signal_t *)clicks, &d[0]);
    subscribe(twice, &d[1]);
    subscribe(first3, &d[2]);
    subscribe((rpl_signal_t *)ticks, &d[3]);
    pthread_t t;
    pthread_create(&t, NULL, ticker, ticks);
    for (int i = 1; i <= 8; i++) {
        pause_ms(4);
        rpl_subject_send_next(clicks, rpl_int(i));
        if (i == 2) subscribe(odd, &d[4]);
        if (i == 6) rpl_disposable_dispose(d[4]);
    }
    subscribe((rpl_signal_t *)clicks, &d[5]);
    pause_ms(3);
    rpl_error_t *e = rpl_error_create("input", 5, "device unplugged");
    rpl_subject_send_error(clicks, e);
    rpl_release(e);
    pthread_join(t, NULL);
    for (int i = 0; i < 6; i++) rpl_release(d[i]);
    rpl_release(twice);
    rpl_release(odd);
    rpl_release(first3);
    rpl_release(clicks);
    rpl_release(ticks);
    puts("traced_program: done");
    return 0;
}
