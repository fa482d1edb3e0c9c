/* Depth (rule 19): values and signals nested 10^5 deep never overflow the
   stack. Releasing a value nested that deep (an event of an event ..., a
   tuple of an event of a tuple ...) is iterative; building a signal whose
   chain of operators is deeper than RPL_MAX_SIGNAL_DEPTH is refused with
   RPL_ERR_DEPTH, and a chain just under the limit subscribes, delivers and is
   freed on the calling thread and on a scheduler's thread. Each case runs in
   a child process, so a crash fails that case instead of the whole program. */
#define _GNU_SOURCE
#include "check.h"
#include <ripple.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 10^5, the depth that overflowed the stack; valgrind and TSan
   (RIPPLE_TEST_QUICK) go 2 * 10^4 deep, past what fits in their stacks
   with recursion too. */
static long deep = 100000L;

static void fail_child(const char *what) {
    fprintf(stderr, "  child: %s\n", what);
    _exit(10);
}
#define CHILD_CHECK(cond) do { if (!(cond)) fail_child(#cond); } while (0)

/* Runs fn in a child; the case passes when the child exits 0 within the
   watchdog's time (a stack overflow is a signal, a hang a kill). */
static void in_child(const char *name, void (*fn)(void), int seconds) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        fflush(NULL);
        _exit(0);
    }
    CHECK(pid > 0);
    if (pid <= 0) return;
    struct timespec pause = { 0, 5 * 1000 * 1000 };
    int st = 0;
    long i = 0;
    for (; i < seconds * 200L; i++) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) { st = -1; break; }
        nanosleep(&pause, NULL);
    }
    if (i == seconds * 200L) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        fprintf(stderr, "FAIL %s: still running after %d s\n", name, seconds);
        check_failed++;
        return;
    }
    if (WIFSIGNALED(st))
        fprintf(stderr, "FAIL %s: killed by signal %d (a stack overflow?)\n", name, WTERMSIG(st));
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "FAIL %s: exit status %d\n", name, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Whether the live-object count comes back to `live` within 5 s (a
   scheduler's thread may still be dropping what it ran). */
static int live_back_to(size_t live) {
    struct timespec pause = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < 500; i++) {
        if (rpl_live_objects() == live) return 1;
        nanosleep(&pause, NULL);
    }
    return 0;
}

/* ---- Deep values --------------------------------------------------------- */

/* rpl_event_next of an event of an event ..., deep levels over a string. */
static rpl_value deep_event(long depth) {
    rpl_value v = rpl_string("leaf");
    for (long i = 0; i < depth; i++) v = rpl_event_next(v);
    return v;
}

static void deep_event_release(void) {
    size_t live = rpl_live_objects();
    rpl_value v = deep_event(deep);
    CHILD_CHECK(rpl_value_type(&v) == RPL_TYPE_EVENT);
    CHILD_CHECK(rpl_live_objects() >= live + (size_t)deep);
    /* One more reference: the first release frees nothing. */
    rpl_value w = rpl_value_copy(&v);
    rpl_value_release(&v);
    CHILD_CHECK(rpl_value_type(&w) == RPL_TYPE_EVENT);
    rpl_value_release(&w);
    CHILD_CHECK(rpl_live_objects() == live);
}

/* Tuples and events alternating, and an inner part shared with a second
   value that outlives the first. */
static void deep_mixed_release(void) {
    size_t live = rpl_live_objects();
    rpl_value v = rpl_int(7);
    rpl_value shared = rpl_nil();
    for (long i = 0; i < deep; i++) {
        if (i % 2) {
            rpl_value items[2] = { v, rpl_string("s") };
            v = rpl_tuple(items, 2);
        } else {
            v = rpl_event_next(v);
        }
        if (i == deep / 2) shared = rpl_value_copy(&v);
    }
    rpl_value_release(&v);
    CHILD_CHECK(rpl_value_type(&shared) != RPL_TYPE_NIL);
    CHILD_CHECK(rpl_live_objects() > live);
    rpl_value_release(&shared);
    CHILD_CHECK(rpl_live_objects() == live);
}

