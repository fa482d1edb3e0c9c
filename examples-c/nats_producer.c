/* nats_producer: publishes sensor readings through a NATS server for
   another process (see nats_consumer.c) to read: a Ripple signal published
   on a subject, each value a MessagePack array any NATS client can read.
     nats_producer [URL [COUNT]]   (default nats://127.0.0.1:4222, 5)
   Build: cc nats_producer.c $(pkg-config --cflags --libs ripple-nats) */
#include <stdio.h>
#include <stdlib.h>

#include <ripple_nats.h>

/* Reading i as (sensor, i, celsius). */
static rpl_value reading(void *ctx, const rpl_value *v) {
    (void)ctx;
    int64_t i = rpl_value_int(v);
    rpl_value items[3] = { rpl_string("greenhouse"), rpl_int(i), rpl_double(18.0 + 0.5 * (double)i) };
    return rpl_tuple(items, 3);
}

int main(int argc, char **argv) {
    const char *url = argc > 1 ? argv[1] : "nats://127.0.0.1:4222";
    size_t count = argc > 2 ? (size_t)atol(argv[2]) : 5;
    rpl_nats_t *nc = rpl_nats_connect(url, NULL);
    if (!nc) {
        fprintf(stderr, "nats_producer: cannot connect to %s: %s\n", url, rpl_last_error_message());
        return 1;
    }
    rpl_signal_t *numbers = rpl_signal_range(1, count);
    rpl_signal_t *readings = rpl_signal_map(numbers, reading, NULL, NULL);
    /* Publishes every value; when the signal completes, what was published
       has been flushed to the server. */
    rpl_disposable_t *pub = rpl_nats_publish(nc, readings, "demo.readings");
    printf("producer: published %zu readings on demo.readings\n", count);
    rpl_release(pub), rpl_release(readings), rpl_release(numbers);
    rpl_release(nc);
    return 0;
}
