#define _POSIX_C_SOURCE 200809L
/* Names, the trace hook, rpl_live_objects and rpl_signal_log (ripple.h
   "Names, tracing and counting"; rules 26-27). */
#include "check.h"
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

/* ---- a trace recorder: the hook copies what it needs, under a mutex ---- */
typedef struct {
    int kind;
    uint64_t id;
    int64_t value;       /* NEXT: the int sent */
    const void *error;   /* ERROR: the error handle */
    char name[96];
} trace_rec;

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static trace_rec *recs;
static size_t nrecs, caprecs;
static long hook_calls;
static int bad_version;

static void recorder(void *ctx, const rpl_trace_event *e) {
    (void)ctx;
    pthread_mutex_lock(&rec_lock);
    hook_calls++;
    if (e->version != RPL_TRACE_EVENT_VERSION || !e->signal_name) bad_version++;
    if (nrecs < caprecs) {
        trace_rec *r = &recs[nrecs++];
        r->kind = (int)e->kind;
        r->id = e->subscription;
        r->value = e->kind == RPL_TRACE_NEXT && e->value && e->value->type == RPL_TYPE_INT ? e->value->as.i : -1;
        r->error = e->error;
        snprintf(r->name, sizeof r->name, "%s", e->signal_name);
    }
    pthread_mutex_unlock(&rec_lock);
}

static void trace_start(size_t cap) {
    free(recs);
    recs = calloc(cap, sizeof *recs);
    caprecs = cap;
    nrecs = 0;
    hook_calls = 0;
    bad_version = 0;
    CHECK_EQ_INT(rpl_trace_set(recorder, NULL), RPL_OK);
}

static void trace_stop(void) { CHECK_EQ_INT(rpl_trace_set(NULL, NULL), RPL_OK); }

static void on_next_noop(void *ctx, const rpl_value *v) { (void)ctx; (void)v; }
static rpl_value plus_one(void *ctx, const rpl_value *v) { (void)ctx; return rpl_int(v->as.i + 1); }
static bool is_even(void *ctx, const rpl_value *v) { (void)ctx; return v->as.i % 2 == 0; }

/* ---- names ---- */
static void test_default_names(void) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *sig = (rpl_signal_t *)s;
    CHECK(strcmp(rpl_signal_name(sig), "+subject") == 0);
    rpl_signal_t *m = rpl_signal_map(sig, plus_one, NULL, NULL);
    rpl_signal_t *f = rpl_signal_filter(m, is_even, NULL, NULL);
    rpl_signal_t *t = rpl_signal_take(f, 3);
    /* Asking for the end of a chain names every link, bottom first. */
    CHECK(strcmp(rpl_signal_name(t), "[[[+subject] -map:] -filter:] -take: 3") == 0);
    CHECK(strcmp(rpl_signal_name(m), "[+subject] -map:") == 0);
    rpl_signal_t *e = rpl_signal_empty(), *r = rpl_signal_return(rpl_int(1)), *n = rpl_signal_never();
    CHECK(strcmp(rpl_signal_name(e), "+empty") == 0);
    CHECK(strcmp(rpl_signal_name(r), "+return:") == 0);
    CHECK(strcmp(rpl_signal_name(n), "+never") == 0);
    rpl_signal_t *c = rpl_signal_concat(e, r);
    CHECK(strcmp(rpl_signal_name(c), "[+empty] -concat: [+return:]") == 0);
    rpl_signal_t *list[3] = {e, r, n};
    rpl_signal_t *mg = rpl_signal_merge(list, 3);
    CHECK(strcmp(rpl_signal_name(mg), "+merge: ([+empty], [+return:], [+never])") == 0);
    rpl_signal_t *z = rpl_signal_zip(list, 2);
    CHECK(strcmp(rpl_signal_name(z), "+zip: ([+empty], [+return:])") == 0);
    rpl_signal_t *tu = rpl_signal_take_until(n, e);
    CHECK(strcmp(rpl_signal_name(tu), "[+never] -takeUntil: [+empty]") == 0);
    rpl_scheduler_t *ts = rpl_test_scheduler_create();
    rpl_signal_t *d = rpl_signal_delay(r, 500, ts);
    CHECK(strcmp(rpl_signal_name(d), "[+return:] -delay: 500") == 0);
    rpl_signal_t *iv = rpl_signal_interval(1000, ts);
    CHECK(strcmp(rpl_signal_name(iv), "+interval: 1000") == 0);
    rpl_subject_t *rs = rpl_replay_subject_create(3);
    CHECK(strcmp(rpl_signal_name((rpl_signal_t *)rs), "+replaySubject: 3") == 0);
    rpl_connection_t *conn = rpl_signal_publish(m);
    CHECK(strcmp(rpl_signal_name(rpl_connection_signal(conn)), "[[+subject] -map:] -publish") == 0);
    rpl_signal_t *rp = rpl_signal_replay_last(r);
    CHECK(strcmp(rpl_signal_name(rp), "[+return:] -replayLast") == 0);
    rpl_signal_t *lg = rpl_signal_log(m, "x");
    CHECK(strcmp(rpl_signal_name(lg), "[[+subject] -map:] -logAll") == 0);
    /* The same pointer every time: cached once. */
    CHECK(rpl_signal_name(t) == rpl_signal_name(t));
    rpl_signal_t *all[] = {m, f, t, e, r, n, c, mg, z, tu, d, iv, rp, lg};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) rpl_release(all[i]);
    rpl_release(conn);
    rpl_release(rs);
    rpl_release(ts);
    rpl_release(s);
}

