/* The OS sources (issue 26): read_lines against a plain read + memchr loop,
   a chat room of 200 connections (messages per second, heap per idle
   connection), and a watch's subscribe + dispose beside 0 and 10,000 live
   watches. */
#define _GNU_SOURCE
#include "bench.h"
#include <pthread.h>
#include <ripple.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- read_lines vs read + memchr ------------------------------------------ */
#define LINE 80
/* Bytes of input: 100 MB (RIPPLE_BENCH_IO_MB sets another size, e.g. for a
   callgrind count of instructions per line). */
static long TOTAL = 100L * 1000 * 1000;
#define BLOCK (LINE * 12800)         /* about 1 MB of whole lines, written repeatedly */

static char *block;
static void make_block(void) {
    block = malloc(BLOCK);
    for (long i = 0; i < BLOCK; i += LINE) {
        for (int j = 0; j < LINE - 1; j++) block[i + j] = (char)('a' + (i / LINE + j) % 26);
        block[i + LINE - 1] = '\n';
    }
}
static void *writer(void *arg) {
    int fd = *(int *)arg;
    for (long done = 0; done < TOTAL; done += BLOCK) {
        const char *p = block;
        long left = BLOCK;
        while (left > 0) {
            ssize_t w = write(fd, p, (size_t)left);
            if (w < 0) {
                struct pollfd q = {fd, POLLOUT, 0};
                poll(&q, 1, 100);  /* read_lines made the pipe non-blocking */
                continue;
            }
            p += w;
            left -= w;
        }
    }
    close(fd);
    return NULL;
}

/* The callback both sides call per line. */
static volatile uint64_t line_sum;
static long lines_seen;
static __attribute__((noinline)) void on_line_text(const char *s, size_t n) {
    line_sum += (uint64_t)n + (uint64_t)(unsigned char)s[0];
    lines_seen++;
}

static long lines_expected(void) { return (TOTAL + BLOCK - 1) / BLOCK * (BLOCK / LINE); }

static double plain_read_lines(void) {
    int p[2];
    if (pipe(p) != 0) return 0;
    pthread_t w;
    lines_seen = 0;
    double t0 = bench_now();
    pthread_create(&w, NULL, writer, &p[1]);
    static char buf[64 * 1024 + LINE];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(p[0], buf + have, sizeof buf - have);
        if (n <= 0) break;
        have += (size_t)n;
        char *s = buf, *end = buf + have, *nl;
        while ((nl = memchr(s, '\n', (size_t)(end - s))) != NULL) {
            on_line_text(s, (size_t)(nl - s));
            s = nl + 1;
        }
        have = (size_t)(end - s);
        memmove(buf, s, have);
    }
    double t = bench_now() - t0;
    pthread_join(w, NULL);
    close(p[0]);
    return t;
}

static atomic_int rl_done;
static void rl_next(void *ctx, const rpl_value *v) {
    (void)ctx;
    size_t n = 0;
    const char *s = rpl_value_string(v, &n);
    on_line_text(s, n);
}
static void rl_end(void *ctx) { (void)ctx; atomic_store(&rl_done, 1); }
static void rl_error(void *ctx, const rpl_error_t *e) { (void)e; rl_end(ctx); }

static double ripple_read_lines(rpl_scheduler_t *s) {
    int p[2];
    if (pipe(p) != 0) return 0;
    lines_seen = 0;
    atomic_store(&rl_done, 0);
    rpl_signal_t *sig = rpl_signal_read_lines(p[0], 4096, s);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = rl_next;
    o.on_completed = rl_end;
    o.on_error = rl_error;
    pthread_t w;
    double t0 = bench_now();
    rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
    pthread_create(&w, NULL, writer, &p[1]);
    while (!atomic_load(&rl_done)) {
        struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
    }
    double t = bench_now() - t0;
    pthread_join(w, NULL);
    rpl_release(d);
    rpl_release(sig);
    close(p[0]);
    return t;
}

static void read_lines_rows(void) {
    const char *mb = getenv("RIPPLE_BENCH_IO_MB");
    if (mb && atol(mb) > 0) TOTAL = atol(mb) * 1000 * 1000;
    make_block();
    double plain = plain_read_lines();
    long n = lines_expected();
    if (lines_seen != n) printf("  (plain loop saw %ld lines of %ld)\n", lines_seen, n);
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("bench-io");
    uint64_t a0 = bench_allocations();
    double ripple = ripple_read_lines(serial);
    double allocs = (double)(bench_allocations() - a0) / (double)n;
    if (lines_seen != n) printf("  (read_lines saw %ld lines of %ld)\n", lines_seen, n);
    rpl_release(serial);
    free(block);
    bench_row("read + memchr loop, 80-byte lines from a pipe", plain * 1e9 / (double)n, "line", 0);
    bench_row("read_lines(serial), same lines, same callback", ripple * 1e9 / (double)n, "line", allocs);
    bench_value_row("  read_lines / plain loop (target <= 2)", ripple / plain, "x");
}

/* ---- A chat room: 200 connections ----------------------------------------- */
#define CLIENTS 200
#define ROUNDS 20

typedef struct { rpl_disposable_t *reader, *writer; } chat_conn;
static rpl_subject_t *room;
static void room_line(void *ctx, const rpl_value *v) {
    (void)ctx;
    size_t n = 0;
    const char *s = rpl_value_string(v, &n);
    char msg[128];
    int m = snprintf(msg, sizeof msg, "%.*s\n", (int)n, s);
    rpl_subject_send_next(room, rpl_string_n(msg, (size_t)m));
}
/* What chat_server does per connection: read_lines into the room, the room
   written back. */
