/* The OS side of the descriptor, signal, process and file sources: thin
   wrappers over epoll, read/write/accept4, sigaction with a self-pipe,
   pidfd and inotify (Sources/Ripple/IO uses them). */
#define _GNU_SOURCE
#include "ripple_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int ripple_io_errno(void) { return errno; }

int ripple_io_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int ctl(int ep, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(ep, op, fd, &ev);
}
int ripple_io_epoll_add(int ep, int fd, uint32_t events, uint64_t token) { return ctl(ep, EPOLL_CTL_ADD, fd, events, token); }
int ripple_io_epoll_mod(int ep, int fd, uint32_t events, uint64_t token) { return ctl(ep, EPOLL_CTL_MOD, fd, events, token); }
int ripple_io_epoll_del(int ep, int fd) { return ctl(ep, EPOLL_CTL_DEL, fd, 0, 0); }

int ripple_io_epoll_wait(int ep, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[64];
    if (max > 64) max = 64;
    int n;
    do n = epoll_wait(ep, evs, max, timeout_ms);
    while (n < 0 && errno == EINTR && timeout_ms < 0);
    for (int i = 0; i < n; i++) {
        tokens[i] = evs[i].data.u64;
        events[i] = evs[i].events;
    }
    return n;
}

int ripple_io_check_fd(int fd) {
    if (fd < 0) return EBADF;
    return fcntl(fd, F_GETFD) < 0 ? errno : 0;
}

int ripple_io_set_nonblock(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) return errno;
    if (fl & O_NONBLOCK) return 0;
    return fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? errno : 0;
}

ssize_t ripple_io_read(int fd, void *buf, size_t n, int *err) {
    ssize_t r;
    do r = read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    *err = r < 0 ? errno : 0;
    return r;
}

ssize_t ripple_io_write(int fd, const void *buf, size_t n, int *err) {
    ssize_t r;
    do r = write(fd, buf, n);
    while (r < 0 && errno == EINTR);
    *err = r < 0 ? errno : 0;
    return r;
}

int ripple_io_accept(int fd, int *err) {
    int r;
    do r = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    while (r < 0 && errno == EINTR);
    *err = r < 0 ? errno : 0;
    return r;
}

/* ---- OS signals ---------------------------------------------------------- */

static int signal_pipe[2] = {-1, -1};
static pid_t signal_pipe_pid;
static struct sigaction saved[NSIG];
static pthread_mutex_t signal_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_signal(int signo) {
    int saved_errno = errno;
    unsigned char b = (unsigned char)signo;
    /* A forked child that has not subscribed itself drops it: the pipe it
       inherited is its parent's. A full pipe drops the byte too: signals
       coalesce (the reader is behind). */
    if (getpid() == __atomic_load_n(&signal_pipe_pid, __ATOMIC_RELAXED)) {
        ssize_t r = write(__atomic_load_n(&signal_pipe[1], __ATOMIC_RELAXED), &b, 1);
        (void)r;
    }
    errno = saved_errno;
}

int ripple_io_signal_pipe(void) {
    pthread_mutex_lock(&signal_lock);
    /* A forked child gets a pipe of its own: the inherited one is shared
       with the parent, whose watcher would read the child's signals. */
    if (signal_pipe[0] >= 0 && signal_pipe_pid != getpid()) {
        close(signal_pipe[0]);
        close(signal_pipe[1]);
        signal_pipe[0] = signal_pipe[1] = -1;
    }
    if (signal_pipe[0] < 0) {
        int p[2];
        if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0) {
            int e = errno;
            pthread_mutex_unlock(&signal_lock);
            errno = e;
            return -1;
        }
        signal_pipe[0] = p[0];
        __atomic_store_n(&signal_pipe[1], p[1], __ATOMIC_RELEASE);
        __atomic_store_n(&signal_pipe_pid, getpid(), __ATOMIC_RELEASE);
    }
    int r = signal_pipe[0];
    pthread_mutex_unlock(&signal_lock);
    return r;
}

int ripple_io_signal_valid(int signo) { return signo > 0 && signo < NSIG && signo != SIGKILL && signo != SIGSTOP; }

int ripple_io_signal_install(int signo) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigfillset(&sa.sa_mask);
    struct sigaction old;
    if (sigaction(signo, &sa, &old) != 0) return errno;
    /* Ripple's own handler (inherited across fork) is not what to restore. */
    if (old.sa_handler != on_signal) saved[signo] = old;
    return 0;
}

void ripple_io_signal_restore(int signo) { (void)sigaction(signo, &saved[signo], NULL); }

/* ---- Child processes ----------------------------------------------------- */

int ripple_io_child_check(int64_t pid) {
    if (pid <= 0 || pid > INT_MAX) return ESRCH;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int r;
    do r = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
    while (r < 0 && errno == EINTR);
    return r == 0 ? 0 : errno;
}

int ripple_io_pidfd_open(int64_t pid) {
#ifdef SYS_pidfd_open
    /* pidfds are close-on-exec by nature. A kernel without them (or
       valgrind, which warns at each call) is asked once. */
    static int missing;
    if (__atomic_load_n(&missing, __ATOMIC_RELAXED)) {
        errno = ENOSYS;
        return -1;
    }
    int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    if (fd < 0 && errno == ENOSYS) __atomic_store_n(&missing, 1, __ATOMIC_RELAXED);
    return fd;
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int ripple_io_child_reap(int64_t pid, int *status, int *err) {
    pid_t r;
    do r = waitpid((pid_t)pid, status, WNOHANG);
    while (r < 0 && errno == EINTR);
    *err = r < 0 ? errno : 0;
    return r > 0 ? 1 : r;
}

/* ---- File changes -------------------------------------------------------- */

#define WATCH_MASK (IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
                    IN_DELETE_SELF | IN_MOVE_SELF)

int ripple_io_inotify_watch(const char *path, int *is_dir) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    *is_dir = S_ISDIR(st.st_mode);
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return -1;
    if (inotify_add_watch(fd, path, WATCH_MASK) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* RPL_FILE_* (ripple.h). */
enum { FILE_CREATED = 1, FILE_MODIFIED = 2, FILE_DELETED = 4, FILE_MOVED = 8 };

int ripple_io_inotify_next(const char *buf, size_t len, size_t *offset, const char **name, int *flags,
                           int *self, int *gone) {
    if (*offset + sizeof(struct inotify_event) > len) return 0;
    struct inotify_event ev;
    memcpy(&ev, buf + *offset, sizeof ev);
    *name = ev.len ? buf + *offset + sizeof ev : "";
    *offset += sizeof ev + ev.len;
    uint32_t m = ev.mask;
    int f = 0;
    if (m & IN_CREATE) f |= FILE_CREATED;
    if (m & (IN_MODIFY | IN_ATTRIB)) f |= FILE_MODIFIED;
    if (m & (IN_DELETE | IN_DELETE_SELF)) f |= FILE_DELETED;
    if (m & (IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF)) f |= FILE_MOVED;
    *flags = f;
    *self = ev.len == 0;
    *gone = (m & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) != 0;
    return 1;
}
