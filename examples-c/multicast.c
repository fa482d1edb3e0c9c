/* multicast: sharing one expensive cold signal.
 *
 * The "request" below is a cold signal: every subscription runs it again,
 * and a counter shows how often it ran.
 * 1. Subscribed twice directly: it runs twice.
 * 2. Through publish + connect: both subscribers share one run.
 * 3. Through replay: a subscriber arriving after the request finished still
 *    gets the response.
 */
#include <ripple.h>
#include <stdio.h>

static int requests;

/* The expensive request: sends a response and completes. */
static rpl_disposable_t *request(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    requests++;
    printf("  (request #%d runs)\n", requests);
    rpl_subscriber_send_next(s, rpl_string("response"));
    rpl_subscriber_send_completed(s);
    return NULL;
}

static void on_next(void *ctx, const rpl_value *v) {
    printf("  [%s] next \"%s\"\n", (const char *)ctx, rpl_value_string(v, NULL));
}
static void on_completed(void *ctx) { printf("  [%s] completed\n", (const char *)ctx); }

static rpl_disposable_t *watch(rpl_signal_t *sig, const char *name) {
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_next;
    o.on_completed = on_completed;
    o.ctx = (void *)name;
    return rpl_signal_subscribe(sig, &o);
}

int main(void) {
    rpl_signal_t *req = rpl_signal_create(request, NULL, NULL);

    printf("1. subscribed twice directly\n");
    requests = 0;
    rpl_disposable_t *a = watch(req, "A");
    rpl_disposable_t *b = watch(req, "B");
    printf("  request counter: %d\n", requests);

    printf("2. publish + connect\n");
    requests = 0;
    rpl_connection_t *conn = rpl_signal_publish(req);
    rpl_disposable_t *c = watch(rpl_connection_signal(conn), "C");
    rpl_disposable_t *d = watch(rpl_connection_signal(conn), "D");
    rpl_disposable_t *connection = rpl_connection_connect(conn);
    printf("  request counter: %d\n", requests);

    printf("3. replay\n");
    requests = 0;
    rpl_signal_t *replayed = rpl_signal_replay(req);
    printf("  the request has finished; E subscribes now\n");
    rpl_disposable_t *e = watch(replayed, "E");
    rpl_disposable_t *f = watch(replayed, "F");
    printf("  request counter: %d\n", requests);

    rpl_release(a);
    rpl_release(b);
    rpl_release(c);
    rpl_release(d);
    rpl_release(e);
    rpl_release(f);
    rpl_release(connection);
    rpl_release(conn);
    rpl_release(replayed);
    rpl_release(req);
    printf("done\n");
    return 0;
}
