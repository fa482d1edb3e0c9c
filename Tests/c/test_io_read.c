/* rpl_signal_read_lines and rpl_signal_read: lines and chunks from pipes, on
   a run loop, a serial and the background scheduler; the line rules, EOF,
   dispose from inside the first event, many watches, bad input. */
#include "io_util.h"

/* read_lines over a pipe: "\n" and "\r\n" endings, an empty line, an
   unterminated last line at EOF, then completion; on every scheduler kind. */
static void test_lines_each_scheduler(void) {
    for (int k = 0; k < 3; k++) {
        io_sched ks = io_sched_make(k);
        io_lines t;
        io_lines_open(&t, 100, ks.s);
        CHECK(t.sig != NULL);
        char name[32];
        snprintf(name, sizeof name, "+readLines: %d", t.fd[0]);
        CHECK_STR(rpl_signal_name(t.sig), name);
        io_write_str(t.fd[1], "one\ntwo\r\n\nthr");
        io_write_str(t.fd[1], "ee\nlast");
        io_lines_eof(&t);
        CHECK(io_wait(ks.loop, rec_ended, &t.r, 5000));
        CHECK_LOG(&t.r, "one two  three last C");
        CHECK_EQ_INT(t.r.types[0], RPL_TYPE_STRING);
        CHECK_EQ_INT(t.r.overlap, 0);
        io_lines_close(&t);
        CHECK(io_wait(ks.loop, rec_released, &t.r, 5000));
        io_sched_free(&ks);
    }
}

/* Events arrive on the scheduler: the run loop's thread inside its run
   calls (its descriptor is readable for the source), the serial scheduler
   as the current scheduler. */
static void test_delivered_on_scheduler(void) {
    io_sched ks = io_sched_make(0);
    io_lines t;
    io_lines_open(&t, 100, ks.s);
    struct pollfd q = {rpl_run_loop_fd(ks.loop), POLLIN, 0};
    CHECK_EQ_INT(poll(&q, 1, 0), 0);        /* nothing ready */
    io_write_str(t.fd[1], "a\n");
    CHECK_EQ_INT(poll(&q, 1, 5000), 1);     /* the loop's descriptor wakes for the pipe */
    CHECK_EQ_INT(t.r.n, 0);                 /* nothing before the loop runs */
    CHECK(io_wait_values(ks.loop, &t.r, 1, 5000));
    CHECK(t.r.current[0] == ks.s);
    rpl_disposable_dispose(t.sub);
    io_lines_close(&t);
    io_sched_free(&ks);

    ks = io_sched_make(1);
    io_lines_open(&t, 100, ks.s);
    io_write_str(t.fd[1], "b\n");
    CHECK(io_wait_values(NULL, &t.r, 1, 5000));
    CHECK(t.r.current[0] == ks.s);
    rpl_disposable_dispose(t.sub);
    io_lines_close(&t);
    io_sched_free(&ks);
}

/* max_line counts bytes without the ending: a line of exactly max_line
   passes (also with "\r\n"), a longer one fails with LINE_TOO_LONG as soon
   as it is seen, without waiting for its end; the lines before it arrive. */
static void test_line_too_long(void) {
    io_sched ks = io_sched_make(1);
    io_lines t;
    io_lines_open(&t, 4, ks.s);
    io_write_str(t.fd[1], "abcd\nefgh\r\nijklm");  /* "ijklm" is 5 bytes, no ending yet */
    CHECK(io_wait(NULL, rec_ended, &t.r, 5000));
    CHECK_LOG(&t.r, "abcd efgh E7");
    CHECK_STR(t.r.error_domain, RPL_ERROR_DOMAIN);
    CHECK_EQ_INT(t.r.error_code, RPL_ERROR_LINE_TOO_LONG);
    io_lines_close(&t);

    /* A final "\r" may begin the "\r\n": "abcd\r" is not too long yet. */
    io_lines_open(&t, 4, ks.s);
    io_write_str(t.fd[1], "abcd\r");
    nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
    io_write_str(t.fd[1], "\nx");
    io_lines_eof(&t);
    CHECK(io_wait(NULL, rec_ended, &t.r, 5000));
    CHECK_LOG(&t.r, "abcd x C");
    io_lines_close(&t);
    io_sched_free(&ks);
}

