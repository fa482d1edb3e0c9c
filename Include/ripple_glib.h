/*
 * ripple_glib.h - drive a Ripple run loop from a GLib main context.
 *
 * Header-only glue between ripple.h's run loop and GLib: a GSource that runs
 * the run loop's work on the thread iterating a GMainContext (a GTK, GIO or
 * plain g_main_loop_run program). Work scheduled on the run loop from any
 * thread - a subject sent into from a worker, a timer, an OS source such as
 * rpl_signal_read_lines - then runs on the context's thread, with the rest
 * of the program's GLib sources.
 *
 *     #include <ripple_glib.h>
 *     cc app.c $(pkg-config --cflags --libs ripple glib-2.0)
 *
 * How it works: the source polls the run loop's descriptor and runs a batch
 * of ready work whenever it is readable, as ripple.h describes for any host
 * loop beside rpl_run_loop_create; due timed items wake the descriptor too,
 * so it needs no GLib timeout of its own. Before each poll it asks
 * rpl_run_loop_next_timeout whether work is ready already, so work scheduled
 * on the context's own thread runs in the same iteration.
 */
#ifndef RIPPLE_GLIB_H
#define RIPPLE_GLIB_H

#include <ripple.h>
#include <glib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * GLib: a run loop inside a GMainContext
 * ---------------------------------------------------------------------------
 * Ownership  The source holds the run loop's reference until GLib finalizes
 *            it: detaching destroys the source and drops the caller's
 *            reference to it, and the run loop is released once GLib drops
 *            its last one (at once, unless another thread is dispatching the
 *            context at that moment). The context may go first: when its
 *            last reference is dropped, GLib destroys the source (the run
 *            loop stops being driven); rpl_glib_detach is still needed to
 *            drop the caller's reference.
 * Threads    Run-loop work runs on the thread that iterates the context.
 *            Attach and detach from any thread (GLib's sources are
 *            thread-safe).
 * Shared     The rules every adapter follows are in ripple.h, beside
 *            rpl_run_loop_create (man rpl_run_loop_create): batches of
 *            RPL_LOOP_BATCH items (defined there), one driver, pending
 *            work kept.
 * ======================================================================== */

/* Attaches loop to ctx (NULL: the global default context) at priority
   G_PRIORITY_DEFAULT and returns the new source: the caller's reference,
   to pass to rpl_glib_detach (g_source_set_priority and the other GSource
   calls work on it too). Returns NULL for bad input: loop NULL or not a run
   loop (rpl_last_error says which: RPL_ERR_NULL, RPL_ERR_KIND). */
static inline GSource *rpl_glib_attach(GMainContext *ctx, rpl_run_loop_t *loop);

/* Stops driving the run loop (g_source_destroy) and drops the reference
   rpl_glib_attach returned: no run-loop item starts from this source after
   it returns (from run-loop work this source runs, the current item
   finishes; from another thread, so does the item the context's thread is
   running). NULL is a no-op; detach each source once. Any thread; also
   after the context has been freed. */
static inline void rpl_glib_detach(GSource *source);

/* ---- Implementation (private: may change without notice) ---- */

typedef struct rpl_glib_source_ {
    GSource base;
    rpl_run_loop_t *loop;
    gpointer tag;
} rpl_glib_source_;

static inline gboolean rpl_glib_prepare_(GSource *s, gint *timeout) {
    // The descriptor wakes the poll for timed items too: no timeout needed.
    *timeout = -1;
    return rpl_run_loop_next_timeout(((rpl_glib_source_ *)s)->loop) == 0;
}

static inline gboolean rpl_glib_check_(GSource *s) {
    rpl_glib_source_ *g = (rpl_glib_source_ *)s;
    return (g_source_query_unix_fd(s, g->tag) & G_IO_IN) != 0 || rpl_run_loop_next_timeout(g->loop) == 0;
}

static inline gboolean rpl_glib_dispatch_(GSource *s, GSourceFunc callback, gpointer data) {
    rpl_run_loop_t *loop = ((rpl_glib_source_ *)s)->loop;
    int n;
    (void)callback;
    (void)data;
    // Work may detach this source: nothing more runs from it then.
    for (n = 0; n < RPL_LOOP_BATCH && !g_source_is_destroyed(s); n++)
        if (rpl_run_loop_run_one(loop) != 1) break;
    return G_SOURCE_CONTINUE;
}

static inline void rpl_glib_finalize_(GSource *s) {
    rpl_release(((rpl_glib_source_ *)s)->loop);
}

static inline GSource *rpl_glib_attach(GMainContext *ctx, rpl_run_loop_t *loop) {
    // One table per translation unit is enough: GLib only reads it.
    static GSourceFuncs funcs = {rpl_glib_prepare_, rpl_glib_check_, rpl_glib_dispatch_, rpl_glib_finalize_, NULL, NULL};
    int fd = rpl_run_loop_fd(loop);  // validates loop, setting the last error
    GSource *s;
    rpl_glib_source_ *g;
    if (fd < 0) return NULL;
    s = g_source_new(&funcs, sizeof(rpl_glib_source_));
    g = (rpl_glib_source_ *)s;
    g->loop = (rpl_run_loop_t *)rpl_retain(loop);
    g->tag = g_source_add_unix_fd(s, fd, G_IO_IN);
    g_source_set_name(s, "ripple run loop");
    g_source_attach(s, ctx);
    return s;
}

static inline void rpl_glib_detach(GSource *source) {
    if (source == NULL) return;
    g_source_destroy(source);
    g_source_unref(source);
}

#ifdef __cplusplus
}
#endif

#endif /* RIPPLE_GLIB_H */
