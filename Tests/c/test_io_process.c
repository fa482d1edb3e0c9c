/* rpl_signal_os_signal, rpl_signal_child_exit, rpl_signal_file_changes:
   signals raised in-process (several subscribers, the old disposition
   restored and not chained), children forked and reaped, a directory's
   changes and its removal, a fork with live watches; bad input. */
#include "io_util.h"
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "die_after_fork=0"; }

static int under_valgrind(void) {
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "valgrind") != NULL;
}

/* A child running the shell script (exec'd, so no copy of this process's
   runtime: valgrind does not follow it), stdin from fd_in (-1: none). */
static pid_t spawn_sh(const char *script, int fd_in) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (fd_in >= 0) posix_spawn_file_actions_adddup2(&fa, fd_in, 0);
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    pid_t pid = -1;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

static atomic_int old_handler_ran;
static void old_handler(int signo) { (void)signo; old_handler_ran++; }

/* Each subscription gets each delivery; the old handler does not run while
   subscribed and is back after the last subscription ends. */
static void test_os_signal(void) {
    signal(SIGUSR1, old_handler);
    io_sched a = io_sched_make(1), b = io_sched_make(0);
    rpl_signal_t *sa = rpl_signal_os_signal(SIGUSR1, a.s);
    rpl_signal_t *sb = rpl_signal_os_signal(SIGUSR1, b.s);
    rec_t ra, rb;
    rec_init(&ra);
    rec_init(&rb);
    rpl_disposable_t *da = rec_subscribe(sa, &ra);
    rpl_disposable_t *db = rec_subscribe(sb, &rb);
    raise(SIGUSR1);  /* in place when subscribe returned */
    CHECK(io_wait_values(NULL, &ra, 1, 5000));
    CHECK(io_wait_values(b.loop, &rb, 1, 5000));
    CHECK_EQ_INT(ra.ints[0], SIGUSR1);
    CHECK_EQ_INT(rb.ints[0], SIGUSR1);
    CHECK(rb.current[0] == b.s);
    CHECK_EQ_INT(old_handler_ran, 0);
    rpl_disposable_dispose(da);
    raise(SIGUSR1);  /* b still watches: still Ripple's handler */
    CHECK(io_wait_values(b.loop, &rb, 2, 5000));
    CHECK_EQ_INT(ra.n, 1);
    CHECK_EQ_INT(old_handler_ran, 0);
    rpl_disposable_dispose(db);
    raise(SIGUSR1);  /* the old disposition, restored when dispose returned */
    CHECK_EQ_INT(old_handler_ran, 1);
    rpl_release(da);
    rpl_release(db);
    rpl_release(sa);
    rpl_release(sb);
    io_sched_free(&a);
    io_sched_free(&b);
    signal(SIGUSR1, SIG_DFL);
}

/* Many deliveries while the scheduler is busy are counted, not lost (as long
   as the pipe has room). */
static void test_os_signal_burst(void) {
    io_sched a = io_sched_make(2);
    rpl_signal_t *s = rpl_signal_os_signal(SIGUSR2, a.s);
    rec_t r;
    rpl_disposable_t *d = io_record(s, &r);
    for (int i = 0; i < 20; i++) raise(SIGUSR2);
    CHECK(io_wait_values(NULL, &r, 20, 5000));
    CHECK_EQ_INT(r.overlap, 0);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(s);
    io_sched_free(&a);
    signal(SIGUSR2, SIG_DFL);
}

