/* ripple._cext: the compiled per-event path of the Python binding.
 *
 * Built by `pip install bindings/python` with the system C compiler against
 * the ripple.h of the library (see _build_backend/ripple_backend.py); where no
 * compiler exists the package runs on cffi in ABI mode instead (_tramp.py).
 * The cold path (making operators, schedulers, ...) stays in cffi; this module
 * holds what runs per event:
 *
 * - the C callbacks Ripple calls (observer, map, predicate, reduce, equal,
 *   items, action, flatten_map, release), each with a PyObject as its ctx,
 *   calling Python with vectorcall; an exception in an operator callback goes
 *   to rpl_callback_fail with an error carrying its type and message;
 * - value conversion for the scalar types, strings and bytes (the rest goes
 *   through the Python helpers given to init());
 * - Subject.send and Subscriber.send_next, and a fan-out hub: one C observer per plain subject that
 *   delivers to all of the subject's Python subscribers in one C loop;
 * - disposables (DisposableBase), which Python subclasses.
 *
 * The library is not linked: init(path) dlopens the file the cffi layer
 * loaded (the same mapping) and looks up every function it uses, so the
 * library is found the same three ways with or without this module.
 *
 * GIL. A call into Ripple that can run callbacks releases the GIL first
 * (CALL_RELEASED). A callback that Ripple then runs on the same thread takes
 * the GIL back once and keeps it for the rest of that call (tl_saved), so a
 * chain of Python operators, or a hub's fan-out, costs one GIL hand-off per
 * send, not one per callback. That is turned off (lazy_keep = 0) as soon as
 * a blocking handoff exists (deliver_on_bounded with BLOCK), since the C code
 * after the first callback may then wait for a thread that needs the GIL.
 * On Ripple's own threads a callback takes the GIL with PyGILState_Ensure;
 * the thread state is made once per thread and kept until the thread exits,
 * and the Python thread is named after the thread's Ripple label.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "ripple.h"

#if PY_VERSION_HEX >= 0x030D0000
#define FINALIZING() Py_IsFinalizing()
#else
#define FINALIZING() _Py_IsFinalizing()
#endif

/* ---- the library's functions, looked up at init ------------------------- */
#define RPL_FUNCS(X)                                                                            \
    X(rpl_version) X(rpl_release) X(rpl_retain) X(rpl_int) X(rpl_double) X(rpl_bool)              \
    X(rpl_string_n) X(rpl_bytes) X(rpl_value_string) X(rpl_value_bytes) X(rpl_value_release)   \
    X(rpl_subject_send_next) X(rpl_subscriber_send_next) X(rpl_subject_as_signal) X(rpl_signal_subscribe)                    \
    X(rpl_disposable_dispose) X(rpl_disposable_is_disposed) X(rpl_disposable_create_with_release) \
    X(rpl_callback_fail)                                                                   \
    X(rpl_subject_subscriber_count) X(rpl_scheduler_current) X(rpl_scheduler_schedule)

#define DECLARE(name) static __typeof__(name) *p_##name;
RPL_FUNCS(DECLARE)

/* Python helpers from _core (set by init). */
static PyObject *h_to_c;        /* h_to_c(x, address): writes the value for x at address */
static PyObject *h_from_c;      /* h_from_c(address) -> object for the borrowed value */
static PyObject *h_exc_from_err;/* (address of a borrowed error) -> exception */
static PyObject *h_err_from_exc;/* (exception) -> address of a +1 error */
static PyObject *h_report;      /* (exception) -> None: the exception handler */
static PyObject *h_name_thread; /* (name) -> None */
static PyObject *h_fanout;      /* (value, callables) -> None: calls each callable */
static PyObject *h_skip;        /* the callable in a disposed member's slot: does nothing */
static PyObject *h_last_error;  /* () -> the StatusError for the thread's last Ripple error */
static int lazy_keep = 1;
static volatile int exiting;

/* ---- the GIL ------------------------------------------------------------ */
static __thread PyThreadState *tl_saved; /* released by CALL_RELEASED on this thread, not yet taken back */
static __thread PyFrameObject *tl_frame; /* the Python frame that called CALL_RELEASED (compared, never used) */
static __thread int tl_adopted;          /* a thread Python did not make (a Ripple thread) */
static __thread int tl_batch;            /* it keeps the GIL until its batch_end item runs */
static __thread PyGILState_STATE tl_batch_st;
static void **serials;                   /* serial schedulers made from Python (GIL) */
static Py_ssize_t n_serials, cap_serials;
static pthread_key_t thread_key;
static int thread_key_made;

typedef struct { int kind; PyGILState_STATE st; } gil_t;

static void thread_exit(void *tstate) {
    /* The thread state kept since the thread's first callback. glibc has
       already cleared Python's own per-thread slot here, so the state is
       deleted directly, not through PyGILState_Release. */
    if (exiting || FINALIZING()) return;  /* the process is ending: leave it */
    PyEval_RestoreThread(tstate);
    PyThreadState_Clear(tstate);
    PyThreadState_DeleteCurrent();
}

