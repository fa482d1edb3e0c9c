/* uv_heartbeat: Ripple inside a libuv program (ripple_uv.h).
 *
 * A libuv program runs uv_run on its loop thread. rpl_uv_attach makes that
 * loop drive a Ripple run loop, so everything delivered on the run loop's
 * scheduler runs on the uv thread, beside the program's own handles:
 * - a worker thread writes log lines into a pipe; rpl_signal_read_lines
 *   reads them on the run loop (the run loop's descriptor wakes uv for its
 *   OS sources too), and filter keeps the errors;
 * - rpl_signal_interval on the run loop sends a heartbeat (take: three);
 * - when both have completed the program detaches, its last handle goes,
 *   and uv_run returns by itself.
 *
 *   cc uv_heartbeat.c $(pkg-config --cflags --libs ripple libuv) -lpthread
 */
#define _POSIX_C_SOURCE 200809L
#include <ripple_uv.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull

static pthread_t uv_thread;
static rpl_uv_t *attachment;
static int running = 2;  /* the error stream and the heartbeat */

static const char *where(void) {
    return pthread_equal(pthread_self(), uv_thread) ? "uv thread" : "ANOTHER THREAD";
}

static const char *log_lines[] = {
    "INFO  service started", "ERROR disk /var is 97% full", "INFO  request 1 ok",
    "ERROR upstream timed out", "INFO  request 2 ok",
};

static void *produce(void *fd) {
    int out = *(int *)fd;
    for (size_t i = 0; i < sizeof log_lines / sizeof *log_lines; i++) {
        nanosleep(&(struct timespec){0, 15 * MS}, NULL);
        dprintf(out, "%s\n", log_lines[i]);
    }
    close(out);  /* end of input: the line signal completes */
    return NULL;
}

static bool is_error(void *ctx, const rpl_value *line) {
    (void)ctx;
    return strncmp(rpl_value_string(line, NULL), "ERROR", 5) == 0;
}

static void on_error_line(void *ctx, const rpl_value *line) {
    (void)ctx;
    printf("  alert: %s  (on the %s)\n", rpl_value_string(line, NULL) + 6, where());
}
static void on_beat(void *ctx, const rpl_value *n) {
    (void)ctx;
    printf("  heartbeat %lld  (on the %s)\n", (long long)rpl_value_int(n), where());
}
/* When both streams are done, detaching removes the last handle: uv_run returns. */
static void finished(void *name) {
    printf("  %s finished\n", (const char *)name);
    if (--running == 0) rpl_uv_detach(attachment);
}

static rpl_disposable_t *watch(rpl_signal_t *sig, void (*next)(void *, const rpl_value *), const char *name) {
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = next;
    o.on_completed = finished;
    o.ctx = (void *)name;
    return rpl_signal_subscribe(sig, &o);
}

int main(void) {
    uv_thread = pthread_self();
    uv_loop_t *uv = uv_default_loop();

    rpl_run_loop_t *loop = rpl_run_loop_create();
    attachment = rpl_uv_attach(uv, loop);
    if (attachment == NULL) {
        perror("rpl_uv_attach");
        return 1;
    }
    rpl_scheduler_t *on_uv = rpl_run_loop_scheduler(loop);

    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) {
        perror("pipe");
        return 1;
    }
    rpl_signal_t *lines = rpl_signal_read_lines(pipe_fds[0], 1024, on_uv);
    rpl_signal_t *alerts = rpl_signal_filter(lines, is_error, NULL, NULL);
    rpl_signal_t *ticks = rpl_signal_interval(25 * MS, on_uv);
    rpl_signal_t *beats = rpl_signal_take(ticks, 3);
    rpl_disposable_t *a = watch(alerts, on_error_line, "error stream");
    rpl_disposable_t *b = watch(beats, on_beat, "heartbeat");

    pthread_t worker;
    pthread_create(&worker, NULL, produce, &pipe_fds[1]);
    printf("a worker thread writes the log into a pipe; alerts and heartbeats arrive on the uv loop:\n");
    uv_run(uv, UV_RUN_DEFAULT);  /* returns once the attachment is detached */
    pthread_join(worker, NULL);
    printf("uv_run returned: nothing left to wait for\n");

    rpl_release(a);
    rpl_release(b);
    rpl_release(beats);
    rpl_release(ticks);
    rpl_release(alerts);
    rpl_release(lines);
    close(pipe_fds[0]);
    rpl_release(loop);
    return uv_loop_close(uv) == 0 ? 0 : 1;
}
