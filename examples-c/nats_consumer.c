/* nats_consumer: reads sensor readings that another process publishes
   through a NATS server (see nats_producer.c), as a Ripple signal.
     nats_consumer [URL [COUNT]]   (default nats://127.0.0.1:4222, 5)
   Build: cc nats_consumer.c $(pkg-config --cflags --libs ripple-nats) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <ripple_nats.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;

/* Each reading is a tuple (sensor, number, celsius); it arrives on a thread
   of the NATS client. */
static void show(void *ctx, const rpl_value *v) {
    (void)ctx;
    rpl_value sensor = rpl_value_tuple_at(v, 0), n = rpl_value_tuple_at(v, 1), c = rpl_value_tuple_at(v, 2);
    printf("reading %lld from %s: %.1f C\n", (long long)rpl_value_int(&n), rpl_value_string(&sensor, NULL),
           rpl_value_double(&c));
    fflush(stdout);
    rpl_value_release(&sensor), rpl_value_release(&n), rpl_value_release(&c);
}

static void finished(void *ctx) {
    (void)ctx;
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static void failed(void *ctx, const rpl_error_t *e) {
    fprintf(stderr, "nats_consumer: %s\n", rpl_error_message(e));
    finished(ctx);
}

int main(int argc, char **argv) {
    const char *url = argc > 1 ? argv[1] : "nats://127.0.0.1:4222";
    size_t count = argc > 2 ? (size_t)atol(argv[2]) : 5;
    rpl_nats_t *nc = rpl_nats_connect(url, NULL);
    if (!nc) {
        fprintf(stderr, "nats_consumer: cannot connect to %s: %s\n", url, rpl_last_error_message());
        return 1;
    }
    rpl_signal_t *readings = rpl_nats_subscribe(nc, "demo.readings", NULL);
    rpl_signal_t *some = rpl_signal_take(readings, count);
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_next = show;
    obs.on_error = failed;
    obs.on_completed = finished;
    /* The server has registered the interest when subscribe returns: a
       producer started from now on is heard. */
    rpl_disposable_t *sub = rpl_signal_subscribe(some, &obs);
    printf("consumer: waiting for %zu readings\n", count);
    fflush(stdout);
    pthread_mutex_lock(&mu);
    while (!done) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    rpl_release(sub), rpl_release(some), rpl_release(readings);
    rpl_release(nc);
    return 0;
}