/* A line split across many reads, and many lines in one read. */
static void test_long_input(void) {
    io_sched ks = io_sched_make(2);
    io_lines t;
    io_lines_open(&t, 200000, ks.s);
    static char big[150001];
    memset(big, 'x', 150000);
    big[150000] = '\n';
    io_write_all(t.fd[1], big, sizeof big);
    for (int i = 0; i < 100; i++) io_write_str(t.fd[1], "y\n");
    io_lines_eof(&t);
    CHECK(io_wait(NULL, rec_ended, &t.r, 10000));
    CHECK_EQ_INT(t.r.n, 101);
    CHECK_EQ_INT(t.r.completed, 1);
    CHECK_EQ_INT(t.r.overlap, 0);
    io_lines_close(&t);
    io_sched_free(&ks);
}

/* A line the receiver keeps (a copy of the value) keeps its text while
   later lines arrive, and lines of every length come out whole, whether the
   one before was kept or let go (the source may reuse the storage of a
   line nobody holds any more). */
#define KEEP_LINES 60
typedef struct { rpl_value kept[KEEP_LINES]; int n, bad; atomic_int done; } keeper;
static void keep_line_text(int i, char *buf, size_t *len) {
    size_t n = (size_t)(i * 37 % 301);  /* 0..300 bytes, shorter and longer in turn */
    for (size_t j = 0; j < n; j++) buf[j] = (char)('a' + (i + (int)j) % 26);
    *len = n;
}
static void keep_next(void *ctx, const rpl_value *v) {
    keeper *k = ctx;
    char want[301];
    size_t wn, n = 0;
    keep_line_text(k->n, want, &wn);
    const char *s = rpl_value_string(v, &n);
    if (!s || n != wn || memcmp(s, want, n) != 0 || s[n] != 0) k->bad++;
    k->kept[k->n] = k->n % 3 == 0 ? rpl_value_copy(v) : rpl_nil();  /* every third kept */
    k->n++;
}
static void keep_done(void *ctx) { ((keeper *)ctx)->done = 1; }
static int keeper_done(void *ctx) { return ((keeper *)ctx)->done; }
static void test_kept_lines(void) {
    for (int kind = 0; kind < 3; kind++) {
        io_sched ks = io_sched_make(kind);
        int p[2];
        CHECK(pipe(p) == 0);
        rpl_signal_t *sig = rpl_signal_read_lines(p[0], 400, ks.s);
        keeper k;
        memset(&k, 0, sizeof k);
        rpl_observer o = RPL_OBSERVER_INIT;
        o.ctx = &k;
        o.on_next = keep_next;
        o.on_completed = keep_done;
        rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
        static char all[KEEP_LINES * 302];
        size_t at = 0;
        for (int i = 0; i < KEEP_LINES; i++) {
            size_t n;
            keep_line_text(i, all + at, &n);
            at += n;
            all[at++] = '\n';
        }
        io_write_all(p[1], all, at);
        close(p[1]);
        CHECK(io_wait(ks.loop, keeper_done, &k, 5000));
        CHECK_EQ_INT(k.n, KEEP_LINES);
        CHECK_EQ_INT(k.bad, 0);
        for (int i = 0; i < k.n; i++) {
            if (i % 3 != 0) continue;
            char want[301];
            size_t wn, n = 0;
            keep_line_text(i, want, &wn);
            const char *s = rpl_value_string(&k.kept[i], &n);
            CHECK(s != NULL && n == wn && memcmp(s, want, n) == 0 && s[n] == 0);
            rpl_value_release(&k.kept[i]);
        }
        rpl_release(d);
        rpl_release(sig);
        close(p[0]);
        io_sched_free(&ks);
    }
}

