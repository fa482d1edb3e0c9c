/* OS interfaces the schedulers use that the Glibc module does not export to
   Swift, as small wrappers. Internal: not installed. */
#ifndef RIPPLE_OS_H
#define RIPPLE_OS_H
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>

/* Declared here because <pthread.h> only declares it under _GNU_SOURCE. */
extern int pthread_setname_np(pthread_t thread, const char *name);

/* A non-blocking eventfd (counter 0). -1 on failure. */
static inline int ripple_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/* A non-blocking CLOCK_MONOTONIC timerfd. -1 on failure. */
static inline int ripple_timerfd(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

/* Arms a timerfd for absolute CLOCK_MONOTONIC time `ns`; 0 disarms. */
static inline int ripple_timerfd_set(int fd, uint64_t ns) {
    struct itimerspec spec = {{0, 0}, {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)}};
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, 0);
}

/* An epoll descriptor watching `a` and `b` for input. -1 on failure. */
static inline int ripple_epoll_pair(int a, int b) {
    int p = epoll_create1(EPOLL_CLOEXEC);
    if (p < 0) return -1;
    struct epoll_event ev = {0};
    ev.events = EPOLLIN;
    ev.data.fd = a;
    if (epoll_ctl(p, EPOLL_CTL_ADD, a, &ev) != 0) return -1;
    ev.data.fd = b;
    if (epoll_ctl(p, EPOLL_CTL_ADD, b, &ev) != 0) return -1;
    return p;
}

/* Waits until `fd` is readable (or a signal interrupts). */
static inline void ripple_wait_readable(int fd) {
    struct pollfd p = {fd, POLLIN, 0};
    (void)poll(&p, 1, -1);
}

#endif