static void adopt_thread(void) {
    /* First Python callback on a thread Python did not make: keep its thread
       state (one extra Ensure, undone at thread exit) and name the Python
       thread after the OS thread, which Ripple names after its scheduler. */
    (void)PyGILState_Ensure();
    tl_adopted = 1;
    if (thread_key_made) pthread_setspecific(thread_key, PyGILState_GetThisThreadState());
    char name[64] = "";
    if (h_name_thread && pthread_getname_np(pthread_self(), name, sizeof name) == 0 && name[0]) {
        PyObject *s = PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "replace");
        PyObject *r = s ? PyObject_CallOneArg(h_name_thread, s) : NULL;
        Py_XDECREF(s);
        if (r) Py_DECREF(r); else PyErr_Clear();
    }
}

/* Batches on a serial scheduler's thread: the first callback of a run of
   work items takes the GIL and schedules batch_end behind the items already
   queued (the scheduler is FIFO on its one thread); the callbacks of those
   items find the GIL held, and batch_end hands it back. Only for serial
   schedulers made from Python (Scheduler.serial), whose one thread is sure to
   run batch_end soon, only on threads Python did not make (a run loop or test
   scheduler runs work on the thread that drives it), and not while a
   blocking handoff exists. */
static void batch_end(void *unused) {
    (void)unused;
    if (!tl_batch) return;
    tl_batch = 0;
    PyGILState_Release(tl_batch_st);
}

static int is_serial(void *sch) {
    for (Py_ssize_t i = 0; i < n_serials; i++)
        if (serials[i] == sch) return 1;
    return 0;
}

static int batch_begin(gil_t *g) {
    void *sch;
    if (!lazy_keep || !tl_adopted || tl_batch || !n_serials) return 0;
    if (!(sch = p_rpl_scheduler_current()) || !is_serial(sch)) return 0;
    rpl_disposable_t *d = p_rpl_scheduler_schedule(sch, batch_end, NULL, NULL);
    if (!d) return 0;
    p_rpl_release(d);  /* releasing the handle does not cancel the item */
    tl_batch = 1;
    tl_batch_st = g->st;
    g->kind = 0;
    return 1;
}

/* Takes the GIL for a callback; 0: the interpreter is going away, skip it. */
static inline int gil_take(gil_t *g) {
    PyThreadState *s = tl_saved;
    g->st = PyGILState_LOCKED;
    if (PyGILState_Check()) { g->kind = 0; return 1; }  /* held (tl_saved may be stale then) */
    if (s) {                          /* this thread released it in CALL_RELEASED */
        tl_saved = NULL;
        PyEval_RestoreThread(s);
        /* Keep it only if no other code took and released the GIL on this
           thread since CALL_RELEASED (a cffi call from a Python callback
           does: it restores the thread state itself when C returns). Then
           the current frame is still the caller of CALL_RELEASED. */
        g->kind = lazy_keep && PyEval_GetFrame() == tl_frame ? 0 : 1;
        return 1;
    }
    if (exiting || FINALIZING()) return 0;
    int fresh = PyGILState_GetThisThreadState() == NULL;
    g->kind = 2;
    g->st = PyGILState_Ensure();
    if (fresh) adopt_thread();
    batch_begin(g);
    return 1;
}

static inline void gil_drop(gil_t *g) {
    if (g->kind == 1) tl_saved = PyEval_SaveThread();
    else if (g->kind == 2) PyGILState_Release(g->st);
}

/* Runs `call` (C code that may call back) with the GIL released. */
#define CALL_RELEASED(call)                                  \
    do {                                                     \
        PyThreadState *prev_ = tl_saved;                     \
        PyFrameObject *prev_frame_ = tl_frame;               \
        tl_frame = PyEval_GetFrame();                        \
        tl_saved = PyEval_SaveThread();                      \
        call;                                                \
        if (tl_saved) PyEval_RestoreThread(tl_saved);        \
        tl_saved = prev_;                                    \
        tl_frame = prev_frame_;                              \
    } while (0)

/* ---- exceptions ----------------------------------------------------------- */
static PyObject *fetch_exc(void) {
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (!t) return NULL;
    PyErr_NormalizeException(&t, &v, &tb);
    if (v && tb) PyException_SetTraceback(v, tb);
    Py_XDECREF(t);
    Py_XDECREF(tb);
    return v;
}

static void report_exc(PyObject *exc) {
    PyObject *r = PyObject_CallOneArg(h_report, exc);
    if (r) Py_DECREF(r); else PyErr_Clear();
}

static void report_current(void) {
    PyObject *e = fetch_exc();
    if (e) { report_exc(e); Py_DECREF(e); }
}

/* Inside an operator callback: the pending Python exception fails the
   operator through rpl_callback_fail (anywhere else: the exception handler). */
static void fail_current(void) {
    PyObject *e = fetch_exc();
    if (!e) return;
    rpl_error_t *err = NULL;
    PyObject *addr = PyObject_CallOneArg(h_err_from_exc, e);
    if (addr) { err = (rpl_error_t *)PyLong_AsVoidPtr(addr); Py_DECREF(addr); }
    if (PyErr_Occurred()) PyErr_Clear();
    if (p_rpl_callback_fail(err) != RPL_OK) report_exc(e);
    Py_DECREF(e);
}

static PyObject *exc_from_err(const rpl_error_t *e) {
    PyObject *a = PyLong_FromVoidPtr((void *)e);
    PyObject *r = a ? PyObject_CallOneArg(h_exc_from_err, a) : NULL;
    Py_XDECREF(a);
    return r;
}

