#define _POSIX_C_SOURCE 200809L
/* Blocking helpers: rpl_signal_first, rpl_signal_wait, rpl_signal_to_array and
   rpl_last_signal_error (rule 22). */
#include "check.h"
#include <ripple.h>
#include <pthread.h>
#include <time.h>

#define CHECK_FAILED_WITH(status) do { \
    CHECK_EQ_INT(rpl_last_error(), (status)); \
    CHECK(rpl_last_error_message()[0] != '\0'); \
} while (0)

#define MS 1000000ull

static void sleep_ms(long ms) {
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A signal that sends from a background thread: 1, 2, 3 then a terminal
   event chosen by the script, after a short delay. Disposal joins the thread,
   unless the thread itself ends the subscription (then it detaches). */
typedef struct { int values; int terminal; /* 0 complete, 1 error, 2 none */ } script;
typedef struct { rpl_subscriber_t *sub; script sc; pthread_t thread; } producer;

static void *produce(void *p) {
    /* Copy what we need: a terminal event runs join_producer on this thread,
       which frees p. The thread owns its subscriber reference. */
    producer *pr = p;
    rpl_subscriber_t *sub = pr->sub;
    script sc = pr->sc;
    sleep_ms(5);
    for (int i = 1; i <= sc.values && !rpl_subscriber_is_disposed(sub); i++)
        rpl_subscriber_send_next(sub, rpl_int(i));
    if (sc.terminal == 0) rpl_subscriber_send_completed(sub);
    if (sc.terminal == 1) {
        rpl_error_t *e = rpl_error_create("test", 99, "producer failed");
        rpl_subscriber_send_error(sub, e);
        rpl_release(e);
    }
    rpl_release(sub);
    return NULL;
}

static void join_producer(void *p) {
    producer *pr = p;
    if (pthread_equal(pthread_self(), pr->thread)) pthread_detach(pr->thread);
    else pthread_join(pr->thread, NULL);
    free(pr);
}

static rpl_disposable_t *threaded_body(void *ctx, rpl_subscriber_t *s) {
    producer *pr = malloc(sizeof *pr);
    pr->sub = rpl_retain(s);
    pr->sc = *(script *)ctx;
    pthread_create(&pr->thread, NULL, produce, pr);
    return rpl_disposable_create(join_producer, pr);
}

static rpl_signal_t *threaded(script *sc) { return rpl_signal_create(threaded_body, sc, NULL); }

/* Bad input of a helper that hands out a value (first, to_array): NULL and
   wrong-kind signals, a NULL out; *out is reset to nil on failure. ok is a
   signal of the right kind. */
typedef rpl_status (*value_helper)(rpl_signal_t *sig, rpl_value *out, uint64_t timeout_ns);
static void check_value_helper_bad_input(value_helper helper, rpl_signal_t *ok) {
    rpl_value v = rpl_int(5);
    CHECK_EQ_INT(helper(NULL, &v, 0), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_value_type(&v), RPL_TYPE_NIL);
    CHECK_EQ_INT(helper(ok, NULL, 0), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    rpl_error_t *notsig = rpl_error_create(NULL, 1, NULL);
    CHECK_EQ_INT(helper((rpl_signal_t *)notsig, &v, 0), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    rpl_release(notsig);
}

static void test_first(void) {
    rpl_value v = rpl_int(-1);
    /* Synchronous signal. */
    rpl_signal_t *ret = rpl_signal_return(rpl_string("hi"));
    CHECK_EQ_INT(rpl_signal_first(ret, &v, RPL_FOREVER), RPL_OK);
    CHECK(strcmp(rpl_value_string(&v, NULL), "hi") == 0);
    rpl_value_release(&v);
    rpl_release(ret);

    /* From another thread. */
    script sc = { 3, 0 };
    rpl_signal_t *t = threaded(&sc);
    CHECK_EQ_INT(rpl_signal_first(t, &v, 5000 * MS), RPL_OK);
    CHECK_EQ_INT(rpl_value_int(&v), 1);
    rpl_release(t);

    /* Timeout on never. */
    rpl_signal_t *never = rpl_signal_never();
    double t0 = now_ms();
    CHECK_EQ_INT(rpl_signal_first(never, &v, 20 * MS), RPL_ERR_TIMEOUT);
    CHECK(now_ms() - t0 >= 19.0);
    CHECK_FAILED_WITH(RPL_ERR_TIMEOUT);
    CHECK_EQ_INT(rpl_value_type(&v), RPL_TYPE_NIL);
    CHECK(rpl_last_signal_error() == NULL);
    CHECK_EQ_INT(rpl_signal_first(never, &v, 0), RPL_ERR_TIMEOUT);  /* zero timeout */

    /* Completed without a value. */
    rpl_signal_t *empty = rpl_signal_empty();
    CHECK_EQ_INT(rpl_signal_first(empty, &v, RPL_FOREVER), RPL_ERR_NO_VALUE);
    CHECK_FAILED_WITH(RPL_ERR_NO_VALUE);
    CHECK_EQ_INT(rpl_value_type(&v), RPL_TYPE_NIL);
    script none = { 0, 0 };
    t = threaded(&none);
    CHECK_EQ_INT(rpl_signal_first(t, &v, 5000 * MS), RPL_ERR_NO_VALUE);
    rpl_release(t);

    /* The error path. */
    rpl_error_t *e = rpl_error_create("d", 7, "bad");
    rpl_signal_t *err = rpl_signal_error(e);
    rpl_release(e);
    CHECK_EQ_INT(rpl_signal_first(err, &v, RPL_FOREVER), RPL_ERR_FAILED);
    CHECK_FAILED_WITH(RPL_ERR_FAILED);
    CHECK(rpl_last_signal_error() != NULL);
    CHECK_EQ_INT(rpl_error_code(rpl_last_signal_error()), 7);
    CHECK(strcmp(rpl_error_domain(rpl_last_signal_error()), "d") == 0);
    rpl_release(err);
    CHECK_EQ_INT(rpl_error_code(rpl_last_signal_error()), 7);  /* kept until the next helper call */
    script fails = { 0, 1 };
    t = threaded(&fails);
    CHECK_EQ_INT(rpl_signal_first(t, &v, 5000 * MS), RPL_ERR_FAILED);
    CHECK_EQ_INT(rpl_error_code(rpl_last_signal_error()), 99);
    rpl_release(t);
    /* A value before the error wins. */
    script value_then_fail = { 1, 1 };
    t = threaded(&value_then_fail);
    CHECK_EQ_INT(rpl_signal_first(t, &v, 5000 * MS), RPL_OK);
    CHECK_EQ_INT(rpl_value_int(&v), 1);
    CHECK(rpl_last_signal_error() == NULL);  /* reset by the successful call */
    rpl_release(t);

    check_value_helper_bad_input(rpl_signal_first, never);
    rpl_release(never);
    rpl_release(empty);
}

static void test_wait(void) {
    rpl_signal_t *empty = rpl_signal_empty(), *never = rpl_signal_never(), *ret = rpl_signal_return(rpl_int(1));
    CHECK_EQ_INT(rpl_signal_wait(empty, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT(rpl_signal_wait(ret, RPL_FOREVER), RPL_OK);
    script sc = { 3, 0 };
    rpl_signal_t *t = threaded(&sc);
    CHECK_EQ_INT(rpl_signal_wait(t, 5000 * MS), RPL_OK);
    rpl_release(t);

    double t0 = now_ms();
    CHECK_EQ_INT(rpl_signal_wait(never, 15 * MS), RPL_ERR_TIMEOUT);
    CHECK(now_ms() - t0 >= 14.0);
    CHECK_FAILED_WITH(RPL_ERR_TIMEOUT);
    /* Values but no terminal event: still a timeout, values freed. */
    script open = { 3, 2 };
    t = threaded(&open);
    CHECK_EQ_INT(rpl_signal_wait(t, 30 * MS), RPL_ERR_TIMEOUT);
    rpl_release(t);

    rpl_signal_t *err = rpl_signal_error(NULL);
    CHECK_EQ_INT(rpl_signal_wait(err, RPL_FOREVER), RPL_ERR_FAILED);
    CHECK_FAILED_WITH(RPL_ERR_FAILED);
    CHECK_EQ_INT(rpl_error_code(rpl_last_signal_error()), RPL_ERROR_GENERIC);
    CHECK(strcmp(rpl_error_domain(rpl_last_signal_error()), RPL_ERROR_DOMAIN) == 0);
    rpl_release(err);
    CHECK_EQ_INT(rpl_signal_wait(empty, 0), RPL_OK);
    CHECK(rpl_last_signal_error() == NULL);

    CHECK_EQ_INT(rpl_signal_wait(NULL, 0), RPL_ERR_NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    rpl_disposable_t *d = rpl_disposable_create(NULL, NULL);
    CHECK_EQ_INT(rpl_signal_wait((rpl_signal_t *)d, 0), RPL_ERR_KIND);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    rpl_release(d);
    rpl_release(empty);
    rpl_release(never);
    rpl_release(ret);
}

static void test_to_array(void) {
    rpl_value out = rpl_int(1);
    script sc = { 3, 0 };
    rpl_signal_t *t = threaded(&sc);
    CHECK_EQ_INT(rpl_signal_to_array(t, &out, 5000 * MS), RPL_OK);
    CHECK_EQ_INT(rpl_value_type(&out), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(&out), 3);
    for (size_t i = 0; i < 3; i++) {
        rpl_value x = rpl_value_tuple_at(&out, i);
        CHECK_EQ_INT(rpl_value_int(&x), (int64_t)i + 1);
    }
    rpl_value_release(&out);
    rpl_release(t);

    rpl_signal_t *ret = rpl_signal_return(rpl_string("one"));
    CHECK_EQ_INT(rpl_signal_to_array(ret, &out, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT(rpl_value_tuple_count(&out), 1);
    rpl_value x = rpl_value_tuple_at(&out, 0);
    CHECK(strcmp(rpl_value_string(&x, NULL), "one") == 0);
    rpl_value_release(&x);
    rpl_value_release(&out);
    rpl_release(ret);

    /* No values: an empty tuple, not an error. */
    rpl_signal_t *empty = rpl_signal_empty();
    CHECK_EQ_INT(rpl_signal_to_array(empty, &out, RPL_FOREVER), RPL_OK);
    CHECK_EQ_INT(rpl_value_type(&out), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(&out), 0);
    rpl_value_release(&out);

    /* Timeout and error: nil out, values freed (valgrind). */
    script open = { 3, 2 };
    t = threaded(&open);
    CHECK_EQ_INT(rpl_signal_to_array(t, &out, 30 * MS), RPL_ERR_TIMEOUT);
    CHECK_FAILED_WITH(RPL_ERR_TIMEOUT);
    CHECK_EQ_INT(rpl_value_type(&out), RPL_TYPE_NIL);
    rpl_release(t);
    script fails = { 2, 1 };
    t = threaded(&fails);
    CHECK_EQ_INT(rpl_signal_to_array(t, &out, 5000 * MS), RPL_ERR_FAILED);
    CHECK_FAILED_WITH(RPL_ERR_FAILED);
    CHECK_EQ_INT(rpl_value_type(&out), RPL_TYPE_NIL);
    CHECK_EQ_INT(rpl_error_code(rpl_last_signal_error()), 99);
    CHECK(strcmp(rpl_error_message(rpl_last_signal_error()), "producer failed") == 0);
    rpl_release(t);
    rpl_signal_t *never = rpl_signal_never();
    CHECK_EQ_INT(rpl_signal_to_array(never, &out, 1 * MS), RPL_ERR_TIMEOUT);

    check_value_helper_bad_input(rpl_signal_to_array, empty);
    rpl_release(never);
    rpl_release(empty);
}

/* The blocking helpers dispose their subscription: the resource runs and
   the observer side is released before they return. */
static int disposed_count;
static void count_disposed(void *ctx) { (void)ctx; disposed_count++; }
static rpl_disposable_t *never_with_resource(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    (void)s;
    return rpl_disposable_create(count_disposed, NULL);
}

static void test_helpers_dispose(void) {
    disposed_count = 0;
    rpl_signal_t *sig = rpl_signal_create(never_with_resource, NULL, NULL);
    rpl_value v;
    CHECK_EQ_INT(rpl_signal_first(sig, &v, 1 * MS), RPL_ERR_TIMEOUT);
    CHECK_EQ_INT(rpl_signal_wait(sig, 1 * MS), RPL_ERR_TIMEOUT);
    CHECK_EQ_INT(rpl_signal_to_array(sig, &v, 1 * MS), RPL_ERR_TIMEOUT);
    CHECK_EQ_INT(disposed_count, 3);
    rpl_release(sig);
}

int main(void) {
    RUN(test_first);
    RUN(test_wait);
    RUN(test_to_array);
    RUN(test_helpers_dispose);
    CHECK_DONE();
}
