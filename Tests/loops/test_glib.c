/* ripple_glib.h against GLib: the shared cases (loop_test.h) on a private
   GMainContext, and GLib's own: the default context, the context freed
   before the source is detached, and the source as a GSource. */
#include <ripple_glib.h>
#include "loop_test.h"

static GMainContext *ctx;

static void host_init(void) { ctx = g_main_context_new(); }
static void host_fini(void) { g_main_context_unref(ctx); }
static void *host_attach(rpl_run_loop_t *loop) { return rpl_glib_attach(ctx, loop); }
static void host_detach(void *a) { rpl_glib_detach((GSource *)a); }
static void host_iterate(void) { g_main_context_iteration(ctx, TRUE); }

static gboolean timer_fired(gpointer flag) {
    atomic_store((atomic_int *)flag, 1);
    return G_SOURCE_REMOVE;
}
static void *host_timer(uint64_t ms, atomic_int *fired) {
    GSource *t = g_timeout_source_new((guint)ms);
    g_source_set_callback(t, timer_fired, fired, NULL);
    g_source_attach(t, ctx);
    return t;
}
static void host_timer_cancel(void *t) {
    g_source_destroy((GSource *)t);
    g_source_unref((GSource *)t);
}

static void set_flag(void *flag) { atomic_store((atomic_int *)flag, 1); }

/* NULL attaches to the global default context. */
static void test_default_context(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    GSource *src = rpl_glib_attach(NULL, loop);
    CHECK(src != NULL && g_source_get_context(src) == g_main_context_default());
    atomic_int ran = 0;
    rpl_release(rpl_scheduler_after(rpl_run_loop_scheduler(loop), 5000000u, set_flag, &ran, NULL));
    for (int i = 0; i < 1000 && !atomic_load(&ran); i++) g_main_context_iteration(NULL, TRUE);
    CHECK_EQ_INT(atomic_load(&ran), 1);
    rpl_glib_detach(src);
    rpl_release(loop);
}

/* The context may be freed first: the source is destroyed with it, and
   detaching afterwards releases the run loop (the live-object check at the
   end finds it otherwise). */
static void test_context_freed_first(void) {
    GMainContext *c = g_main_context_new();
    rpl_run_loop_t *loop = rpl_run_loop_create();
    GSource *src = rpl_glib_attach(c, loop);
    rpl_release(loop);
    g_main_context_unref(c);
    CHECK(g_source_is_destroyed(src));
    rpl_glib_detach(src);
}

/* The source is an ordinary GSource: named, and destroyed by detach. */
static void test_gsource(void) {
    rpl_run_loop_t *loop = rpl_run_loop_create();
    GSource *src = rpl_glib_attach(ctx, loop);
    CHECK(strcmp(g_source_get_name(src), "ripple run loop") == 0);
    CHECK(!g_source_is_destroyed(src));
    g_source_ref(src);
    rpl_glib_detach(src);
    CHECK(g_source_is_destroyed(src));
    g_source_unref(src);
    rpl_release(loop);
}

int main(void) {
    host_thread = pthread_self();
    host_init();
    loop_tests();
    RUN(test_default_context);
    RUN(test_context_freed_first);
    RUN(test_gsource);
    host_fini();
    CHECK_DONE();
}