static void test_set_name(void) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_t *sig = (rpl_signal_t *)s;
    const char *before = rpl_signal_name(sig);
    CHECK_EQ_INT(rpl_signal_set_name(sig, "clicks"), RPL_OK);
    CHECK(strcmp(rpl_signal_name(sig), "clicks") == 0);
    CHECK(strcmp(before, "+subject") == 0); /* still valid: kept while the signal lives */
    char buf[16] = "temp";
    CHECK_EQ_INT(rpl_signal_set_name(sig, buf), RPL_OK);
    strcpy(buf, "XXXX"); /* copied */
    CHECK(strcmp(rpl_signal_name(sig), "temp") == 0);
    CHECK_EQ_INT(rpl_signal_set_name(sig, "clicks"), RPL_OK);
    rpl_signal_t *m = rpl_signal_map(sig, plus_one, NULL, NULL);
    CHECK(strcmp(rpl_signal_name(m), "[clicks] -map:") == 0);
    CHECK_EQ_INT(rpl_signal_set_name(m, ""), RPL_OK); /* empty is a name */
    CHECK(strcmp(rpl_signal_name(m), "") == 0);
    rpl_release(m);
    /* An operator keeps only the subject's subscribe side; the subject's
       name lives there, so it is still the input's name once the subject
       is gone. */
    rpl_signal_t *t = rpl_signal_take(sig, 1);
    rpl_release(s);
    CHECK(strcmp(rpl_signal_name(t), "[clicks] -take: 1") == 0);
    rpl_release(t);
}

static void test_long_chain(void) {
    /* A long chain, as deep as signals may be built (rule 19): names are
       built in a loop (no deep recursion) and an embedded name is cut to
       256 bytes, so each stays short. */
    rpl_signal_t *sig = rpl_signal_never();
    long n = RPL_MAX_SIGNAL_DEPTH - 1;
    for (long i = 0; i < n; i++) {
        rpl_signal_t *next = rpl_signal_map(sig, plus_one, NULL, NULL);
        rpl_release(sig);
        sig = next;
    }
    const char *name = rpl_signal_name(sig);
    CHECK(name != NULL && strlen(name) <= 256 + 8);
    CHECK(strstr(name, "...] -map:") != NULL);
    rpl_release(sig);
}

