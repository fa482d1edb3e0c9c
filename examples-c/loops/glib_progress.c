/* glib_progress: Ripple inside a GLib program (ripple_glib.h).
 *
 * A GLib program already runs g_main_loop_run on its main thread (a GTK
 * application would). rpl_glib_attach makes that loop drive a Ripple run
 * loop, so everything delivered on the run loop's scheduler runs on the main
 * thread, between the program's other GLib sources:
 * - a worker thread "downloads" a file and sends each chunk's size into a
 *   subject; scan sums them and deliver_on moves the totals to the main
 *   thread, where a GUI could update a progress bar;
 * - rpl_signal_timeout, a timer on the run loop, would stop a stalled
 *   download;
 * - a GLib timeout of the program's own keeps running beside it.
 *
 *   cc glib_progress.c $(pkg-config --cflags --libs ripple glib-2.0) -lpthread
 */
#define _POSIX_C_SOURCE 200809L
#include <ripple_glib.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define MS 1000000ull
enum { CHUNKS = 5, CHUNK = 64 * 1024 };

static pthread_t main_thread;
static GMainLoop *main_loop;

static const char *where(void) {
    return pthread_equal(pthread_self(), main_thread) ? "main thread" : "ANOTHER THREAD";
}

static void *download(void *subject) {
    for (int i = 0; i < CHUNKS; i++) {
        nanosleep(&(struct timespec){0, 20 * MS}, NULL);
        rpl_subject_send_next((rpl_subject_t *)subject, rpl_int(CHUNK));
    }
    rpl_subject_send_completed((rpl_subject_t *)subject);
    return NULL;
}

static rpl_value sum(void *ctx, const rpl_value *acc, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(acc) + rpl_value_int(v));
}

static void progress(void *ctx, const rpl_value *v) {
    (void)ctx;
    printf("  %6lld of %d bytes  (on the %s)\n", (long long)rpl_value_int(v), CHUNKS * CHUNK, where());
}
static void failed(void *ctx, const rpl_error_t *e) {
    (void)ctx;
    printf("  download failed: %s\n", rpl_error_message(e));
    g_main_loop_quit(main_loop);
}
static void done(void *ctx) {
    (void)ctx;
    printf("  done (on the %s)\n", where());
    g_main_loop_quit(main_loop);
}

static gboolean glib_tick(gpointer ticks) {
    ++*(int *)ticks;
    return G_SOURCE_CONTINUE;
}

int main(void) {
    main_thread = pthread_self();
    main_loop = g_main_loop_new(NULL, FALSE);

    /* The run loop, driven by GLib's default context from now on. */
    rpl_run_loop_t *loop = rpl_run_loop_create();
    GSource *source = rpl_glib_attach(NULL, loop);
    rpl_scheduler_t *ui = rpl_run_loop_scheduler(loop);

    rpl_subject_t *chunks = rpl_subject_create();
    rpl_signal_t *totals = rpl_signal_scan((rpl_signal_t *)chunks, rpl_int(0), sum, NULL, NULL);
    rpl_signal_t *guarded = rpl_signal_timeout(totals, 5000 * MS, ui);
    rpl_signal_t *on_ui = rpl_signal_deliver_on(guarded, ui);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = progress;
    o.on_error = failed;
    o.on_completed = done;
    rpl_disposable_t *sub = rpl_signal_subscribe(on_ui, &o);

    int ticks = 0;
    guint tick = g_timeout_add(10, glib_tick, &ticks);
    pthread_t worker;
    pthread_create(&worker, NULL, download, chunks);
    printf("downloading %d chunks on a worker thread; the totals arrive on the GLib main loop:\n", CHUNKS);
    g_main_loop_run(main_loop);
    pthread_join(worker, NULL);
    printf("meanwhile the program's own GLib timeout ran too (%s)\n", ticks > 0 ? "yes" : "no");

    g_source_remove(tick);
    rpl_glib_detach(source);
    rpl_release(sub);
    rpl_release(on_ui);
    rpl_release(guarded);
    rpl_release(totals);
    rpl_release(chunks);
    rpl_release(loop);
    g_main_loop_unref(main_loop);
    return 0;
}
