/* rpl_signal_accept, rpl_signal_write, rpl_signal_fd_readable /
   fd_writable over sockets on 127.0.0.1: connections accepted, values
   written in order with their byte counts, partial writes continued, the
   write rules (a wrong type, an error, completion), a descriptor closed
   under a watch, bad input. */
#include "io_util.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static int listen_any(int *port) {
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(l, 128) == 0);
    socklen_t len = sizeof a;
    getsockname(l, (struct sockaddr *)&a, &len);
    *port = ntohs(a.sin_port);
    return l;
}
static int connect_to(int port) {
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(connect(c, (struct sockaddr *)&a, sizeof a) == 0);
    return c;
}

/* Each connection's descriptor arrives, non-blocking and close-on-exec. */
static void test_accept(void) {
    for (int k = 0; k < 3; k++) {
        io_sched ks = io_sched_make(k);
        int port;
        int l = listen_any(&port);
        rpl_signal_t *sig = rpl_signal_accept(l, ks.s);
        rec_t r;
        rpl_disposable_t *d = io_record(sig, &r);
        int c[3];
        for (int i = 0; i < 3; i++) c[i] = connect_to(port);
        CHECK(io_wait_values(ks.loop, &r, 3, 5000));
        for (int i = 0; i < 3 && i < r.n; i++) {
            int fd = (int)r.ints[i];
            CHECK(fd >= 0);
            CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
            CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
            close(fd);
        }
        CHECK_OPEN(r);
        rpl_disposable_dispose(d);
        rpl_release(d);
        rpl_release(sig);
        for (int i = 0; i < 3; i++) close(c[i]);
        close(l);
        io_sched_free(&ks);
    }
}

/* A socket that is not listening: accept4 fails with EINVAL, an error event. */
static void test_accept_not_listening(void) {
    io_sched ks = io_sched_make(1);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    rpl_signal_t *sig = rpl_signal_accept(sv[0], ks.s);
    rec_t r;
    rpl_disposable_t *d = io_record(sig, &r);
    io_write_str(sv[1], "x");  /* readable, so the watch reports */
    CHECK(io_wait(NULL, rec_ended, &r, 5000));
    CHECK(r.errors == 1 && (r.error_code == EINVAL || r.error_code == EOPNOTSUPP));
    CHECK_STR(r.error_domain, "errno");
    rpl_release(d);
    rpl_release(sig);
    close(sv[0]);
    close(sv[1]);
    io_sched_free(&ks);
}

/* write: every string and bytes value in order, a byte count per value,
   completion once the signal completed and all is written. */
static void test_write_order(void) {
    for (int k = 0; k < 3; k++) {
        io_sched ks = io_sched_make(k);
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        rpl_value vals[3] = {rpl_string("hello "), rpl_bytes("big", 3), rpl_string(" world")};
        rpl_signal_t *src = rpl_signal_from_array(vals, 3);
        rpl_signal_t *w = rpl_signal_write(src, sv[0], ks.s);
        rec_t r;
        rpl_disposable_t *d = io_record(w, &r);
        CHECK(io_wait(ks.loop, rec_ended, &r, 5000));
        CHECK_LOG(&r, "6 3 6 C");
        char buf[64] = {0};
        CHECK_EQ_INT(read(sv[1], buf, sizeof buf - 1), 15);
        CHECK_STR(buf, "hello big world");
        rpl_release(d);
        rpl_release(w);
        rpl_release(src);
        close(sv[0]);
        close(sv[1]);
        io_sched_free(&ks);
    }
}

/* A value bigger than the socket buffer: written in parts as the reader
   drains it; its count arrives once all of it is written. */
static void test_partial_write(void) {
    io_sched ks = io_sched_make(2);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    size_t n = 4 << 20;
    char *big = malloc(n);
    for (size_t i = 0; i < n; i++) big[i] = (char)('a' + i % 26);
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *w = rpl_signal_write((rpl_signal_t *)subj, sv[0], ks.s);
    rec_t r;
    rpl_disposable_t *d = io_record(w, &r);
    rpl_subject_send_next(subj, rpl_bytes(big, n));
    rpl_subject_send_next(subj, rpl_string("!"));
    rpl_subject_send_completed(subj);
    char *got = malloc(n + 1);
    size_t have = 0;
    while (have < n + 1) {
        ssize_t m = read(sv[1], got + have, n + 1 - have);
        if (m <= 0) break;
        have += (size_t)m;
    }
    CHECK_EQ_INT(have, n + 1);
    CHECK(memcmp(got, big, n) == 0 && got[n] == '!');
    CHECK(io_wait(NULL, rec_ended, &r, 5000));
    CHECK_EQ_INT(r.n, 2);
    CHECK_EQ_INT(r.ints[0], (int64_t)n);
    CHECK_EQ_INT(r.ints[1], 1);
    CHECK_COMPLETED(r);
    free(big);
    free(got);
    rpl_release(d);
    rpl_release(w);
    rpl_release(subj);
    close(sv[0]);
    close(sv[1]);
    io_sched_free(&ks);
}