/* ---- values ----------------------------------------------------------------- */
static int to_c(PyObject *x, rpl_value *out) {
    PyTypeObject *t = Py_TYPE(x);
    memset(out, 0, sizeof *out);
    if (t == &PyLong_Type) {
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (!overflow) { out->type = RPL_TYPE_INT; out->as.i = i; return 0; }
    } else if (t == &PyFloat_Type) {
        out->type = RPL_TYPE_DOUBLE; out->as.d = PyFloat_AS_DOUBLE(x); return 0;
    } else if (x == Py_None) {
        return 0;
    } else if (t == &PyBool_Type) {
        out->type = RPL_TYPE_BOOL; out->as.b = x == Py_True; return 0;
    } else if (t == &PyUnicode_Type) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(x, &n);
        if (s) { *out = p_rpl_string_n(s, (size_t)n); return 0; }
        PyErr_Clear();  /* lone surrogates: the Python path */
    } else if (t == &PyBytes_Type) {
        *out = p_rpl_bytes(PyBytes_AS_STRING(x), (size_t)PyBytes_GET_SIZE(x));
        return 0;
    }
    PyObject *a = PyLong_FromVoidPtr(out);
    if (!a) return -1;
    PyObject *args[2] = {x, a};
    PyObject *r = PyObject_Vectorcall(h_to_c, args, 2, NULL);
    Py_DECREF(a);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *from_c(const rpl_value *v) {
    switch (v->type) {
    case RPL_TYPE_INT: return PyLong_FromLongLong(v->as.i);
    case RPL_TYPE_DOUBLE: return PyFloat_FromDouble(v->as.d);
    case RPL_TYPE_NIL: Py_RETURN_NONE;
    case RPL_TYPE_BOOL: return PyBool_FromLong(v->as.b);
    case RPL_TYPE_STRING: {
        size_t n = 0;
        const char *s = p_rpl_value_string(v, &n);
        return PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)n, "surrogatepass");
    }
    case RPL_TYPE_BYTES: {
        size_t n = 0;
        const void *p = p_rpl_value_bytes(v, &n);
        return PyBytes_FromStringAndSize(p ? (const char *)p : "", (Py_ssize_t)n);
    }
    default: {
        PyObject *a = PyLong_FromVoidPtr((void *)v);
        PyObject *r = a ? PyObject_CallOneArg(h_from_c, a) : NULL;
        Py_XDECREF(a);
        return r;
    }
    }
}

/* ---- operator callbacks: ctx is the Python callable ------------------------------ */
static PyObject *call_values(PyObject *fn, const rpl_value *const *vs, size_t n) {
    PyObject *args[8];
    if (n > 8) return NULL;
    size_t i;
    for (i = 0; i < n; i++)
        if (!(args[i] = from_c(vs[i]))) break;
    PyObject *r = i == n ? PyObject_Vectorcall(fn, args, n, NULL) : NULL;
    while (i--) Py_DECREF(args[i]);
    return r;
}

static rpl_value value_result(PyObject *r) {
    rpl_value out;
    memset(&out, 0, sizeof out);
    if (!r) { fail_current(); return out; }
    if (to_c(r, &out) < 0) fail_current();
    Py_DECREF(r);
    return out;
}

static bool bool_result(PyObject *r) {
    int t = -1;
    if (r) { t = PyObject_IsTrue(r); Py_DECREF(r); }
    if (t < 0) { fail_current(); return false; }
    return t != 0;
}

static void none_result(PyObject *r) {
    if (r) Py_DECREF(r); else fail_current();
}

static rpl_value cb_map(void *ctx, const rpl_value *v) {
    gil_t g;
    rpl_value out;
    memset(&out, 0, sizeof out);
    if (!gil_take(&g)) return out;
    out = value_result(call_values(ctx, &v, 1));
    gil_drop(&g);
    return out;
}

static rpl_value cb_reduce(void *ctx, const rpl_value *acc, const rpl_value *v) {
    gil_t g;
    rpl_value out;
    memset(&out, 0, sizeof out);
    if (!gil_take(&g)) return out;
    const rpl_value *vs[2] = {acc, v};
    out = value_result(call_values(ctx, vs, 2));
    gil_drop(&g);
    return out;
}

static rpl_value cb_items(void *ctx, const rpl_value *items, size_t count) {
    gil_t g;
    rpl_value out;
    memset(&out, 0, sizeof out);
    if (!gil_take(&g)) return out;
    PyObject *t = PyTuple_New((Py_ssize_t)count), *r = NULL;
    size_t i = 0;
    for (; t && i < count; i++) {
        PyObject *x = from_c(&items[i]);
        if (!x) break;
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
    }
    if (t && i == count) r = PyObject_Call(ctx, t, NULL);
    Py_XDECREF(t);
    out = value_result(r);
    gil_drop(&g);
    return out;
}

static bool cb_predicate(void *ctx, const rpl_value *v) {
    gil_t g;
    if (!gil_take(&g)) return false;
    bool b = bool_result(call_values(ctx, &v, 1));
    gil_drop(&g);
    return b;
}

static bool cb_equal(void *ctx, const rpl_value *a, const rpl_value *b) {
    gil_t g;
    if (!gil_take(&g)) return false;
    const rpl_value *vs[2] = {a, b};
    bool r = bool_result(call_values(ctx, vs, 2));
    gil_drop(&g);
    return r;
}