/* read: bytes values of at most max_chunk bytes, all of the input, EOF completes. */
typedef struct { atomic_int total, max, values, done; int bytes_type; } chunks;
static void chunk_next(void *ctx, const rpl_value *v) {
    chunks *c = ctx;
    size_t n = 0;
    CHECK(rpl_value_bytes(v, &n) != NULL);
    if (rpl_value_type(v) != RPL_TYPE_BYTES) c->bytes_type = 0;
    c->total += (int)n;
    if ((int)n > c->max) c->max = (int)n;
    c->values++;
}
static void chunk_done(void *ctx) { ((chunks *)ctx)->done = 1; }
static int chunks_done(void *ctx) { return ((chunks *)ctx)->done; }
static void test_read_chunks(void) {
    io_sched ks = io_sched_make(0);
    int p[2];
    CHECK(pipe(p) == 0);
    rpl_signal_t *sig = rpl_signal_read(p[0], 7, ks.s);
    chunks c = {.bytes_type = 1};
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = chunk_next;
    o.on_completed = chunk_done;
    o.ctx = &c;
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    io_write_str(p[1], "0123456789abcdefghij");
    close(p[1]);
    CHECK(io_wait(ks.loop, chunks_done, &c, 5000));
    CHECK_EQ_INT(c.total, 20);
    CHECK(c.max <= 7);
    CHECK(c.values >= 3);
    CHECK(c.bytes_type);
    rpl_release(d);
    rpl_release(sig);
    close(p[0]);
    io_sched_free(&ks);
}

/* Rule 3a: a dispose from inside the first event stops the watch - no
   second event although more lines are there - and the release runs once. */
typedef struct { atomic_int n, released; rpl_disposable_t *d; atomic_int ready; } first_only;
static void fo_next(void *ctx, const rpl_value *v) {
    (void)v;
    first_only *f = ctx;
    f->n++;
    while (!f->ready) {}  /* the handle is stored before the first line is written */
    rpl_disposable_dispose(f->d);
}
static void fo_release(void *ctx) { ((first_only *)ctx)->released++; }
static int fo_released(void *ctx) { return ((first_only *)ctx)->released > 0; }
static void test_dispose_inside_first(void) {
    for (int k = 0; k < 3; k++) {
        io_sched ks = io_sched_make(k);
        int p[2];
        CHECK(pipe(p) == 0);
        rpl_signal_t *sig = rpl_signal_read_lines(p[0], 100, ks.s);
        first_only f = {0};
        rpl_observer o = RPL_OBSERVER_INIT;
        o.on_next = fo_next;
        o.release = fo_release;
        o.ctx = &f;
        f.d = rpl_signal_subscribe(sig, &o);
        f.ready = 1;
        io_write_str(p[1], "1\n2\n3\n");
        CHECK(io_wait(ks.loop, fo_released, &f, 5000));
        io_write_str(p[1], "4\n");
        io_wait(ks.loop, fo_released, &f, 50);  /* drive the loop a little */
        CHECK_EQ_INT(f.n, 1);
        CHECK_EQ_INT(f.released, 1);
        rpl_release(f.d);
        rpl_release(sig);
        close(p[0]);
        close(p[1]);
        io_sched_free(&ks);
    }
}

/* After dispose returns the descriptor is the caller's again: the data
   written after it stays in the pipe for the caller to read. */
static void test_dispose_returns_descriptor(void) {
    io_sched ks = io_sched_make(2);
    io_lines t;
    io_lines_open(&t, 100, ks.s);
    io_write_str(t.fd[1], "a\n");
    CHECK(io_wait_values(NULL, &t.r, 1, 5000));
    rpl_disposable_dispose(t.sub);
    io_write_str(t.fd[1], "kept\n");
    nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
    char buf[16] = {0};
    CHECK_EQ_INT(read(t.fd[0], buf, sizeof buf - 1), 5);
    CHECK_STR(buf, "kept\n");
    CHECK_EQ_INT(t.r.n, 1);
    CHECK(fcntl(t.fd[0], F_GETFL) & O_NONBLOCK);  /* read_lines made it non-blocking (documented) */
    io_lines_close(&t);
    io_sched_free(&ks);
}

/* 10,000 live watches at once on the shared watcher: each subscribes and
   disposes on its own; one of them still gets its line. */
