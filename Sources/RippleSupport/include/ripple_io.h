/* OS interfaces of the descriptor, signal, process and file sources
   (Sources/Ripple/IO) that the Glibc module does not export to Swift or that
   must be plain C (a signal handler). Internal: not installed. */
#ifndef RIPPLE_IO_H
#define RIPPLE_IO_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An epoll set (close-on-exec); -1 with errno on failure. */
int ripple_io_epoll_create(void);
/* Adds / modifies / removes fd in epoll set ep with events and the 64-bit
   token. 0, or -1 with errno. */
int ripple_io_epoll_add(int ep, int fd, uint32_t events, uint64_t token);
int ripple_io_epoll_mod(int ep, int fd, uint32_t events, uint64_t token);
int ripple_io_epoll_del(int ep, int fd);
/* Waits for up to max events (timeout_ms -1: forever; EINTR retried when
   forever); writes tokens and event masks. The count, or -1 with errno. */
int ripple_io_epoll_wait(int ep, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);

/* The epoll event bits the sources use. */
enum {
    RIPPLE_IO_IN = 0x001, RIPPLE_IO_OUT = 0x004, RIPPLE_IO_ERR = 0x008, RIPPLE_IO_HUP = 0x010,
    RIPPLE_IO_RDHUP = 0x2000, RIPPLE_IO_ONESHOT = 1u << 30
};

/* errno of the calling thread. */
int ripple_io_errno(void);
/* 0 if fd is an open descriptor, else errno (EBADF). */
int ripple_io_check_fd(int fd);
/* Sets O_NONBLOCK on fd; 0 or errno. */
int ripple_io_set_nonblock(int fd);
/* read / write / accept4 (non-blocking, close-on-exec), EINTR retried:
   the result, or -1 with the errno in *err. */
ssize_t ripple_io_read(int fd, void *buf, size_t n, int *err);
ssize_t ripple_io_write(int fd, const void *buf, size_t n, int *err);
int ripple_io_accept(int fd, int *err);

/* OS signals: a self-pipe (created once, both ends non-blocking,
   close-on-exec) that the handler writes each signal number into. The read
   end, or -1 with errno. */
int ripple_io_signal_pipe(void);
/* Installs the self-pipe handler for signo, saving the previous disposition
   (slot per signal number); 0 or errno. */
int ripple_io_signal_install(int signo);
/* Restores the disposition saved by ripple_io_signal_install. */
void ripple_io_signal_restore(int signo);
/* Whether signo may be watched: 1..NSIG-1 except SIGKILL and SIGSTOP. */
int ripple_io_signal_valid(int signo);

/* Child processes: 0 if pid is a child of this process (waitid without
   reaping), else errno (ECHILD). */
int ripple_io_child_check(int64_t pid);
/* A pidfd for pid (close-on-exec), or -1 with errno. */
int ripple_io_pidfd_open(int64_t pid);
/* waitpid(pid, &status, WNOHANG), EINTR retried: 1 with *status when the
   child has ended (it is reaped), 0 while it runs, -1 with the errno in *err. */
int ripple_io_child_reap(int64_t pid, int *status, int *err);

/* File changes: an inotify instance (non-blocking, close-on-exec) watching
   path; -1 with errno. *is_dir tells whether path is a directory. */
int ripple_io_inotify_watch(const char *path, int *is_dir);
/* Decodes the next inotify event of buf[*offset..len): its name (borrowed,
   may be "") and RPL_FILE_* flags (0 for events the sources ignore); *self
   is 1 when the event is about the watched path itself, *gone 1 when that
   path is gone (deleted or moved away; the watch is removed). 0 at the end. */
int ripple_io_inotify_next(const char *buf, size_t len, size_t *offset, const char **name, int *flags,
                           int *self, int *gone);
#endif
