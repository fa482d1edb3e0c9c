/* rpl_trace_write and RIPPLE_TRACE: a trace hook that writes one JSON line
   per event (ripple.h "Names, tracing and counting").
 *
 * Each event's line is formatted on the caller's stack, then appended under
 * one lock to a shared buffer that is written out in whole lines, so lines
 * of several threads never mix and the file is in time order (the time is
 * read under the lock). The buffer goes out when it holds 32 KiB, when an
 * event comes 50 ms after the last write, when tracing stops, and at exit:
 * one write(2) per many events, which is what makes it cheap enough to
 * leave on. */
#define _GNU_SOURCE
#include "ripple_trace_writer.h"
#include "../../Include/ripple.h"
#include "ripple_trace.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum {
    BUF_CAP = 64 * 1024,
    FLUSH_AT = 32 * 1024,
    LINE_CAP = 8192,     /* one line, at most: the parts below escaped six-fold */
    NAME_CAP = 512,      /* bytes of a signal name kept, before escaping */
    VALUE_CAP = 256,     /* bytes of a value's text kept, before escaping */
    POLL_MS = 1000,      /* how long a non-blocking fd may stay full before lines are dropped */
};
static const uint64_t FLUSH_NS = 50 * 1000 * 1000;

static struct {
    pthread_mutex_t lock;
    int fd;              /* our duplicate; -1 while not writing */
    int err;             /* errno of the first failed write; then lines are dropped */
    uint64_t dropped;    /* lines not written because of it */
    uint64_t start_ns, last_write_ns;
    size_t len;
    char buf[BUF_CAP];
} w = {PTHREAD_MUTEX_INITIALIZER, -1, 0, 0, 0, 0, 0, {0}};

/* initial-exec, as the library's other per-thread words: no __tls_get_addr call per event. */
static __thread pid_t cached_tid __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t count_lines(const char *p, size_t n) {
    size_t c = 0;
    for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))); p++) c++;
    return c;
}

/* Writes the buffer out, whole, under the lock. EINTR and partial writes
   are retried; a full non-blocking fd is waited for up to POLL_MS; any
   other error (a closed pipe, a full disk, a bad fd) stops the writing for
   good, and the lines are counted as dropped. SIGPIPE is held back for the
   write, so a reader that went away gives EPIPE instead of killing the
   program. */
static void flush_locked(void) {
    if (w.len == 0) return;
    if (w.err) {
        w.dropped += count_lines(w.buf, w.len);
        w.len = 0;
        return;
    }
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    size_t off = 0;
    while (off < w.len) {
        ssize_t n = write(w.fd, w.buf + off, w.len - off);
        if (n > 0) { off += (size_t)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = w.fd, .events = POLLOUT};
            int r;
            do r = poll(&p, 1, POLL_MS); while (r < 0 && errno == EINTR);
            if (r > 0 && !(p.revents & (POLLERR | POLLNVAL))) continue;
            w.err = EAGAIN;
        } else {
            w.err = n < 0 ? errno : EIO;
        }
        break;
    }
    if (w.err == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (off < w.len) {
        /* What did not go out counts as dropped (a line cut by a partial
           write is left cut; ripple-trace skips it and says so). */
        w.dropped += count_lines(w.buf + off, w.len - off);
    }
    w.len = 0;
    w.last_write_ns = now_ns();
}

/* JSON string contents: quotes, backslashes and control bytes escaped;
   other bytes as they are (names and strings are UTF-8). Runs of plain
   bytes are copied whole: they are nearly all of a trace. */
static size_t json_escape(char *out, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && (unsigned char)s[run] >= 0x20 && s[run] != '"' && s[run] != '\\' && s[run] != 0x7f) run++;
        memcpy(out + o, s + i, run - i);
        o += run - i;
        if (run == n) break;
        unsigned char c = (unsigned char)s[run];
        if (c == '"' || c == '\\') { out[o++] = '\\'; out[o++] = (char)c; }
        else if (c == '\n') { out[o++] = '\\'; out[o++] = 'n'; }
        else if (c == '\t') { out[o++] = '\\'; out[o++] = 't'; }
        else {
            memcpy(out + o, "\\u00", 4);
            out[o + 4] = hex[c >> 4];
            out[o + 5] = hex[c & 15];
            o += 6;
        }
        i = run + 1;
    }
    return o;
}