static void chat_attach(chat_conn *c, int fd, rpl_scheduler_t *s) {
    rpl_signal_t *out = rpl_signal_write(rpl_subject_as_signal(room), fd, s);
    rpl_observer w = RPL_OBSERVER_INIT;
    c->writer = rpl_signal_subscribe(out, &w);
    rpl_release(out);
    rpl_signal_t *in = rpl_signal_read_lines(fd, 1024, s);
    rpl_observer r = RPL_OBSERVER_INIT;
    r.on_next = room_line;
    c->reader = rpl_signal_subscribe(in, &r);
    rpl_release(in);
}
static void chat_detach(chat_conn *c) {
    rpl_disposable_dispose(c->reader);
    rpl_disposable_dispose(c->writer);
    rpl_release(c->reader);
    rpl_release(c->writer);
}

static void chat_rows(void) {
    static int sv[CLIENTS][2];
    static chat_conn conns[CLIENTS];
    rpl_scheduler_t *s = rpl_scheduler_create_serial("bench-chat");
    room = rpl_subject_create();
    for (int i = 0; i < CLIENTS; i++) {
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv[i]);
        chat_attach(&conns[i], sv[i][0], s);
    }
    /* Every client sends a line per round; each line reaches all 200. */
    long want = (long)CLIENTS * CLIENTS * ROUNDS, got = 0;
    static char buf[1 << 16];
    static struct pollfd pfd[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) pfd[i] = (struct pollfd){sv[i][1], POLLIN, 0};
    double t0 = bench_now();
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < CLIENTS; i++) {
            char line[32];
            int n = snprintf(line, sizeof line, "c%d r%d\n", i, r);
            if (write(sv[i][1], line, (size_t)n) != n) break;
        }
        long round_want = (long)CLIENTS * CLIENTS * (r + 1);
        while (got < round_want) {
            if (poll(pfd, CLIENTS, 5000) <= 0) break;
            for (int i = 0; i < CLIENTS; i++) {
                if (!(pfd[i].revents & POLLIN)) continue;
                ssize_t n;
                while ((n = read(sv[i][1], buf, sizeof buf)) > 0)
                    for (ssize_t k = 0; k < n; k++) got += buf[k] == '\n';
            }
        }
    }
    double t = bench_now() - t0;
    if (got != want) printf("  (chat: %ld of %ld deliveries)\n", got, want);
    for (int i = 0; i < CLIENTS; i++) {
        chat_detach(&conns[i]);
        close(sv[i][0]);
        close(sv[i][1]);
    }
    rpl_release(room);
    bench_value_row("chat, 200 connections: deliveries per second", (double)got / t, "msg/s");

    /* Heap Ripple holds per idle connection (its two subscriptions). */
    enum { IDLE = 1000 };
    static int idle[IDLE][2];
    static chat_conn iconns[IDLE];
    room = rpl_subject_create();
    for (int i = 0; i < IDLE; i++) socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, idle[i]);
    /* Let the first connection make the watcher and thread state. */
    chat_attach(&iconns[0], idle[0][0], s);
    struct timespec settle = {0, 50 * 1000000L};
    nanosleep(&settle, NULL);
    int64_t base = bench_live_bytes();
    for (int i = 1; i < IDLE; i++) chat_attach(&iconns[i], idle[i][0], s);
    nanosleep(&settle, NULL);  /* the first writability reports have run */
    double per = (double)(bench_live_bytes() - base) / (IDLE - 1);
    for (int i = 0; i < IDLE; i++) {
        chat_detach(&iconns[i]);
        close(idle[i][0]);
        close(idle[i][1]);
    }
    rpl_release(room);
    rpl_release(s);
    bench_value_row("  heap per idle chat connection (target < 2048)", per, "bytes");
}

/* ---- A watch beside 0 and 10,000 others ------------------------------------ */
static double watch_cycle(rpl_scheduler_t *s, int fd, long n) {
    rpl_signal_t *sig = rpl_signal_fd_readable(fd, s);
    rpl_observer o = RPL_OBSERVER_INIT;
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        rpl_disposable_t *d = rpl_signal_subscribe(sig, &o);
        rpl_disposable_dispose(d);
        rpl_release(d);
    }
    double t = bench_now() - t0;
    rpl_release(sig);
    return t * 1e9 / (double)n;
}

static void watch_rows(void) {
    enum { LIVE = 10000 };
    const long n = 20000;
    rpl_scheduler_t *s = rpl_scheduler_create_serial("bench-watch");
    int probe = eventfd(0, EFD_CLOEXEC);
    double alone = watch_cycle(s, probe, n);
    static int fds[LIVE];
    static rpl_disposable_t *live[LIVE];
    rpl_signal_t *sigs[1];
    int made = 0;
    rpl_observer o = RPL_OBSERVER_INIT;
    for (; made < LIVE; made++) {
        fds[made] = eventfd(0, EFD_CLOEXEC);
        if (fds[made] < 0) break;
        sigs[0] = rpl_signal_fd_readable(fds[made], s);
        live[made] = rpl_signal_subscribe(sigs[0], &o);
        rpl_release(sigs[0]);
    }
    double beside = watch_cycle(s, probe, n);
    for (int i = 0; i < made; i++) {
        rpl_disposable_dispose(live[i]);
        rpl_release(live[i]);
        close(fds[i]);
    }
    close(probe);
    rpl_release(s);
    char name[64];
    bench_row("fd_readable subscribe + dispose, 0 others", alone, "watch", 0);
    snprintf(name, sizeof name, "fd_readable subscribe + dispose, %d others", made);
    bench_row(name, beside, "watch", 0);
    bench_value_row("  beside 10,000 / alone", beside / alone, "x");
}

void bench_os(void) {
    read_lines_rows();
    chat_rows();
    watch_rows();
}
