/* operators: the classic sign-in flow, and why flatten_map exists.
 *
 * A button-press subject sends "user:password" each time the button is
 * pressed. Each press becomes a sign-in request: a cold signal that performs
 * the sign-in when subscribed, sends the result and completes (a wrong
 * password fails, and catch_to turns that into a "sign-in failed" value).
 *
 * - map(press -> request) yields the requests themselves: signal values
 *   (RPL_TYPE_SIGNAL). Nothing subscribes to them, so no sign-in runs.
 * - flatten_map(press -> request) subscribes to each request and passes its
 *   results on: the sign-in runs and the subscriber sees the outcome.
 */
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int requests_run;  /* how many sign-ins actually ran */

typedef struct {
    char user[32];
    int password_ok;
} request_t;

/* The sign-in itself, run once per subscription of a request signal. */
static rpl_disposable_t *perform_sign_in(void *ctx, rpl_subscriber_t *s) {
    request_t *r = ctx;
    requests_run++;
    if (r->password_ok) {
        char msg[96];
        snprintf(msg, sizeof msg, "signed in as %s (sign-in #%d)", r->user, requests_run);
        rpl_subscriber_send_next(s, rpl_string(msg));
        rpl_subscriber_send_completed(s);
    } else {
        rpl_error_t *e = rpl_error_create("signin", 401, "wrong password");
        rpl_subscriber_send_error(s, e);
        rpl_release(e);
    }
    return NULL;
}

/* The request for one press (+1): performs the sign-in when subscribed; a
   failure becomes a "sign-in failed" value. */
static rpl_signal_t *sign_in_request(const rpl_value *press) {
    const char *text = rpl_value_string(press, NULL);
    const char *colon = text ? strchr(text, ':') : NULL;
    request_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;  /* flatten_map treats NULL as an empty signal */
    size_t n = colon ? (size_t)(colon - text) : 0;
    if (n >= sizeof r->user) n = sizeof r->user - 1;
    if (text) memcpy(r->user, text, n);
    r->password_ok = colon && strcmp(colon + 1, "secret") == 0;

    rpl_signal_t *request = rpl_signal_create(perform_sign_in, r, free);
    char msg[96];
    snprintf(msg, sizeof msg, "sign-in failed for %s", r->user);
    rpl_signal_t *failed = rpl_signal_return(rpl_string(msg));
    rpl_signal_t *safe = rpl_signal_catch_to(request, failed);
    rpl_release(request);
    rpl_release(failed);
    return safe;
}

/* map callback: the request as a value (+1). */
static rpl_value press_to_request_value(void *ctx, const rpl_value *press) {
    (void)ctx;
    rpl_signal_t *request = sign_in_request(press);
    rpl_value v = rpl_signal_value(request);  /* retains the request */
    rpl_release(request);
    return v;
}

/* flatten_map callback: the request itself (+1). */
static rpl_signal_t *press_to_request(void *ctx, const rpl_value *press) {
    (void)ctx;
    return sign_in_request(press);
}

static void show_map(void *ctx, const rpl_value *v) {
    (void)ctx;
    if (rpl_value_type(v) == RPL_TYPE_SIGNAL)
        printf("    map         -> a signal value (the request, not run)\n");
    else
        printf("    map         -> unexpected type %d\n", (int)rpl_value_type(v));
}
static void show_flat(void *ctx, const rpl_value *v) {
    (void)ctx;
    printf("    flatten_map -> \"%s\"\n", rpl_value_string(v, NULL));
}
static void show_completed(void *ctx) { printf("    %s completed\n", (const char *)ctx); }

static rpl_disposable_t *watch(rpl_signal_t *s, void (*on_next)(void *, const rpl_value *), const char *name) {
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_next;
    o.on_completed = show_completed;
    o.ctx = (void *)name;
    return rpl_signal_subscribe(s, &o);
}

static void press(rpl_subject_t *button, const char *credentials) {
    printf("  press: \"%s\"\n", credentials);
    rpl_subject_send_next(button, rpl_string(credentials));
}

int main(void) {
    rpl_subject_t *button = rpl_subject_create();
    rpl_signal_t *presses = rpl_subject_as_signal(button);

    rpl_signal_t *mapped = rpl_signal_map(presses, press_to_request_value, NULL, NULL);
    rpl_signal_t *results = rpl_signal_flatten_map(presses, press_to_request, NULL, NULL);
    if (!button || !mapped || !results) {
        fprintf(stderr, "setup failed: %s\n", rpl_last_error_message());
        return 1;
    }
    rpl_disposable_t *d1 = watch(mapped, show_map, "map");
    rpl_disposable_t *d2 = watch(results, show_flat, "flatten_map");

    printf("sign-in flow (%s)\n", rpl_version_string());
    press(button, "alice:secret");
    press(button, "bob:guess");
    press(button, "carol:secret");
    printf("  sign-ins run: %d, one per press seen by flatten_map; map ran none\n", requests_run);

    printf("  the button is removed\n");
    rpl_subject_send_completed(button);

    rpl_release(d1);
    rpl_release(d2);
    rpl_release(mapped);
    rpl_release(results);
    rpl_release(button);
    return requests_run == 3 ? 0 : 1;
}