static void test_name_bad_input(void) {
    CHECK(rpl_signal_name(NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_name") != NULL);
    rpl_disposable_t *d = rpl_compound_disposable_create();
    CHECK(rpl_signal_name((rpl_signal_t *)d) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_signal_set_name((rpl_signal_t *)d, "x"), RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_signal_set_name(NULL, "x"), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "rpl_signal_set_name") != NULL);
    rpl_signal_t *e = rpl_signal_empty();
    CHECK_EQ_INT(rpl_signal_set_name(e, NULL), RPL_ERR_NULL);
    CHECK(strstr(rpl_last_error_message(), "name is NULL") != NULL);
    CHECK(strcmp(rpl_signal_name(e), "+empty") == 0); /* unchanged */
    CHECK(rpl_signal_log(NULL, "x") == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_NULL);
    CHECK(rpl_signal_log((rpl_signal_t *)d, NULL) == NULL);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_KIND);
    rpl_release(e);
    rpl_release(d);
}

/* ---- tracing ---- */
static void test_trace_subject_order(void) {
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_set_name((rpl_signal_t *)s, "clicks");
    trace_start(64);
    rpl_disposable_t *d1 = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    rpl_signal_t *m = rpl_signal_map((rpl_signal_t *)s, plus_one, NULL, NULL);
    rpl_disposable_t *d2 = rpl_signal_subscribe_next(m, on_next_noop, NULL);
    rpl_subject_send_next(s, rpl_int(1));
    rpl_subject_send_next(s, rpl_int(2));
    rpl_subject_send_completed(s);
    trace_stop();
    CHECK_EQ_INT(bad_version, 0);
    /* Each subscription: SUBSCRIBE, NEXT 1, NEXT 2, COMPLETED, DISPOSE. */
    uint64_t id1 = recs[0].id, id2 = recs[1].id;
    CHECK(id1 != 0 && id2 != 0 && id1 != id2);
    int k1[8], k2[8], n1 = 0, n2 = 0;
    int64_t v1[8], v2[8];
    for (size_t i = 0; i < nrecs; i++) {
        if (recs[i].id == id1 && n1 < 8) {
            CHECK(strcmp(recs[i].name, "clicks") == 0);
            v1[n1] = recs[i].value;
            k1[n1++] = recs[i].kind;
        } else if (recs[i].id == id2 && n2 < 8) {
            CHECK(strcmp(recs[i].name, "[clicks] -map:") == 0);
            v2[n2] = recs[i].value;
            k2[n2++] = recs[i].kind;
        }
    }
    CHECK_EQ_INT(n1, 5);
    CHECK_EQ_INT(n2, 5);
    CHECK_EQ_INT(nrecs, 10);
    int want[5] = {RPL_TRACE_SUBSCRIBE, RPL_TRACE_NEXT, RPL_TRACE_NEXT, RPL_TRACE_COMPLETED, RPL_TRACE_DISPOSE};
    for (int i = 0; i < 5 && i < n1 && i < n2; i++) {
        CHECK_EQ_INT(k1[i], want[i]);
        CHECK_EQ_INT(k2[i], want[i]);
    }
    if (n1 >= 3 && n2 >= 3) {
        CHECK_EQ_INT(v1[1], 1);
        CHECK_EQ_INT(v1[2], 2);
        CHECK_EQ_INT(v2[1], 2); /* the map's output: what the observer sees */
        CHECK_EQ_INT(v2[2], 3);
    }
    rpl_release(d1);
    rpl_release(d2);
    rpl_release(m);
    rpl_release(s);
}

static rpl_disposable_t *fail_sync(void *ctx, rpl_subscriber_t *s) {
    rpl_subscriber_send_next(s, rpl_int(7));
    rpl_subscriber_send_error(s, ctx);
    return NULL;
}

