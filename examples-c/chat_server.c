/* chat_server: a line-based TCP chat room in one run loop.
 *
 *   chat_server                 a demonstration: serves 127.0.0.1 on a free
 *                               port while three scripted clients chat, one
 *                               leaves in the middle of a line, then SIGINT
 *                               shuts it down
 *   chat_server --port N        serves 127.0.0.1:N until SIGINT or SIGTERM
 *                               (N 0: a free port); prints "listening on
 *                               127.0.0.1:<port>" first. Try: nc 127.0.0.1 N
 *
 * The pipeline, all of it on the main thread's run loop:
 *
 *   rpl_signal_accept(listener)          each new connection's descriptor
 *   rpl_signal_read_lines(connection)    per connection: its lines, each sent
 *                                        into the room as "[N] line\n"
 *   room (one subject)                   every message, to every connection
 *   rpl_signal_write(room, connection)   per connection: writes each message,
 *                                        waiting while its socket is full
 *   rpl_signal_os_signal(SIGINT/SIGTERM) shuts down: every connection closed,
 *                                        every handle released
 *
 * A connection ends when its client closes it (an unterminated last line is
 * still sent), when its lines are too long, or when writing to it fails; the
 * others go on.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <ripple.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_LINE 1024

/* One connection: in a list, so closing one costs O(1). It is freed once it
   is closed and both its subscriptions have released it. */
typedef struct conn {
    struct conn *prev, *next;
    int fd, id, refs, closed;
    rpl_disposable_t *reader, *writer;
} conn;

static rpl_run_loop_t *loop;
static rpl_scheduler_t *sched;
static rpl_subject_t *room;
static conn *conns;
static int next_id = 1, open_count, closed_count, running = 1;

static void conn_unref(void *ctx) {
    conn *c = ctx;
    if (--c->refs == 0) free(c);
}

static void conn_close(conn *c) {
    if (c->closed) return;
    c->closed = 1;
    if (c->prev) c->prev->next = c->next; else conns = c->next;
    if (c->next) c->next->prev = c->prev;
    /* Disposed before the descriptor is closed: Ripple is done with it then. */
    rpl_disposable_dispose(c->reader);
    rpl_disposable_dispose(c->writer);
    rpl_release(c->reader);
    rpl_release(c->writer);
    close(c->fd);
    open_count--;
    closed_count++;
    conn_unref(c);  /* the list's reference */
}

/* --- A connection's lines go into the room --------------------------------- */
static void on_line(void *ctx, const rpl_value *line) {
    conn *c = ctx;
    size_t n = 0;
    const char *text = rpl_value_string(line, &n);
    char msg[MAX_LINE + 32];
    int m = snprintf(msg, sizeof msg, "[%d] %.*s\n", c->id, (int)n, text);
    rpl_subject_send_next(room, rpl_string_n(msg, (size_t)m < sizeof msg ? (size_t)m : sizeof msg - 1));
}
static void on_reader_end(void *ctx) { conn_close(ctx); }
static void on_reader_error(void *ctx, const rpl_error_t *e) { (void)e; conn_close(ctx); }
static void on_writer_error(void *ctx, const rpl_error_t *e) { (void)e; conn_close(ctx); }

/* --- New connections -------------------------------------------------------- */
static void on_accept(void *ctx, const rpl_value *v) {
    (void)ctx;
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        close((int)rpl_value_int(v));
        return;
    }
    c->fd = (int)rpl_value_int(v);
    c->id = next_id++;
    c->refs = 3;  /* the list, the reader, the writer */
    c->next = conns;
    if (conns) conns->prev = c;
    conns = c;
    open_count++;

    rpl_signal_t *out = rpl_signal_write(rpl_subject_as_signal(room), c->fd, sched);
    rpl_observer w = RPL_OBSERVER_INIT;
    w.on_error = on_writer_error;
    w.release = conn_unref;
    w.ctx = c;
    c->writer = rpl_signal_subscribe(out, &w);
    rpl_release(out);

    rpl_signal_t *in = rpl_signal_read_lines(c->fd, MAX_LINE, sched);
    rpl_observer r = RPL_OBSERVER_INIT;
    r.on_next = on_line;
    r.on_completed = on_reader_end;
    r.on_error = on_reader_error;
    r.release = conn_unref;
    r.ctx = c;
    c->reader = rpl_signal_subscribe(in, &r);
    rpl_release(in);
}