static void cb_do_next(void *ctx, const rpl_value *v) {
    gil_t g;
    if (!gil_take(&g)) return;
    none_result(call_values(ctx, &v, 1));
    gil_drop(&g);
}

static void cb_do_error(void *ctx, const rpl_error_t *e) {
    gil_t g;
    if (!gil_take(&g)) return;
    PyObject *exc = exc_from_err(e);
    none_result(exc ? PyObject_CallOneArg(ctx, exc) : NULL);
    Py_XDECREF(exc);
    gil_drop(&g);
}

static void cb_action(void *ctx) {
    gil_t g;
    if (!gil_take(&g)) return;
    none_result(PyObject_CallNoArgs(ctx));
    gil_drop(&g);
}

static void cb_release(void *ctx) {
    gil_t g;
    if (exiting || !gil_take(&g)) return;  /* at exit: leave it (the process is ending) */
    Py_DECREF((PyObject *)ctx);
    gil_drop(&g);
}

/* ---- disposables, direct observers and hub members ------------------------------ */
struct Hub;

typedef struct {
    PyObject_HEAD
    rpl_disposable_t *handle;               /* owned (+1), or NULL */
    PyObject *on_next, *on_error, *on_completed;
    struct Hub *hub;                        /* a hub member: its hub */
    Py_ssize_t index;                       /* a hub member: its slot */
    int ended;                              /* a hub member: disposed or terminated */
    PyObject *weakrefs;
} Disp;

static PyTypeObject DispType;
static PyTypeObject *disp_class = &DispType; /* the Python subclass (ripple.Disposable) */

static Disp *disp_new(void) {
    Disp *d = (Disp *)disp_class->tp_alloc(disp_class, 0);
    return d;
}

static void disp_clear_callbacks(Disp *d) {
    Py_CLEAR(d->on_next);
    Py_CLEAR(d->on_error);
    Py_CLEAR(d->on_completed);
}

static void deliver_terminal(PyObject *on_error, PyObject *on_completed, PyObject *err) {
    PyObject *r;
    if (err) {
        if (!on_error) { report_exc(err); return; }  /* an error nobody observes is not lost */
        r = PyObject_CallOneArg(on_error, err);
    } else {
        if (!on_completed) return;
        r = PyObject_CallNoArgs(on_completed);
    }
    if (r) Py_DECREF(r); else report_current();
}

static void deliver_next(PyObject *fn, PyObject *x) {
    Py_INCREF(fn);
    PyObject *r = PyObject_Vectorcall(fn, &x, 1, NULL);
    Py_DECREF(fn);
    if (r) Py_DECREF(r); else report_current();
}

/* A direct observer: ctx is a Disp holding the callbacks (not the handle). */
static void obs_next(void *ctx, const rpl_value *v) {
    Disp *s = ctx;
    gil_t g;
    if (!s->on_next || !gil_take(&g)) return;
    PyObject *x = from_c(v);
    if (x) { deliver_next(s->on_next, x); Py_DECREF(x); }
    else report_current();
    gil_drop(&g);
}

static void obs_terminal(Disp *s, const rpl_error_t *e) {
    gil_t g;
    if (!gil_take(&g)) return;
    PyObject *err = e ? exc_from_err(e) : NULL;
    if (e && !err) report_current();
    else deliver_terminal(s->on_error, s->on_completed, err);
    Py_XDECREF(err);
    gil_drop(&g);
}

static void obs_error(void *ctx, const rpl_error_t *e) { obs_terminal(ctx, e); }
static void obs_completed(void *ctx) { obs_terminal(ctx, NULL); }

/* Raises the Python exception for the thread's last Ripple error (StatusError). */
static PyObject *raise_last(void) {
    PyObject *e = PyObject_CallNoArgs(h_last_error);
    if (e) {
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
    }
    return NULL;
}

static PyObject *opt(PyObject *o) { return o == Py_None ? NULL : o; }

/* subscribe(signal_address, on_next, on_error, on_completed) -> Disposable */
static PyObject *m_subscribe(PyObject *mod, PyObject *const *args, Py_ssize_t n) {
    (void)mod;
    if (n != 4) { PyErr_SetString(PyExc_TypeError, "subscribe takes 4 arguments"); return NULL; }
    rpl_signal_t *sig = PyLong_AsVoidPtr(args[0]);
    if (!sig && PyErr_Occurred()) return NULL;
    Disp *sink = disp_new(), *out = disp_new();
    if (!sink || !out) { Py_XDECREF(sink); Py_XDECREF(out); return NULL; }
    sink->on_next = opt(args[1]); Py_XINCREF(sink->on_next);
    sink->on_error = opt(args[2]); Py_XINCREF(sink->on_error);
    sink->on_completed = opt(args[3]); Py_XINCREF(sink->on_completed);
    rpl_observer o = {RPL_OBSERVER_VERSION, obs_next, obs_error, obs_completed, cb_release, sink};
    rpl_disposable_t *d;
    CALL_RELEASED(d = p_rpl_signal_subscribe(sig, &o));  /* sink's reference goes to C */
    if (!d) { Py_DECREF(out); return raise_last(); }
    out->handle = d;
    return (PyObject *)out;
}

/* ---- the fan-out hub of a plain subject ------------------------------------------ */
typedef struct Link {
    struct Hub *hub;                 /* strong */
    rpl_disposable_t *handle;        /* owned once subscribe returned */
    int refs;                        /* C's ctx + the subscribing call */
} Link;