static void test_trace_error_and_dispose(void) {
    rpl_error_t *err = rpl_error_create("test", 42, "boom");
    rpl_signal_t *cold = rpl_signal_create(fail_sync, err, NULL);
    rpl_subject_t *s = rpl_subject_create();
    trace_start(64);
    /* Events sent inside subscribe come after SUBSCRIBE; DISPOSE after ERROR. */
    rpl_disposable_t *d1 = rpl_signal_subscribe_next(cold, on_next_noop, NULL);
    CHECK_EQ_INT(nrecs, 4);
    if (nrecs == 4) {
        CHECK_EQ_INT(recs[0].kind, RPL_TRACE_SUBSCRIBE);
        CHECK_EQ_INT(recs[1].kind, RPL_TRACE_NEXT);
        CHECK_EQ_INT(recs[1].value, 7);
        CHECK_EQ_INT(recs[2].kind, RPL_TRACE_ERROR);
        CHECK(recs[2].error == err); /* the error object that was sent */
        CHECK_EQ_INT(recs[3].kind, RPL_TRACE_DISPOSE);
        CHECK(strcmp(recs[0].name, "+create:") == 0);
    }
    /* Disposed without a terminal event: SUBSCRIBE, NEXT, DISPOSE. */
    nrecs = 0;
    rpl_disposable_t *d2 = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    rpl_subject_send_next(s, rpl_int(5));
    rpl_disposable_dispose(d2);
    rpl_subject_send_next(s, rpl_int(6)); /* not delivered, not reported */
    CHECK_EQ_INT(nrecs, 3);
    if (nrecs == 3) {
        CHECK_EQ_INT(recs[0].kind, RPL_TRACE_SUBSCRIBE);
        CHECK_EQ_INT(recs[1].kind, RPL_TRACE_NEXT);
        CHECK_EQ_INT(recs[2].kind, RPL_TRACE_DISPOSE);
        CHECK(recs[0].id == recs[2].id);
    }
    trace_stop();
    rpl_release(d1);
    rpl_release(d2);
    rpl_release(s);
    rpl_release(cold);
    rpl_release(err);
}

static void test_trace_off_no_calls(void) {
    rpl_subject_t *s = rpl_subject_create();
    trace_start(64);
    trace_stop();
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    for (int i = 0; i < 100; i++) rpl_subject_send_next(s, rpl_int(i));
    rpl_subject_send_completed(s);
    CHECK_EQ_INT(hook_calls, 0);
    rpl_release(d);
    rpl_release(s);
}

static void test_trace_late(void) {
    /* A subscription made before tracing began is reported from its next
       event on, under a stand-in name (its signal may be gone). */
    rpl_subject_t *s = rpl_subject_create();
    rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)s, on_next_noop, NULL);
    trace_start(16);
    rpl_subject_send_next(s, rpl_int(3));
    rpl_subject_send_completed(s);
    trace_stop();
    CHECK_EQ_INT(nrecs, 3);
    if (nrecs == 3) {
        CHECK_EQ_INT(recs[0].kind, RPL_TRACE_NEXT);
        CHECK_EQ_INT(recs[1].kind, RPL_TRACE_COMPLETED);
        CHECK_EQ_INT(recs[2].kind, RPL_TRACE_DISPOSE);
        CHECK(recs[0].id != 0 && recs[0].id == recs[2].id);
        CHECK(strcmp(recs[0].name, "(subscribed before tracing)") == 0);
    }
    rpl_release(d);
    rpl_release(s);
}

/* Concurrent sends from several threads, with subscriptions coming and going:
   each subscription's events are SUBSCRIBE, NEXT*, terminal?, DISPOSE, and
   the values from one sender arrive in the order sent. */
enum { SENDERS = 4 };
static long per_sender;
static rpl_subject_t *conc_subject;
static rpl_subscriber_t *conc_subscriber;
static volatile int churn_stop;

static void *sender_thread(void *p) {
    int64_t t = (int64_t)(intptr_t)p;
    for (long i = 0; i < per_sender; i++) {
        int64_t v = t * 100000000 + i;
        if (conc_subject) rpl_subject_send_next(conc_subject, rpl_int(v));
        else rpl_subscriber_send_next(conc_subscriber, rpl_int(v));
    }
    return NULL;
}

