/* hello_signal: the life of a cold signal, from creation to release.
 *
 * 1. create a signal whose subscribe callback greets each subscriber;
 * 2. subscribe an observer with next, error and completed callbacks;
 * 3. the callback sends values and completes, synchronously;
 * 4. a second subscription shows the callback runs again (cold);
 * 5. a never-ending producer is stopped by disposing the subscription;
 * 6. everything is released.
 */
#include <ripple.h>
#include <stdio.h>

typedef struct { const char *name; } observer_ctx;

static void on_next(void *ctx, const rpl_value *v) {
    observer_ctx *o = ctx;
    if (rpl_value_type(v) == RPL_TYPE_STRING)
        printf("  [%s] next \"%s\"\n", o->name, rpl_value_string(v, NULL));
    else
        printf("  [%s] next %lld\n", o->name, (long long)rpl_value_int(v));
}
static void on_error(void *ctx, const rpl_error_t *e) {
    printf("  [%s] error %s/%lld: %s\n", ((observer_ctx *)ctx)->name, rpl_error_domain(e),
           (long long)rpl_error_code(e), rpl_error_message(e));
}
static void on_completed(void *ctx) { printf("  [%s] completed\n", ((observer_ctx *)ctx)->name); }
static void on_release(void *ctx) { printf("  [%s] released\n", ((observer_ctx *)ctx)->name); }

static int subscriptions;

/* Runs once per subscriber: the signal is cold. */
static rpl_disposable_t *greet(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    subscriptions++;
    rpl_subscriber_send_next(s, rpl_string("hello"));
    rpl_subscriber_send_next(s, rpl_int(subscriptions));
    rpl_subscriber_send_completed(s);
    rpl_subscriber_send_next(s, rpl_string("ignored: after completed"));
    return NULL;
}

static void say_cleanup(void *ctx) { printf("  producer cleanup (%s)\n", (const char *)ctx); }

/* A producer that keeps its subscriber and sends when asked. */
static rpl_subscriber_t *kept;
static rpl_disposable_t *keep(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    kept = rpl_retain(s);
    return rpl_disposable_create(say_cleanup, "disposed");
}

int main(void) {
    printf("libripple %s\n", rpl_version_string());

    printf("1. a cold signal, subscribed twice:\n");
    rpl_signal_t *hello = rpl_signal_create(greet, NULL, NULL);
    observer_ctx a = {"A"}, b = {"B"};
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_next = on_next;
    obs.on_error = on_error;
    obs.on_completed = on_completed;
    obs.release = on_release;
    obs.ctx = &a;
    rpl_disposable_t *da = rpl_signal_subscribe(hello, &obs);
    obs.ctx = &b;
    rpl_disposable_t *db = rpl_signal_subscribe(hello, &obs);
    printf("  the subscribe callback ran %d times\n", subscriptions);

    printf("2. a producer that sends later, then is disposed:\n");
    rpl_signal_t *later = rpl_signal_create(keep, NULL, NULL);
    observer_ctx c = {"C"};
    obs.ctx = &c;
    rpl_disposable_t *dc = rpl_signal_subscribe(later, &obs);
    rpl_subscriber_send_next(kept, rpl_int(1));
    rpl_subscriber_send_next(kept, rpl_int(2));
    rpl_disposable_dispose(dc);
    printf("  after dispose: is_disposed=%d\n", rpl_subscriber_is_disposed(kept));
    rpl_subscriber_send_next(kept, rpl_int(3)); /* dropped */

    printf("3. an error:\n");
    rpl_error_t *err = rpl_error_create("example", 7, "something broke");
    rpl_signal_t *failing = rpl_signal_error(err);
    observer_ctx d = {"D"};
    obs.ctx = &d;
    rpl_disposable_t *dd = rpl_signal_subscribe(failing, &obs);

    printf("4. release everything\n");
    rpl_release(kept);
    rpl_release(da);
    rpl_release(db);
    rpl_release(dc);
    rpl_release(dd);
    rpl_release(hello);
    rpl_release(later);
    rpl_release(failing);
    rpl_release(err);
    printf("done\n");
    return 0;
}