static void test_os_signal_bad(void) {
    rpl_scheduler_t *bg = rpl_scheduler_background();
    int bad[] = {SIGKILL, SIGSTOP, 0, -1, 65, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(rpl_signal_os_signal(bad[i], bg) == NULL);
        CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    }
    CHECK(rpl_signal_os_signal(SIGINT, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    /* A signal the C library keeps for itself: sigaction fails, an EINVAL event. */
    io_sched a = io_sched_make(1);
    rpl_signal_t *s = rpl_signal_os_signal(32, a.s);
    CHECK(s != NULL);
    rec_t r;
    io_expect_errno(s, NULL, &r, EINVAL);
    io_sched_free(&a);
}

/* The raw wait status, then completion; the child is reaped. */
static void test_child_exit(void) {
    for (int k = 0; k < 3; k++) {
        io_sched ks = io_sched_make(k);
        int go[2];
        CHECK(pipe(go) == 0);
        pid_t pid = spawn_sh("read x; exit 3", go[0]);
        CHECK(pid > 0);
        close(go[0]);
        rpl_signal_t *s = rpl_signal_child_exit(pid, ks.s);
        rec_t r;
        rpl_disposable_t *d = io_record(s, &r);
        io_wait_values(ks.loop, &r, 1, 30);
        CHECK_EQ_INT(r.n, 0);  /* still running */
        io_write_str(go[1], "x\n");
        CHECK(io_wait(ks.loop, rec_ended, &r, 5000));
        CHECK_COMPLETED(r);
        CHECK_EQ_INT(r.n, 1);
        CHECK(WIFEXITED((int)r.ints[0]) && WEXITSTATUS((int)r.ints[0]) == 3);
        CHECK(waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD);  /* reaped */
        close(go[1]);
        rpl_release(d);
        rpl_release(s);
        io_sched_free(&ks);
    }
}

/* A killed child: the status says so. A pid that is not a child: ECHILD. */
static void test_child_exit_other(void) {
    io_sched ks = io_sched_make(1);
    pid_t pid = spawn_sh("exec sleep 100", -1);
    rpl_signal_t *s = rpl_signal_child_exit(pid, ks.s);
    rec_t r;
    rpl_disposable_t *d = io_record(s, &r);
    kill(pid, SIGTERM);
    CHECK(io_wait(NULL, rec_ended, &r, 5000));
    CHECK(r.n == 1 && WIFSIGNALED((int)r.ints[0]) && WTERMSIG((int)r.ints[0]) == SIGTERM);
    rpl_release(d);
    rpl_release(s);

    io_expect_errno(rpl_signal_child_exit(1, ks.s), NULL, &r, ECHILD);  /* init: not our child */
    CHECK_STR(r.error_domain, "errno");

    /* Disposed before the child ends: no event; the child is left unreaped
       for its owner. */
    pid = spawn_sh("exec sleep 100", -1);
    s = rpl_signal_child_exit(pid, ks.s);
    d = io_record(s, &r);
    rpl_disposable_dispose(d);
    kill(pid, SIGKILL);
    int st;
    CHECK_EQ_INT(waitpid(pid, &st, 0), pid);
    CHECK_EQ_INT(r.n, 0);
    rpl_release(d);
    rpl_release(s);

    CHECK(rpl_signal_child_exit(0, ks.s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_child_exit(-4, ks.s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    CHECK(rpl_signal_child_exit((int64_t)1 << 40, ks.s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    io_sched_free(&ks);
}

/* A directory's changes: (name, flags) tuples with names relative to it;
   its removal is sent, then completion. */
static void touch(const char *dir, const char *name, const char *text) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (text) io_write_str(fd, text);
    close(fd);
}
static void test_file_changes(void) {
    char dir[] = "/tmp/ripple-fc-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    io_sched ks = io_sched_make(0);
    rpl_signal_t *s = rpl_signal_file_changes(dir, ks.s);
    CHECK_STR(rpl_signal_name(s), "+fileChanges:");
    rec_t r;
    rpl_disposable_t *d = io_record(s, &r);
    touch(dir, "a.txt", NULL);                     /* created */
    CHECK(io_wait_values(ks.loop, &r, 1, 5000));
    touch(dir, "a.txt", "more");                   /* modified */
    CHECK(io_wait_values(ks.loop, &r, 2, 5000));
    char from[256], to[256];
    snprintf(from, sizeof from, "%s/a.txt", dir);
    snprintf(to, sizeof to, "%s/b.txt", dir);
    CHECK(rename(from, to) == 0);                   /* moved from, moved to */
    CHECK(io_wait_values(ks.loop, &r, 4, 5000));
    CHECK(unlink(to) == 0);                         /* deleted */
    CHECK(io_wait_values(ks.loop, &r, 5, 5000));
    const char *base = strrchr(dir, '/') + 1;
    CHECK(rmdir(dir) == 0);                         /* the path goes away */
    CHECK(io_wait(ks.loop, rec_ended, &r, 5000));
    char expect[512];
    snprintf(expect, sizeof expect, "(a.txt,%d) (a.txt,%d) (a.txt,%d) (b.txt,%d) (b.txt,%d) (%s,%d) C",
             RPL_FILE_CREATED, RPL_FILE_MODIFIED, RPL_FILE_MOVED, RPL_FILE_MOVED, RPL_FILE_DELETED, base,
             RPL_FILE_DELETED);
    CHECK_LOG(&r, expect);
    rpl_release(d);
    rpl_release(s);
    io_sched_free(&ks);
}

/* A missing path: ENOENT as an error event; NULL and "" at the call. */
static void test_file_changes_bad(void) {
    io_sched ks = io_sched_make(1);
    rpl_signal_t *s = rpl_signal_file_changes("/nonexistent/ripple/path", ks.s);
    CHECK(s != NULL);
    rec_t r;
    io_expect_errno(s, NULL, &r, ENOENT);
    CHECK(rpl_signal_file_changes(NULL, ks.s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_file_changes("", ks.s) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
    io_sched_free(&ks);
}

/* fork with a live watch: in the child the parent's watch is inert (its
   set is shared with the parent, so the child leaves it alone: disposing it
   there does not affect the parent), and new subscriptions work. */
static void test_fork(void) {
    if (under_valgrind()) return;  /* the child would report the parent's threads' objects as lost */
    io_sched ks = io_sched_make(1);
    io_lines t;
    io_lines_open(&t, 100, ks.s);
    pid_t pid = fork();
    if (pid == 0) {
        rpl_disposable_dispose(t.sub);  /* must not remove the parent's registration */
        int q[2];
        if (pipe(q) != 0) _exit(10);
        io_sched cs = io_sched_make(1);
        rpl_signal_t *cs_sig = rpl_signal_read_lines(q[0], 100, cs.s);
        rec_t cr;
        rpl_disposable_t *cd = io_record(cs_sig, &cr);
        io_write_str(q[1], "child\n");
        int ok = io_wait_values(NULL, &cr, 1, 5000) && strcmp(cr.log, "child") == 0;
        rpl_disposable_dispose(cd);
        _exit(ok ? 0 : 11);
    }
    int st = 0;
    CHECK_EQ_INT(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    io_write_str(t.fd[1], "parent\n");
    CHECK(io_wait_values(NULL, &t.r, 1, 5000));
    CHECK_LOG(&t.r, "parent");
    rpl_disposable_dispose(t.sub);
    io_lines_close(&t);
    io_sched_free(&ks);
}

int main(void) {
    io_watchdog(120);
    RUN(test_os_signal);
    RUN(test_os_signal_burst);
    RUN(test_os_signal_bad);
    RUN(test_child_exit);
    RUN(test_child_exit_other);
    RUN(test_file_changes);
    RUN(test_file_changes_bad);
    RUN(test_fork);
    CHECK_DONE();
}
