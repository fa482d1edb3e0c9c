/* make leak-selftest: a reference cycle the leak checkers of make check must
 * report. The observer's context keeps the subject it observes (a +1 handle
 * released by the observer's release), and the subscription goes through
 * deliver_on, whose relay holds its upstream subscription weakly - so a
 * Swift side table points into the cycle:
 *   subject -> its subscribers -> upstream subscription (weakly referenced)
 *   -> deliver_on queue -> relay -> observer -> context -> subject.
 * With `leak` the program never breaks it (a user's leak, as D4 was the
 * runtime's); without, it disposes the subscription, which breaks it. The
 * suppressions make check once had (formWeakReference) hid exactly this. */
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { rpl_subject_t *keep; } ctx_t;
static void release_ctx(void *p) {
    ctx_t *c = p;
    rpl_release(c->keep);
    free(c);
}

int main(int argc, char **argv) {
    int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *on = rpl_signal_deliver_on((rpl_signal_t *)s, ts);
    ctx_t *c = malloc(sizeof *c);
    if (!c) return 2;
    c->keep = rpl_retain(s);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.ctx = c;
    o.release = release_ctx;
    rpl_disposable_t *d = rpl_signal_subscribe(on, &o);
    rpl_subject_send_next(s, rpl_int(1));
    rpl_test_scheduler_run(ts);
    if (!leak) rpl_disposable_dispose(d);
    rpl_release(d);
    rpl_release(on);
    rpl_release(s);
    rpl_release(ts);
    printf("%s: %zu runtime objects alive at exit\n", leak ? "leak" : "no leak", rpl_live_objects());
    return 0;
}