static void *churn_thread(void *p) {
    (void)p;
    /* Bounded, so the record cannot overflow however the threads are
       scheduled (valgrind runs one thread at a time). */
    for (long n = 0; n < SENDERS * per_sender && !__atomic_load_n(&churn_stop, __ATOMIC_ACQUIRE); n++) {
        rpl_disposable_t *d = rpl_signal_subscribe_next((rpl_signal_t *)conc_subject, on_next_noop, NULL);
        rpl_disposable_dispose(d);
        rpl_release(d);
    }
    return NULL;
}

static rpl_disposable_t *keep_subscriber(void *ctx, rpl_subscriber_t *s) {
    (void)ctx;
    conc_subscriber = rpl_retain(s);
    return NULL;
}

/* Checks the grammar of each subscription's events, in recorded order. */
static void check_grammar(long expect_full, int full_subs) {
    /* The hook appends under a mutex, and one subscription's events are
       reported one at a time, so the record keeps each subscription's order.
       Ids are small and dense here: index by id. */
    uint64_t maxid = 0;
    for (size_t i = 0; i < nrecs; i++) if (recs[i].id > maxid) maxid = recs[i].id;
    int *state = calloc(maxid + 1, sizeof *state);       /* 0 none, 1 subscribed, 2 terminated, 3 disposed */
    long *nexts = calloc(maxid + 1, sizeof *nexts);
    int64_t (*last)[SENDERS] = calloc(maxid + 1, sizeof *last);
    for (uint64_t i = 0; i <= maxid; i++) for (int t = 0; t < SENDERS; t++) last[i][t] = -1;
    int bad = 0;
    for (size_t k = 0; k < nrecs; k++) {
        trace_rec *r = &recs[k];
        int *st = &state[r->id];
        switch (r->kind) {
        case RPL_TRACE_SUBSCRIBE: bad += *st != 0; *st = 1; break;
        case RPL_TRACE_NEXT: {
            bad += *st != 1;
            nexts[r->id]++;
            int t = (int)(r->value / 100000000);
            int64_t i = r->value % 100000000;
            if (t >= 0 && t < SENDERS) { bad += i <= last[r->id][t]; last[r->id][t] = i; }
            break;
        }
        case RPL_TRACE_ERROR: case RPL_TRACE_COMPLETED: bad += *st != 1; *st = 2; break;
        case RPL_TRACE_DISPOSE: bad += *st != 1 && *st != 2; *st = 3; break;
        }
    }
    int full = 0, unfinished = 0;
    for (uint64_t i = 1; i <= maxid; i++) {
        if (state[i] == 0) continue;
        if (state[i] != 3) unfinished++;
        if (nexts[i] == expect_full) full++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(unfinished, 0);
    CHECK_EQ_INT(full, full_subs);
    free(state);
    free(nexts);
    free(last);
}

static void test_trace_concurrent_subject(void) {
    per_sender = test_scale(20000, 2000);
    conc_subject = rpl_subject_create();
    /* 2 steady subscriptions see every send; churn subscriptions report 2
       events each (at most SENDERS * per_sender of them) plus the sends they
       see while subscribed (at most one churn subscription is live). */
    trace_start((size_t)(SENDERS * per_sender * 6 + 1000));
    rpl_disposable_t *d[2];
    for (int i = 0; i < 2; i++) d[i] = rpl_signal_subscribe_next((rpl_signal_t *)conc_subject, on_next_noop, NULL);
    churn_stop = 0;
    pthread_t c, t[SENDERS];
    pthread_create(&c, NULL, churn_thread, NULL);
    for (intptr_t i = 0; i < SENDERS; i++) pthread_create(&t[i], NULL, sender_thread, (void *)i);
    for (int i = 0; i < SENDERS; i++) pthread_join(t[i], NULL);
    __atomic_store_n(&churn_stop, 1, __ATOMIC_RELEASE);
    pthread_join(c, NULL);
    rpl_subject_send_completed(conc_subject);
    trace_stop();
    CHECK(nrecs < caprecs);
    check_grammar(SENDERS * per_sender, 2);
    for (int i = 0; i < 2; i++) rpl_release(d[i]);
    rpl_release(conc_subject);
    conc_subject = NULL;
}

/* Subscriptions made before tracing began, to a subject several threads
   send to: each one's trace record is made by whichever thread delivers to
   it first, and read by the others (the subscriber keeps it out of its
   object). Each reports NEXT for every send, then COMPLETED and DISPOSE,
   under one id. */
static void test_trace_late_concurrent_subject(void) {
    per_sender = test_scale(5000, 500);
    conc_subject = rpl_subject_create();
    rpl_disposable_t *d[2];
    for (int i = 0; i < 2; i++) d[i] = rpl_signal_subscribe_next((rpl_signal_t *)conc_subject, on_next_noop, NULL);
    trace_start((size_t)(SENDERS * per_sender * 2 + 100));
    pthread_t t[SENDERS];
    for (intptr_t i = 0; i < SENDERS; i++) pthread_create(&t[i], NULL, sender_thread, (void *)i);
    for (int i = 0; i < SENDERS; i++) pthread_join(t[i], NULL);
    rpl_subject_send_completed(conc_subject);
    trace_stop();
    uint64_t ids[2] = {0, 0};
    long nexts[2] = {0, 0}, ends[2] = {0, 0};
    int bad = 0;
    for (size_t k = 0; k < nrecs; k++) {
        int j = recs[k].id == ids[0] ? 0 : recs[k].id == ids[1] ? 1 : !ids[0] ? 0 : !ids[1] ? 1 : -1;
        if (j < 0 || recs[k].id == 0) { bad++; continue; }
        ids[j] = recs[k].id;
        bad += strcmp(recs[k].name, "(subscribed before tracing)") != 0;
        if (recs[k].kind == RPL_TRACE_NEXT) {
            bad += ends[j] != 0;
            nexts[j]++;
        }
        else if (recs[k].kind == RPL_TRACE_COMPLETED) bad += ends[j]++ != 0;
        else if (recs[k].kind == RPL_TRACE_DISPOSE) bad += ends[j]++ != 1;
        else bad++;
    }
    CHECK_EQ_INT(bad, 0);
    for (int j = 0; j < 2; j++) {
        CHECK_EQ_INT(nexts[j], SENDERS * per_sender);
        CHECK_EQ_INT(ends[j], 2);
    }
    for (int i = 0; i < 2; i++) rpl_release(d[i]);
    rpl_release(conc_subject);
    conc_subject = NULL;
}

static void test_trace_concurrent_subscriber(void) {
    /* The subscriber's own fast path (rpl_subscriber_send_next), through an
       operator and directly. */
    per_sender = test_scale(20000, 2000);
    rpl_signal_t *cold = rpl_signal_create(keep_subscriber, NULL, NULL);
    trace_start((size_t)(SENDERS * per_sender + 100));
    rpl_disposable_t *d = rpl_signal_subscribe_next(cold, on_next_noop, NULL);
    pthread_t t[SENDERS];
    for (intptr_t i = 0; i < SENDERS; i++) pthread_create(&t[i], NULL, sender_thread, (void *)i);
    for (int i = 0; i < SENDERS; i++) pthread_join(t[i], NULL);
    rpl_subscriber_send_completed(conc_subscriber);
    trace_stop();
    check_grammar(SENDERS * per_sender, 1);
    rpl_release(conc_subscriber);
    conc_subscriber = NULL;
    rpl_release(d);
    rpl_release(cold);
}

/* ---- counting and logging ---- */
static void test_live_objects(void) {
    size_t base = rpl_live_objects();
    rpl_subject_t *s = rpl_subject_create();
    CHECK(rpl_live_objects() > base);
    rpl_signal_t *m = rpl_signal_map((rpl_signal_t *)s, plus_one, NULL, NULL);
    size_t mid = rpl_live_objects();
    rpl_disposable_t *d = rpl_signal_subscribe_next(m, on_next_noop, NULL);
    CHECK(rpl_live_objects() > mid);
    rpl_value str = rpl_string("boxed");
    CHECK(rpl_live_objects() > mid + 1);
    rpl_value_release(&str);
    rpl_disposable_dispose(d);
    rpl_release(d);
    CHECK_EQ_INT(rpl_live_objects(), mid);
    rpl_release(m);
    rpl_release(s);
    CHECK_EQ_INT(rpl_live_objects(), base);
    /* The shared schedulers are not counted. */
    rpl_scheduler_immediate();
    rpl_scheduler_background();
    CHECK_EQ_INT(rpl_live_objects(), base);
}

/* Counted per thread: objects made on threads that then exit, and freed on
   another thread, still sum up exactly. */
enum { MADE = 50 };
static rpl_subject_t *made[4][MADE];
static void *make_subjects(void *p) {
    rpl_subject_t **out = p;
    for (int i = 0; i < MADE; i++) out[i] = rpl_subject_create();
    return NULL;
}
static void *free_subjects(void *p) {
    rpl_subject_t **in = p;
    for (int i = 0; i < MADE; i++) rpl_release(in[i]);
    return NULL;
}
static void test_live_objects_threads(void) {
    size_t base = rpl_live_objects();
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, make_subjects, made[i]);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    size_t one = rpl_live_objects() - base;
    CHECK(one >= 4 * MADE && one % (4 * MADE) == 0); /* a subject and its parts */
    /* Half freed here, half on new threads. */
    for (int i = 0; i < 2; i++) free_subjects(made[i]);
    for (int i = 2; i < 4; i++) pthread_create(&t[i], NULL, free_subjects, made[i]);
    for (int i = 2; i < 4; i++) pthread_join(t[i], NULL);
    CHECK_EQ_INT(rpl_live_objects(), base);
}

