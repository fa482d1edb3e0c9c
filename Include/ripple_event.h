/*
 * ripple_event.h - drive a Ripple run loop from a libevent event_base.
 *
 * Header-only glue between ripple.h's run loop and libevent: an attachment (a
 * persistent read event on the run loop's descriptor) that runs the run
 * loop's work on the thread dispatching an event_base. Work scheduled on the
 * run loop from any thread - a subject sent into from a worker, a timer, an
 * OS source such as rpl_signal_read_lines - then runs on the base's thread,
 * beside the program's own events.
 *
 *     #include <ripple_event.h>
 *     cc app.c $(pkg-config --cflags --libs ripple libevent)
 *
 * How it works: the event watches the run loop's descriptor and runs a batch
 * of ready work whenever it is readable, as ripple.h describes for any host
 * loop beside rpl_run_loop_create; due timed items wake the descriptor too,
 * so no timer event is needed.
 */
#ifndef RIPPLE_EVENT_H
#define RIPPLE_EVENT_H

#include <ripple.h>
#include <event2/event.h>
#include <errno.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * libevent: a run loop inside an event_base
 * ---------------------------------------------------------------------------
 * Ownership  Detaching stops driving the run loop, frees the event and the
 *            attachment and releases the run loop (after the current item,
 *            when called from run-loop work this attachment is running).
 *            Detach before event_base_free (as for any libevent event:
 *            freeing the base leaves its events pointing at freed memory).
 * Liveness   The event is persistent: event_base_dispatch keeps running
 *            while a run loop is attached, since work may arrive from
 *            another thread at any time. Call event_base_loopexit or
 *            event_base_loopbreak, or detach, to end it.
 * Threads    Run-loop work runs on the thread dispatching the base (the
 *            run loop's descriptor wakes it: no evthread_use_pthreads
 *            needed). Attach and detach on that thread.
 * Shared     The rules every adapter follows are in ripple.h, beside
 *            rpl_run_loop_create (man rpl_run_loop_create): batches of
 *            RPL_LOOP_BATCH items (defined there), one driver, pending
 *            work kept.
 * ======================================================================== */

/* An attachment of a run loop to an event_base (opaque: use the functions). */
typedef struct rpl_event rpl_event_t;

/* Attaches loop to base and returns the attachment, to pass to
   rpl_event_detach. Returns NULL and sets errno on failure: EINVAL for base
   NULL, or for loop NULL or not a run loop (then rpl_last_error says which:
   RPL_ERR_NULL, RPL_ERR_KIND); ENOMEM; or EIO when libevent refuses the
   event (event_new, event_add). */
static inline rpl_event_t *rpl_event_attach(struct event_base *base, rpl_run_loop_t *loop);

/* Detaches (see Ownership above): no run-loop work runs from this base
   after it returns, except the item running now when called from run-loop
   work this attachment runs. NULL is a no-op; detach each attachment once. */
static inline void rpl_event_detach(rpl_event_t *a);

/* The attachment's event, for event_priority_set and event_pending. Do not
   free or delete it yourself (rpl_event_detach does). NULL for NULL. */
static inline struct event *rpl_event_handle(rpl_event_t *a);

/* ---- Implementation (private: may change without notice) ---- */

struct rpl_event {
    struct event *ev;
    rpl_run_loop_t *loop;
    int running;   // inside rpl_event_ready_: a detach leaves the freeing to it
    int detached;
};

static inline void rpl_event_free_(rpl_event_t *a) {
    rpl_release(a->loop);
    free(a);
}

static inline void rpl_event_ready_(evutil_socket_t fd, short what, void *arg) {
    rpl_event_t *a = (rpl_event_t *)arg;
    int n;
    (void)fd;
    (void)what;
    a->running = 1;
    for (n = 0; n < RPL_LOOP_BATCH && !a->detached; n++)
        if (rpl_run_loop_run_one(a->loop) != 1) break;
    a->running = 0;
    if (a->detached) rpl_event_free_(a);
}

static inline rpl_event_t *rpl_event_attach(struct event_base *base, rpl_run_loop_t *loop) {
    int fd = rpl_run_loop_fd(loop);  // validates loop, setting the last error
    rpl_event_t *a;
    if (fd < 0 || base == NULL) {
        errno = EINVAL;
        return NULL;
    }
    a = (rpl_event_t *)malloc(sizeof *a);
    if (a == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    a->running = 0;
    a->detached = 0;
    a->ev = event_new(base, fd, EV_READ | EV_PERSIST, rpl_event_ready_, a);
    if (a->ev == NULL || event_add(a->ev, NULL) != 0) {
        if (a->ev != NULL) event_free(a->ev);
        free(a);
        errno = EIO;
        return NULL;
    }
    a->loop = (rpl_run_loop_t *)rpl_retain(loop);
    return a;
}

static inline void rpl_event_detach(rpl_event_t *a) {
    if (a == NULL || a->detached) return;
    a->detached = 1;
    event_free(a->ev);
    a->ev = NULL;
    if (!a->running) rpl_event_free_(a);
}

static inline struct event *rpl_event_handle(rpl_event_t *a) {
    return a == NULL ? NULL : a->ev;
}

#ifdef __cplusplus
}
#endif

#endif /* RIPPLE_EVENT_H */