/* Appends a JSON string (quoted) of at most `cap` bytes of s; a longer s
   is cut at a UTF-8 character boundary and ends in "...". */
static size_t json_string(char *out, const char *s, size_t cap) {
    size_t n = strlen(s), o = 0;
    int cut = n > cap;
    if (cut) {
        n = cap;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
    }
    out[o++] = '"';
    o += json_escape(out + o, s, n);
    if (cut) { memcpy(out + o, "...", 3); o += 3; }
    out[o++] = '"';
    return o;
}

/* Decimal digits of x at out (snprintf costs more than the rest of a line). */
static size_t put_u64(char *out, uint64_t x) {
    char tmp[20];
    size_t n = 0;
    do tmp[n++] = (char)('0' + x % 10); while ((x /= 10));
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}
static size_t put_str(char *out, const char *s) {
    size_t n = strlen(s);
    memcpy(out, s, n);
    return n;
}

static const char *const kind_names[] = {"subscribe", "next", "error", "completed", "dispose"};

/* The hook. Everything but the time is formatted before the lock, on the
   stack (a name, a value's text and an error's strings are cut, so a line
   fits LINE_CAP even escaped six-fold). */
static void writer_hook(void *ctx, const void *event) {
    (void)ctx;
    const rpl_trace_event *e = event;
    char line[LINE_CAP];
    char text[VALUE_CAP + 1];
    if (!cached_tid) cached_tid = (pid_t)syscall(SYS_gettid);
    unsigned kind = (unsigned)e->kind < 5 ? (unsigned)e->kind : 4;
    size_t o = put_str(line, ",\"thread\":");
    o += put_u64(line + o, (uint64_t)cached_tid);
    o += put_str(line + o, ",\"kind\":\"");
    o += put_str(line + o, kind_names[kind]);
    o += put_str(line + o, "\",\"sub\":");
    o += put_u64(line + o, e->subscription);
    o += put_str(line + o, ",\"signal\":");
    o += json_string(line + o, e->signal_name, NAME_CAP);
    if (e->kind == RPL_TRACE_NEXT && e->value) {
        ripple_value_text(e->value, text, sizeof text);
        memcpy(line + o, ",\"value\":", 9);
        o += 9;
        o += json_string(line + o, text, VALUE_CAP);
    }
    if (e->kind == RPL_TRACE_ERROR && e->error) {
        const char *d = rpl_error_domain(e->error), *m = rpl_error_message(e->error);
        memcpy(line + o, ",\"error\":{\"domain\":", 19);
        o += 19;
        o += json_string(line + o, d ? d : "", 128);
        o += (size_t)snprintf(line + o, 40, ",\"code\":%" PRId64 ",\"message\":", rpl_error_code(e->error));
        o += json_string(line + o, m ? m : "", 256);
        line[o++] = '}';
    }
    line[o++] = '}';
    line[o++] = '\n';

    pthread_mutex_lock(&w.lock);
    if (w.fd >= 0) {
        uint64_t now = now_ns();
        if (w.len + o + 32 > BUF_CAP) flush_locked();
        w.len += put_str(w.buf + w.len, "{\"t\":");
        w.len += put_u64(w.buf + w.len, now - w.start_ns);
        memcpy(w.buf + w.len, line, o);
        w.len += o;
        if (w.len >= FLUSH_AT || now - w.last_write_ns >= FLUSH_NS) flush_locked();
    }
    pthread_mutex_unlock(&w.lock);
}

/* Ends the current file, if any: its pending lines go out, our duplicate
   is closed. Returns the errno of a failed write, with the lines dropped. */
static int finish_locked(uint64_t *dropped) {
    int err = 0;
    *dropped = 0;
    if (w.fd >= 0) {
        flush_locked();
        err = w.err;
        *dropped = w.dropped;
        close(w.fd);
        w.fd = -1;
    }
    w.err = 0;
    w.dropped = 0;
    w.len = 0;
    return err;
}

