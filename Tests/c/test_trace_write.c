#define _GNU_SOURCE
/* rpl_trace_write and RIPPLE_TRACE (ripple.h "Names, tracing and counting"):
   the JSON lines it writes, its threads, its write errors, fork, and the
   environment variable on a program that never calls it. */
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void on_next_noop(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }

/* A temporary file, unlinked at once: the test keeps the fd. */
static int temp_fd(void) {
    char path[] = "/tmp/ripple-trace-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    return fd;
}

/* The whole file, NUL-terminated (caller frees). */
static char *slurp(int fd, size_t *len) {
    off_t n = lseek(fd, 0, SEEK_END);
    char *buf = malloc((size_t)n + 1);
    ssize_t got = pread(fd, buf, (size_t)n, 0);
    buf[got < 0 ? 0 : got] = 0;
    if (len) *len = got < 0 ? 0 : (size_t)got;
    return buf;
}

/* A plain loop: ASan's strstr reads the whole rest of a big file per call. */
static size_t count_of(const char *s, const char *needle) {
    size_t c = 0, n = strlen(needle);
    for (const char *p = s; *p; p++)
        if (*p == *needle && strncmp(p, needle, n) == 0) {
            c++;
            p += n - 1;
        }
    return c;
}

/* Every line is one whole JSON object of ours: {"t":..} or the header,
   and the times never go back. Returns the number of event lines. */
static long check_lines(const char *buf) {
    long events = 0;
    unsigned long long last_t = 0;
    int ok = 1;
    const char *p = buf;
    if (strncmp(p, "{\"ripple_trace\":1,\"pid\":", 24) != 0) ok = 0;
    p = strchr(p, '\n');
    while (ok && p && p[1]) {
        p++;
        const char *nl = strchr(p, '\n');
        if (!nl || strncmp(p, "{\"t\":", 5) != 0 || nl[-1] != '}') { ok = 0; break; }
        unsigned long long t = strtoull(p + 5, NULL, 10);
        if (t < last_t) { ok = 0; break; }
        last_t = t;
        events++;
        p = nl;
    }
    CHECK(ok);
    if (!ok) fprintf(stderr, "bad line at: %.200s\n", p ? p : "(end)");
    return events;
}

/* Starts writing to fd, and subscribes to a subject named name. */
static rpl_subject_t *traced_subject(int fd, const char *name, rpl_disposable_t **d) {
    CHECK_EQ_INT(rpl_trace_write(fd), RPL_OK);
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_set_name((rpl_signal_t *)s, name);
    *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    return s;
}

/* ---- the lines ---- */
static void test_lines(void) {
    int fd = temp_fd();
    rpl_disposable_t *d;
    rpl_subject_t *s = traced_subject(fd, "clicks \"q\"\n\x01", &d);
    rpl_subject_send_next(s, rpl_int(42));
    rpl_subject_send_next(s, rpl_string("hi"));
    rpl_value items[3] = {rpl_nil(), rpl_bool(true), rpl_double(0.1)};
    rpl_subject_send_next(s, rpl_tuple(items, 3));
    rpl_subject_send_next(s, rpl_double(2));
    rpl_subject_send_next(s, rpl_bytes("abc", 3));
    rpl_subject_send_next(s, rpl_event_completed());
    rpl_error_t *e = rpl_error_create("net", 7, "timed \"out\"");
    rpl_subject_send_error(s, e);
    rpl_release(e);
    rpl_release(d);
    rpl_release(s);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK);
    char *buf = slurp(fd, NULL);
    CHECK_EQ_INT(check_lines(buf), 9);
    const char *name = "\"signal\":\"clicks \\\"q\\\"\\n\\u0001\"";
    CHECK(strstr(buf, ",\"kind\":\"subscribe\",\"sub\":") != NULL);
    CHECK_EQ_INT(count_of(buf, name), 9);
    CHECK(strstr(buf, ",\"value\":\"42\"}\n") != NULL);
    CHECK(strstr(buf, ",\"value\":\"\\\"hi\\\"\"}\n") != NULL);
    CHECK(strstr(buf, ",\"value\":\"(nil, true, 0.1)\"}\n") != NULL);
    CHECK(strstr(buf, ",\"value\":\"2.0\"}\n") != NULL);
    CHECK(strstr(buf, ",\"value\":\"<3 bytes>\"}\n") != NULL);
    CHECK(strstr(buf, ",\"value\":\"<completed>\"}\n") != NULL);
    CHECK(strstr(buf, ",\"kind\":\"error\",") != NULL);
    CHECK(strstr(buf, ",\"error\":{\"domain\":\"net\",\"code\":7,\"message\":\"timed \\\"out\\\"\"}}\n") != NULL);
    CHECK(strstr(buf, ",\"kind\":\"dispose\",") != NULL);
    /* The thread is this thread's id. */
    char tid[48];
    snprintf(tid, sizeof tid, ",\"thread\":%d,", (int)gettid());
    CHECK_EQ_INT(count_of(buf, tid), 9);
    free(buf);
    close(fd);
}