/* A deep event delivered through a signal and logged: materialize's
   values and rpl_signal_log's text never recurse on the nesting. */
static void deep_event_through_signals(void) {
    size_t live = rpl_live_objects();
    rpl_signal_t *r = rpl_signal_return(deep_event(deep));
    rpl_signal_t *m = rpl_signal_materialize(r);
    rpl_signal_t *l = rpl_signal_log(m, "deep");
    rpl_value out = rpl_nil();
    int err = dup(2), null = open("/dev/null", O_WRONLY);  /* the log's text is not checked here */
    dup2(null, 2);
    rpl_status st = rpl_signal_first(l, &out, RPL_FOREVER);
    dup2(err, 2);
    close(err);
    close(null);
    CHILD_CHECK(st == RPL_OK);
    CHILD_CHECK(rpl_value_type(&out) == RPL_TYPE_EVENT);
    rpl_value_release(&out);
    rpl_release(l);
    rpl_release(m);
    rpl_release(r);
    CHILD_CHECK(rpl_live_objects() == live);
}

/* ---- Deep signals -------------------------------------------------------- */

static rpl_value plus_one(void *ctx, const rpl_value *v) {
    (void)ctx;
    return rpl_int(rpl_value_int(v) + 1);
}

static void record_int(void *ctx, const rpl_value *v) { *(int64_t *)ctx = rpl_value_int(v); }

/* One step of a chain: map(s), or concat(s, return(i)). */
static rpl_signal_t *map_step(rpl_signal_t *s, long i) {
    (void)i;
    return rpl_signal_map(s, plus_one, NULL, NULL);
}
static rpl_signal_t *concat_step(rpl_signal_t *s, long i) {
    rpl_signal_t *r = rpl_signal_return(rpl_int(i));
    rpl_signal_t *n = rpl_signal_concat(s, r);
    rpl_release(r);
    return n;
}

/* `depth` steps over return(0); NULL (and the error) when one is refused.
   *made counts the steps made. */
static rpl_signal_t *chain(long depth, long *made, rpl_signal_t *(*step)(rpl_signal_t *, long)) {
    rpl_signal_t *s = rpl_signal_return(rpl_int(0));
    *made = 0;
    for (long i = 1; i <= depth; i++) {
        rpl_signal_t *n = step(s, i);
        rpl_release(s);
        if (!n) return NULL;
        s = n;
        (*made)++;
    }
    return s;
}
#define map_chain(depth, made) chain((depth), (made), map_step)

/* `deep` steps are refused with RPL_ERR_DEPTH at the first one past the
   limit (return is 1 deep), leaving nothing behind; the chain at the limit
   is returned. */
static rpl_signal_t *refused_past_limit(rpl_signal_t *(*step)(rpl_signal_t *, long)) {
    size_t live = rpl_live_objects();
    long made = 0;
    CHILD_CHECK(chain(deep, &made, step) == NULL);
    CHILD_CHECK(rpl_last_error() == RPL_ERR_DEPTH);
    CHILD_CHECK(strstr(rpl_last_error_message(), "deep") != NULL);
    CHILD_CHECK(made == RPL_MAX_SIGNAL_DEPTH - 1);
    CHILD_CHECK(rpl_live_objects() == live);
    rpl_signal_t *s = chain(RPL_MAX_SIGNAL_DEPTH - 1, &made, step);
    CHILD_CHECK(s != NULL);
    return s;
}

/* The maps' chain past the limit is refused with RPL_ERR_DEPTH at the first
   map too many; the one at the limit works (value RPL_MAX_SIGNAL_DEPTH - 1
   maps' worth: return is depth 1). */
