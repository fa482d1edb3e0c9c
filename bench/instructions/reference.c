/* The C references of make bench-instructions: W1's, W3's and W4's work
   written in plain C, with the checks and the ordering the rules of
   docs/behaviour.md ask for and no Ripple code. Their counts are what those
   guarantees cost when plain C pays them (as make bench's C walk is for
   W2's time): a target below one would need the work done for less than
   plain C does it.

   Each leaves out costs Ripple's code pays, so it is a floor for Ripple's
   count, not a model of its code:
   - it is called directly, where the library is called through the PLT;
   - its thread state is the executable's (local-exec TLS), where the
     library's is reached through the GOT;
   - it keeps only what a plain subject and these operators need: no replay
     buffer, no tracing beyond the hook's check, and its slow and error
     paths are only tested for: each is an out-of-line stub, never taken by
     the benchmark (out of line, as in the library).
   It is compiled on its own, so the loops of workloads.c cannot inline it,
   and it reaches the benchmark's callbacks only through pointers.

   ref_subject_send_next   W1/W3: a send to a subject (rules 4, 6, 19, 19a,
                           24; a call outlives what it ends)
   map/filter/scan sinks   W3: each operator's callback run in its failure
                           channel (rule 24), its result's type checked
                           (rule 19a), the next sink called
   ref_subscribe / ref_dispose / ref_release
                           W4: a subscriber (one object, the handle) joined
                           and left under the subject's gate, disposed once
                           (rule 6), finished once (rule 5), freed on its
                           last release (rule 19) */
#include "reference.h"
#include <stdbool.h>
#include <stdlib.h>

/* The thread's state: the delivery level, the level of the operator
   callback running (rpl_callback_fail), and a failure it recorded. */
typedef struct {
    uintptr_t delivering;
    uintptr_t callback_level;
    void *callback_failure;
} ref_thread;
static __thread ref_thread ref_tls;

enum {
    REF_SUBJECT_MAGIC = 0x52500002u,
    REF_SUBSCRIBER_MAGIC = 0x52500003u,
    REF_FREED = 0x52500000,
    /* a member's flags */
    REF_CLOSED = 4u,
    REF_FINISHED = 8u,
    /* the gate's flags: terminated; messages queued for the owner, or a
       waiter to wake (the owner's release looks) */
    REF_TERMINATED = 1u,
    REF_QUEUED = 6u,
};

typedef struct ref_sink ref_sink;
struct ref_sink {
    void (*on_next)(ref_sink *self, const rpl_value *v);
    ref_sink *next;
    union {
        ref_map_fn map;
        ref_filter_fn filter;
        ref_scan_fn scan;
        ref_next_fn observer;
    } fn;
    void *ctx;
    rpl_value acc;
    const uint32_t *owner_flags; /* the subscriber's, for the observer's closed check */
};

struct ref_member {
    uint32_t magic;
    uint32_t flags;
    int32_t deliveries;       /* calls running on it: it outlives them */
    int32_t refs;             /* the handle's and the subject's list's */
    ref_next_fn next;         /* a C observer called directly, or NULL */
    void *ctx;
    void (*release)(void *ctx);
    ref_sink *sink;           /* else the first sink of its chain */
    long slot;                /* its index in the list: removal is O(1) */
    ref_subject *subject;     /* kept: its dispose reaches the subject from any thread */
};

struct ref_subject {
    uint32_t magic;
    uint32_t gate_flags;
    uintptr_t owner;          /* the gate: the thread delivering, or 0 */
    long refs;
    ref_member **slots;
    long count, capacity;
    long walking;             /* sends walking the list: a leave empties its slot */
    long emptied;
};

/* The trace hook's switch (compiled in, off). */
volatile int ref_trace_on;
/* The slow and error paths, as stubs (never taken by the benchmark): an
   error set, the gate waited for or a message queued for its owner, a
   waiter woken or the queue run, the trace hook called. */
static volatile long ref_refused;

__attribute__((noinline, cold)) static void ref_refuse(void) { ref_refused++; }
__attribute__((noinline, cold)) static void ref_trace(const rpl_value *v) { (void)v; ref_refused++; }
__attribute__((noinline, cold)) static void ref_contended(ref_subject *s) { (void)s; ref_refused++; }
__attribute__((noinline, cold)) static void ref_release_slow(ref_subject *s) { (void)s; ref_refused++; }
__attribute__((noinline, cold)) static void ref_compact(ref_subject *s) { s->emptied = 0; }
__attribute__((noinline, cold)) static void ref_failed(ref_sink *k) { (void)k; ref_refused++; }
__attribute__((noinline, cold)) static void ref_send_boxed(ref_sink *k, rpl_value r) {
    k->next->on_next(k->next, &r);
    rpl_value_release(&r);
}
__attribute__((noinline, cold)) static void ref_grow(ref_subject *s) {
    s->capacity = s->capacity ? 2 * s->capacity : 4;
    s->slots = realloc(s->slots, (size_t)s->capacity * sizeof *s->slots);
}