/* A wrong-typed value: the values before it are written, then
   RPL_ERROR_TYPE; the signal's own error: after what came before. */
static void test_write_errors(void) {
    io_sched ks = io_sched_make(1);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    rpl_value vals[3] = {rpl_string("ab"), rpl_int(5), rpl_string("cd")};
    rpl_signal_t *src = rpl_signal_from_array(vals, 3);
    rpl_signal_t *w = rpl_signal_write(src, sv[0], ks.s);
    rec_t r;
    rpl_disposable_t *d = io_record(w, &r);
    CHECK(io_wait(NULL, rec_ended, &r, 5000));
    CHECK_LOG(&r, "2 E4");
    CHECK_STR(r.error_domain, RPL_ERROR_DOMAIN);
    char buf[16] = {0};
    CHECK_EQ_INT(read(sv[1], buf, sizeof buf - 1), 2);
    rpl_release(d);
    rpl_release(w);
    rpl_release(src);

    rpl_error_t *e = rpl_error_create("test", 9, "boom");
    rpl_signal_t *bad = rpl_signal_error(e);
    rpl_value one = rpl_string("xy");
    rpl_signal_t *first = rpl_signal_from_array(&one, 1);
    rpl_signal_t *cat = rpl_signal_concat(first, bad);
    w = rpl_signal_write(cat, sv[0], ks.s);
    d = io_record(w, &r);
    CHECK(io_wait(NULL, rec_ended, &r, 5000));
    CHECK_LOG(&r, "2 E9");
    CHECK_EQ_INT(read(sv[1], buf, sizeof buf - 1), 2);
    rpl_release(d);
    rpl_release(w);
    rpl_release(cat);
    rpl_release(first);
    rpl_release(bad);
    rpl_release(e);
    close(sv[0]);
    close(sv[1]);
    io_sched_free(&ks);
}

/* fd_writable sends the descriptor while writable; fd_readable while
   readable, level-triggered: a second value follows while the data stays. */
static void test_readiness(void) {
    io_sched ks = io_sched_make(0);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    rpl_signal_t *ws = rpl_signal_fd_writable(sv[0], ks.s);
    rec_t r;
    rpl_disposable_t *d = io_record(ws, &r);
    CHECK(io_wait_values(ks.loop, &r, 2, 5000));
    CHECK_EQ_INT(r.ints[0], sv[0]);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(ws);

    rpl_signal_t *rs = rpl_signal_fd_readable(sv[1], ks.s);
    d = io_record(rs, &r);
    io_wait_values(ks.loop, &r, 1, 50);
    CHECK_EQ_INT(r.n, 0);  /* nothing to read yet */
    io_write_str(sv[0], "z");
    CHECK(io_wait_values(ks.loop, &r, 2, 5000));  /* still readable: sent again */
    CHECK_EQ_INT(r.ints[1], sv[1]);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(rs);
    close(sv[0]);
    close(sv[1]);
    io_sched_free(&ks);
}

/* A descriptor closed under a watch (here from inside its own event): the
   re-arm fails and the subscription fails with EBADF (docs/behaviour.md). */
static void close_it(void *ctx, const rpl_value *v) { (void)ctx; close((int)rpl_value_int(v)); }
static void test_closed_under_watch(void) {
    io_sched ks = io_sched_make(1);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    rpl_signal_t *rs = rpl_signal_fd_readable(sv[1], ks.s);
    rec_t r;
    rec_init(&r);
    rpl_observer o = rec_observer(&r);
    o.on_next = close_it;
    rpl_disposable_t *d = rpl_signal_subscribe(rs, &o);
    io_write_str(sv[0], "z");
    CHECK(io_wait(NULL, rec_ended, &r, 5000));
    CHECK_FAILED(r, EBADF);
    rpl_release(d);
    rpl_release(rs);
    close(sv[0]);
    io_sched_free(&ks);
}