static void test_signal_log(void) {
    fflush(stderr);
    char path[] = "/tmp/ripple-log-XXXXXX";
    int fd = mkstemp(path);
    int saved = dup(2);
    dup2(fd, 2);
    rpl_subject_t *s = rpl_subject_create();
    rpl_signal_set_name((rpl_signal_t *)s, "src");
    rpl_signal_t *l1 = rpl_signal_log((rpl_signal_t *)s, "lbl");
    rpl_signal_t *l2 = rpl_signal_log((rpl_signal_t *)s, NULL);
    rpl_disposable_t *d1 = rpl_signal_subscribe_next(l1, on_next_noop, NULL);
    rpl_subject_send_next(s, rpl_int(5));
    rpl_subject_send_next(s, rpl_string("hi"));
    rpl_disposable_t *d2 = rpl_signal_subscribe_next(l2, on_next_noop, NULL);
    rpl_error_t *err = rpl_error_create("dom", 3, "bad");
    rpl_subject_send_error(s, err);
    rpl_release(err);
    dup2(saved, 2);
    close(saved);
    char buf[512] = {0};
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    unlink(path);
    CHECK(n > 0);
    CHECK(strcmp(buf, "lbl: next 5\nlbl: next \"hi\"\nlbl: error dom 3 bad\nsrc: error dom 3 bad\n") == 0);
    if (n > 0 && strcmp(buf, "lbl: next 5\nlbl: next \"hi\"\nlbl: error dom 3 bad\nsrc: error dom 3 bad\n") != 0)
        fprintf(stderr, "log was:\n%s", buf);
    rpl_release(d1);
    rpl_release(d2);
    rpl_release(l1);
    rpl_release(l2);
    rpl_release(s);
}

int main(void) {
    alarm(120); /* watchdog: a hang fails instead of blocking the run */
    RUN(test_default_names);
    RUN(test_set_name);
    RUN(test_long_chain);
    RUN(test_name_bad_input);
    RUN(test_trace_subject_order);
    RUN(test_trace_error_and_dispose);
    RUN(test_trace_off_no_calls);
    RUN(test_trace_late);
    RUN(test_trace_concurrent_subject);
    RUN(test_trace_late_concurrent_subject);
    RUN(test_trace_concurrent_subscriber);
    RUN(test_live_objects);
    RUN(test_live_objects_threads);
    RUN(test_signal_log);
    free(recs);
    CHECK_DONE();
}