static void deep_map_chain(void) {
    size_t live = rpl_live_objects();
    rpl_signal_t *s = refused_past_limit(map_step);
    rpl_value out = rpl_nil();
    CHILD_CHECK(rpl_signal_first(s, &out, RPL_FOREVER) == RPL_OK);
    CHILD_CHECK(rpl_value_int(&out) == RPL_MAX_SIGNAL_DEPTH - 1);
    /* A subject's values through the whole chain, and a dispose. */
    rpl_subject_t *subj = rpl_subject_create();
    rpl_signal_t *t = rpl_subject_as_signal(subj);
    for (long i = 0; i < RPL_MAX_SIGNAL_DEPTH - 2; i++) {  /* the subject is 1 deep, take 1 more */
        rpl_signal_t *n = rpl_signal_map(t, plus_one, NULL, NULL);
        CHILD_CHECK(n != NULL);
        if (t != rpl_subject_as_signal(subj)) rpl_release(t);
        t = n;
    }
    int64_t got = -1;
    rpl_signal_t *one = rpl_signal_take(t, 1);
    CHILD_CHECK(one != NULL);
    CHILD_CHECK(rpl_signal_map(one, plus_one, NULL, NULL) == NULL);  /* one past */
    CHILD_CHECK(rpl_last_error() == RPL_ERR_DEPTH);
    rpl_disposable_t *d = rpl_signal_subscribe_next(t, record_int, &got);
    CHILD_CHECK(d != NULL);
    CHILD_CHECK(rpl_subject_send_next(subj, rpl_int(5)) == RPL_OK);
    CHILD_CHECK(got == 5 + RPL_MAX_SIGNAL_DEPTH - 2);
    rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(one);
    rpl_release(t);
    rpl_release(subj);
    rpl_release(s);
    CHILD_CHECK(rpl_live_objects() == live);
}

/* The same chain subscribed on a serial scheduler's thread and on the
   background pool: their threads have room for the deepest chain too. */
static void deep_map_chain_on_schedulers(void) {
    size_t live = rpl_live_objects();
    long made = 0;
    rpl_signal_t *s = map_chain(RPL_MAX_SIGNAL_DEPTH - 2, &made);
    CHILD_CHECK(s != NULL);
    rpl_scheduler_t *serial = rpl_scheduler_create_serial("depth");
    rpl_scheduler_t *scheds[2] = { serial, rpl_scheduler_background() };
    for (int k = 0; k < 2; k++) {
        rpl_signal_t *on = rpl_signal_subscribe_on(s, scheds[k]);
        CHILD_CHECK(on != NULL);
        rpl_value out = rpl_nil();
        CHILD_CHECK(rpl_signal_first(on, &out, RPL_FOREVER) == RPL_OK);
        CHILD_CHECK(rpl_value_int(&out) == RPL_MAX_SIGNAL_DEPTH - 2);
        rpl_release(on);
    }
    rpl_release(serial);
    rpl_release(s);
    CHILD_CHECK(live_back_to(live));
}

static void deep_concat_chain(void) {
    size_t live = rpl_live_objects();
    rpl_signal_t *s = refused_past_limit(concat_step);
    rpl_value arr = rpl_nil();
    CHILD_CHECK(rpl_signal_to_array(s, &arr, RPL_FOREVER) == RPL_OK);
    CHILD_CHECK(rpl_value_tuple_count(&arr) == (size_t)RPL_MAX_SIGNAL_DEPTH);
    rpl_value last = rpl_value_tuple_at(&arr, RPL_MAX_SIGNAL_DEPTH - 1);
    CHILD_CHECK(rpl_value_int(&last) == RPL_MAX_SIGNAL_DEPTH - 1);
    rpl_value_release(&last);
    rpl_value_release(&arr);
    rpl_release(s);
    CHILD_CHECK(rpl_live_objects() == live);
}

/* What the error message recommends: deep signals in sequence through
   concat_all over from_array, and merged from an array, cost no depth. */