/* Long names and values are cut (with "..."), so a line stays bounded. */
static void test_cut(void) {
    int fd = temp_fd();
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_set_name((rpl_signal_t *)s, big);
    CHECK_EQ_INT(rpl_trace_write(fd), RPL_OK);
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    rpl_subject_send_next(s, rpl_string(big));
    /* A tuple nested 40 deep: written down to 16 levels, then "...". */
    rpl_value deep = rpl_int(7);
    for (int i = 0; i < 40; i++) deep = rpl_tuple(&deep, 1);
    rpl_subject_send_next(s, deep);
    rpl_release(d);
    rpl_release(s);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK);
    size_t len;
    char *buf = slurp(fd, &len);
    CHECK_EQ_INT(check_lines(buf), 4);
    CHECK(strstr(buf, "xxx...\"") != NULL);
    CHECK(strstr(buf, "\"value\":\"((((((((((((((((...))))))))))))))))\"") != NULL);
    CHECK(len < 3 * 1200);
    free(buf);
    close(fd);
}

/* ---- bad input, ownership, the hook slot ---- */
static int hook_calls;
static void count_hook(void *ctx, const rpl_trace_event *e) { (void)ctx; (void)e; hook_calls++; }

static void test_bad_input_and_slot(void) {
    CHECK_EQ_INT(rpl_trace_write(-2), RPL_ERR_INVALID);
    CHECK(strstr(rpl_last_error_message(), "rpl_trace_write") != NULL);
    int p[2];
    CHECK_EQ_INT(pipe(p), 0);
    close(p[1]);
    CHECK_EQ_INT(rpl_trace_write(p[1]), RPL_ERR_INVALID); /* closed */
    CHECK(strstr(rpl_last_error_message(), "Bad file descriptor") != NULL);
    CHECK_EQ_INT(rpl_trace_write(p[0]), RPL_ERR_INVALID); /* read end */
    CHECK(strstr(rpl_last_error_message(), "not open for writing") != NULL);
    close(p[0]);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK); /* stopping what is not running */

    /* The caller may close fd at once: the writer has its own. */
    int fd = temp_fd(), mine = dup(fd);
    CHECK_EQ_INT(rpl_trace_write(mine), RPL_OK);
    close(mine);
    rpl_subject_t *s = rpl_subject_create();
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    rpl_subject_send_next(s, rpl_int(1));
    /* rpl_trace_set replaces the writer; rpl_trace_write(-1) then leaves it. */
    hook_calls = 0;
    rpl_trace_set(count_hook, NULL);
    rpl_subject_send_next(s, rpl_int(2));
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK);
    rpl_subject_send_next(s, rpl_int(3));
    CHECK_EQ_INT(hook_calls, 2);
    rpl_trace_set(NULL, NULL);
    /* ... and the writer replaces a hook. */
    int fd2 = temp_fd();
    rpl_trace_set(count_hook, NULL);
    CHECK_EQ_INT(rpl_trace_write(fd2), RPL_OK);
    rpl_subject_send_next(s, rpl_int(4));
    CHECK_EQ_INT(hook_calls, 2);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK);
    rpl_release(d);
    rpl_release(s);
    char *a = slurp(fd, NULL), *b = slurp(fd2, NULL);
    CHECK_EQ_INT(check_lines(a), 2); /* subscribe, next 1 */
    CHECK(strstr(a, "\"value\":\"1\"") && !strstr(a, "\"value\":\"2\""));
    CHECK_EQ_INT(check_lines(b), 1); /* next 4 (stopped before the dispose) */
    CHECK(strstr(b, "\"value\":\"4\"") != NULL);
    free(a);
    free(b);
    close(fd);
    close(fd2);
}

/* ---- threads: lines never mix, times in file order ---- */
enum { THREADS = 4 };
static long per_thread;
static void *sender(void *arg) {
    rpl_subject_t *s = arg;
    for (long i = 0; i < per_thread; i++) rpl_subject_send_next(s, rpl_int(i));
    return NULL;
}

