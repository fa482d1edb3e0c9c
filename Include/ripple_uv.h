/*
 * ripple_uv.h - drive a Ripple run loop from a libuv loop.
 *
 * Header-only glue between ripple.h's run loop and libuv: an attachment (a
 * uv_poll_t on the run loop's descriptor) that runs the run loop's work on
 * the thread running a uv_loop_t. Work scheduled on the run loop from any
 * thread - a subject sent into from a worker, a timer, an OS source such as
 * rpl_signal_read_lines - then runs on the uv loop's thread, beside the
 * program's own handles.
 *
 *     #include <ripple_uv.h>
 *     cc app.c $(pkg-config --cflags --libs ripple libuv)
 *
 * (libuv's own uv.h needs POSIX declarations that a strict -std=c99 or c11
 * leaves out: define _POSIX_C_SOURCE 200809L there, or use -std=gnu11.)
 *
 * How it works: the poll handle watches the run loop's descriptor and runs a
 * batch of ready work whenever it is readable, as ripple.h describes for any
 * host loop beside rpl_run_loop_create; due timed items wake the descriptor
 * too, to the nanosecond, so no uv_timer_t (which rounds to the millisecond)
 * is needed.
 */
#ifndef RIPPLE_UV_H
#define RIPPLE_UV_H

#include <ripple.h>
#include <uv.h>
#include <errno.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * libuv: a run loop inside a uv_loop_t
 * ---------------------------------------------------------------------------
 * Ownership  Detaching stops driving the run loop, releases it and closes
 *            the poll handle; as with any libuv handle, the attachment's
 *            memory is freed by the close callback, when the uv loop next
 *            runs (uv_run), which must happen before uv_loop_close. Detach
 *            before closing the uv loop: uv_loop_close fails with UV_EBUSY
 *            while an attachment is open, and a shutdown that closes every
 *            handle with uv_walk must call rpl_uv_detach for the attachment
 *            first (the walk then sees its handle closing and skips it, as
 *            uv_is_closing tells).
 * Liveness   The poll handle is referenced, like a uv_async_t: uv_run
 *            (UV_RUN_DEFAULT) keeps running while a run loop is attached,
 *            since work may arrive from another thread at any time. To let
 *            uv_run return when the rest of the loop is done, uv_unref the
 *            handle (rpl_uv_handle).
 * Threads    Run-loop work runs on the thread running the uv loop. Attach
 *            and detach on that thread (libuv's handles are not
 *            thread-safe).
 * Shared     The rules every adapter follows are in ripple.h, beside
 *            rpl_run_loop_create (man rpl_run_loop_create): batches of
 *            RPL_LOOP_BATCH items (defined there), one driver, pending
 *            work kept.
 * ======================================================================== */

/* An attachment of a run loop to a uv loop (opaque: use the functions). */
typedef struct rpl_uv rpl_uv_t;

/* Attaches loop to uv and returns the attachment, to pass to rpl_uv_detach.
   Returns NULL and sets errno on failure: EINVAL for uv NULL, or for loop
   NULL or not a run loop (then rpl_last_error says which: RPL_ERR_NULL,
   RPL_ERR_KIND); ENOMEM; or what libuv reported (uv_poll_init,
   uv_poll_start), such as EEXIST when this run loop is already attached to
   this uv loop. */
static inline rpl_uv_t *rpl_uv_attach(uv_loop_t *uv, rpl_run_loop_t *loop);

/* Detaches (see Ownership above): no run-loop work runs from this uv loop
   after it returns, except the item running now when called from run-loop
   work this attachment runs. NULL is a no-op; detach each attachment once.
   On the uv loop's thread; also from a callback, including run-loop work
   this attachment is running. */
static inline void rpl_uv_detach(rpl_uv_t *a);

/* The attachment's poll handle, for uv_ref/uv_unref and uv_is_active. Do not
   close or stop it yourself (rpl_uv_detach does). NULL for NULL. */
static inline uv_handle_t *rpl_uv_handle(rpl_uv_t *a);

/* ---- Implementation (private: may change without notice) ---- */

struct rpl_uv {
    uv_poll_t poll;
    rpl_run_loop_t *loop;
    int running;   // inside rpl_uv_ready_: a detach leaves the release to it
    int detached;
};

static inline void rpl_uv_ready_(uv_poll_t *h, int status, int events) {
    rpl_uv_t *a = (rpl_uv_t *)h->data;
    int n;
    (void)events;
    // The descriptor is the run loop's own: an error can only mean it was
    // closed behind the loop's back. Stop polling rather than spin on it.
    if (status < 0) {
        uv_poll_stop(h);
        return;
    }
    a->running = 1;
    for (n = 0; n < RPL_LOOP_BATCH && !a->detached; n++)
        if (rpl_run_loop_run_one(a->loop) != 1) break;
    a->running = 0;
    // Detached by the work: the loop is released here, not under its own
    // run call. The memory stays until the close callback.
    if (a->detached) {
        rpl_release(a->loop);
        a->loop = NULL;
    }
}

static inline void rpl_uv_closed_(uv_handle_t *h) {
    free(h->data);
}

static inline rpl_uv_t *rpl_uv_attach(uv_loop_t *uv, rpl_run_loop_t *loop) {
    int fd = rpl_run_loop_fd(loop);  // validates loop, setting the last error
    rpl_uv_t *a;
    int rc;
    if (fd < 0 || uv == NULL) {
        errno = EINVAL;
        return NULL;
    }
    a = (rpl_uv_t *)malloc(sizeof *a);
    if (a == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    rc = uv_poll_init(uv, &a->poll, fd);
    if (rc < 0) {  // nothing to close: the handle was not initialized
        free(a);
        errno = -rc;
        return NULL;
    }
    a->poll.data = a;
    a->loop = (rpl_run_loop_t *)rpl_retain(loop);
    a->running = 0;
    a->detached = 0;
    rc = uv_poll_start(&a->poll, UV_READABLE, rpl_uv_ready_);
    if (rc < 0) {
        rpl_uv_detach(a);
        errno = -rc;
        return NULL;
    }
    return a;
}

static inline void rpl_uv_detach(rpl_uv_t *a) {
    if (a == NULL || a->detached) return;
    a->detached = 1;
    uv_poll_stop(&a->poll);
    uv_close((uv_handle_t *)&a->poll, rpl_uv_closed_);
    if (!a->running) {
        rpl_release(a->loop);
        a->loop = NULL;
    }
}

static inline uv_handle_t *rpl_uv_handle(rpl_uv_t *a) {
    return a == NULL ? NULL : (uv_handle_t *)&a->poll;
}

#ifdef __cplusplus
}
#endif

#endif /* RIPPLE_UV_H */