typedef struct Hub {
    PyObject_HEAD
    Disp **members;                  /* strong; NULL slots are disposed members */
    PyObject *fns;                   /* list parallel to members: on_next or None */
    PyObject *iter_list;             /* the fns list a delivery is iterating, or NULL */
    Py_ssize_t n, cap, live;
    int delivering;
    Link *link;                      /* the hub's current C subscription */
} Hub;

static PyTypeObject HubType;

static void link_unref(Link *l) {
    if (--l->refs) return;
    if (l->handle && !exiting) p_rpl_release(l->handle);
    Py_DECREF((PyObject *)l->hub);
    PyMem_Free(l);
}

static void hub_compact(Hub *h) {
    if (h->delivering || h->live * 2 > h->n) return;
    PyObject *fns = PyList_New(h->live);
    if (!fns) { PyErr_Clear(); return; }
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < h->n; i++)
        if (h->members[i]) {
            PyObject *f = PyList_GET_ITEM(h->fns, i);
            Py_INCREF(f);
            PyList_SET_ITEM(fns, j, f);
            h->members[i]->index = j;
            h->members[j++] = h->members[i];
        }
    h->n = j;
    Py_SETREF(h->fns, fns);
}

/* A member's slot no longer calls anything: in the list and in the list a
   delivery is iterating (which differs when a member joined meanwhile). */
static void hub_unlist(Hub *h, Py_ssize_t i) {
    PyObject *lists[2] = {h->fns, h->iter_list};
    for (int k = 0; k < 2; k++)
        if (lists[k] && (k == 0 || lists[1] != lists[0]) && i < PyList_GET_SIZE(lists[k])) {
            Py_INCREF(h_skip);
            PyList_SetItem(lists[k], i, h_skip);
        }
}

/* Takes every member out (the subscription ended) and ends them: with a
   terminal event (deliver) or silently (the subject was freed). */
static void hub_end_all(Hub *h, PyObject *err, int deliver) {
    Disp **ms = h->members;
    Py_ssize_t n = h->n;
    for (Py_ssize_t i = 0; i < n; i++) hub_unlist(h, i);
    h->members = NULL;
    h->n = h->cap = h->live = 0;
    Py_CLEAR(h->fns);
    for (Py_ssize_t i = 0; i < n; i++) {
        Disp *m = ms[i];
        if (!m) continue;
        if (!m->ended) {
            m->ended = 1;
            PyObject *on_error = m->on_error, *on_completed = m->on_completed;
            m->on_error = m->on_completed = NULL;
            Py_CLEAR(m->on_next);
            if (deliver) deliver_terminal(on_error, on_completed, err);
            Py_XDECREF(on_error);
            Py_XDECREF(on_completed);
        }
        Py_DECREF(m);
    }
    PyMem_Free(ms);
}

static void hub_next(void *ctx, const rpl_value *v) {
    Link *l = ctx;
    Hub *h = l->hub;
    gil_t g;
    if (!gil_take(&g)) return;
    if (h->link == l && h->live) {
        PyObject *x = from_c(v);
        if (!x) report_current();
        else {
            Py_ssize_t end = h->n;   /* members added meanwhile missed this value (rule 8) */
            h->delivering++;
            if (h->live < 4) {
                for (Py_ssize_t i = 0; i < end && i < h->n; i++) {
                    Disp *m = h->members[i];
                    if (m && m->on_next) deliver_next(m->on_next, x);
                }
            } else {
                /* One call into a Python loop: CPython calls Python from
                   Python without a C frame, cheaper than a call from C each. */
                PyObject *fns = h->fns;
                Py_INCREF(fns);
                h->iter_list = fns;
                PyObject *args[2] = {x, fns};
                PyObject *r = PyObject_Vectorcall(h_fanout, args, 2, NULL);
                if (r) Py_DECREF(r); else report_current();
                h->iter_list = NULL;
                Py_DECREF(fns);
            }
            h->delivering--;
            hub_compact(h);
            Py_DECREF(x);
        }
    }
    gil_drop(&g);
}

static void hub_terminal(Link *l, const rpl_error_t *e) {
    Hub *h = l->hub;
    gil_t g;
    if (!gil_take(&g)) return;
    if (h->link == l) {
        h->link = NULL;  /* ended: a later subscriber subscribes afresh (and gets the remembered event) */
        PyObject *err = e ? exc_from_err(e) : NULL;
        if (e && !err) report_current();
        hub_end_all(h, err, 1);
        Py_XDECREF(err);
    }
    gil_drop(&g);
}

static void hub_error(void *ctx, const rpl_error_t *e) { hub_terminal(ctx, e); }
static void hub_completed(void *ctx) { hub_terminal(ctx, NULL); }

static void hub_release(void *ctx) {
    Link *l = ctx;
    gil_t g;
    if (exiting || !gil_take(&g)) return;
    Hub *h = l->hub;
    if (h->link == l) { h->link = NULL; hub_end_all(h, NULL, 0); }  /* freed with its subject (rule 6a) */
    link_unref(l);
    gil_drop(&g);
}

/* No member left: end the hub's C subscription (so subscriber counts and
   rule 6a hold as without a hub). */
static void hub_idle(Hub *h) {
    Link *l = h->link;
    if (h->live || !l || !l->handle) return;
    h->link = NULL;
    l->refs++;
    CALL_RELEASED(p_rpl_disposable_dispose(l->handle));
    link_unref(l);
}