static bool ref_boxed(uint32_t type) { return type - RPL_TYPE_STRING <= RPL_TYPE_EVENT - RPL_TYPE_STRING; }

/* The gate (rule 4): taken by one CAS, let go by a plain store and a plain
   load (the asymmetric fence: the rare other side pays the heavy one). */
static bool ref_gate_take(ref_subject *s, ref_thread *t) {
    uintptr_t none = 0;
    if (__builtin_expect(__atomic_compare_exchange_n(&s->owner, &none, (uintptr_t)t, false, __ATOMIC_ACQUIRE,
                                                     __ATOMIC_RELAXED), 1))
        return true;
    ref_contended(s);
    return false;
}
static void ref_gate_let_go(ref_subject *s) {
    __atomic_store_n(&s->owner, 0, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(__atomic_load_n(&s->gate_flags, __ATOMIC_RELAXED) & REF_QUEUED, 0)) ref_release_slow(s);
}

void ref_subject_send_next(ref_subject *s, rpl_value v) {
    if (!s || s->magic != REF_SUBJECT_MAGIC || v.type > RPL_TYPE_EVENT) { ref_refuse(); return; }  /* rules 19, 19a */
    ref_thread *t = &ref_tls;
    if (!ref_gate_take(s, t)) return;
    if (!(s->gate_flags & REF_TERMINATED)) {
        t->delivering++;  /* a callback below runs one level deeper (rule 24) */
        long n = s->count;
        if (n > 0) {
            s->walking++;
            if (ref_trace_on) ref_trace(&v);
            for (long i = 0; i < n; i++) {
                ref_member *m = s->slots[i];  /* read afresh: a callback may leave */
                if (!m) continue;
                m->deliveries++;  /* the call outlives a dispose and release inside it */
                if (!(m->flags & REF_CLOSED)) {  /* rule 6 */
                    if (m->next) m->next(m->ctx, &v);
                    else m->sink->on_next(m->sink, &v);
                }
                m->deliveries--;
            }
            if (--s->walking == 0 && s->emptied) ref_compact(s);
        }
        t->delivering--;
    }
    ref_gate_let_go(s);
    if (ref_boxed(v.type)) rpl_value_release(&v);  /* the sent value is the runtime's */
}

/* An operator's callback in its failure channel (rule 24): the level is
   saved, set and restored around it, and a failure looked for after. */
#define REF_IN_CHANNEL(t, call)                          \
    do {                                                 \
        uintptr_t saved_ = (t)->callback_level;          \
        (t)->callback_level = (t)->delivering;           \
        call;                                            \
        (t)->callback_level = saved_;                    \
    } while (0)

static void ref_map_on_next(ref_sink *k, const rpl_value *v) {
    ref_thread *t = &ref_tls;
    rpl_value r;
    REF_IN_CHANNEL(t, r = k->fn.map(k->ctx, v));
    if (__builtin_expect(t->callback_failure != NULL, 0)) { ref_failed(k); return; }
    if (r.type > RPL_TYPE_DOUBLE) {  /* boxed (released after) or not a type (rule 19a) */
        if (r.type > RPL_TYPE_EVENT) ref_failed(k);
        else ref_send_boxed(k, r);
        return;
    }
    k->next->on_next(k->next, &r);
}

static void ref_filter_on_next(ref_sink *k, const rpl_value *v) {
    ref_thread *t = &ref_tls;
    bool pass;
    REF_IN_CHANNEL(t, pass = k->fn.filter(k->ctx, v));
    if (__builtin_expect(t->callback_failure != NULL, 0)) { ref_failed(k); return; }
    if (pass) k->next->on_next(k->next, v);
}

static void ref_scan_on_next(ref_sink *k, const rpl_value *v) {
    ref_thread *t = &ref_tls;
    rpl_value r;
    REF_IN_CHANNEL(t, r = k->fn.scan(k->ctx, &k->acc, v));
    if (__builtin_expect(t->callback_failure != NULL, 0)) { ref_failed(k); return; }
    if (r.type > RPL_TYPE_EVENT) { ref_failed(k); return; }  /* rule 19a */
    rpl_value old = k->acc;
    k->acc = r;  /* the sink keeps the new accumulator, and lets the old go */
    if (ref_boxed(old.type)) rpl_value_release(&old);
    if (ref_boxed(r.type)) {
        ref_send_boxed(k, rpl_value_copy(&r));
        return;
    }
    k->next->on_next(k->next, &r);
}

