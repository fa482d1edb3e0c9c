/* ripple_uv.h against libuv: the shared cases (loop_test.h) on a private
   uv_loop_t, and libuv's own: bad input, the same run loop attached twice,
   the handle (unref lets uv_run return), and closing the uv loop after a
   detach, also through uv_walk. */
#include <ripple_uv.h>
#include "loop_test.h"
#include <errno.h>

static uv_loop_t uv;

static void host_init(void) { uv_loop_init(&uv); }
static void host_fini(void) {
    uv_run(&uv, UV_RUN_NOWAIT);  // the close callbacks of detached handles
    CHECK_EQ_INT(uv_loop_close(&uv), 0);
}
static void *host_attach(rpl_run_loop_t *loop) { return rpl_uv_attach(&uv, loop); }
static void host_detach(void *a) { rpl_uv_detach((rpl_uv_t *)a); }
static void host_iterate(void) { uv_run(&uv, UV_RUN_ONCE); }

static void timer_fired(uv_timer_t *t) { atomic_store((atomic_int *)t->data, 1); }
static void timer_closed(uv_handle_t *h) { free(h); }
static void *host_timer(uint64_t ms, atomic_int *fired) {
    uv_timer_t *t = (uv_timer_t *)malloc(sizeof *t);
    uv_timer_init(&uv, t);
    t->data = fired;
    uv_timer_start(t, timer_fired, ms, 0);
    return t;
}
static void host_timer_cancel(void *t) { uv_close((uv_handle_t *)t, timer_closed); }

static void test_bad_uv_loop(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    errno = 0;
    CHECK(rpl_uv_attach(NULL, loop) == NULL);
    CHECK_EQ_INT(errno, EINVAL);
    errno = 0;
    CHECK(rpl_uv_attach(&uv, NULL) == NULL);
    CHECK_EQ_INT(errno, EINVAL);
    CHECK(rpl_uv_handle(NULL) == NULL);
    rpl_release(loop);
}

/* libuv allows one poll handle per descriptor and loop: a second attachment
   of the same run loop to the same uv loop is refused with EEXIST. */
static void test_attached_twice(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_uv_t *a = rpl_uv_attach(&uv, loop);
    errno = 0;
    CHECK(rpl_uv_attach(&uv, loop) == NULL);
    CHECK_EQ_INT(errno, EEXIST);
    rpl_uv_detach(a);
    rpl_release(loop);
}

static void set_flag(void *flag) { atomic_store((atomic_int *)flag, 1); }

/* The handle is referenced (uv_run keeps going while attached); unref'd,
   uv_run(UV_RUN_DEFAULT) returns once the rest of the loop is done. */
static void test_handle_unref(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_uv_t *a = rpl_uv_attach(&uv, loop);
    uv_handle_t *h = rpl_uv_handle(a);
    CHECK(h != NULL && h->type == UV_POLL && uv_is_active(h) && uv_has_ref(h));
    uv_unref(h);
    atomic_int ran = 0;
    rpl_release(rpl_scheduler_schedule(rpl_run_loop_scheduler(loop), set_flag, &ran, NULL));
    atomic_int fired = 0;
    void *t = host_timer(20, &fired);  // keeps uv_run going until it fires
    uv_run(&uv, UV_RUN_DEFAULT);
    CHECK_EQ_INT(atomic_load(&fired), 1);
    CHECK_EQ_INT(atomic_load(&ran), 1);
    host_timer_cancel(t);
    rpl_uv_detach(a);
    uv_run(&uv, UV_RUN_DEFAULT);  // closes both handles, then returns
    rpl_release(loop);
}

/* A uv loop of its own closes cleanly once its attachment is detached and
   the close callback has run (the memory is freed then: valgrind and ASan
   see it). */
static void test_close_uv_loop(void) {
    uv_loop_t own;
    uv_loop_init(&own);
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_uv_t *a = rpl_uv_attach(&own, loop);
    rpl_release(loop);
    CHECK_EQ_INT(uv_loop_close(&own), UV_EBUSY);
    rpl_uv_detach(a);
    uv_run(&own, UV_RUN_DEFAULT);
    CHECK_EQ_INT(uv_loop_close(&own), 0);
}

static void close_unless_closing(uv_handle_t *h, void *arg) {
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

/* The usual uv_walk shutdown (close every handle not already closing) after
   rpl_uv_detach skips the attachment's handle, and the loop closes with
   nothing leaked. */
static void test_walk_shutdown(void) {
    uv_loop_t own;
    uv_loop_init(&own);
    uv_timer_t timer;  // a handle of the program's own, closed by the walk
    uv_timer_init(&own, &timer);
    rpl_run_loop_t *loop = rpl_run_loop_create();
    rpl_uv_t *a = rpl_uv_attach(&own, loop);
    rpl_release(loop);
    rpl_uv_detach(a);
    uv_walk(&own, close_unless_closing, NULL);
    uv_run(&own, UV_RUN_DEFAULT);
    CHECK_EQ_INT(uv_loop_close(&own), 0);
}

int main(void) {
    host_thread = pthread_self();
    host_init();
    loop_tests();
    RUN(test_bad_uv_loop);
    RUN(test_attached_twice);
    RUN(test_handle_unref);
    RUN(test_close_uv_loop);
    RUN(test_walk_shutdown);
    host_fini();
    CHECK_DONE();
}