/* A descriptor closed under a quiet watch and its number reused at once: a
   new watch on the new file works, and disposing the old one (late) leaves
   the new one alone. */
static void test_number_reused_under_watch(void) {
    for (int k = 0; k < 3; k++) {
        io_sched ks = io_sched_make(k);
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        rpl_signal_t *old = rpl_signal_fd_readable(sv[1], ks.s);
        rec_t ro;
        rpl_disposable_t *dold = io_record(old, &ro);
        int number = sv[1];
        close(sv[1]);                 /* closed under the watch (a program error) */
        close(sv[0]);
        int nv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, nv) == 0);
        CHECK(nv[0] == number || nv[1] == number);
        int fresh = nv[0] == number ? nv[0] : nv[1], peer = nv[0] == number ? nv[1] : nv[0];
        rpl_signal_t *now = rpl_signal_read_lines(fresh, 100, ks.s);
        rec_t rn;
        rpl_disposable_t *dnow = io_record(now, &rn);
        io_write_str(peer, "a\n");
        CHECK(io_wait_values(ks.loop, &rn, 1, 5000));
        rpl_disposable_dispose(dold);
        io_write_str(peer, "b\n");
        CHECK(io_wait_values(ks.loop, &rn, 2, 5000));
        CHECK_LOG(&rn, "a b");
        CHECK_EQ_INT(ro.n, 0);
        rpl_disposable_dispose(dnow);
        rpl_release(dold);
        rpl_release(dnow);
        rpl_release(old);
        rpl_release(now);
        close(nv[0]);
        close(nv[1]);
        io_sched_free(&ks);
    }
}

/* Two sources on one descriptor (read_lines and write on one socket, as a
   chat server has): both work, and disposing one leaves the other. */
static void test_two_sources_one_fd(void) {
    for (int k = 0; k < 3; k++) {
        io_sched ks = io_sched_make(k);
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        rpl_subject_t *out = rpl_subject_create();
        rpl_signal_t *w = rpl_signal_write((rpl_signal_t *)out, sv[0], ks.s);
        rpl_signal_t *rl = rpl_signal_read_lines(sv[0], 100, ks.s);
        rec_t rw, rr;
        rec_init(&rw);
        rec_init(&rr);
        rpl_disposable_t *dw = rec_subscribe(w, &rw);
        rpl_disposable_t *dr = rec_subscribe(rl, &rr);
        rpl_subject_send_next(out, rpl_string("ping\n"));
        io_write_str(sv[1], "pong\n");
        CHECK(io_wait_values(ks.loop, &rw, 1, 5000));
        CHECK(io_wait_values(ks.loop, &rr, 1, 5000));
        CHECK_LOG(&rr, "pong");
        char buf[16] = {0};
        CHECK_EQ_INT(read(sv[1], buf, sizeof buf - 1), 5);
        rpl_disposable_dispose(dr);  /* the writer goes on alone */
        rpl_subject_send_next(out, rpl_string("again\n"));
        CHECK(io_wait_values(ks.loop, &rw, 2, 5000));
        CHECK_LOG(&rw, "5 6");
        io_write_str(sv[1], "unread\n");
        io_wait_values(ks.loop, &rr, 2, 50);
        CHECK_EQ_INT(rr.n, 1);
        rpl_subject_send_completed(out);
        CHECK(io_wait(ks.loop, rec_ended, &rw, 5000));
        CHECK_COMPLETED(rw);
        rpl_release(dw);
        rpl_release(dr);
        rpl_release(w);
        rpl_release(rl);
        rpl_release(out);
        close(sv[0]);
        close(sv[1]);
        io_sched_free(&ks);
    }
}

