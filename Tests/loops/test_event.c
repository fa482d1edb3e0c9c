/* ripple_event.h against libevent: the shared cases (loop_test.h) on a
   private event_base, and libevent's own: bad input, the handle, and freeing
   the base after a detach. */
#include <ripple_event.h>
#include "loop_test.h"
#include <errno.h>

static struct event_base *base;

static void host_init(void) { base = event_base_new(); }
static void host_fini(void) { event_base_free(base); }
static void *host_attach(rpl_run_loop_t *loop) { return rpl_event_attach(base, loop); }
static void host_detach(void *a) { rpl_event_detach((rpl_event_t *)a); }
static void host_iterate(void) { event_base_loop(base, EVLOOP_ONCE); }

static void timer_fired(evutil_socket_t fd, short what, void *flag) {
    (void)fd;
    (void)what;
    atomic_store((atomic_int *)flag, 1);
}
static void *host_timer(uint64_t ms, atomic_int *fired) {
    struct event *t = evtimer_new(base, timer_fired, fired);
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)(ms % 1000 * 1000)};
    evtimer_add(t, &tv);
    return t;
}
static void host_timer_cancel(void *t) { event_free((struct event *)t); }

static void test_bad_base(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    errno = 0;
    CHECK(rpl_event_attach(NULL, loop) == NULL);
    CHECK_EQ_INT(errno, EINVAL);
    errno = 0;
    CHECK(rpl_event_attach(base, NULL) == NULL);
    CHECK_EQ_INT(errno, EINVAL);
    CHECK(rpl_event_handle(NULL) == NULL);
    rpl_release(loop);
}

/* The handle is the attachment's persistent read event on the run loop's
   descriptor. */
static void test_handle(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_event_t *a = rpl_event_attach(base, loop);
    struct event *ev = rpl_event_handle(a);
    CHECK(ev != NULL && event_pending(ev, EV_READ, NULL));
    CHECK_EQ_INT(event_get_fd(ev), rpl_run_loop_fd(loop));
    CHECK(event_get_events(ev) & EV_PERSIST);
    rpl_event_detach(a);
    rpl_release(loop);
}

/* A base of its own is freed after its attachment is detached, with nothing
   left behind (valgrind and ASan see the memory). */
static void test_free_base(void) {
    struct event_base *own = event_base_new();
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_event_t *a = rpl_event_attach(own, loop);
    rpl_release(loop);
    rpl_event_detach(a);
    event_base_free(own);
}

int main(void) {
    host_thread = pthread_self();
    host_init();
    loop_tests();
    RUN(test_bad_base);
    RUN(test_handle);
    RUN(test_free_base);
    host_fini();
    CHECK_DONE();
}
