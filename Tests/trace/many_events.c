/* A busy program for the large-trace test (mk/trace.mk): about `events`
   trace events (argv[1], default 1,000,000) from 100 named subjects with
   two subscriptions each, on two threads; traced with RIPPLE_TRACE. */
#include <pthread.h>
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>

enum { SUBJECTS = 100 };
static rpl_subject_t *subjects[SUBJECTS];
static long sends_per_thread;

static void ignore(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static rpl_value scaled(void *ctx, const rpl_value *v) { (void)ctx; return rpl_double((double)rpl_value_int(v) / 8); }

static void *sender(void *arg) {
    long first = (long)(intptr_t)arg;
    for (long i = 0; i < sends_per_thread; i++) rpl_subject_send_next(subjects[(first + i) % SUBJECTS], rpl_int(i));
    return NULL;
}

int main(int argc, char **argv) {
    long events = argc > 1 ? atol(argv[1]) : 1000000;
    sends_per_thread = events / 4; /* two threads, two subscriptions per send */
    rpl_disposable_t *d[2 * SUBJECTS];
    rpl_signal_t *maps[SUBJECTS];
    for (int i = 0; i < SUBJECTS; i++) {
        char name[32];
        snprintf(name, sizeof name, "sensor %d", i);
        subjects[i] = rpl_subject_create();
        rpl_signal_set_name((rpl_signal_t *)subjects[i], name);
        maps[i] = rpl_signal_map((rpl_signal_t *)subjects[i], scaled, NULL, NULL);
        d[2 * i] = rpl_signal_subscribe_next((rpl_signal_t *)subjects[i], ignore, NULL);
        d[2 * i + 1] = rpl_signal_subscribe_next(maps[i], ignore, NULL);
    }
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, sender, (void *)(intptr_t)(i * 37));
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < SUBJECTS; i++) {
        rpl_subject_send_completed(subjects[i]);
        rpl_release(d[2 * i]);
        rpl_release(d[2 * i + 1]);
        rpl_release(maps[i]);
        rpl_release(subjects[i]);
    }
    return 0;
}