static void test_bad_input(void) {
    rpl_scheduler_t *bg = rpl_scheduler_background();
    CHECK(rpl_signal_accept(-1, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    rpl_signal_t *n = rpl_signal_never();
    CHECK(rpl_signal_write(NULL, 1, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_write(n, -1, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_write((rpl_signal_t *)bg, 1, bg) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK(rpl_signal_write(n, 1, rpl_scheduler_immediate()) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    rpl_release(n);
}

/* write's subscription holds its upstream subscription, which holds the
   watch: when the run loop goes first (a job queued for the writable pipe,
   nothing to drive it), nothing can deliver any more, so the subscription
   ends without a terminal event, its release runs and nothing is left in a
   cycle (docs/behaviour.md, anchor lifetime-unreachable; a fuzz finding:
   write of a behavior subject under replay_last). Shapes: the handle
   released first, the handle held past the loop, and through replay_last. */
static int released_count;
static void count_release(void *ctx) { (void)ctx; released_count++; }
static void test_write_run_loop_freed(void) {
    for (int shape = 0; shape < 3; shape++) {
        size_t before = check_live_settled();
        released_count = 0;
        rpl_run_loop_t *loop = rpl_run_loop_create();
        int p[2];
        CHECK(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0);
        rpl_subject_t *bs = rpl_behavior_subject_create(rpl_string("x"));
        rpl_signal_t *w = rpl_signal_write(rpl_subject_as_signal(bs), p[1], rpl_run_loop_scheduler(loop));
        CHECK(w != NULL);
        rpl_signal_t *r = shape == 2 ? rpl_signal_replay_last(w) : rpl_retain(w);
        rpl_observer o = RPL_OBSERVER_INIT;
        o.release = count_release;
        rpl_disposable_t *d = rpl_signal_subscribe(r, &o);
        CHECK(d != NULL);
        if (shape != 1) rpl_release(d);
        rpl_release(r);
        rpl_release(w);
        rpl_release(bs);
        rpl_release(loop);
        CHECK_EQ_INT(released_count, 1);
        if (shape == 1) rpl_release(d);
        CHECK_EQ_INT(check_live_now(), before);
        close(p[0]);
        close(p[1]);
    }
}

/* write keeps a subject as every operator does, by its subscribe-only side
   (docs/behaviour.md#lifetime-subject): holding the subject itself, write
   counted as one of its senders, so repeat over merge(subject,
   write(subject)), which keeps the merged signal to subscribe again, closed
   a cycle subject -> its subscriber -> the merge -> repeat -> the merged
   signal -> write -> subject, and once every handle and the run loop were
   released 12 objects stayed and the observer's release never ran (a fuzz
   finding, Tests/fuzz/regressions/write-merge-repeat-loop-never-run.bin).
   Also through replay_last and combine_latest, as the fuzzer found it. */
static void test_write_keeps_subscribe_only_side(void) {
    for (int shape = 0; shape < 2; shape++) {
        size_t before = check_live_settled();
        released_count = 0;
        rpl_run_loop_t *loop = rpl_run_loop_create();
        int p[2];
        CHECK(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0);
        rpl_subject_t *s = shape ? rpl_behavior_subject_create(rpl_int(16)) : rpl_subject_create();
        rpl_signal_t *w = rpl_signal_write(rpl_subject_as_signal(s), p[1], rpl_run_loop_scheduler(loop));
        rpl_signal_t *two[2] = { rpl_subject_as_signal(s), w };
        rpl_signal_t *m = shape ? rpl_signal_combine_latest(two, 2) : rpl_signal_merge(two, 2);
        rpl_signal_t *r = rpl_signal_repeat(m, 3);
        rpl_signal_t *top = shape ? rpl_signal_replay_last(r) : rpl_retain(r);
        rpl_observer o = RPL_OBSERVER_INIT;
        o.release = count_release;
        rpl_disposable_t *d = rpl_signal_subscribe(top, &o);
        CHECK(d != NULL);
        rpl_release(d);
        rpl_release(top);
        rpl_release(r);
        rpl_release(m);
        rpl_release(w);
        rpl_release(s);
        rpl_release(loop);  /* never run: the watch still waits for its first report */
        CHECK_EQ_INT(released_count, 1);
        CHECK_EQ_INT(check_live_now(), before);
        close(p[0]);
        close(p[1]);
    }
}

int main(void) {
    io_watchdog(120);
    signal(SIGPIPE, SIG_IGN);
    RUN(test_accept);
    RUN(test_accept_not_listening);
    RUN(test_write_order);
    RUN(test_partial_write);
    RUN(test_write_errors);
    RUN(test_readiness);
    RUN(test_closed_under_watch);
    RUN(test_two_sources_one_fd);
    RUN(test_number_reused_under_watch);
    RUN(test_bad_input);
    RUN(test_write_run_loop_freed);
    RUN(test_write_keeps_subscribe_only_side);
    CHECK_DONE();
}