static void member_end(Disp *m) {
    if (m->ended) return;
    m->ended = 1;
    disp_clear_callbacks(m);
    Hub *h = m->hub;
    if (!h || m->index < 0 || m->index >= h->n || h->members[m->index] != m) return;
    h->members[m->index] = NULL;
    hub_unlist(h, m->index);
    h->live--;
    hub_compact(h);
    Py_DECREF(m);
    hub_idle(h);
}

static PyObject *hub_subscribe(Hub *h, rpl_subject_t *subject, PyObject *const *args) {
    Disp *m = disp_new();
    if (!m) return NULL;
    m->on_next = opt(args[0]); Py_XINCREF(m->on_next);
    m->on_error = opt(args[1]); Py_XINCREF(m->on_error);
    m->on_completed = opt(args[2]); Py_XINCREF(m->on_completed);
    Py_INCREF(h);
    m->hub = h;
    if (h->n == h->cap) {
        Py_ssize_t cap = h->cap ? h->cap * 2 : 4;
        Disp **ms = PyMem_Realloc(h->members, (size_t)cap * sizeof *ms);
        if (!ms) { Py_DECREF(m); return PyErr_NoMemory(); }
        h->members = ms;
        h->cap = cap;
    }
    if (!h->fns && !(h->fns = PyList_New(0))) { Py_DECREF(m); return NULL; }
    if (h->delivering) {  /* the delivery goes on over the list as it was (rule 8) */
        PyObject *copy = PyList_GetSlice(h->fns, 0, PyList_GET_SIZE(h->fns));
        if (!copy) { Py_DECREF(m); return NULL; }
        Py_SETREF(h->fns, copy);
    }
    if (PyList_Append(h->fns, m->on_next ? m->on_next : h_skip) < 0) { Py_DECREF(m); return NULL; }
    Py_INCREF(m);
    m->index = h->n;
    h->members[h->n++] = m;
    h->live++;
    if (!h->link) {
        Link *l = PyMem_Malloc(sizeof *l);
        if (!l) { member_end(m); Py_DECREF(m); return PyErr_NoMemory(); }
        Py_INCREF(h);
        l->hub = h;
        l->handle = NULL;
        l->refs = 2;
        h->link = l;
        rpl_observer o = {RPL_OBSERVER_VERSION, hub_next, hub_error, hub_completed, hub_release, l};
        rpl_disposable_t *d;
        CALL_RELEASED(d = p_rpl_signal_subscribe(p_rpl_subject_as_signal(subject), &o));
        if (!d) {
            if (h->link == l) h->link = NULL;
            link_unref(l);
            member_end(m);
            Py_DECREF(m);
            return raise_last();
        }
        l->handle = d;
        if (h->link == l && !h->live) h->link = NULL;  /* every member left meanwhile */
        if (h->link != l) CALL_RELEASED(p_rpl_disposable_dispose(d));  /* ended meanwhile */
        link_unref(l);
    }
    return (PyObject *)m;
}

static void hub_dealloc(Hub *h) {
    for (Py_ssize_t i = 0; i < h->n; i++) Py_XDECREF(h->members[i]);
    PyMem_Free(h->members);
    Py_XDECREF(h->fns);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

static PyTypeObject HubType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ripple._cext.Hub",
    .tp_basicsize = sizeof(Hub),
    .tp_dealloc = (destructor)hub_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
};

/* ---- Disposable base type -------------------------------------------------------- */
static void disp_dealloc(Disp *d) {
    PyObject_GC_UnTrack(d);
    if (d->weakrefs) PyObject_ClearWeakRefs((PyObject *)d);
    if (d->handle && !exiting) p_rpl_release(d->handle);
    disp_clear_callbacks(d);
    Py_CLEAR(d->hub);
    Py_TYPE(d)->tp_free((PyObject *)d);
}

static int disp_traverse(Disp *d, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(d));
    Py_VISIT(d->on_next);
    Py_VISIT(d->on_error);
    Py_VISIT(d->on_completed);
    return 0;
}

static int disp_clear(Disp *d) {
    disp_clear_callbacks(d);
    return 0;
}

static PyObject *disp_dispose(Disp *d, PyObject *unused) {
    (void)unused;
    if (d->hub) member_end(d);
    if (d->handle) {
        rpl_status st;
        CALL_RELEASED(st = p_rpl_disposable_dispose(d->handle));
        if (st < 0) return raise_last();
    }
    Py_RETURN_NONE;
}

static PyObject *disp_is_disposed(Disp *d, void *unused) {
    (void)unused;
    if (d->hub) return PyBool_FromLong(d->ended);
    if (!d->handle) Py_RETURN_FALSE;
    return PyBool_FromLong(p_rpl_disposable_is_disposed(d->handle));
}

/* The handle of a hub member (made by _addr) disposes the member; its ctx
   is a weak reference, so the handle does not keep the member alive. */
static void member_dispose_cb(void *ctx) {
    gil_t g;
    if (exiting || !gil_take(&g)) return;
    PyObject *m = NULL;
#if PY_VERSION_HEX >= 0x030D0000
    if (PyWeakref_GetRef(ctx, &m) < 0) PyErr_Clear();
#else
    m = PyWeakref_GetObject(ctx);
    if (m == Py_None) m = NULL;
    Py_XINCREF(m);
#endif
    if (m) { member_end((Disp *)m); Py_DECREF(m); }
    gil_drop(&g);
}