static void test_threads(void) {
    per_thread = test_scale(20000, 2000);
    int fd = temp_fd();
    CHECK_EQ_INT(rpl_trace_write(fd), RPL_OK);
    rpl_subject_t *s[THREADS];
    rpl_disposable_t *d[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        s[i] = rpl_subject_create();
        d[i] = rpl_signal_subscribe_next((rpl_signal_t *)s[i], on_next_noop, NULL);
    }
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, sender, s[i]);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        rpl_release(d[i]);
        rpl_release(s[i]);
    }
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK);
    char *buf = slurp(fd, NULL);
    CHECK_EQ_INT(check_lines(buf), THREADS * (per_thread + 2));
    CHECK_EQ_INT(count_of(buf, "\"kind\":\"next\""), THREADS * per_thread);
    free(buf);
    close(fd);
}

/* ---- write errors ---- */
/* The reader went away: no SIGPIPE, the loss is reported when it ends. */
static void test_closed_pipe(void) {
    int p[2];
    CHECK_EQ_INT(pipe(p), 0);
    CHECK_EQ_INT(rpl_trace_write(p[1]), RPL_OK);
    close(p[1]);
    close(p[0]);
    rpl_subject_t *s = rpl_subject_create();
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    long n = 5000;
    for (long i = 0; i < n; i++) rpl_subject_send_next(s, rpl_int(i));
    rpl_release(d);
    rpl_release(s);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_ERR_STATE);
    CHECK(strstr(rpl_last_error_message(), "Broken pipe") != NULL);
    CHECK(strstr(rpl_last_error_message(), "were not written") != NULL);
    sigset_t pending;
    sigpending(&pending);
    CHECK(!sigismember(&pending, SIGPIPE)); /* held back and taken */
    /* The next trace starts clean. */
    int fd = temp_fd();
    CHECK_EQ_INT(rpl_trace_write(fd), RPL_OK);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK);
    close(fd);
}

/* A slow reader of a blocking pipe, with signals interrupting the writes
   (EINTR, partial writes): every line arrives whole. */
static volatile sig_atomic_t interrupts;
static void on_usr1(int sig) { (void)sig; interrupts++; }
typedef struct {
    int fd;
    char *buf;
    size_t len, cap;
} reader_arg;
static void *slow_reader(void *p) {
    reader_arg *r = p;
    for (;;) {
        if (r->len + 4096 > r->cap) r->buf = realloc(r->buf, r->cap = r->cap * 2 + 8192);
        ssize_t n = read(r->fd, r->buf + r->len, 4096);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        r->len += (size_t)n;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    r->buf = realloc(r->buf, r->len + 1);
    r->buf[r->len] = 0;
    return NULL;
}
typedef struct {
    rpl_subject_t *s;
    long n;
    int done; /* atomic */
} send_arg;
static void *send_many(void *p) {
    send_arg *a = p;
    for (long i = 0; i < a->n; i++) rpl_subject_send_next(a->s, rpl_int(i));
    __atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_slow_reader_and_signals(void) {
    struct sigaction sa = {0};
    sa.sa_handler = on_usr1; /* no SA_RESTART: a blocked write returns EINTR or short */
    sigaction(SIGUSR1, &sa, NULL);
    int p[2];
    CHECK_EQ_INT(pipe(p), 0);
    reader_arg r = {p[0], NULL, 0, 0};
    pthread_t rt, st;
    pthread_create(&rt, NULL, slow_reader, &r);
    CHECK_EQ_INT(rpl_trace_write(p[1]), RPL_OK);
    close(p[1]);
    send_arg a = {rpl_subject_create(), test_scale(40000, 8000), 0};
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)a.s, on_next_noop, NULL);
    pthread_create(&st, NULL, send_many, &a);
    while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE)) {
        pthread_kill(st, SIGUSR1);
        nanosleep(&(struct timespec){0, 300000}, NULL);
    }
    pthread_join(st, NULL);
    rpl_release(d);
    rpl_release(a.s);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK); /* closes the last write end */
    pthread_join(rt, NULL);
    CHECK(interrupts > 0);
    CHECK_EQ_INT(check_lines(r.buf), a.n + 2);
    free(r.buf);
    signal(SIGUSR1, SIG_DFL);
}

/* A non-blocking pipe nobody reads: the writer waits, gives up, drops the
   lines and says so; the program goes on. */