static void on_shutdown(void *ctx, const rpl_value *v) {
    (void)ctx;
    fprintf(stderr, "chat_server: signal %lld, shutting down\n", (long long)rpl_value_int(v));
    running = 0;
}

static int listen_on(int port) {
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 512) != 0) {
        perror("chat_server: listen");
        return -1;
    }
    return l;
}
static int port_of(int fd) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    return ntohs(a.sin_port);
}

/* --- The demonstration's clients (another thread, plain sockets) ----------- */
static int demo_port;
static int dial(void) {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)demo_port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? s : -1;
}
static void say(int s, const char *text) {
    if (write(s, text, strlen(text)) < 0) perror("chat_server demo: write");
}
/* Reads what has arrived for s within 300 ms and prints it under name. */
static void show(int s, const char *name) {
    char buf[2048];
    size_t have = 0;
    struct pollfd p = {s, POLLIN, 0};
    while (poll(&p, 1, 300) == 1 && have < sizeof buf - 1) {
        ssize_t n = read(s, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += (size_t)n;
    }
    buf[have] = '\0';
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) printf("  %s sees: %s\n", name, line);
}
static void *demo_clients(void *arg) {
    (void)arg;
    int alice = dial(), bob = dial(), carol = dial();
    struct timespec settle = {0, 100 * 1000000L};
    nanosleep(&settle, NULL);
    say(alice, "hello, room\n");
    say(bob, "hi alice\r\n");
    show(carol, "carol");
    say(carol, "bye, I leave mid-li");  /* no newline: sent when she closes */
    close(carol);
    show(alice, "alice");
    show(bob, "bob");
    close(alice);
    close(bob);
    nanosleep(&settle, NULL);
    printf("  (raising SIGINT)\n");
    fflush(stdout);
    kill(getpid(), SIGINT);
    return NULL;
}

int main(int argc, char **argv) {
    int demo = 1, port = 0;
    if (argc == 3 && strcmp(argv[1], "--port") == 0) {
        demo = 0;
        port = atoi(argv[2]);
    } else if (argc != 1) {
        fprintf(stderr, "usage: chat_server [--port N]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);  /* a closed client is a write error (EPIPE), not a signal */
    int listener = listen_on(port);
    if (listener < 0) return 1;

    loop = rpl_run_loop_create();
    sched = rpl_run_loop_scheduler(loop);
    room = rpl_subject_create();

    rpl_signal_t *conns_sig = rpl_signal_accept(listener, sched);
    rpl_observer a = RPL_OBSERVER_INIT;
    a.on_next = on_accept;
    rpl_disposable_t *acceptor = rpl_signal_subscribe(conns_sig, &a);

    rpl_signal_t *sigint = rpl_signal_os_signal(SIGINT, sched);
    rpl_signal_t *sigterm = rpl_signal_os_signal(SIGTERM, sched);
    rpl_observer s = RPL_OBSERVER_INIT;
    s.on_next = on_shutdown;
    rpl_disposable_t *stop_int = rpl_signal_subscribe(sigint, &s);
    rpl_disposable_t *stop_term = rpl_signal_subscribe(sigterm, &s);

    printf("listening on 127.0.0.1:%d\n", port_of(listener));
    fflush(stdout);
    pthread_t clients;
    if (demo) {
        demo_port = port_of(listener);
        pthread_create(&clients, NULL, demo_clients, NULL);
    }

    /* The main loop: one descriptor serves the listener, every connection
       and the signals. */
    while (running) {
        struct pollfd p = {rpl_run_loop_fd(loop), POLLIN, 0};
        if (poll(&p, 1, -1) < 0) continue;  /* EINTR: the signal arrives through the loop */
        rpl_run_loop_run_until_idle(loop);
    }

    /* Clean shutdown: stop accepting, close every connection, release all. */
    int served = next_id - 1;
    rpl_disposable_dispose(acceptor);
    while (conns) conn_close(conns);
    rpl_subject_send_completed(room);
    rpl_run_loop_run_until_idle(loop);
    rpl_disposable_dispose(stop_int);
    rpl_disposable_dispose(stop_term);
    printf("chat_server: served %d connection%s, %d closed, %d open\n", served, served == 1 ? "" : "s",
           closed_count, open_count);
    if (demo) pthread_join(clients, NULL);
    rpl_release(stop_int);
    rpl_release(stop_term);
    rpl_release(sigint);
    rpl_release(sigterm);
    rpl_release(acceptor);
    rpl_release(conns_sig);
    rpl_release(room);
    rpl_release(loop);
    close(listener);
    return open_count == 0 ? 0 : 1;
}
