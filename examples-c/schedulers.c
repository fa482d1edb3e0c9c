/* schedulers: search-as-you-type with threads, a main loop and a clock.
 *
 * - The "keyboard" is a signal whose producer keeps its subscriber and sends
 *   keystrokes. They are typed on a test scheduler (virtual time), so the
 *   demo is instant and always prints the same thing.
 * - rpl_signal_throttle keeps only the text the user paused on (200 ms of
 *   quiet): six keystrokes become two searches.
 * - Each search is a signal subscribed on the background pool
 *   (rpl_signal_subscribe_on), so the slow work leaves the main thread, and
 *   its results are delivered on a run loop (rpl_signal_deliver_on) that the
 *   main thread drives with poll() on the loop's descriptor, as a GUI or
 *   event loop would.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <pthread.h>
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

static pthread_t main_thread;
static rpl_run_loop_t *loop;
static rpl_scheduler_t *clock_;

/* --- The keyboard: a producer that keeps its subscriber ------------------ */
typedef struct { rpl_subscriber_t *sub; } keyboard;
static rpl_disposable_t *keyboard_subscribe(void *ctx, rpl_subscriber_t *sub) {
    keyboard *k = ctx;
    k->sub = rpl_retain(sub);
    return NULL;
}
typedef struct { keyboard *k; const char *text; } keystroke;
static void type_key(void *ctx) {
    keystroke *ks = ctx;
    if (!ks->text[0]) {  /* "" ends the typing */
        rpl_subscriber_send_completed(ks->k->sub);
        return;
    }
    printf("t=%4llu ms  typed   \"%s\"\n", (unsigned long long)(rpl_scheduler_now(clock_) / MS), ks->text);
    rpl_subscriber_send_next(ks->k->sub, rpl_string(ks->text));
}

/* --- The search: runs where it is subscribed (the background pool) -------- */
static const char *words[] = {"reactive", "ripple", "ripped", "riptide", "rip current", "river", "rust"};
static rpl_disposable_t *search_subscribe(void *ctx, rpl_subscriber_t *sub) {
    const char *query = ctx;
    int off_main = !pthread_equal(pthread_self(), main_thread);
    rpl_subscriber_send_next(sub, rpl_bool(off_main));   /* first: where it ran */
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strncmp(words[i], query, strlen(query)) == 0) rpl_subscriber_send_next(sub, rpl_string(words[i]));
    rpl_subscriber_send_completed(sub);
    return NULL;
}
static void free_query(void *ctx) { free(ctx); }

/* --- Results, delivered on the main thread's run loop ---------------------- */
typedef struct { char query[32]; int done; } search_state;
static void result_next(void *ctx, const rpl_value *v) {
    search_state *s = ctx;
    if (rpl_value_type(v) == RPL_TYPE_BOOL) {
        printf("            search  \"%s\" ran on %s; results arrive on %s:\n", s->query,
               rpl_value_bool(v) ? "a background thread" : "the main thread",
               pthread_equal(pthread_self(), main_thread) ? "the main thread" : "another thread");
        return;
    }
    printf("              - %s\n", rpl_value_string(v, NULL));
}
static void result_completed(void *ctx) { ((search_state *)ctx)->done = 1; }

/* Drives the run loop with poll() until the search has delivered everything. */
static void wait_for(search_state *s) {
    struct pollfd p = {rpl_run_loop_fd(loop), POLLIN, 0};
    while (!s->done) {
        if (poll(&p, 1, 5000) <= 0) { printf("timed out\n"); return; }
        rpl_run_loop_run_until_idle(loop);
    }
}

static int searches;
static search_state *pending;
static void start_search(void *ctx, const rpl_value *v) {
    (void)ctx;
    const char *q = rpl_value_string(v, NULL);
    printf("t=%4llu ms  quiet for 200 ms -> search \"%s\"\n", (unsigned long long)(rpl_scheduler_now(clock_) / MS), q);
    searches++;
    static search_state states[8];
    search_state *s = &states[searches - 1];
    snprintf(s->query, sizeof s->query, "%s", q);
    char *query = strdup(q);
    rpl_signal_t *search = rpl_signal_create(search_subscribe, query, free_query);
    rpl_signal_t *off = rpl_signal_subscribe_on(search, rpl_scheduler_background());
    rpl_signal_t *back = rpl_signal_deliver_on(off, rpl_run_loop_scheduler(loop));
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = result_next;
    o.on_completed = result_completed;
    o.ctx = s;
    rpl_release(rpl_signal_subscribe(back, &o));
    rpl_release(back);
    rpl_release(off);
    rpl_release(search);
    pending = s;
}
static void typing_done(void *ctx) {
    (void)ctx;
    printf("t=%4llu ms  typing finished\n", (unsigned long long)(rpl_scheduler_now(clock_) / MS));
}

int main(void) {
    main_thread = pthread_self();
    loop = rpl_run_loop_create();
    clock_ = rpl_test_scheduler_create();

    keyboard kb = {0};
    rpl_signal_t *keys = rpl_signal_create(keyboard_subscribe, &kb, NULL);
    rpl_signal_t *throttled = rpl_signal_throttle(keys, 200 * MS, clock_);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = start_search;
    o.on_completed = typing_done;
    rpl_disposable_t *sub = rpl_signal_subscribe(throttled, &o);

    static const struct { uint64_t at; const char *text; } script[] = {
        {0, "r"}, {40, "ri"}, {80, "rip"}, {500, "ripp"}, {540, "rippl"}, {580, "ripple"}, {1000, ""}};
    keystroke ks[7];
    for (int i = 0; i < 7; i++) {
        ks[i] = (keystroke){&kb, script[i].text};
        rpl_release(rpl_scheduler_after(clock_, script[i].at * MS, type_key, &ks[i], NULL));
    }

    /* Advance the virtual clock 20 ms at a time; whenever a search starts,
       let the main loop deliver its results before time moves on. */
    for (int t = 0; t <= 1000; t += 20) {
        rpl_test_scheduler_advance_by(clock_, t == 0 ? 0 : 20 * MS);
        if (pending) { wait_for(pending); pending = NULL; }
    }
    printf("6 keystrokes, %d searches\n", searches);

    rpl_release(sub);
    rpl_release(throttled);
    rpl_release(keys);
    rpl_release(kb.sub);
    rpl_release(clock_);
    rpl_release(loop);
    return 0;
}