static void long_sequences_from_arrays(void) {
    size_t live = rpl_live_objects();
    rpl_value *vals = malloc(sizeof(rpl_value) * deep);
    rpl_signal_t **sigs = malloc(sizeof(rpl_signal_t *) * deep);
    CHILD_CHECK(vals && sigs);
    for (long i = 0; i < deep; i++) {
        sigs[i] = rpl_signal_return(rpl_int(i));
        vals[i] = rpl_signal_value(sigs[i]);
    }
    rpl_signal_t *all = rpl_signal_from_array(vals, deep);
    rpl_signal_t *seq = rpl_signal_concat_all(all);
    rpl_signal_t *merged = rpl_signal_merge(sigs, deep);
    for (long i = 0; i < deep; i++) rpl_release(sigs[i]);
    CHILD_CHECK(seq && merged);
    rpl_signal_t *outs[2] = { seq, merged };
    for (int k = 0; k < 2; k++) {
        rpl_value arr = rpl_nil();
        CHILD_CHECK(rpl_signal_to_array(outs[k], &arr, RPL_FOREVER) == RPL_OK);
        CHILD_CHECK(rpl_value_tuple_count(&arr) == (size_t)deep);
        rpl_value last = rpl_value_tuple_at(&arr, deep - 1);
        CHILD_CHECK(rpl_value_int(&last) == deep - 1);
        rpl_value_release(&arr);
        rpl_release(outs[k]);
    }
    rpl_release(all);
    free(vals);
    free(sigs);
    CHILD_CHECK(rpl_live_objects() == live);
}

/* Every operator counts its inputs' depth: an operator over the deepest
   signal is refused, whatever it is. */
static void depth_through_other_operators(void) {
    size_t live = rpl_live_objects();
    long made = 0;
    rpl_signal_t *s = map_chain(RPL_MAX_SIGNAL_DEPTH - 1, &made);
    CHILD_CHECK(s != NULL);
    rpl_signal_t *e = rpl_signal_empty();
    rpl_signal_t *arr[2] = { e, s };
    CHILD_CHECK(rpl_signal_merge(arr, 2) == NULL && rpl_last_error() == RPL_ERR_DEPTH);
    CHILD_CHECK(rpl_signal_zip(arr, 2) == NULL && rpl_last_error() == RPL_ERR_DEPTH);
    CHILD_CHECK(rpl_signal_take_until(e, s) == NULL && rpl_last_error() == RPL_ERR_DEPTH);
    CHILD_CHECK(rpl_signal_take(s, 1) == NULL && rpl_last_error() == RPL_ERR_DEPTH);
    CHILD_CHECK(rpl_signal_publish(s) == NULL && rpl_last_error() == RPL_ERR_DEPTH);
    CHILD_CHECK(rpl_signal_delay(s, 1, rpl_scheduler_immediate()) == NULL && rpl_last_error() == RPL_ERR_DEPTH);
    /* A shallower one works. */
    rpl_signal_t *m = rpl_signal_merge(arr, 1);
    CHILD_CHECK(m != NULL);
    rpl_release(m);
    rpl_release(e);
    rpl_release(s);
    CHILD_CHECK(rpl_live_objects() == live);
}

int main(void) {
    deep = test_scale(100000, 20000);
    int slow = test_scale(1, 0) == 0;  /* valgrind and TSan: more time */
    int t = slow ? 600 : 120;
    in_child("deep_event_release", deep_event_release, t);
    in_child("deep_mixed_release", deep_mixed_release, t);
    in_child("deep_event_through_signals", deep_event_through_signals, t);
    in_child("deep_map_chain", deep_map_chain, t);
    in_child("deep_map_chain_on_schedulers", deep_map_chain_on_schedulers, t);
    in_child("deep_concat_chain", deep_concat_chain, t);
    in_child("long_sequences_from_arrays", long_sequences_from_arrays, t);
    in_child("depth_through_other_operators", depth_through_other_operators, t);
    CHECK_DONE();
}
