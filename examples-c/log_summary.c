/* log_summary: a summary of a log, per level, every second.
 *
 *   log_summary              summarizes a built-in sample log, typed out
 *                            over about two seconds
 *   log_summary -            summarizes standard input, e.g.
 *                              tail -f app.log | log_summary -
 *
 * Lines look like "LEVEL message" (DEBUG, INFO, WARN, ERROR). The pipeline:
 *
 *   rpl_signal_read_lines        the input's lines, read on the run loop
 *     -> rpl_signal_filter          drops blank lines, comments and DEBUG
 *     -> rpl_signal_group_by        one signal per level, made the first time
 *                                   the level is seen
 *     -> rpl_signal_buffer_with_time (per level, 1 s, on the run loop)
 *                                   the level's lines of the last second, as
 *                                   one tuple
 *
 * Everything runs on the main thread, in the run loop: its descriptor is
 * readable when input is there or a one-second timer is due, so the main
 * loop polls that one descriptor. At end of input the lines complete, each
 * level's last, partial second is summarized, and the program exits.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <pthread.h>
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECOND 1000000000ull

static rpl_run_loop_t *loop;
static uint64_t started;      /* the run loop's clock at start */
static int open_streams;      /* the outer signal and each level's summary */

/* --- The pipeline's callbacks -------------------------------------------- */

/* The level of a line: its first word. */
static size_t level_length(const char *line) { return strcspn(line, " \t"); }

static bool worth_summarizing(void *ctx, const rpl_value *line) {
    (void)ctx;
    const char *s = rpl_value_string(line, NULL);
    if (!s || !s[0] || s[0] == '#') return false;
    return !(level_length(s) == 5 && strncmp(s, "DEBUG", 5) == 0);
}

static rpl_value level_of(void *ctx, const rpl_value *line) {
    (void)ctx;
    const char *s = rpl_value_string(line, NULL);
    return rpl_string_n(s, level_length(s));
}

/* --- One level's summaries ------------------------------------------------ */
typedef struct {
    char level[16];
    long total;
} level_summary;

static void print_summary(void *ctx, const rpl_value *lines) {
    level_summary *ls = ctx;
    size_t n = rpl_value_tuple_count(lines);
    if (n == 0) return;
    ls->total += (long)n;
    rpl_value last = rpl_value_tuple_at(lines, n - 1);
    const char *text = rpl_value_string(&last, NULL);
    const char *message = text + level_length(text);
    while (*message == ' ' || *message == '\t') message++;
    double t = (double)(rpl_scheduler_now(rpl_run_loop_scheduler(loop)) - started) / SECOND;
    printf("t=%4.1f s  %-5s %2zu line%s this second, %3ld in all; last: %s\n", t, ls->level, n,
           n == 1 ? " " : "s", ls->total, message);
    rpl_value_release(&last);
}
static void stream_ended(void *ctx) { (void)ctx; open_streams--; }
static void stream_failed(void *ctx, const rpl_error_t *e) {
    (void)ctx;
    fprintf(stderr, "log_summary: %s\n", rpl_error_message(e));
    open_streams--;
}

/* A new level: (key, group signal). Summarize its group every second. */
static rpl_scheduler_t *timers;
static rpl_disposable_t *subscriptions[16];
static size_t subscription_count;

static void new_level(void *ctx, const rpl_value *pair) {
    (void)ctx;
    rpl_value key = rpl_value_tuple_at(pair, 0);
    rpl_value group = rpl_value_tuple_at(pair, 1);
    level_summary *ls = calloc(1, sizeof *ls);
    snprintf(ls->level, sizeof ls->level, "%s", rpl_value_string(&key, NULL));
    rpl_signal_t *per_second = rpl_signal_buffer_with_time(rpl_value_signal(&group), SECOND, timers);
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_next = print_summary;
    obs.on_error = stream_failed;
    obs.on_completed = stream_ended;
    obs.release = free;
    obs.ctx = ls;
    open_streams++;
    rpl_disposable_t *d = rpl_signal_subscribe(per_second, &obs);
    if (d && subscription_count < sizeof subscriptions / sizeof *subscriptions)
        subscriptions[subscription_count++] = d;
    else
        rpl_release(d);
    rpl_release(per_second);
    rpl_value_release(&group);
    rpl_value_release(&key);
}

/* --- Input ---------------------------------------------------------------- */

/* The built-in sample: a writer thread types it into a pipe, a line every
   150 ms, so the summaries arrive over about two seconds. */
static const char *sample[] = {
    "INFO server started on :8080", "DEBUG config loaded", "INFO GET /index.html 200",
    "WARN slow response from db (212 ms)", "INFO GET /api/items 200", "ERROR db connection reset",
    "INFO GET /api/items 200", "# a comment", "WARN retrying db connection", "INFO db reconnected",
    "ERROR GET /api/orders 500", "INFO GET /index.html 304", "", "WARN cache 91% full",
    "INFO GET /api/items 200", "INFO shutting down",
};
static void *type_sample(void *arg) {
    int fd = *(int *)arg;
    for (size_t i = 0; i < sizeof sample / sizeof *sample; i++) {
        struct timespec pause = {0, 150 * 1000000L};
        nanosleep(&pause, NULL);
        char line[128];
        int n = snprintf(line, sizeof line, "%s\n", sample[i]);
        if (write(fd, line, (size_t)n) != n) break;
    }
    close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    int input = 0;
    pthread_t writer;
    int sample_pipe[2];
    int use_sample = !(argc > 1 && strcmp(argv[1], "-") == 0);
    if (use_sample) {
        if (pipe(sample_pipe) != 0) return 1;
        input = sample_pipe[0];
        pthread_create(&writer, NULL, type_sample, &sample_pipe[1]);
    }

    loop = rpl_run_loop_create();
    timers = rpl_run_loop_scheduler(loop);
    started = rpl_scheduler_now(timers);

    rpl_signal_t *lines = rpl_signal_read_lines(input, 4096, timers);
    rpl_signal_t *wanted = rpl_signal_filter(lines, worth_summarizing, NULL, NULL);
    rpl_signal_t *levels = rpl_signal_group_by(wanted, level_of, NULL, NULL);
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_next = new_level;
    obs.on_error = stream_failed;
    obs.on_completed = stream_ended;
    open_streams = 1;
    rpl_disposable_t *outer = rpl_signal_subscribe(levels, &obs);

    /* The main loop: the run loop's descriptor serves the input and the timers. */
    while (open_streams > 0) {
        struct pollfd fd = {rpl_run_loop_fd(loop), POLLIN, 0};
        if (poll(&fd, 1, 2000) < 0) break;
        rpl_run_loop_run_until_idle(loop);
    }
    printf("end of input: every level summarized\n");

    if (use_sample) pthread_join(writer, NULL);
    if (use_sample) close(sample_pipe[0]);
    for (size_t i = 0; i < subscription_count; i++) rpl_release(subscriptions[i]);
    rpl_release(outer);
    rpl_release(levels);
    rpl_release(wanted);
    rpl_release(lines);
    rpl_release(loop);
    return 0;
}