/* The C observer at the chain's end: nothing after its subscription closed. */
static void ref_observer_on_next(ref_sink *k, const rpl_value *v) {
    if (*k->owner_flags & REF_CLOSED) return;
    if (ref_trace_on) ref_trace(v);
    k->fn.observer(k->ctx, v);
}

ref_subject *ref_subject_create(void) {
    ref_subject *s = calloc(1, sizeof *s);
    s->magic = REF_SUBJECT_MAGIC;
    s->refs = 1;
    return s;
}

static void ref_subject_release(ref_subject *s) {
    if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    free(s->slots);
    s->magic = REF_FREED;
    free(s);
}

void ref_subject_destroy(ref_subject *s) { ref_subject_release(s); }

ref_member *ref_subscribe(ref_subject *s, const rpl_observer *o) {
    if (!s || s->magic != REF_SUBJECT_MAGIC || !o || o->version != RPL_OBSERVER_VERSION) {  /* rule 19 */
        ref_refuse();
        return NULL;
    }
    ref_member *m = malloc(sizeof *m);
    if (!m) {
        ref_refuse();
        return NULL;
    }
    /* Two references before anyone else can see it: the handle and the list. */
    *m = (ref_member){ REF_SUBSCRIBER_MAGIC, 0, 0, 2, o->on_next, o->ctx, o->release, NULL, 0, s };
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    ref_thread *t = &ref_tls;
    if (ref_gate_take(s, t)) {  /* a join is ordered with the sends (rule 4) */
        if (!(s->gate_flags & REF_TERMINATED)) {
            if (s->count == s->capacity) ref_grow(s);
            m->slot = s->count;
            s->slots[s->count++] = m;
        }
        ref_gate_let_go(s);
    }
    return m;
}

static void ref_member_release(ref_member *m) {
    if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    ref_subject_release(m->subject);
    *(volatile uint32_t *)&m->magic = REF_FREED;
    free(m);
}

void ref_dispose(ref_member *m) {
    if (!m || m->magic != REF_SUBSCRIBER_MAGIC) { ref_refuse(); return; }
    /* Once, from any thread (rule 6). */
    if (__atomic_fetch_or(&m->flags, REF_CLOSED, __ATOMIC_SEQ_CST) & REF_CLOSED) return;
    ref_subject *s = m->subject;
    ref_thread *t = &ref_tls;
    if (ref_gate_take(s, t)) {  /* a leave is ordered with the sends */
        if (s->walking) {
            s->slots[m->slot] = NULL;
            s->emptied++;
        } else {
            ref_member *last = s->slots[--s->count];
            s->slots[m->slot] = last;
            last->slot = m->slot;
        }
        ref_gate_let_go(s);
    }
    ref_member_release(m);  /* the list's reference */
    /* The finish, once and last (rule 5): the observer's release. */
    if (!(__atomic_fetch_or(&m->flags, REF_FINISHED, __ATOMIC_ACQ_REL) & REF_FINISHED) && m->release)
        m->release(m->ctx);
}

void ref_release(ref_member *m) {
    if (!m || m->magic != REF_SUBSCRIBER_MAGIC) { ref_refuse(); return; }
    ref_member_release(m);
}

/* W3's chain on one subscriber: map -> filter -> scan -> the C observer. */
ref_member *ref_subscribe_chain(ref_subject *s, ref_map_fn map, ref_filter_fn filter, ref_scan_fn scan,
                                ref_next_fn observer) {
    ref_sink *k = calloc(4, sizeof *k);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = observer;
    ref_member *m = ref_subscribe(s, &o);
    k[0] = (ref_sink){ ref_map_on_next, &k[1], { .map = map }, NULL, rpl_int(0), &m->flags };
    k[1] = (ref_sink){ ref_filter_on_next, &k[2], { .filter = filter }, NULL, rpl_int(0), &m->flags };
    k[2] = (ref_sink){ ref_scan_on_next, &k[3], { .scan = scan }, NULL, rpl_int(0), &m->flags };
    k[3] = (ref_sink){ ref_observer_on_next, NULL, { .observer = observer }, NULL, rpl_int(0), &m->flags };
    m->next = NULL;
    m->sink = k;
    return m;
}

void ref_unsubscribe_chain(ref_member *m) {
    ref_sink *k = m->sink;
    ref_dispose(m);
    ref_release(m);
    free(k);
}