int ripple_trace_writer_set(int fd, char *msgbuf, size_t cap, const char **msg) {
    int dup_fd = -1;
    if (fd < -1) {
        *msg = "rpl_trace_write: fd must be a file descriptor or -1";
        return RPL_ERR_INVALID;
    }
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0) {
            snprintf(msgbuf, cap, "rpl_trace_write: fd %d: %s", fd, strerror(errno));
            *msg = msgbuf;
            return RPL_ERR_INVALID;
        }
        if ((fl & O_ACCMODE) == O_RDONLY) {
            snprintf(msgbuf, cap, "rpl_trace_write: fd %d is not open for writing", fd);
            *msg = msgbuf;
            return RPL_ERR_INVALID;
        }
        dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (dup_fd < 0) {
            snprintf(msgbuf, cap, "rpl_trace_write: cannot duplicate fd %d: %s", fd, strerror(errno));
            *msg = msgbuf;
            return errno == ENOMEM ? RPL_ERR_NOMEM : RPL_ERR_INVALID;
        }
    } else {
        ripple_trace_unset(writer_hook);
    }
    pthread_mutex_lock(&w.lock);
    uint64_t dropped;
    int err = finish_locked(&dropped);
    if (dup_fd >= 0) {
        w.fd = dup_fd;
        w.start_ns = w.last_write_ns = now_ns();
        struct timespec real;
        clock_gettime(CLOCK_REALTIME, &real);
        w.len = (size_t)snprintf(w.buf, 200,
                                 "{\"ripple_trace\":1,\"pid\":%d,\"clock\":\"monotonic\",\"start_unix_ns\":%" PRIu64 "}\n",
                                 (int)getpid(), (uint64_t)((uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec));
    }
    pthread_mutex_unlock(&w.lock);
    if (dup_fd >= 0) ripple_trace_set(writer_hook, NULL);
    if (err) {
        snprintf(msgbuf, cap, "rpl_trace_write: the previous trace stopped at a failed write (%s); %" PRIu64
                 " events were not written", strerror(err), dropped);
        *msg = msgbuf;
        return RPL_ERR_STATE;
    }
    return RPL_OK;
}

/* fork: the lock is held across it; the child does not go on writing its
   parent's trace (the lines of two processes would mix): it drops the
   pending lines (the parent writes them) and closes its copy of the fd. */
static void writer_prepare(void) { pthread_mutex_lock(&w.lock); }
static void writer_parent(void) { pthread_mutex_unlock(&w.lock); }
static void writer_child(void) {
    cached_tid = 0;
    if (w.fd >= 0) close(w.fd);
    w.fd = -1;
    w.len = 0;
    w.err = 0;
    w.dropped = 0;
    pthread_mutex_unlock(&w.lock);
}

/* RIPPLE_TRACE=path: trace from load time, so an unmodified program can be
   traced; "%p" in the path becomes the process id. */
__attribute__((constructor)) static void writer_init(void) {
    pthread_atfork(writer_prepare, writer_parent, writer_child);
    const char *spec = getenv("RIPPLE_TRACE");
    if (!spec || !*spec) return;
    char path[4096];
    size_t o = 0;
    for (const char *s = spec; *s && o < sizeof path - 24; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            o += (size_t)snprintf(path + o, 24, "%d", (int)getpid());
            s++;
        } else path[o++] = *s;
    }
    path[o] = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "ripple: RIPPLE_TRACE: cannot open %s: %s (not tracing)\n", path, strerror(errno));
        return;
    }
    char msgbuf[160];
    const char *msg = NULL;
    if (ripple_trace_writer_set(fd, msgbuf, sizeof msgbuf, &msg) != RPL_OK)
        fprintf(stderr, "ripple: RIPPLE_TRACE: %s (not tracing)\n", msg);
    close(fd);
}

/* At exit (and unload) the pending lines go out. */
__attribute__((destructor)) static void writer_fini(void) {
    pthread_mutex_lock(&w.lock);
    if (w.fd >= 0) flush_locked();
    pthread_mutex_unlock(&w.lock);
}