static void test_full_nonblocking(void) {
    int p[2];
    CHECK_EQ_INT(pipe2(p, O_NONBLOCK), 0);
    CHECK_EQ_INT(rpl_trace_write(p[1]), RPL_OK);
    rpl_subject_t *s = rpl_subject_create();
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    for (long i = 0; i < 20000; i++) rpl_subject_send_next(s, rpl_int(i)); /* > 64 KiB */
    rpl_release(d);
    rpl_release(s);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_ERR_STATE);
    CHECK(strstr(rpl_last_error_message(), "Resource temporarily unavailable") != NULL);
    /* What went out is whole lines up to the first cut. */
    char buf[256];
    CHECK(read(p[0], buf, sizeof buf) > 0);
    CHECK(strncmp(buf, "{\"ripple_trace\":1,", 18) == 0);
    close(p[0]);
    close(p[1]);
}

/* ---- fork: the child does not write its parent's trace ---- */
static void test_fork(void) {
    int fd = temp_fd();
    rpl_disposable_t *d;
    rpl_subject_t *s = traced_subject(fd, "parent", &d);
    rpl_subject_send_next(s, rpl_int(1));
    pid_t pid = fork();
    if (pid == 0) {
        rpl_subject_send_next(s, rpl_int(2));
        int rc = rpl_trace_write(-1) == RPL_OK ? 0 : 3;
        rpl_release(d);
        rpl_release(s);
        _exit(rc);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rpl_subject_send_next(s, rpl_int(3));
    rpl_release(d);
    rpl_release(s);
    CHECK_EQ_INT(rpl_trace_write(-1), RPL_OK);
    char *buf = slurp(fd, NULL);
    CHECK_EQ_INT(check_lines(buf), 4); /* subscribe, 1, 3, dispose */
    CHECK(strstr(buf, "\"value\":\"2\"") == NULL);
    CHECK_EQ_INT(count_of(buf, "{\"ripple_trace\""), 1);
    free(buf);
    close(fd);
}

/* ---- RIPPLE_TRACE: this program run again, untouched, with it set ---- */
static int env_child(void) {
    rpl_signal_t *r = rpl_signal_return(rpl_int(7));
    rpl_disposable_t *d = rpl_signal_subscribe_next(r, on_next_noop, NULL);
    rpl_release(d);
    rpl_release(r);
    return 0; /* the lines go out at exit */
}

static const char *self_path; /* argv[0]: under valgrind /proc/self/exe is valgrind */
static int run_self(const char *trace_env, char *err, size_t cap) {
    int ep[2];
    if (pipe(ep) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(ep[1], 2);
        close(ep[0]);
        setenv("RIPPLE_TRACE", trace_env, 1);
        execl(self_path, self_path, "env-child", (char *)NULL);
        _exit(127);
    }
    close(ep[1]);
    ssize_t n = read(ep[0], err, cap - 1);
    err[n < 0 ? 0 : n] = 0;
    close(ep[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_environment(void) {
    char dir[] = "/tmp/ripple-trace-env-XXXXXX", spec[128], err[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(spec, sizeof spec, "%s/t-%%p.jsonl", dir);
    CHECK_EQ_INT(run_self(spec, err, sizeof err), 0);
    /* One file, named with the child's pid (as its header says). */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cat %s/t-*.jsonl", dir);
    FILE *f = popen(cmd, "r");
    char buf[4096] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    pclose(f);
    CHECK(n > 0);
    CHECK_EQ_INT(check_lines(buf), 4); /* subscribe, next, completed, dispose */
    CHECK(strstr(buf, "\"signal\":\"+return:\",\"value\":\"7\"") != NULL);
    const char *pid_at = strstr(buf, "\"pid\":");
    int pid = pid_at ? atoi(pid_at + 6) : 0;
    char path[160];
    snprintf(path, sizeof path, "%s/t-%d.jsonl", dir, pid);
    CHECK(access(path, R_OK) == 0);
    unlink(path);
    /* A path that cannot be opened: a line on stderr, the program runs. */
    snprintf(spec, sizeof spec, "%s/no/such/dir/t.jsonl", dir);
    CHECK_EQ_INT(run_self(spec, err, sizeof err), 0);
    CHECK(strstr(err, "RIPPLE_TRACE: cannot open") != NULL);
    rmdir(dir);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "env-child") == 0) return env_child();
    self_path = argv[0];
    alarm(120); /* watchdog: a hang fails instead of blocking the run */
    RUN(test_lines);
    RUN(test_cut);
    RUN(test_bad_input_and_slot);
    RUN(test_threads);
    RUN(test_closed_pipe);
    RUN(test_slow_reader_and_signals);
    RUN(test_full_nonblocking);
    RUN(test_fork);
    RUN(test_environment);
    CHECK_DONE();
}