/* The handle's address (borrowed); a hub member gets one on first use. */
static PyObject *disp_addr(Disp *d, PyObject *unused) {
    (void)unused;
    if (!d->handle && d->hub) {
        PyObject *ref = PyWeakref_NewRef((PyObject *)d, NULL);
        if (!ref) return NULL;
        d->handle = p_rpl_disposable_create_with_release(member_dispose_cb, ref, cb_release);
        if (!d->handle) return raise_last();
        if (d->ended) p_rpl_disposable_dispose(d->handle);
    }
    if (!d->handle) { PyErr_SetString(PyExc_ValueError, "no disposable"); return NULL; }
    return PyLong_FromVoidPtr(d->handle);
}

/* Takes over a +1 handle (an address). */
static PyObject *disp_take(Disp *d, PyObject *addr) {
    void *p = PyLong_AsVoidPtr(addr);
    if (!p && PyErr_Occurred()) return NULL;
    if (d->handle) p_rpl_release(d->handle);
    d->handle = p;
    Py_RETURN_NONE;
}

static PyObject *disp_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    Py_INCREF(self);
    return self;
}

static PyObject *disp_exit(Disp *d, PyObject *args) {
    (void)args;
    PyObject *r = disp_dispose(d, NULL);
    if (!r) return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

static PyMethodDef disp_methods[] = {
    {"dispose", (PyCFunction)disp_dispose, METH_NOARGS, "Ends the subscription (idempotent, any thread)."},
    {"_addr", (PyCFunction)disp_addr, METH_NOARGS, NULL},
    {"_take", (PyCFunction)disp_take, METH_O, NULL},
    {"__enter__", disp_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)disp_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef disp_getset[] = {
    {"is_disposed", (getter)disp_is_disposed, NULL, "True once disposed.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject DispType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ripple._cext.DisposableBase",
    .tp_basicsize = sizeof(Disp),
    .tp_dealloc = (destructor)disp_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)disp_traverse,
    .tp_clear = (inquiry)disp_clear,
    .tp_weaklistoffset = offsetof(Disp, weakrefs),
    .tp_methods = disp_methods,
    .tp_getset = disp_getset,
    .tp_new = PyType_GenericNew,
};

/* ---- Sender: a subject's or a subscriber's send, and a subject's hub --------------- */
typedef rpl_status (*send_fn)(void *handle, rpl_value v);

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    void *handle;            /* +1: an rpl_subject_t or an rpl_subscriber_t */
    send_fn send;            /* rpl_subject_send_next or rpl_subscriber_send_next */
    int is_subject;
    Hub *hub;
} Core;

static PyObject *core_send(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kw) {
    Core *c = (Core *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kw) {
        PyErr_SetString(PyExc_TypeError, "send takes one value");
        return NULL;
    }
    rpl_value v;
    if (to_c(args[0], &v) < 0) return NULL;
    rpl_status st;
    CALL_RELEASED(st = c->send(c->handle, v));
    if (st < 0) return raise_last();
    Py_RETURN_NONE;
}

static PyObject *core_new(PyTypeObject *t, PyObject *args, PyObject *kw) {
    PyObject *addr;
    int subscriber = 0;
    (void)kw;
    if (!PyArg_ParseTuple(args, "O|p", &addr, &subscriber)) return NULL;
    void *p = PyLong_AsVoidPtr(addr);  /* NULL: sends fail with RPL_ERR_NULL */
    if (!p && PyErr_Occurred()) return NULL;
    Core *c = (Core *)t->tp_alloc(t, 0);
    if (!c) return NULL;
    c->vectorcall = core_send;
    c->handle = p ? p_rpl_retain(p) : NULL;
    c->is_subject = !subscriber;
    c->send = subscriber ? (send_fn)p_rpl_subscriber_send_next : (send_fn)p_rpl_subject_send_next;
    return (PyObject *)c;
}

static void core_dealloc(Core *c) {
    if (c->handle && !exiting) p_rpl_release(c->handle);
    Py_XDECREF(c->hub);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *core_subscribe(Core *c, PyObject *const *args, Py_ssize_t n) {
    if (n != 3) { PyErr_SetString(PyExc_TypeError, "subscribe takes 3 arguments"); return NULL; }
    if (!c->is_subject) { PyErr_SetString(PyExc_TypeError, "not a subject's sender"); return NULL; }
    if (!c->hub && !(c->hub = (Hub *)PyType_GenericAlloc(&HubType, 0))) return NULL;
    return hub_subscribe(c->hub, c->handle, args);
}

/* What the hub changes in the subject's subscriber count. */
static PyObject *core_count_delta(Core *c, PyObject *unused) {
    (void)unused;
    Hub *h = c->hub;
    return PyLong_FromSsize_t(h ? h->live - (h->link ? 1 : 0) : 0);
}

static PyMethodDef core_methods[] = {
    {"subscribe", (PyCFunction)(void (*)(void))core_subscribe, METH_FASTCALL, "Subscribes through the hub."},
    {"count_delta", (PyCFunction)core_count_delta, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ripple._cext.Sender",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Core, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_methods = core_methods,
    .tp_new = core_new,
    .tp_doc = "Sender(address, subscriber=False): s(value) sends value into the subject (or subscriber) with "
              "the GIL released; s.subscribe(n, e, c) joins a subject's hub.",
};

/* ---- module ------------------------------------------------------------------------ */
static PyObject *m_init(PyObject *mod, PyObject *args) {
    const char *path;
    PyObject *helpers, *cls;
    (void)mod;
    if (!PyArg_ParseTuple(args, "sOO", &path, &helpers, &cls)) return NULL;
    void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!dl) dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) return PyErr_Format(PyExc_ImportError, "ripple._cext: dlopen %s: %s", path, dlerror());
#define LOOKUP(name)                                                                          \
    if (!(p_##name = (__typeof__(name) *)dlsym(dl, #name)))                                    \
        return PyErr_Format(PyExc_ImportError, "ripple._cext: %s lacks " #name, path);
    RPL_FUNCS(LOOKUP)
    if ((int)(p_rpl_version() / 10000) != RPL_VERSION_MAJOR)
        return PyErr_Format(PyExc_ImportError, "ripple._cext: built for ripple %s, loaded %u", RPL_VERSION_STRING,
                            p_rpl_version());
    PyObject **slots[] = {&h_to_c, &h_from_c, &h_exc_from_err, &h_err_from_exc, &h_report, &h_name_thread,
                          &h_fanout, &h_skip, &h_last_error};
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
        PyObject *f = PySequence_GetItem(helpers, (Py_ssize_t)i);
        if (!f) return NULL;
        Py_XSETREF(*slots[i], f);
    }
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &DispType))
        return PyErr_Format(PyExc_TypeError, "init: a DisposableBase subclass is needed");
    Py_INCREF(cls);
    disp_class = (PyTypeObject *)cls;
    if (!thread_key_made && pthread_key_create(&thread_key, thread_exit) == 0) thread_key_made = 1;
    Py_RETURN_NONE;
}

static PyObject *m_ctx(PyObject *mod, PyObject *obj) {
    (void)mod;
    Py_INCREF(obj);  /* released by cb_release */
    return PyLong_FromVoidPtr(obj);
}

static PyObject *m_set_lazy_keep(PyObject *mod, PyObject *on) {
    (void)mod;
    lazy_keep = PyObject_IsTrue(on) > 0;
    Py_RETURN_NONE;
}

/* serial_mark(address, on): a serial scheduler made from Python (see
   Scheduler.serial for why a mark stays). */
static PyObject *m_serial_mark(PyObject *mod, PyObject *args) {
    PyObject *addr;
    int on;
    (void)mod;
    if (!PyArg_ParseTuple(args, "Op", &addr, &on)) return NULL;
    void *p = PyLong_AsVoidPtr(addr);
    if (!p) return PyErr_Occurred() ? NULL : (Py_INCREF(Py_None), Py_None);
    for (Py_ssize_t i = 0; i < n_serials; i++)
        if (serials[i] == p) { if (!on) serials[i] = serials[--n_serials]; Py_RETURN_NONE; }
    if (on) {
        if (n_serials == cap_serials) {
            Py_ssize_t cap = cap_serials ? cap_serials * 2 : 8;
            void **a = PyMem_Realloc(serials, (size_t)cap * sizeof *a);
            if (!a) return PyErr_NoMemory();
            serials = a;
            cap_serials = cap;
        }
        serials[n_serials++] = p;
    }
    Py_RETURN_NONE;
}

static PyObject *m_set_exiting(PyObject *mod, PyObject *unused) {
    (void)mod; (void)unused;
    exiting = 1;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"init", m_init, METH_VARARGS, "init(library_path, helpers, disposable_class)"},
    {"subscribe", (PyCFunction)(void (*)(void))m_subscribe, METH_FASTCALL,
     "subscribe(signal_address, on_next, on_error, on_completed) -> Disposable"},
    {"ctx", m_ctx, METH_O, "A +1 reference to obj as a callback context (released by RELEASE)."},
    {"set_lazy_keep", m_set_lazy_keep, METH_O, NULL},
    {"set_exiting", m_set_exiting, METH_NOARGS, NULL},
    {"serial_mark", m_serial_mark, METH_VARARGS, "serial_mark(scheduler_address, on)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "ripple._cext", "The compiled per-event path of ripple (see _cext.c).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cext(void) {
    if (PyType_Ready(&DispType) < 0 || PyType_Ready(&HubType) < 0 || PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&DispType);
    Py_INCREF(&CoreType);
    PyModule_AddObject(m, "DisposableBase", (PyObject *)&DispType);
    PyModule_AddObject(m, "Sender", (PyObject *)&CoreType);
    struct { const char *name; void *fn; } fns[] = {
        {"MAP", (void *)cb_map}, {"REDUCE", (void *)cb_reduce}, {"ITEMS", (void *)cb_items},
        {"PREDICATE", (void *)cb_predicate}, {"EQUAL", (void *)cb_equal}, {"DO_NEXT", (void *)cb_do_next},
        {"DO_ERROR", (void *)cb_do_error}, {"ACTION", (void *)cb_action}, {"RELEASE", (void *)cb_release},
    };
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        PyModule_AddObject(m, fns[i].name, PyLong_FromVoidPtr(fns[i].fn));
    PyModule_AddIntConstant(m, "HEADER_VERSION", RPL_VERSION_NUMBER);
    return m;
}