static void test_many_watches(void) {
    long n = test_scale(10000, 500);
    io_sched ks = io_sched_make(1);
    int (*fds)[2] = calloc((size_t)n, sizeof *fds);
    rpl_signal_t **sigs = calloc((size_t)n, sizeof *sigs);
    rpl_disposable_t **ds = calloc((size_t)n, sizeof *ds);
    rec_t *r = calloc(1, sizeof *r);
    rec_init(r);
    long made = 0;
    for (long i = 0; i < n; i++) {
        if (pipe(fds[i]) != 0) break;  /* the descriptor limit: test as many as it allows */
        sigs[i] = rpl_signal_fd_readable(fds[i][0], ks.s);
        rpl_observer o = rec_observer(r);
        o.release = NULL;
        ds[i] = rpl_signal_subscribe(sigs[i], &o);
        made++;
    }
    CHECK(made >= test_scale(1000, 400));
    io_write_str(fds[made / 2][1], "x");
    CHECK(io_wait_values(NULL, r, 1, 5000));
    CHECK_EQ_INT(r->ints[0], fds[made / 2][0]);
    for (long i = 0; i < made; i++) {
        rpl_disposable_dispose(ds[i]);
        rpl_release(ds[i]);
        rpl_release(sigs[i]);
        close(fds[i][0]);
        close(fds[i][1]);
    }
    free(fds);
    free(sigs);
    free(ds);
    free(r);
    io_sched_free(&ks);
}

/* A run loop freed while its sources are watched: nothing can deliver them
   any more, so their watches go, and each subscription ends (its release
   runs, nothing leaks) once nothing holds it, as for the loop's other
   pending work (rule 6a). */
static void test_run_loop_freed(void) {
    io_sched ks = io_sched_make(0);
    io_lines t;
    io_lines_open(&t, 100, ks.s);
    io_write_str(t.fd[1], "a\n");
    CHECK(io_wait_values(ks.loop, &t.r, 1, 5000));
    rpl_release(t.sig);
    t.sig = NULL;
    io_sched_free(&ks);        /* the loop goes; the subscription is still held */
    CHECK_OPEN(t.r);
    rpl_release(t.sub);
    t.sub = NULL;
    CHECK_EQ_INT(t.r.released, 1);
    io_lines_close(&t);
}

/* Bad input: a clean RPL_ERR_* at the call, nothing made. */
static void test_bad_input(void) {
    int p[2];
    CHECK(pipe(p) == 0);
    rpl_scheduler_t *bg = rpl_scheduler_background();
    CHECK(rpl_signal_read_lines(-1, 10, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_read_lines(p[0], 0, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_read(p[0], 0, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_read_lines(p[0], 10, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_read_lines(p[0], 10, rpl_scheduler_immediate()) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    CHECK(rpl_signal_read(p[0], 10, ts) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    rpl_release(ts);
    rpl_signal_t *notsched = rpl_signal_never();
    CHECK(rpl_signal_fd_readable(p[0], (rpl_scheduler_t *)notsched) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(notsched);
    int closed = dup(p[0]);
    close(closed);
    CHECK(rpl_signal_read_lines(closed, 10, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_fd_readable(closed, bg) == NULL);
    CHECK(rpl_signal_fd_writable(-5, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    /* SIZE_MAX means no limit. */
    rpl_signal_t *any = rpl_signal_read_lines(p[0], SIZE_MAX, bg);
    CHECK(any != NULL);
    rpl_release(any);
    close(p[0]);
    close(p[1]);
}

/* A descriptor epoll cannot watch (a regular file): an EPERM error event,
   on the scheduler. */
static void test_unwatchable(void) {
    char path[] = "/tmp/ripple-io-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    io_sched ks = io_sched_make(0);
    rpl_signal_t *sig = rpl_signal_fd_readable(fd, ks.s);
    rec_t r;
    rpl_disposable_t *d = io_record(sig, &r);
    CHECK_EQ_INT(r.errors, 0);  /* delivered as work on the loop */
    CHECK(io_wait(ks.loop, rec_ended, &r, 5000));
    CHECK_FAILED(r, EPERM);
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN_ERRNO);
    rpl_release(d);
    rpl_release(sig);
    close(fd);
    io_sched_free(&ks);
}

int main(void) {
    io_watchdog(120);
    RUN(test_lines_each_scheduler);
    RUN(test_delivered_on_scheduler);
    RUN(test_line_too_long);
    RUN(test_long_input);
    RUN(test_kept_lines);
    RUN(test_read_chunks);
    RUN(test_dispose_inside_first);
    RUN(test_dispose_returns_descriptor);
    RUN(test_many_watches);
    RUN(test_run_loop_freed);
    RUN(test_bad_input);
    RUN(test_unwatchable);
    CHECK_DONE();
}
