/*
 * ripple.h - the public C API of Ripple, a reactive runtime (signals,
 * subscribers, subjects, multicast connections, disposables, schedulers and
 * operators with ReactiveCocoa's semantics) exported from libripple.so.
 *
 * This header is the whole contract: anything not declared here is private.
 * docs/behaviour.md (in the source tree, and installed with the development
 * files) explains the rules that hold across functions: ownership, threads,
 * delivery order, termination, subjects, multicast and errors. `man ripple`
 * lists the man pages made from this header. A comment here that cites
 * "rule 6a" means the rule of that number in docs/behaviour.md (its
 * anchor there is rule-6a).
 *
 * ---------------------------------------------------------------------------
 * Conventions (apply to every function unless its comment says otherwise)
 * ---------------------------------------------------------------------------
 * Handles   Every rpl_*_t is an opaque, reference-counted object. Functions
 *           that create or return a new handle (*_create, every operator,
 *           subscribe, connect, publish, ...) return a +1 reference that the
 *           caller releases with rpl_release(). Handles passed *into* a
 *           function are borrowed; the runtime retains what it keeps. Handles
 *           given to a callback are borrowed for the duration of that call.
 *           A subject is also a signal: pass an rpl_subject_t* anywhere an
 *           rpl_signal_t* is expected (cast it, or use rpl_subject_as_signal).
 * Values    rpl_value is a 16-byte tagged value. A value passed *by value*
 *           into a function is consumed by it (also when the call fails). A
 *           value a callback receives as `const rpl_value *` is borrowed. A
 *           value a callback returns belongs to the runtime from then on.
 *           An array whose values a function consumes is `rpl_value *`
 *           (rpl_tuple, rpl_signal_from_array, rpl_signal_switch_cases'
 *           keys); a `const rpl_value *` is only ever read.
 *           Boxed payloads (string, bytes, pointer, tuple, signal, event) are
 *           reference counted: rpl_value_copy() adds a reference and
 *           rpl_value_release() drops one. Scalars need no release, but
 *           releasing them is harmless, so code may release every value.
 * Errors    Functions returning a handle return NULL on failure; functions
 *           doing a command return an rpl_status (RPL_OK = 0, negative on
 *           failure). After a failure rpl_last_error() and
 *           rpl_last_error_message() (thread-local, like errno) say what went
 *           wrong. Bad input - NULL where a handle is required, a handle of the
 *           wrong kind, a NULL callback, an impossible argument - is answered
 *           with an error, never a crash. Every handle starts with a magic
 *           word, one per kind, that every entry point checks (one load and
 *           compare, without touching the reference count) and that freeing
 *           the object poisons: a handle of the wrong kind, or memory that
 *           is not a handle at all (zero-filled, say), is refused with
 *           RPL_ERR_KIND; a handle used after its last release (including a
 *           second rpl_release) is refused with RPL_ERR_MISUSE as long as
 *           its memory has not been reused. This catches the common cases;
 *           like any C library, Ripple cannot catch every use after free. Arguments are checked in one order
 *           - handles, then callbacks, then the other arguments - and the
 *           first that fails is reported; the message names the function
 *           called. A failed call still consumes its by-value arguments and
 *           still calls the release function of every context it was given
 *           (SQLite's rule), so callers need no separate cleanup path; that
 *           release runs before the call returns, and whatever it does does
 *           not change the call's last error.
 * Callbacks Plain function pointers taking `void *ctx` first, with an optional
 *           rpl_release_fn for the context, called exactly once when the
 *           runtime drops the callback. A callback that returns a handle
 *           (+1, the runtime takes it) may return NULL where its typedef says
 *           so; a handle of the wrong kind (say, a disposable where a signal
 *           is due) is released and stands for an error of domain
 *           RPL_ERROR_DOMAIN, code RPL_ERROR_CALLBACK, whose message names
 *           the function the callback was given to: the subscription or the
 *           signal fails with it.
 * Threads   Every function may be called from any thread. Events reach one
 *           subscriber one at a time, never concurrently, and events sent from
 *           one thread arrive in the order sent. No runtime lock is held while
 *           a callback runs, so callbacks may call any rpl_ function,
 *           including sending into, subscribing to or disposing the signal
 *           that is calling them. Callbacks run on the thread that sent the
 *           event, unless an operator such as rpl_signal_deliver_on says
 *           otherwise. The scheduler section states the full contract:
 *           where scheduled work and each callback run, and which calls must
 *           come from one thread at a time (driving a run loop or a test
 *           scheduler).
 * Time      Nanoseconds, as uint64_t, everywhere.
 */
#ifndef RIPPLE_H
#define RIPPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nullability annotations are read by the Swift importer and are a clang
   extension: silence -Wnullability-extension and expand to nothing elsewhere. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-extension"
#define RPL_NULLABLE _Nullable
#define RPL_NONNULL _Nonnull
#else
#define RPL_NULLABLE
#define RPL_NONNULL
#endif

/* ===========================================================================
 * Version
 * ======================================================================== */
#define RPL_VERSION_MAJOR 0
#define RPL_VERSION_MINOR 2
#define RPL_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH. */
#define RPL_VERSION_NUMBER \
    (RPL_VERSION_MAJOR * 10000 + RPL_VERSION_MINOR * 100 + RPL_VERSION_PATCH)
#define RPL_VERSION_STRING "0.2.0"
/* True when the header is at least version x.y.z. */
#define RPL_AT_LEAST_VERSION(x, y, z) \
    (RPL_VERSION_NUMBER >= ((x) * 10000 + (y) * 100 + (z)))

/* RPL_VERSION_NUMBER of the library actually loaded; compare it with the
   macro to check that header and library match. Never fails. */
unsigned rpl_version(void);
/* "MAJOR.MINOR.PATCH" of the loaded library: static storage, never NULL. */
const char *RPL_NONNULL rpl_version_string(void);

/* ===========================================================================
 * Handles, status codes and errors
 * ======================================================================== */
typedef struct rpl_signal rpl_signal_t;
typedef struct rpl_subject rpl_subject_t;
typedef struct rpl_subscriber rpl_subscriber_t;
typedef struct rpl_disposable rpl_disposable_t;
typedef struct rpl_connection rpl_connection_t;
typedef struct rpl_scheduler rpl_scheduler_t;
typedef struct rpl_error rpl_error_t;

/* Releases a context pointer handed to the runtime. */
typedef void (*rpl_release_fn)(void *RPL_NULLABLE ctx);

/* Result of a command. RPL_OK is 0; every failure is negative. */
typedef int32_t rpl_status;
enum {
    RPL_OK = 0,
    RPL_ERR_NULL = -1,      /* a required argument (handle, callback, pointer) was NULL */
    RPL_ERR_KIND = -2,      /* a handle of the wrong kind was passed */
    RPL_ERR_INVALID = -3,   /* an impossible argument (capacity 0, bad version, ...) */
    RPL_ERR_TIMEOUT = -4,   /* a blocking call timed out */
    RPL_ERR_NO_VALUE = -5,  /* the signal completed without sending a value */
    RPL_ERR_FAILED = -6,    /* the signal terminated with an error (rpl_last_signal_error) */
    RPL_ERR_NOMEM = -7,     /* out of memory */
    RPL_ERR_STATE = -8,     /* the call is not valid in the object's current state */
    RPL_ERR_MISUSE = -9,    /* a handle used after it was freed (see Handles below) */
    RPL_ERR_DEPTH = -10     /* the signal would be built deeper than RPL_MAX_SIGNAL_DEPTH */
};

/* How many signals deep a signal may be built (rule 19): a constructor's
   signal, and a subject, is 1 deep; an operator's is one more than its
   deepest input (a connection's subject one more than its source).
   Subscribing, delivering an event and freeing a chain go down it in nested
   calls, so an operator whose result would be deeper is refused with
   RPL_ERR_DEPTH (its callbacks' release(ctx) runs and its values are
   consumed, as on any failure): a chain at the limit needs at most about
   1 MB of stack on the thread that subscribes to it, sends through it or
   frees it. A chain that feeds a subject (rpl_signal_subscribe_subject,
   rpl_signal_multicast) adds its depth to the subject's subscribers' on the
   thread that sends. Build long sequences from arrays instead
   (rpl_signal_merge of an array, rpl_signal_concat_all over
   rpl_signal_from_array of signal values). */
#define RPL_MAX_SIGNAL_DEPTH 1000

/* Adds a reference to any handle and returns it. NULL returns NULL; so does
   a pointer that is not a live handle (RPL_ERR_KIND, RPL_ERR_MISUSE). */
void *RPL_NULLABLE rpl_retain(void *RPL_NULLABLE handle);
/* Drops a reference to any handle; the object is freed with its last
   reference. rpl_release(NULL) is a no-op. Releasing a subscription's
   disposable does not dispose the subscription. A pointer that is not a
   live handle (a handle released once too often, in the common case) is
   left alone and the last error set (RPL_ERR_MISUSE, RPL_ERR_KIND).
   The subscription of an observer straight to a subject, once it has ended,
   is not freed with its last reference but kept by the releasing thread
   (up to 16, freed when the thread exits) for that thread's next such
   subscribe, which returns it again: a released handle reads as freed
   meanwhile, and like freed memory it can come back. */
void rpl_release(void *RPL_NULLABLE handle);

/* Status of the last failed call on this thread (RPL_OK if none yet).
   Meaningful only right after a call reported failure, like errno. */
rpl_status rpl_last_error(void);
/* Message describing the last failed call on this thread: thread-local
   storage owned by the runtime, valid until the next failing call on the same
   thread. Never NULL ("" if nothing failed yet). */
const char *RPL_NONNULL rpl_last_error_message(void);
/* Static text for a status code. Never NULL. */
const char *RPL_NONNULL rpl_status_string(rpl_status status);
/* Sets this thread's last error, as a failing call of the runtime does: for
   libraries layered over this API (adapters, bindings), so that their calls
   report failures through rpl_last_error() and rpl_last_error_message() like
   the core's. message is copied; NULL means rpl_status_string(status).
   Returns status, so a failing function can end with
   `return rpl_set_last_error(RPL_ERR_INVALID, "my_fn: n is 0");`.
   status must be one of the RPL_ERR_* codes: RPL_OK or an unknown value is
   refused (returns RPL_ERR_INVALID, and the last error says why).
   rpl_last_signal_error() is left as it was. */
rpl_status rpl_set_last_error(rpl_status status, const char *RPL_NULLABLE message);

/* Errors carried by signals: a domain, a code and a message.
   Errors the runtime makes itself use the domain RPL_ERROR_DOMAIN and one of
   the RPL_ERROR_* codes. */
#define RPL_ERROR_DOMAIN "ripple"
enum {
    RPL_ERROR_GENERIC = 1,  /* send_error(NULL) */
    RPL_ERROR_TIMEOUT = 2,  /* rpl_signal_timeout fired */
    RPL_ERROR_CALLBACK = 3  /* a callback returned NULL where a handle was due, or a
                               handle of the wrong kind (see Callbacks above) */
};
enum { RPL_ERROR_OVERFLOW = 5 };  /* a rpl_signal_deliver_on_bounded queue overflowed */
/* Creates an error (+1). domain and message are copied; NULL domain means
   RPL_ERROR_DOMAIN, NULL message means "". Returns NULL only when out of
   memory. */
rpl_error_t *RPL_NULLABLE rpl_error_create(const char *RPL_NULLABLE domain, int64_t code,
                                           const char *RPL_NULLABLE message);
/* Accessors (borrowed strings live as long as the error). A NULL or non-error
   handle gives NULL / 0 and sets the last error. */
const char *RPL_NULLABLE rpl_error_domain(const rpl_error_t *RPL_NULLABLE e);
int64_t rpl_error_code(const rpl_error_t *RPL_NULLABLE e);
const char *RPL_NULLABLE rpl_error_message(const rpl_error_t *RPL_NULLABLE e);
/* True when both are errors with equal domain and code. */
bool rpl_error_equal(const rpl_error_t *RPL_NULLABLE a, const rpl_error_t *RPL_NULLABLE b);

/* ===========================================================================
 * Values
 * ======================================================================== */
typedef enum {
    RPL_TYPE_NIL = 0,
    RPL_TYPE_BOOL = 1,
    RPL_TYPE_INT = 2,
    RPL_TYPE_DOUBLE = 3,
    RPL_TYPE_STRING = 4,   /* boxed: UTF-8 bytes plus a terminating NUL */
    RPL_TYPE_BYTES = 5,    /* boxed: arbitrary bytes */
    RPL_TYPE_POINTER = 6,  /* boxed: a user pointer with a destructor */
    RPL_TYPE_TUPLE = 7,    /* boxed: an ordered list of values */
    RPL_TYPE_SIGNAL = 8,   /* boxed: a signal (for flatten, switch_to_latest) */
    RPL_TYPE_EVENT = 9     /* boxed: a materialized event */
} rpl_type;

/* A tagged value. Use the constructors and accessors below; the fields are
   visible only so that the struct can live on the stack.
   Only the types listed in rpl_type exist. A value built by hand with any
   other type (rule 19a) is refused by every function that takes a value -
   by value or through a pointer - with RPL_ERR_INVALID and a message naming
   the function; the refused value is not a box, so nothing is released and
   nothing leaks, and the objects involved stay usable. */
typedef struct rpl_value {
    uint32_t type;       /* an rpl_type */
    uint32_t reserved_;  /* zero */
    union {
        bool b;
        int64_t i;
        double d;
        void *RPL_NULLABLE box_;  /* runtime-owned box of a boxed type */
    } as;
} rpl_value;

/* The runtime reads and writes rpl_value as it is, without conversion, so its
   layout is part of the ABI: 16 bytes, type at 0, reserved_ at 4, the payload
   at 8 (the runtime's copies of this layout are checked against the same
   numbers). Checked where the compiler has static assertions. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define RPL_LAYOUT_CHECK_(cond, msg) static_assert(cond, msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define RPL_LAYOUT_CHECK_(cond, msg) _Static_assert(cond, msg)
#endif
#ifdef RPL_LAYOUT_CHECK_
RPL_LAYOUT_CHECK_(sizeof(rpl_value) == 16, "rpl_value is 16 bytes");
RPL_LAYOUT_CHECK_(offsetof(rpl_value, type) == 0, "rpl_value.type is at offset 0");
RPL_LAYOUT_CHECK_(offsetof(rpl_value, reserved_) == 4, "rpl_value.reserved_ is at offset 4");
RPL_LAYOUT_CHECK_(offsetof(rpl_value, as) == 8, "rpl_value's payload is at offset 8");
#undef RPL_LAYOUT_CHECK_
#endif

/* Constructors. Scalars never fail. Boxed constructors return nil when out of
   memory (RPL_ERR_NOMEM). A length or count above PTRDIFF_MAX (no object can be
   that large) gives nil and RPL_ERR_INVALID. */
rpl_value rpl_nil(void);
rpl_value rpl_bool(bool b);
rpl_value rpl_int(int64_t i);
rpl_value rpl_double(double d);
/* Copies the NUL-terminated UTF-8 string. NULL gives nil. */
rpl_value rpl_string(const char *RPL_NULLABLE utf8);
/* Copies len bytes (which may contain NULs) as a string value. */
rpl_value rpl_string_n(const char *RPL_NULLABLE utf8, size_t len);
/* Copies len bytes. data may be NULL only when len is 0. */
rpl_value rpl_bytes(const void *RPL_NULLABLE data, size_t len);
/* Wraps a user pointer; dtor(ptr), if not NULL, runs when the last reference
   to the value drops, on whichever thread drops it. */
rpl_value rpl_pointer(void *RPL_NULLABLE ptr, rpl_release_fn RPL_NULLABLE dtor);
/* A tuple of count values. Consumes every value in items (also on failure),
   except when count exceeds PTRDIFF_MAX / sizeof(rpl_value) (RPL_ERR_INVALID):
   then items is not read. items may be NULL only when count is 0. An item of
   a type rpl_type does not list refuses the whole tuple: nil,
   RPL_ERR_INVALID, the other items released. */
rpl_value rpl_tuple(rpl_value *RPL_NULLABLE items, size_t count);
/* A value carrying a signal; retains s. NULL or a non-signal gives nil and
   sets the last error. */
rpl_value rpl_signal_value(rpl_signal_t *RPL_NULLABLE s);

/* Accessors. They never convert: the wrong type (or NULL) gives 0 / false /
   NULL; check rpl_value_type first. Returned pointers are borrowed from the
   value and live as long as it does. A value of a type rpl_type does not list
   gives the same (rpl_value_type: RPL_TYPE_NIL), never a crash, and sets the
   last error to RPL_ERR_INVALID. */
rpl_type rpl_value_type(const rpl_value *RPL_NULLABLE v);
bool rpl_value_bool(const rpl_value *RPL_NULLABLE v);
int64_t rpl_value_int(const rpl_value *RPL_NULLABLE v);
double rpl_value_double(const rpl_value *RPL_NULLABLE v);
/* String contents (NUL-terminated); *len_out, if not NULL, gets the length. */
const char *RPL_NULLABLE rpl_value_string(const rpl_value *RPL_NULLABLE v,
                                          size_t *RPL_NULLABLE len_out);
/* Bytes contents; *len_out, if not NULL, gets the length. */
const void *RPL_NULLABLE rpl_value_bytes(const rpl_value *RPL_NULLABLE v,
                                         size_t *RPL_NULLABLE len_out);
void *RPL_NULLABLE rpl_value_pointer(const rpl_value *RPL_NULLABLE v);
/* Number of items of a tuple (0 for any other type). */
size_t rpl_value_tuple_count(const rpl_value *RPL_NULLABLE v);
/* A copy (+1, release it) of item i; nil if v is not a tuple or i is out of
   range (the last error says which). */
rpl_value rpl_value_tuple_at(const rpl_value *RPL_NULLABLE v, size_t i);
/* The signal inside a signal value, borrowed from the value; NULL otherwise. */
rpl_signal_t *RPL_NULLABLE rpl_value_signal(const rpl_value *RPL_NULLABLE v);

/* Adds a reference to v's box (if any) and returns the same value. An
   unlisted type gives nil (RPL_ERR_INVALID). */
rpl_value rpl_value_copy(const rpl_value *RPL_NULLABLE v);
/* Drops v's reference to its box (if any) and sets *v to nil. NULL is a no-op.
   An unlisted type is refused (RPL_ERR_INVALID) and *v left as it is. */
void rpl_value_release(rpl_value *RPL_NULLABLE v);
/* Structural equality: same type and equal contents (strings and bytes by
   content, doubles by ==, pointers by address, tuples item by item, signals
   and events by identity). Two NULLs are equal. An unlisted type is never
   equal to anything (RPL_ERR_INVALID). */
bool rpl_value_equal(const rpl_value *RPL_NULLABLE a, const rpl_value *RPL_NULLABLE b);

/* Materialized events (RPL_TYPE_EVENT), made by rpl_signal_materialize and
   read back by rpl_signal_dematerialize. */
typedef enum {
    RPL_EVENT_NEXT = 0,
    RPL_EVENT_ERROR = 1,
    RPL_EVENT_COMPLETED = 2
} rpl_event_kind;
/* Event constructors. next consumes v (an unlisted type gives nil,
   RPL_ERR_INVALID); error retains e (NULL: generic error). */
rpl_value rpl_event_next(rpl_value v);
rpl_value rpl_event_error(rpl_error_t *RPL_NULLABLE e);
rpl_value rpl_event_completed(void);
/* Kind of an event value; -1 (and the last error) if v is not an event. */
int32_t rpl_value_event_kind(const rpl_value *RPL_NULLABLE v);
/* The value of a next event: a copy (+1); nil otherwise. */
rpl_value rpl_value_event_value(const rpl_value *RPL_NULLABLE v);
/* The error of an error event, borrowed from the value; NULL otherwise. */
rpl_error_t *RPL_NULLABLE rpl_value_event_error(const rpl_value *RPL_NULLABLE v);

/* ===========================================================================
 * Disposables
 * ======================================================================== */
/* A disposable that calls on_dispose(ctx) once, on the first dispose. Releasing
   it without disposing does not call on_dispose (RAC). on_dispose may be NULL
   (a disposable that only records being disposed). +1. */
rpl_disposable_t *RPL_NULLABLE rpl_disposable_create(
    void (*RPL_NULLABLE on_dispose)(void *RPL_NULLABLE ctx), void *RPL_NULLABLE ctx);
/* rpl_disposable_create with a release for ctx: release(ctx), if not NULL,
   runs exactly once - right after on_dispose on the first dispose, or when the
   disposable is freed without having been disposed - so a binding can free
   the closure behind ctx either way. on_dispose may be NULL. +1. */
rpl_disposable_t *RPL_NULLABLE rpl_disposable_create_with_release(
    void (*RPL_NULLABLE on_dispose)(void *RPL_NULLABLE ctx), void *RPL_NULLABLE ctx,
    rpl_release_fn RPL_NULLABLE release);
/* Disposes d: idempotent and thread-safe. On a subscription it stops delivery;
   no callback of that subscriber starts after this returns (see
   rpl_signal_subscribe for the release rule). Also accepts the disposable of a
   subscription. */
rpl_status rpl_disposable_dispose(rpl_disposable_t *RPL_NULLABLE d);
/* True once d has been disposed (or its subscription has terminated). False for
   NULL or a non-disposable (and the last error is set). */
bool rpl_disposable_is_disposed(const rpl_disposable_t *RPL_NULLABLE d);

/* A disposable holding others; disposing it disposes each of them, outside any
   lock. +1. */
rpl_disposable_t *RPL_NULLABLE rpl_compound_disposable_create(void);
/* Adds d (retained). If c is already disposed, d is disposed at once instead.
   Adding and removing take constant time (amortized), whatever c holds. */
rpl_status rpl_compound_disposable_add(rpl_disposable_t *RPL_NULLABLE c,
                                       rpl_disposable_t *RPL_NULLABLE d);
/* Removes d (every occurrence) without disposing it. RPL_OK also when d was not
   there. */
rpl_status rpl_compound_disposable_remove(rpl_disposable_t *RPL_NULLABLE c,
                                          rpl_disposable_t *RPL_NULLABLE d);

/* A disposable holding at most one other. +1. */
rpl_disposable_t *RPL_NULLABLE rpl_serial_disposable_create(void);
/* Puts d (retained; may be NULL to clear) into s and returns the previous inner
   disposable (+1, or NULL), which is NOT disposed. If s is already disposed, d
   is disposed at once and NULL is returned. On bad input returns NULL with the
   last error set; check rpl_last_error() when NULL is ambiguous. */
rpl_disposable_t *RPL_NULLABLE rpl_serial_disposable_swap(rpl_disposable_t *RPL_NULLABLE s,
                                                          rpl_disposable_t *RPL_NULLABLE d);

/* ===========================================================================
 * Signals and subscribers
 * ======================================================================== */
/* Called once per subscription of a signal made by rpl_signal_create, on the
   subscribing thread. Send events with rpl_subscriber_send_* - now or later,
   from any thread (retain the subscriber to keep it past this call). Return a
   disposable (+1, the runtime takes it) to run when the subscription ends, or
   NULL when there is nothing to clean up; a disposable returned after the
   subscription already ended is disposed at once, before the observer's
   release. A subscription's disposable (from rpl_signal_subscribe) counts as
   a disposable; any other kind of handle is released and fails the
   subscription with an RPL_ERROR_CALLBACK error naming rpl_signal_create.
   The subscriber is also the subscription's disposable, so the producer may
   end it with rpl_disposable_dispose((rpl_disposable_t *)s). */
typedef rpl_disposable_t *RPL_NULLABLE (*rpl_subscribe_fn)(void *RPL_NULLABLE ctx,
                                                           rpl_subscriber_t *RPL_NONNULL subscriber);

/* A cold signal: did_subscribe runs once for each subscriber. release(ctx)
   runs once, when the signal is freed (or at once if the call fails). +1. */
rpl_signal_t *RPL_NULLABLE rpl_signal_create(rpl_subscribe_fn RPL_NULLABLE did_subscribe,
                                             void *RPL_NULLABLE ctx,
                                             rpl_release_fn RPL_NULLABLE release);

/* Send an event to a subscriber. Delivery is synchronous: when the call returns
   the event has been delivered, unless another thread is delivering to this
   subscriber right now, in which case that thread delivers it before it lets
   go. After a terminal event (or disposal) further sends are ignored and
   return RPL_OK. send_next consumes v (also on failure) and refuses a type
   rpl_type does not list (RPL_ERR_INVALID; nothing is sent); send_error
   retains e, and a NULL e sends a generic error (domain "ripple",
   RPL_ERROR_GENERIC). */
rpl_status rpl_subscriber_send_next(rpl_subscriber_t *RPL_NULLABLE s, rpl_value v);
rpl_status rpl_subscriber_send_error(rpl_subscriber_t *RPL_NULLABLE s, rpl_error_t *RPL_NULLABLE e);
rpl_status rpl_subscriber_send_completed(rpl_subscriber_t *RPL_NULLABLE s);
/* True once the subscription has terminated or been disposed: a producer loop
   should stop sending. True for NULL (and sets the last error). */
bool rpl_subscriber_is_disposed(const rpl_subscriber_t *RPL_NULLABLE s);

#define RPL_OBSERVER_VERSION 1
/* What a subscriber does with events. NULL callbacks ignore their event. */
typedef struct rpl_observer {
    uint32_t version;  /* RPL_OBSERVER_VERSION */
    void (*RPL_NULLABLE on_next)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL value);
    void (*RPL_NULLABLE on_error)(void *RPL_NULLABLE ctx, const rpl_error_t *RPL_NONNULL error);
    void (*RPL_NULLABLE on_completed)(void *RPL_NULLABLE ctx);
    /* Runs once, last, after the subscription has ended. */
    rpl_release_fn RPL_NULLABLE release;
    void *RPL_NULLABLE ctx;
} rpl_observer;
#define RPL_OBSERVER_INIT { RPL_OBSERVER_VERSION, 0, 0, 0, 0, 0 }

/* Subscribes obs to sig and returns the subscription's disposable (+1).
 * - Synchronous: for a cold signal the subscribe callback has run when this
 *   returns, and any events it sent synchronously have been delivered.
 * - The disposable exists before the subscribe callback runs, so a synchronous
 *   terminal event disposes the subscription's resources at once.
 * - Order at the end: the terminal callback runs, then the subscription's
 *   resources are disposed, then obs->release(ctx) runs: always last, exactly
 *   once, whether the subscription ended by error, completion or disposal.
 *   Through operators too: the resources include the disposable every
 *   input's subscribe callback returns, even after it ended the subscription.
 * - Disposing from inside a callback is allowed. dispose never waits for a
 *   callback running on another thread: if none is running, release(ctx) has
 *   run when dispose returns, otherwise it runs when that callback returns.
 * - While you hold the returned handle, only a terminal event or a dispose
 *   ends the subscription, through every operator. Releasing the handle does
 *   not end it either: once nothing can send to it any more, it is freed and
 *   release(ctx) runs without a terminal event, after whatever its sources
 *   sent before has been delivered (docs/behaviour.md, anchor lifetime-handle).
 * - The handle is the consumer's: it is never a subscriber, so the
 *   rpl_subscriber_* functions refuse it (RPL_ERR_KIND).
 * obs is copied; it may live on the stack. Errors: NULL sig or obs
 * (RPL_ERR_NULL), not a signal (RPL_ERR_KIND), unknown obs->version
 * (RPL_ERR_INVALID); obs->release(ctx) still runs. */
rpl_disposable_t *RPL_NULLABLE rpl_signal_subscribe(rpl_signal_t *RPL_NULLABLE sig,
                                                    const rpl_observer *RPL_NULLABLE obs);
/* rpl_signal_subscribe with only on_next (which must not be NULL) and no release. */
rpl_disposable_t *RPL_NULLABLE rpl_signal_subscribe_next(
    rpl_signal_t *RPL_NULLABLE sig,
    void (*RPL_NULLABLE on_next)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL v),
    void *RPL_NULLABLE ctx);

/* Each subscriber gets next v, then completed. Consumes v. +1. Errors: v of
   an unlisted type (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_return(rpl_value v);
/* Each subscriber gets completed. +1. */
rpl_signal_t *RPL_NULLABLE rpl_signal_empty(void);
/* Each subscriber gets error e (retained; NULL means a generic error). +1. */
rpl_signal_t *RPL_NULLABLE rpl_signal_error(rpl_error_t *RPL_NULLABLE e);
/* Never sends anything. +1. */
rpl_signal_t *RPL_NULLABLE rpl_signal_never(void);
/* Calls factory(ctx) at each subscription and subscribes to the signal it
   returns (+1, the runtime takes it). A NULL result, or a handle that is not
   a signal (released), fails that subscription with an RPL_ERROR_CALLBACK
   error naming rpl_signal_defer. release(ctx) runs when the signal is freed
   (at once if the call fails). Errors: NULL factory. +1. */
rpl_signal_t *RPL_NULLABLE rpl_signal_defer(rpl_signal_t *RPL_NULLABLE (*RPL_NULLABLE factory)(void *RPL_NULLABLE ctx),
                                            void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* ---- More ways to make a signal --------------------------------------------
 * (from_array, range, timer, start_lazily, start_eagerly). Each returns a new
 * cold signal (+1).
 * ------------------------------------------------------------------------ */

/* Sends values[0], ..., values[count - 1] to each subscriber (each gets its
   own references), then completes; count 0 completes at once. Consumes the
   values, also on failure. It stops between values once the subscription has
   ended (a take, a dispose from a callback). Follows RxSwift's from(_:).
   Default name "+fromArray: 3". Errors: values NULL with count > 0
   (RPL_ERR_NULL); a value of a type rpl_type does not list, or count above
   SIZE_MAX / 2 (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_from_array(rpl_value *RPL_NULLABLE values, size_t count);

/* Sends the ints start, start + 1, ..., start + count - 1, then completes
   (RxSwift's range(start:count:)); count 0 completes at once. It stops
   between values once the subscription has ended. Default name
   "+range: 5 count: 3". Errors: the last int would pass INT64_MAX
   (RPL_ERR_INVALID; start INT64_MAX with count 1 is fine). */
rpl_signal_t *RPL_NULLABLE rpl_signal_range(int64_t start, size_t count);

/* Sends the int 0 on s, ns after subscription, then completes (RxSwift's
   timer without a period). Disposing before then cancels the timer. Retains
   s (a test scheduler or run loop only weakly, as for every operator).
   Default name "+timer: 1000000". Errors: s NULL (RPL_ERR_NULL), not a
   scheduler (RPL_ERR_KIND), the immediate scheduler (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_timer(uint64_t ns, rpl_scheduler_t *RPL_NULLABLE s);

/* ReactiveObjC's startLazilyWithScheduler:block:. fn(ctx, subscriber) runs
   once, as work on s, when the result is first subscribed; it sends events
   to subscriber (borrowed for the call; retain it to send later, from any
   thread) and may return a disposable (+1, disposed when that subscription
   ends) or NULL. Everything it sends is recorded in an unlimited replay
   subject: every subscriber, now or later, gets all of it, then the live
   events, delivered on s at first (the subscription is made on s, like
   rpl_signal_subscribe_on). Disposing a subscription, or all of them, never
   cancels fn's work: its subscriber stays live until fn ends it. fn is not
   an operator callback: rpl_callback_fail returns RPL_ERR_INVALID in it.
   release(ctx) runs once the result and its pending work are freed. Any
   scheduler may be used; on the immediate one fn runs inside the first
   subscribe. Default name "+startLazilyWithScheduler:block:". Errors: s NULL
   (RPL_ERR_NULL) or not a scheduler (RPL_ERR_KIND), then fn NULL
   (RPL_ERR_NULL); release(ctx) still runs. */
rpl_signal_t *RPL_NULLABLE rpl_signal_start_lazily(rpl_scheduler_t *RPL_NULLABLE s, rpl_subscribe_fn RPL_NULLABLE fn,
                                                   void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* ReactiveObjC's startEagerlyWithScheduler:block:: rpl_signal_start_lazily
   with fn already scheduled on s when this returns (on the immediate
   scheduler it has already run). Releasing the result does not cancel that
   work: fn runs even if the result is released at once. Default name
   "+startEagerlyWithScheduler:block:". Errors as rpl_signal_start_lazily. */
rpl_signal_t *RPL_NULLABLE rpl_signal_start_eagerly(rpl_scheduler_t *RPL_NULLABLE s, rpl_subscribe_fn RPL_NULLABLE fn,
                                                    void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* ===========================================================================
 * Blocking helpers for C programs
 * ---------------------------------------------------------------------------
 * Each subscribes, waits on the calling thread, and disposes the subscription
 * before returning. Do not call them from a callback whose thread must deliver
 * the awaited events (they would wait for themselves until the timeout).
 * Results: RPL_OK; RPL_ERR_TIMEOUT when timeout_ns passed first;
 * RPL_ERR_NO_VALUE (rpl_signal_first only) when the signal completed without a
 * value; RPL_ERR_FAILED when it sent an error, which rpl_last_signal_error()
 * then returns. A timeout of 0 polls: the result is what the signal did
 * inside its subscribe callback, which is not cut short (a cold signal that
 * completes there gives RPL_OK; one that has not terminated, RPL_ERR_TIMEOUT).
 * ======================================================================== */
#define RPL_FOREVER UINT64_MAX
/* The first value (+1, release it) into *out; *out is nil on failure. */
rpl_status rpl_signal_first(rpl_signal_t *RPL_NULLABLE sig, rpl_value *RPL_NULLABLE out,
                            uint64_t timeout_ns);
/* Waits until the signal terminates. */
rpl_status rpl_signal_wait(rpl_signal_t *RPL_NULLABLE sig, uint64_t timeout_ns);
/* Every value, as one tuple (+1) in *out_tuple, once the signal completes;
   nil on failure. */
rpl_status rpl_signal_to_array(rpl_signal_t *RPL_NULLABLE sig, rpl_value *RPL_NULLABLE out_tuple,
                               uint64_t timeout_ns);
/* The error of the last blocking helper on this thread that returned
   RPL_ERR_FAILED: borrowed, valid until the next blocking helper call on this
   thread. NULL if there is none. */
rpl_error_t *RPL_NULLABLE rpl_last_signal_error(void);

/* ===========================================================================
 * Subjects: hot signals you send into yourself
 * ---------------------------------------------------------------------------
 * A subject is both a signal (subscribe to it; pass it wherever an
 * rpl_signal_t* is expected, through rpl_subject_as_signal or a cast) and a
 * sender. Sending is synchronous and thread-safe: when a send returns, the
 * event has reached every subscriber, except one that another thread is
 * delivering to at that moment, which gets it from that thread before it lets
 * go. Each subscriber gets one event at a time; events sent from one thread
 * arrive in the order sent; a send from inside a callback on the same thread
 * is delivered, in order, right after that callback returns (before the
 * outermost send returns), so every subscriber sees one order and deep
 * re-entrancy never grows the stack. No subject lock is held while a
 * callback runs, so callbacks may subscribe to, send into or dispose
 * subscriptions of the subject that is calling them, and callbacks on two
 * threads may send into each other's subjects without deadlock.
 * Subjects remember their terminal event: a subscriber arriving after it gets
 * it at once (after the replay, for replay subjects), and sends after it are
 * ignored (they return RPL_OK and release their value).
 * Disposing a subscription removes it from the subject. A subject is freed
 * with its last reference; operators built on it (map(subject), concat,
 * repeat, ...) do not count, since they only subscribe to it and can never
 * send into it. Its subscriptions then end without a terminal event (each
 * observer's release runs) unless something else holds them, and a later
 * subscriber through such an operator gets what the subject would still
 * replay and its terminal event if it had one, else ends at once.
 * Costs: subscribing and disposing take the same time beside 100,000 other
 * subscribers as beside none; a send costs O(current subscribers) and takes
 * one atomic operation in all when uncontended, however many subscribers
 * there are (one thread delivers to all of them in turn).
 * ======================================================================== */

/* No limit for rpl_replay_subject_create. */
#define RPL_REPLAY_UNLIMITED SIZE_MAX

/* A plain subject: a subscriber gets only what is sent after it subscribed.
   +1. */
rpl_subject_t *RPL_NULLABLE rpl_subject_create(void);
/* A behavior subject: a subscriber first gets the current value (initial,
   until something is sent), then live events. After the terminal event a late
   subscriber gets only that event. Consumes initial. Errors: initial of an
   unlisted type (RPL_ERR_INVALID). +1. */
rpl_subject_t *RPL_NULLABLE rpl_behavior_subject_create(rpl_value initial);
/* A replay subject keeping the last capacity values (RPL_REPLAY_UNLIMITED: all
   of them). A subscriber first gets the kept values, then the terminal event
   if there was one, then live events. Replay and live delivery never lose,
   duplicate or reorder events, even under concurrent sends: every subscriber
   sees the events in one order, which is also the replay order. (The one
   exception is RAC's nesting: a value sent into the subject from inside one
   of its own callbacks reaches the subscribers after the current one before
   the value being delivered.) Replay stops early if the subscription is
   disposed. Errors: capacity 0 (RPL_ERR_INVALID). +1. */
rpl_subject_t *RPL_NULLABLE rpl_replay_subject_create(size_t capacity);

/* Send an event to every subscriber (see the section comment). send_next
   consumes v (also on failure); send_error retains e, and a NULL e sends a
   generic error (domain "ripple", RPL_ERROR_GENERIC). A terminal event also
   disposes the subject's subscriptions to its sources
   (rpl_signal_subscribe_subject). Errors: NULL s (RPL_ERR_NULL), s not a
   subject, e.g. a plain signal (RPL_ERR_KIND), e not an error, v of a type
   rpl_type does not list (RPL_ERR_INVALID; nothing is sent). */
rpl_status rpl_subject_send_next(rpl_subject_t *RPL_NULLABLE s, rpl_value v);
rpl_status rpl_subject_send_error(rpl_subject_t *RPL_NULLABLE s, rpl_error_t *RPL_NULLABLE e);
rpl_status rpl_subject_send_completed(rpl_subject_t *RPL_NULLABLE s);

/* The subject as a signal: the same object, borrowed (no new reference).
   NULL (and the last error) if s is NULL or not a subject. */
rpl_signal_t *RPL_NULLABLE rpl_subject_as_signal(rpl_subject_t *RPL_NULLABLE s);

/* Subscribes the subject s to sig, as its subscriber: sig's values are sent
   into s, and its terminal event terminates s. A subject may subscribe to
   several signals; the first terminal event from any of them terminates it and
   disposes its other source subscriptions (RAC). Subscribing a terminated
   subject disposes the new subscription at once. Returns the source
   subscription's disposable (+1); disposing it unsubscribes s from sig
   without terminating s. The subscription keeps s alive while sig can send to
   it. Errors: NULL arguments, wrong kinds, or sig == s (RPL_ERR_INVALID). */
rpl_disposable_t *RPL_NULLABLE rpl_signal_subscribe_subject(rpl_signal_t *RPL_NULLABLE sig,
                                                            rpl_subject_t *RPL_NULLABLE s);

/* Number of live subscriptions of s right now (0 after its terminal event; 0
   and the last error for bad input). Only a snapshot when other threads
   subscribe or dispose meanwhile. */
size_t rpl_subject_subscriber_count(const rpl_subject_t *RPL_NULLABLE s);
/* True once s has sent its terminal event. False (and the last error) for
   bad input. */
bool rpl_subject_is_terminated(const rpl_subject_t *RPL_NULLABLE s);
/* A copy (+1, release it) of a behavior subject's current value into *out:
   the last value sent, or the initial value; still readable after the
   terminal event. *out is nil on failure. Errors: NULL out or s
   (RPL_ERR_NULL), s not a behavior subject (RPL_ERR_KIND). */
rpl_status rpl_behavior_subject_value(rpl_subject_t *RPL_NULLABLE s, rpl_value *RPL_NULLABLE out);

/* ===========================================================================
 * Multicast connections: one subscription of a cold signal, shared
 * ---------------------------------------------------------------------------
 * A connection pairs a source signal with a subject. Subscribers subscribe to
 * the subject (rpl_connection_signal); connecting subscribes the subject to
 * the source, once, so the source's work runs once for all of them.
 * Creating a connection has no side effects. Releasing handles never leaks
 * (rule 6a): a subscription to the subject lives while something can still
 * send into it - the source's subscription while connected, a handle to the
 * subject, the connection or an autoconnect signal (those can connect). An
 * operator that keeps an autoconnect or replay_lazily signal to subscribe
 * again later (repeat, retry, concat, then, catch_to) does not count, so
 * such chains form no cycle with the subscriptions they make.
 * ======================================================================== */

/* A connection multicasting sig through a new plain subject. Not connected.
   +1. Errors: NULL or non-signal sig. */
rpl_connection_t *RPL_NULLABLE rpl_signal_publish(rpl_signal_t *RPL_NULLABLE sig);
/* A connection multicasting sig through subject (retained; any kind of
   subject). Not connected. +1. Errors: NULL or wrong-kind arguments,
   sig == subject (RPL_ERR_INVALID). */
rpl_connection_t *RPL_NULLABLE rpl_signal_multicast(rpl_signal_t *RPL_NULLABLE sig,
                                                    rpl_subject_t *RPL_NULLABLE subject);
/* The connection's subject, as a signal: borrowed, lives as long as c. */
rpl_signal_t *RPL_NULLABLE rpl_connection_signal(rpl_connection_t *RPL_NULLABLE c);
/* Subscribes the subject to the source, once. While that connection is not
   disposed, every call returns it again (a new +1 reference to the same
   disposable) without subscribing again - also to a thread calling while the
   source's subscribe callback is still running. Disposing the returned
   disposable unsubscribes the source; a connect after that subscribes again,
   unless the subject has already terminated. The source's synchronous events
   are delivered before the first call returns. */
rpl_disposable_t *RPL_NULLABLE rpl_connection_connect(rpl_connection_t *RPL_NULLABLE c);
/* A signal (+1) that subscribes each subscriber to the subject and connects
   when the number of its subscribers goes from 0 to 1; when it goes back to 0
   it disposes the connection, and a later subscriber connects again (RxSwift's
   refCount, not RAC's one-shot). A subscriber arriving after the subject
   terminated gets the terminal event and does not connect. */
rpl_signal_t *RPL_NULLABLE rpl_connection_autoconnect(rpl_connection_t *RPL_NULLABLE c);

/* Multicasts sig through an unlimited replay subject and connects at once
   (sig is subscribed before this returns). Returns that subject as a signal
   (+1): every subscriber gets every value sig sent, then its terminal event. */
rpl_signal_t *RPL_NULLABLE rpl_signal_replay(rpl_signal_t *RPL_NULLABLE sig);
/* Like rpl_signal_replay with a replay subject of capacity 1: subscribers get
   the latest value, then live events. +1. */
rpl_signal_t *RPL_NULLABLE rpl_signal_replay_last(rpl_signal_t *RPL_NULLABLE sig);
/* Like rpl_signal_replay, but sig is subscribed on the first subscription,
   once; subscribers leaving never disconnect it. +1. */
rpl_signal_t *RPL_NULLABLE rpl_signal_replay_lazily(rpl_signal_t *RPL_NULLABLE sig);

/* ---- Sharing while subscribed -----------------------------------------------
 * (share: a connection made by the first subscriber, ended by the last)
 * ------------------------------------------------------------------------ */

/* RxSwift's share(replay: replay, scope: .whileConnected): the subscribers of
   the result share one subscription of sig (a connection), made when the
   first one subscribes and disposed when the last one leaves. Each
   connection has a fresh subject: a subscriber joining a live connection
   first gets its last replay values (0: none, like publish;
   RPL_REPLAY_UNLIMITED: all), then live events. When sig terminates, the
   connection is over before its subscribers hear of it, so a later
   subscriber, also one subscribing from its terminal callback, gets a fresh
   connection: sig is subscribed again. Events reach the subscribers on the
   thread sig sends them. Default name "[sig] -share: 1". Errors: sig NULL
   (RPL_ERR_NULL) or not a signal (RPL_ERR_KIND). */
rpl_signal_t *RPL_NULLABLE rpl_signal_share(rpl_signal_t *RPL_NULLABLE sig, size_t replay);

/* ===========================================================================
 * Operators: single-input first, then combining and higher-order
 * ---------------------------------------------------------------------------
 * Each operator returns a new signal (+1) and borrows sig (the new signal
 * retains it). Operators are cold: every subscription to the result
 * subscribes to sig once and has its own state (counters, accumulators), so
 * a signal can be subscribed many times, also at the same time. Callbacks run
 * on the thread delivering the event, one at a time per subscription, and may
 * call any rpl_ function (also send back into the source). Values given to a
 * callback are borrowed for the call; values a callback returns belong to the
 * runtime. Disposing a subscription to the result disposes the subscription
 * to sig. Errors and completion pass through unless the comment says
 * otherwise.
 *
 * Every operator, including the ones that wait or change threads, holds its
 * subscription to sig before sig's subscribe callback runs. So a dispose, a
 * downstream take, a terminal event or a timeout that happens while that
 * callback is still running reaches it: rpl_subscriber_is_disposed turns true
 * there, and a source that sends until it does stops.
 *
 * An operator taking a callback takes (fn, ctx, release) last: fn(ctx, ...) is
 * called per event, and release(ctx), if not NULL, runs exactly once when the
 * operator signal has been freed and no subscription to it is left (at once
 * if the call fails).
 *
 * Errors (every operator): sig NULL (RPL_ERR_NULL) or not a signal
 * (RPL_ERR_KIND); fn NULL (RPL_ERR_NULL); a by-value initial of a type
 * rpl_type does not list (RPL_ERR_INVALID). On failure NULL is returned, the
 * by-value arguments are consumed and release(ctx) has run.
 *
 * Single-input operators are fused: a chain of them on one source runs as
 * direct calls inside one subscription, with no allocation per scalar value.
 * ======================================================================== */

/* The failure channel of every operator callback. Called from inside a
   callback that an operator runs for one subscription (map, filter, scan,
   aggregate, take_while, skip_while, do_next, do_error, do_completed, bind,
   flatten_map, catch, reduce_each, combine_previous,
   distinct_until_changed_with, any, all, initially, finally, throttle_if,
   group_by, concat_map), it makes that operator fail with error once the
   callback returns: whatever the callback returns is discarded (a returned
   value or signal is released), the error goes downstream in place of the
   event (do_next's value is not forwarded; do_error and do_completed send
   this error instead of their own event), and the subscription to sig is
   disposed. A later call within the same callback is ignored (the first
   error counts). This is how a binding turns an exception into on_error.
   Consumes error (+1); NULL means a generic error (RPL_ERROR_DOMAIN,
   RPL_ERROR_GENERIC). Returns RPL_OK inside such a callback. Anywhere else
   (observer callbacks, subscribe callbacks, scheduled work, or a delivery
   that a callback starts by sending into a subject) it returns
   RPL_ERR_INVALID and changes nothing; error is still consumed. A handle
   that is not an error gives RPL_ERR_KIND (and is released). */
rpl_status rpl_callback_fail(rpl_error_t *RPL_NULLABLE error);

/* Code of the error rpl_signal_dematerialize sends for a value that is not an
   event (domain RPL_ERROR_DOMAIN). */
enum { RPL_ERROR_TYPE = 4 };

/* Maps a borrowed value to a new value, owned by the runtime (return
   rpl_value_copy(v) to pass a boxed input on unchanged). */
typedef rpl_value
    (*rpl_map_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL v);
/* Tests a borrowed value. */
typedef bool (*rpl_predicate_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL v);
/* Folds a value into an accumulator: both are borrowed; the result is the new
   accumulator, owned by the runtime (which releases the old one after the
   call). To keep a boxed accumulator, return rpl_value_copy(acc). */
typedef rpl_value
    (*rpl_reduce_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL acc, const rpl_value *RPL_NONNULL v);
/* Side effects of rpl_signal_do_next / do_error / do_completed. */
typedef void (*rpl_do_next_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL v);
typedef void (*rpl_do_error_fn)(void *RPL_NULLABLE ctx, const rpl_error_t *RPL_NONNULL e);
typedef void (*rpl_do_completed_fn)(void *RPL_NULLABLE ctx);

/* next fn(ctx, v) for each value v. */
rpl_signal_t *RPL_NULLABLE rpl_signal_map(rpl_signal_t *RPL_NULLABLE sig, rpl_map_fn RPL_NULLABLE fn,
                                          void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* The values for which fn(ctx, v) is true. */
rpl_signal_t *RPL_NULLABLE rpl_signal_filter(rpl_signal_t *RPL_NULLABLE sig, rpl_predicate_fn RPL_NULLABLE fn,
                                             void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* Running accumulations: acc starts as initial (consumed; never sent itself),
   each value v makes acc = fn(ctx, &acc, v), and acc is sent:
   [1, 2, 3] with 0 and + gives [1, 3, 6] (RAC's scanWithStart:reduce:). Each
   subscription starts again from initial. */
rpl_signal_t *RPL_NULLABLE rpl_signal_scan(rpl_signal_t *RPL_NULLABLE sig, rpl_value initial,
                                           rpl_reduce_fn RPL_NULLABLE fn, void *RPL_NULLABLE ctx,
                                           rpl_release_fn RPL_NULLABLE release);
/* Like scan, but sends only the final accumulation, at completion, then
   completes; initial itself when sig sent no value. An error is forwarded
   alone (RAC's aggregateWithStart:reduce:). */
rpl_signal_t *RPL_NULLABLE rpl_signal_aggregate(rpl_signal_t *RPL_NULLABLE sig, rpl_value initial,
                                                rpl_reduce_fn RPL_NULLABLE fn, void *RPL_NULLABLE ctx,
                                                rpl_release_fn RPL_NULLABLE release);
/* Drops each value equal (rpl_value_equal) to the previous value sent; the
   first value always passes: [1, 2, 2, 1, 1] gives [1, 2, 1]. */
rpl_signal_t *RPL_NULLABLE rpl_signal_distinct_until_changed(rpl_signal_t *RPL_NULLABLE sig);
/* Sends every event as a value of type RPL_TYPE_EVENT (read it with
   rpl_value_event_kind/_value/_error): next v as next Event(v); completed as
   next Event(completed), then completed; an error as next Event(error), then
   completed. The result never fails. */
rpl_signal_t *RPL_NULLABLE rpl_signal_materialize(rpl_signal_t *RPL_NULLABLE sig);
/* The inverse of materialize: Event(v) sends v, Event(completed) completes and
   Event(error) fails with that error; sig is disposed then and anything it
   sends later is ignored. Values that are not events are a type error: the
   result fails with domain RPL_ERROR_DOMAIN, code RPL_ERROR_TYPE (RAC would
   crash), and sig is disposed. */
rpl_signal_t *RPL_NULLABLE rpl_signal_dematerialize(rpl_signal_t *RPL_NULLABLE sig);
/* At completion, sends one tuple of every value in order (an empty tuple if
   there were none), then completes. An error is forwarded alone. */
rpl_signal_t *RPL_NULLABLE rpl_signal_collect(rpl_signal_t *RPL_NULLABLE sig);

/* The first n values; completes after the n-th, and disposes sig, even if
   sig never completes. take(0) completes at once without subscribing to sig.
   Values sent back into sig from a callback are counted in the order they
   are delivered: with a source whose subscriber sends v + 1 back on each v,
   take 3 and a first value 0 gives [0, 1, 2, completed]. */
rpl_signal_t *RPL_NULLABLE rpl_signal_take(rpl_signal_t *RPL_NULLABLE sig, size_t n);
/* Drops the first n values, then passes the rest. */
rpl_signal_t *RPL_NULLABLE rpl_signal_skip(rpl_signal_t *RPL_NULLABLE sig, size_t n);
/* The last n values, sent when sig completes, then completed. An error is
   forwarded alone. The buffer grows with the values received, up to n. */
rpl_signal_t *RPL_NULLABLE rpl_signal_take_last(rpl_signal_t *RPL_NULLABLE sig, size_t n);
/* Values while fn(ctx, v) is true; at the first value for which it is false,
   completes (without that value) and disposes sig. */
rpl_signal_t *RPL_NULLABLE rpl_signal_take_while(rpl_signal_t *RPL_NULLABLE sig, rpl_predicate_fn RPL_NULLABLE fn,
                                                 void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* Drops values while fn(ctx, v) is true, then passes every value from the
   first for which it is false on (fn is not called again). */
rpl_signal_t *RPL_NULLABLE rpl_signal_skip_while(rpl_signal_t *RPL_NULLABLE sig, rpl_predicate_fn RPL_NULLABLE fn,
                                                 void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* Side effects, run before the event is forwarded: fn(ctx, v) for each value,
   fn(ctx, error) on an error (the error is borrowed), fn(ctx) on completion.
   Not run when the subscription is disposed. */
rpl_signal_t *RPL_NULLABLE rpl_signal_do_next(rpl_signal_t *RPL_NULLABLE sig, rpl_do_next_fn RPL_NULLABLE fn,
                                              void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
rpl_signal_t *RPL_NULLABLE rpl_signal_do_error(rpl_signal_t *RPL_NULLABLE sig, rpl_do_error_fn RPL_NULLABLE fn,
                                               void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
rpl_signal_t *RPL_NULLABLE rpl_signal_do_completed(rpl_signal_t *RPL_NULLABLE sig,
                                                   rpl_do_completed_fn RPL_NULLABLE fn,
                                                   void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* ---- Transforming, testing, and side effects of a subscription's life --------
 * (map_replace, ignore, ignore_values, reduce_each, combine_previous,
 *  distinct_until_changed_with, buffer, not, and, or, any, all,
 *  default_if_empty, initially, finally, do_dispose)
 * ------------------------------------------------------------------------ */

/* Common to this group: each operator returns a new cold signal (+1) and
   borrows sig (retained); it is fused (a chain runs as direct calls in one
   subscription, with no allocation per scalar value; buffer allocates one
   tuple per count values). Callbacks run on the thread delivering sig's event,
   one at a time per subscription, and release(ctx) runs once, when the
   operator signal and every subscription to it are gone (at once on a
   failed call). Disposing a subscription to the result disposes the one to
   sig; an error of sig passes on, unless the comment says otherwise.
   rpl_callback_fail works in every callback here except do_dispose's.
   Errors (every operator): sig NULL (RPL_ERR_NULL) or not a signal
   (RPL_ERR_KIND); fn NULL (RPL_ERR_NULL); a by-value v or start of a type
   rpl_type does not list (RPL_ERR_INVALID); checked in that order. On failure
   NULL is returned, v / start is consumed and release(ctx) has run.
   A value of the wrong type reaching reduce_each, not, and or or fails the
   result with domain RPL_ERROR_DOMAIN, code RPL_ERROR_TYPE, and disposes sig
   (ReactiveObjC asserts there). A value a callback returns of a type rpl_type
   does not list fails the result with RPL_ERROR_CALLBACK. */

/* rpl_signal_reduce_each: the items of a tuple (borrowed, never NULL, also
   when count is 0); returns a new value owned by the runtime. */
typedef rpl_value (*rpl_reduce_each_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL items,
                                        size_t count);
/* rpl_signal_distinct_until_changed_with: whether a (the last value passed)
   and b (the new value) are equal; both borrowed. */
typedef bool (*rpl_equal_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL a,
                             const rpl_value *RPL_NONNULL b);

/* Sends v for every value of sig; terminal events pass (ReactiveObjC's
   mapReplace:). v is consumed; each subscription holds a reference to it.
   Named "[sig] -mapReplace:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_map_replace(rpl_signal_t *RPL_NULLABLE sig, rpl_value v);
/* sig's values except those equal to v (rpl_value_equal: by content, so
   ignore of nil drops nils); terminal events pass (ReactiveObjC's ignore:).
   v is consumed. Named "[sig] -ignore:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_ignore(rpl_signal_t *RPL_NULLABLE sig, rpl_value v);
/* No values: only sig's error or completion (ReactiveObjC's ignoreValues).
   Named "[sig] -ignoreValues". */
rpl_signal_t *RPL_NULLABLE rpl_signal_ignore_values(rpl_signal_t *RPL_NULLABLE sig);
/* For each tuple value of sig, sends fn(ctx, items, count) with the tuple's
   items (ReactiveObjC's reduceEach:). A value that is not a tuple fails the
   result with RPL_ERROR_TYPE and disposes sig (ReactiveObjC asserts).
   Named "[sig] -reduceEach:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_reduce_each(rpl_signal_t *RPL_NULLABLE sig, rpl_reduce_each_fn RPL_NULLABLE fn,
                                                  void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* For each value v of sig, sends fn(ctx, &previous, v), where previous is
   the value sig sent before v (not the last result), and start for the first
   (ReactiveObjC's combinePreviousWithStart:reduce:): [1, 2, 3] with start 0
   and "previous-current" gives "0-1", "1-2", "2-3". start is consumed; each
   subscription begins from it. Named
   "[sig] -combinePreviousWithStart:reduce:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_combine_previous(rpl_signal_t *RPL_NULLABLE sig, rpl_value start,
                                                       rpl_reduce_fn RPL_NULLABLE fn, void *RPL_NULLABLE ctx,
                                                       rpl_release_fn RPL_NULLABLE release);
/* Like rpl_signal_distinct_until_changed, with fn(ctx, &last, v) deciding
   equality: drops v when fn returns true, where last is the last value
   passed; the first value always passes without a call (RxSwift's
   distinctUntilChanged(_:)). Named "[sig] -distinctUntilChangedWith:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_distinct_until_changed_with(rpl_signal_t *RPL_NULLABLE sig,
                                                                  rpl_equal_fn RPL_NULLABLE fn,
                                                                  void *RPL_NULLABLE ctx,
                                                                  rpl_release_fn RPL_NULLABLE release);
/* sig's values in tuples (RPL_TYPE_TUPLE) of count, in order; when sig
   completes, the values left (fewer than count) as one last tuple if there
   are any, then completed. An error is passed on alone and the partial tuple
   dropped (ReactiveX's buffer(count); ReactiveObjC has only bufferWithTime).
   Holds at most count values per subscription. count 0 is RPL_ERR_INVALID
   (checked after sig). Named "[sig] -buffer: 3". */
rpl_signal_t *RPL_NULLABLE rpl_signal_buffer(rpl_signal_t *RPL_NULLABLE sig, size_t count);
/* For each bool value of sig, its negation (ReactiveObjC's not). Any other
   type fails the result with RPL_ERROR_TYPE and disposes sig (no conversion:
   an int is not a bool). Named "[sig] -not". */
rpl_signal_t *RPL_NULLABLE rpl_signal_not(rpl_signal_t *RPL_NULLABLE sig);
/* For each tuple of bools sent by sig, true when every item is true
   (ReactiveObjC's and). A value that is not a tuple, an empty tuple, or an
   item that is not a bool fails the result with RPL_ERROR_TYPE and disposes
   sig (ReactiveObjC asserts all three). Named "[sig] -and". */
rpl_signal_t *RPL_NULLABLE rpl_signal_and(rpl_signal_t *RPL_NULLABLE sig);
/* Like rpl_signal_and, true when some item is true (ReactiveObjC's or).
   Named "[sig] -or". */
rpl_signal_t *RPL_NULLABLE rpl_signal_or(rpl_signal_t *RPL_NULLABLE sig);
/* One bool, then completed (ReactiveObjC's any:): true at the first value
   for which fn(ctx, v) is true, after which sig is disposed (fn is not called
   again); false when sig completes first. As in ReactiveObjC, an error of sig
   also gives false, then completed: the error is not passed on (RxSwift would
   pass it). Named "[sig] -any:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_any(rpl_signal_t *RPL_NULLABLE sig, rpl_predicate_fn RPL_NULLABLE fn,
                                          void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* One bool, then completed (ReactiveObjC's all:): false at the first value
   for which fn(ctx, v) is false, after which sig is disposed; true when sig
   completes (also with no values). An error of sig gives false, then
   completed (ReactiveObjC). Named "[sig] -all:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_all(rpl_signal_t *RPL_NULLABLE sig, rpl_predicate_fn RPL_NULLABLE fn,
                                          void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* sig's events; when sig completes without having sent a value, v first,
   then completed. An error is passed on alone (RxSwift's ifEmpty(default:)).
   v is consumed. Named "[sig] -defaultIfEmpty:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_default_if_empty(rpl_signal_t *RPL_NULLABLE sig, rpl_value v);

/* Calls fn(ctx) at each subscription to the result, on the subscribing
   thread, before sig is subscribed (ReactiveObjC's initially:;
   rule 27). rpl_callback_fail inside fn fails that subscription with the
   error, and sig is not subscribed. Since fn runs only at subscription,
   release(ctx) runs when the operator signal is freed, even while
   subscriptions to it go on. Named "[sig] -initially:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_initially(rpl_signal_t *RPL_NULLABLE sig, rpl_do_completed_fn RPL_NULLABLE fn,
                                                void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* Calls fn(ctx) when sig errs or completes, before the terminal event is
   passed on, on the thread delivering it; not when the subscription is
   disposed, nor when a downstream operator (take) ends it
   (ReactiveObjC's finally:). rpl_callback_fail inside fn sends that error in
   place of the terminal event. Named "[sig] -finally:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_finally(rpl_signal_t *RPL_NULLABLE sig, rpl_do_completed_fn RPL_NULLABLE fn,
                                              void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* Calls fn(ctx) once per subscription when it ends for any reason - error,
   completion, disposal (also by a downstream take), or its sources being
   freed (rule 6a) - after the subscription to sig was disposed, including the
   disposable sig's subscribe callback returned (also when sig terminated
   inside that callback: fn waits for it to return, and for the subscription
   to sig to have been made, so over merge or concat the inputs' disposables
   too), and before the observer's release (RxSwift's do(onDispose:); rule 27). It
   runs on the thread that ended the subscription or, when another thread
   was delivering to it then (a callback running, a subject's delivery),
   on that thread once it lets go.
   The subscription is over, so rpl_callback_fail inside fn returns
   RPL_ERR_INVALID. Named "[sig] -doDispose:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_do_dispose(rpl_signal_t *RPL_NULLABLE sig, rpl_do_completed_fn RPL_NULLABLE fn,
                                                 void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* ---------------------------------------------------------------------------
 * Combining and higher-order operators. Each returns a new cold signal (+1):
 * every subscription to it subscribes its inputs afresh. Input signals are
 * borrowed (the operator retains them). Common rules:
 * - Values pass on, on the thread the input sent them; the first error of any
 *   input ends the result (later inputs are not subscribed, and values sent
 *   after it are dropped).
 * - Events from several inputs are serialized: the result's subscriber never
 *   sees two callbacks at once, even when inputs send from several threads.
 * - Disposing the result's subscription disposes every input subscription.
 * - Operators hold nothing in cycles: a subscription whose sources are all
 *   freed is freed and its observer's release runs (rule 6a).
 * - A callback's release(ctx) runs exactly once: when the operator signal and
 *   every subscription to it are gone, or at once when the call fails.
 * - Bad input (NULL or wrong-kind handles, NULL callbacks, a NULL array with
 *   a non-zero count, a NULL entry) returns NULL and sets the last error; the
 *   release still runs and by-value arguments are still consumed.
 * ------------------------------------------------------------------------ */

/* Count meaning "without limit" for rpl_signal_retry and rpl_signal_repeat. */
#define RPL_FOREVER_COUNT SIZE_MAX

/* bind: called for each source value v (borrowed). Returns a signal (+1, the
   runtime takes it) to subscribe, or NULL. Setting *stop to true (or returning
   NULL) ends the source side. */
typedef rpl_signal_t *RPL_NULLABLE (*rpl_bind_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL v,
                                                  bool *RPL_NONNULL stop);
/* flatten_map: the signal (+1, the runtime takes it) for value v (borrowed);
   NULL stands for an empty signal; another kind of handle fails the result
   with an RPL_ERROR_CALLBACK error. */
typedef rpl_signal_t *RPL_NULLABLE (*rpl_flatten_map_fn)(void *RPL_NULLABLE ctx, const rpl_value *RPL_NONNULL v);
/* catch: the signal (+1, the runtime takes it) to continue with after error e
   (borrowed); NULL passes e on. */
typedef rpl_signal_t *RPL_NULLABLE (*rpl_catch_fn)(void *RPL_NULLABLE ctx, const rpl_error_t *RPL_NONNULL e);

/* RAC's bind, the primitive of the higher-order operators (rule 15):
   1. subscribes sig (the source);
   2. calls bind(ctx, v, &stop) for each source value;
   3. subscribes each signal it returns and passes its values on; inner
      signals run concurrently (like merge);
   4. when bind sets *stop, or returns NULL, the source is disposed (after
      subscribing the returned signal, if any); inner signals already running
      go on;
   5. completes when the source side and every inner signal have completed;
      the first error of any of them ends everything, and source values after
      it are not passed to bind.
   A returned handle that is not a signal fails the result with an
   RPL_ERROR_CALLBACK error. bind runs on the thread delivering the source
   value, one value at a time per subscription. Errors: NULL sig or bind. */
rpl_signal_t *RPL_NULLABLE rpl_signal_bind(rpl_signal_t *RPL_NULLABLE sig, rpl_bind_fn RPL_NULLABLE bind,
                                           void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* For each value, subscribes the signal fn returns and merges the values of
   all of them (bind without stop). A NULL return is an empty signal (RAC):
   nothing is subscribed and the source goes on. Completes after the source
   and every inner signal. Inner signals made by rpl_signal_return and
   rpl_signal_empty take a fast path without a subscription. Errors: NULL sig
   or fn. */
rpl_signal_t *RPL_NULLABLE rpl_signal_flatten_map(rpl_signal_t *RPL_NULLABLE sig, rpl_flatten_map_fn RPL_NULLABLE fn,
                                                  void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* For a signal of signal values (RPL_TYPE_SIGNAL, see rpl_signal_value):
   subscribes each inner signal as it arrives and merges their values.
   A nil value is an empty signal; any other non-signal value fails the result
   with an error (domain RPL_ERROR_DOMAIN, code RPL_ERROR_GENERIC). Completes
   after the outer signal and every inner signal. */
rpl_signal_t *RPL_NULLABLE rpl_signal_flatten(rpl_signal_t *RPL_NULLABLE sig);
/* For a signal of signal values: subscribes each inner signal as it arrives
   and disposes the previous one, so only the latest inner's events pass.
   Completes when the outer signal and the latest inner have completed (an
   outer that completes while the latest inner never does: no completion).
   Values as for rpl_signal_flatten (nil: empty inner; other types: error). */
rpl_signal_t *RPL_NULLABLE rpl_signal_switch_to_latest(rpl_signal_t *RPL_NULLABLE sig);

/* a's events, then, when a completes, b's (b is subscribed only then). An
   error of a ends the result; b is never subscribed. */
rpl_signal_t *RPL_NULLABLE rpl_signal_concat(rpl_signal_t *RPL_NULLABLE a, rpl_signal_t *RPL_NULLABLE b);
/* All values of count signals, as they arrive; the inputs are subscribed in
   array order. Completes after every input has completed, at once when count
   is 0. The first error ends it; inputs after one that fails synchronously are
   not subscribed. sigs is read during the call (the signals are retained);
   it may be NULL only when count is 0. */
rpl_signal_t *RPL_NULLABLE rpl_signal_merge(rpl_signal_t *RPL_NULLABLE const *RPL_NULLABLE sigs, size_t count);
/* A tuple (RPL_TYPE_TUPLE, item i from sigs[i]) of every input's latest value,
   each time any input sends, once every input has sent a value. Completes when
   all inputs have completed (at once when count is 0). The same signal may be
   listed several times; each occurrence is subscribed. Arrays as for merge. */
rpl_signal_t *RPL_NULLABLE rpl_signal_combine_latest(rpl_signal_t *RPL_NULLABLE const *RPL_NULLABLE sigs,
                                                     size_t count);
/* Tuples of the i-th values of every input (item j from sigs[j]). Values wait
   in per-input queues. Completes as soon as some input has completed and its
   queued values are used up (at once when count is 0), disposing the others.
   Arrays as for merge. */
rpl_signal_t *RPL_NULLABLE rpl_signal_zip(rpl_signal_t *RPL_NULLABLE const *RPL_NULLABLE sigs, size_t count);
/* v first, then sig's events. Consumes v (also on failure); each subscriber
   gets its own reference. Errors: NULL or non-signal sig, then v of an
   unlisted type (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_start_with(rpl_signal_t *RPL_NULLABLE sig, rpl_value v);
/* Ignores sig's values; when sig completes, next's events. An error of sig
   ends the result (next is never subscribed). */
rpl_signal_t *RPL_NULLABLE rpl_signal_then(rpl_signal_t *RPL_NULLABLE sig, rpl_signal_t *RPL_NULLABLE next);
/* sig's events until trigger sends a value or completes; then completes and
   disposes both. trigger is subscribed first: if it fires at once, sig is
   never subscribed. An error of trigger is ignored (RAC); sig goes on. sig
   completing or failing ends the result and disposes trigger. */
rpl_signal_t *RPL_NULLABLE rpl_signal_take_until(rpl_signal_t *RPL_NULLABLE sig, rpl_signal_t *RPL_NULLABLE trigger);

/* On an error of sig, calls fn(ctx, e) and continues with the signal it
   returns (+1, taken): its events pass on; sig's error does not. A NULL
   return passes the original error on; a handle that is not a signal fails
   the result with an RPL_ERROR_CALLBACK error. fn runs on the thread that
   delivered the error. Errors: NULL sig or fn. */
rpl_signal_t *RPL_NULLABLE rpl_signal_catch(rpl_signal_t *RPL_NULLABLE sig, rpl_catch_fn RPL_NULLABLE fn,
                                            void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* On an error of sig, continues with replacement (retained). */
rpl_signal_t *RPL_NULLABLE rpl_signal_catch_to(rpl_signal_t *RPL_NULLABLE sig,
                                               rpl_signal_t *RPL_NULLABLE replacement);
/* On an error, resubscribes sig, at most n times after the first error (n+1
   attempts in all; 0: no retry; RPL_FOREVER_COUNT: without limit), then
   passes the error on. Values of every attempt pass on; completion ends it.
   Resubscription happens at once, on the thread that delivered the error,
   and never grows the stack for a source that fails synchronously. */
rpl_signal_t *RPL_NULLABLE rpl_signal_retry(rpl_signal_t *RPL_NULLABLE sig, size_t n);
/* Subscribes sig n times in all, one after the other: each completion
   resubscribes until the n-th (RPL_FOREVER_COUNT: forever), which completes
   the result; n = 0 completes at once. An error ends it. Like retry, it loops
   without growing the stack; stop an endless repeat by disposing (or with an
   operator such as rpl_signal_take_until). */
rpl_signal_t *RPL_NULLABLE rpl_signal_repeat(rpl_signal_t *RPL_NULLABLE sig, size_t n);

/* ---- Flattening and choosing between signals -----------------------------------
 * (flatten_max, concat_map, concat_all, switch_if_empty, if, switch_cases)
 * ------------------------------------------------------------------------ */

/* Code of the error rpl_signal_switch_cases sends for a key that has no case
   when no default was given (domain RPL_ERROR_DOMAIN; RAC's
   RACSignalErrorNoMatchingCase). */
enum { RPL_ERROR_NO_MATCHING_CASE = 6 };

/* For a signal of signal values (RPL_TYPE_SIGNAL): subscribes each inner
   signal as it arrives while fewer than max_concurrent run, and merges their
   values; later inners wait, in arrival order, and each starts when a
   running one completes (on the thread of that completion). 0 means no
   limit (rpl_signal_flatten). A nil value is an empty inner; any other
   non-signal value fails the result at once (domain RPL_ERROR_DOMAIN, code
   RPL_ERROR_GENERIC). Completes when sig and every inner, running or
   waiting, have completed. The first error of sig or of a running inner
   ends everything: waiting inners are never subscribed. Disposing the
   result disposes sig and the running inners. Inners that complete while
   they are being subscribed start the next one in a loop, so a long queue
   of synchronous inners does not grow the stack. Follows RAC (flatten:).
   Errors: sig NULL or not a signal. Name: "[sig] -flatten: 2". */
rpl_signal_t *RPL_NULLABLE rpl_signal_flatten_max(rpl_signal_t *RPL_NULLABLE sig, size_t max_concurrent);
/* rpl_signal_flatten_max(sig, 1): the inner signals of a signal of signal
   values one after the other, each subscribed when the previous one has
   completed (Rx concat, RAC -concat). Values as for rpl_signal_flatten_max.
   Name: "[sig] -concat". */
rpl_signal_t *RPL_NULLABLE rpl_signal_concat_all(rpl_signal_t *RPL_NULLABLE sig);
/* For each value v of sig, calls fn(ctx, v) when v arrives (even while an
   earlier inner still runs) and subscribes the signals it returns one after
   the other, in order, each when the previous one has completed (Rx
   concatMap; flatten_map with one inner at a time). A NULL return is an
   empty signal. A returned handle that is not a signal, or an
   rpl_callback_fail from fn, fails the result at once (RPL_ERROR_CALLBACK
   for the handle), the returned signal is released and sig is disposed.
   Completes after sig and every inner signal. fn runs on the thread
   delivering sig's value, one value at a time per subscription; release(ctx)
   as for rpl_signal_flatten_map. Errors: NULL or non-signal sig, NULL fn.
   Name: "[sig] -concatMap:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_concat_map(rpl_signal_t *RPL_NULLABLE sig, rpl_flatten_map_fn RPL_NULLABLE fn,
                                                 void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);
/* sig's events; if sig completes without having sent a value, other's
   events instead (other is subscribed only then, on the thread of sig's
   completion). An error of sig ends the result (other is never subscribed).
   Disposing the result disposes whichever of the two runs. other is
   borrowed (retained). Follows RxSwift (switchIfEmpty). Errors: sig or
   other NULL or not a signal. Name: "[sig] -switchIfEmpty: [other]". */
rpl_signal_t *RPL_NULLABLE rpl_signal_switch_if_empty(rpl_signal_t *RPL_NULLABLE sig,
                                                      rpl_signal_t *RPL_NULLABLE other);
/* Follows then_sig while the latest value of cond is true and else_sig while
   it is false: each cond value disposes the subscription followed so far
   and subscribes the chosen signal afresh (also when the choice did not
   change), so only its events pass (RAC +if:then:else:, a switch_to_latest
   over cond). Completes when cond and the signal followed last have
   completed; an error of cond or of the signal followed ends everything.
   The chosen signal is subscribed on the thread that delivered the cond
   value. A cond value that is not a bool (RPL_TYPE_BOOL; ints and nil
   included) fails the result (domain RPL_ERROR_DOMAIN, code RPL_ERROR_TYPE; RAC
   asserts). Disposing the result disposes cond and the signal followed. All
   three signals are borrowed (retained). Errors: any of them NULL or not a
   signal. Name: "+if:then:else: ([cond], [then], [else])". */
rpl_signal_t *RPL_NULLABLE rpl_signal_if(rpl_signal_t *RPL_NULLABLE cond, rpl_signal_t *RPL_NULLABLE then_sig,
                                         rpl_signal_t *RPL_NULLABLE else_sig);
/* Like rpl_signal_if with count cases: for each value k of key_sig, follows
   cases[i] for the key keys[i] equal to k (rpl_value_equal: same type and
   contents; nil is a key like any other), else default_sig (RAC
   +switch:cases:default:). Finding the case costs as much as hashing k,
   whatever count is. Without a default (default_sig NULL), a key with no
   case fails the result (domain RPL_ERROR_DOMAIN, code
   RPL_ERROR_NO_MATCHING_CASE). Completion, errors and disposal as for
   rpl_signal_if; a case is subscribed on the thread that delivered its key.
   keys[0..count) are consumed, also on failure (except for a count too large
   for an array, RPL_ERR_INVALID, when nothing is read); cases and
   default_sig are borrowed (retained); both arrays are read during the call
   and may be NULL only when count is 0. Keys must be distinct: a key equal
   to an earlier one is RPL_ERR_INVALID (like a repeated case label in C).
   Errors, in this order: key_sig NULL or not a signal; count too large
   (RPL_ERR_INVALID); cases NULL with a
   non-zero count or cases[i] NULL (RPL_ERR_NULL) or not a signal
   (RPL_ERR_KIND); default_sig not a signal; keys NULL with a non-zero count
   (RPL_ERR_NULL); a key of a type rpl_type does not list, or a repeated key
   (RPL_ERR_INVALID). Name: "+switch:cases:default: ([key_sig], [cases[0]],
   ..., [default_sig])" (no default: the list ends with the last case). */
rpl_signal_t *RPL_NULLABLE rpl_signal_switch_cases(rpl_signal_t *RPL_NULLABLE key_sig,
                                                   rpl_value *RPL_NULLABLE keys,
                                                   rpl_signal_t *RPL_NULLABLE const *RPL_NULLABLE cases, size_t count,
                                                   rpl_signal_t *RPL_NULLABLE default_sig);

/* ---- Combining with a second signal, and grouping ----------------------------
 * (with_latest_from, sample, take_until_replacement, skip_until, group_by)
 * ------------------------------------------------------------------------ */

/* For each value v of sig, a tuple (v, latest value of other) (RPL_TYPE_TUPLE,
   2 items), once other has sent a value; sig's values before that are dropped.
   other is subscribed first, then sig (rule 27). sig's completion completes
   the result; other's completion does not (its latest value stays in use);
   an error of either ends it. Disposing the result's subscription disposes
   both. Values leave on the thread sig sent them, serialized with other's
   events. Follows RxSwift's withLatestFrom. Both signals are borrowed
   (retained). Errors: sig or other NULL (RPL_ERR_NULL) or not a signal
   (RPL_ERR_KIND). Default name: "[sig] -withLatestFrom: [other]". */
rpl_signal_t *RPL_NULLABLE rpl_signal_with_latest_from(rpl_signal_t *RPL_NULLABLE sig,
                                                       rpl_signal_t *RPL_NULLABLE other);

/* On every value of sampler, sig's latest value (again on each tick, if sig
   sent nothing new), once sig has sent one; ticks before that send nothing.
   sig is subscribed first, then sampler. Ends when either input ends: a
   completion of either completes the result, an error of either fails it,
   and the other input is disposed. Disposing the result's subscription
   disposes both. Values leave on the thread of the sampler's tick. Follows
   RAC's sample: (rule 27). Both signals are borrowed (retained). Errors: sig
   or sampler NULL (RPL_ERR_NULL) or not a signal (RPL_ERR_KIND). Default
   name: "[sig] -sample: [sampler]". */
rpl_signal_t *RPL_NULLABLE rpl_signal_sample(rpl_signal_t *RPL_NULLABLE sig, rpl_signal_t *RPL_NULLABLE sampler);

/* sig's values until replacement sends any event; from then on only
   replacement's events (values, then its completion or error), and sig is
   disposed before replacement's first event is passed on. replacement is
   subscribed first: if it sends at once, sig is never subscribed. sig's
   completion is not passed on (the result ends with replacement); sig's
   error fails the result while replacement has not fired. Disposing the
   result's subscription disposes both. Follows RAC's takeUntilReplacement:.
   Both signals are borrowed (retained). Errors: sig or replacement NULL
   (RPL_ERR_NULL) or not a signal (RPL_ERR_KIND). Default name:
   "[sig] -takeUntilReplacement: [replacement]". */
rpl_signal_t *RPL_NULLABLE rpl_signal_take_until_replacement(rpl_signal_t *RPL_NULLABLE sig,
                                                             rpl_signal_t *RPL_NULLABLE replacement);

/* sig's events once trigger has sent a value: earlier values are dropped,
   and trigger is disposed at its first value. sig is subscribed first, then
   trigger (so the values a synchronous sig sends while it is subscribed are
   dropped). A trigger that completes without a value leaves every value
   dropped; an error of trigger (before its first value) fails the result; an
   error of sig always does. sig's completion completes the result once
   trigger has fired; before that, the subscription ends without a terminal
   event (its observer's release runs). Disposing the result's subscription
   disposes both. Follows RxSwift's skipUntil (rule 27). Both signals are
   borrowed (retained). Errors: sig or trigger NULL (RPL_ERR_NULL) or not a
   signal (RPL_ERR_KIND). Default name: "[sig] -skipUntil: [trigger]". */
rpl_signal_t *RPL_NULLABLE rpl_signal_skip_until(rpl_signal_t *RPL_NULLABLE sig, rpl_signal_t *RPL_NULLABLE trigger);

/* Splits sig's values into groups by key(ctx, v) (v borrowed; the key
   returned is owned by the runtime). The first time a key is seen (keys
   compare as rpl_value_equal, found by hash, not by a scan of the groups),
   the result sends a tuple (key, group) (RPL_TYPE_TUPLE; item 1 is a signal
   value, RPL_TYPE_SIGNAL: rpl_value_signal borrows it, rpl_retain keeps it);
   then v goes to that key's group. A group signal is hot, like a plain
   subject: a subscriber gets the values sent after it subscribed (one that
   subscribes from the result's on_next gets the value that made the group),
   and one that subscribes after the group ended gets its terminal event at
   once (rule 27). sig's completion or error ends the result first, then
   every group, in the order they were made. key may fail through
   rpl_callback_fail (or return a value of a type this header does not list,
   an RPL_ERROR_CALLBACK error): the result and every group fail with that
   error, and sig is disposed. Disposing the result's subscription disposes
   sig, even while groups are subscribed: they get nothing more, and each
   group subscription ends without a terminal event (its release runs) once
   its handle is released or disposed (rule 6a). key runs on
   the thread delivering sig's value, one value at a time per subscription;
   group values are delivered on the same thread. Follows RAC's groupBy:.
   sig is borrowed (retained); release(ctx) runs once, when the result and
   every subscription to it are gone (at once on failure). Errors: sig NULL
   (RPL_ERR_NULL) or not a signal (RPL_ERR_KIND), key NULL (RPL_ERR_NULL).
   Default name: "[sig] -groupBy:"; each group signal: "+groupBy: group". */
rpl_signal_t *RPL_NULLABLE rpl_signal_group_by(rpl_signal_t *RPL_NULLABLE sig, rpl_map_fn RPL_NULLABLE key,
                                               void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* ===========================================================================
 * Schedulers, time and threads
 * ---------------------------------------------------------------------------
 * A scheduler runs work: now (FIFO), after a delay, or repeatedly. Time is in
 * nanoseconds on the scheduler's clock (CLOCK_MONOTONIC; virtual on a test
 * scheduler).
 *
 * Threading contract
 * - Every function here may be called from any thread, including from inside
 *   scheduled work and from signal callbacks, with these exceptions: the
 *   rpl_run_loop_run* functions drive a run loop from one thread at a time
 *   (another thread gets RPL_ERR_STATE), and rpl_test_scheduler_advance_by /
 *   rpl_test_scheduler_run run work on the calling thread, so call them from
 *   one thread at a time.
 * - Where work runs: immediate work on the thread that scheduled it, before
 *   rpl_scheduler_schedule returns; serial work on that scheduler's own
 *   thread, one item at a time, FIFO; background work on a shared pool of
 *   threads, started FIFO but run concurrently; test-scheduler work on the
 *   thread calling advance_by / run; run-loop work on the thread calling an
 *   rpl_run_loop_run* function.
 * - Where signal callbacks run: on the thread that sent the event, except
 *   after the operators below: deliver_on delivers every event on its
 *   scheduler; delay delivers values and completion on its scheduler (an
 *   error on the sender's thread); throttle sends values on its scheduler
 *   (the value flushed at completion, and the terminal event, on the
 *   sender's thread); interval ticks on its scheduler; timeout sends its
 *   timeout error on its scheduler. subscribe_on runs the subscription on its
 *   scheduler, and events then come from wherever the source sends them.
 * - The callbacks of one subscriber never overlap, whatever the threads:
 *   events reach it one at a time, and events from one thread (or from one
 *   serial scheduler) arrive in the order sent.
 * - Inside scheduled work, rpl_scheduler_current() is the scheduler running
 *   it (also for the immediate scheduler).
 * - No runtime lock is held while work or a callback runs; work may schedule
 *   more work, dispose anything, or release its scheduler.
 *
 * Ownership
 * - rpl_scheduler_schedule / after / repeat return a disposable (+1) that
 *   cancels the work: disposing it before the work starts means it never
 *   runs; disposing it while it runs lets that run finish and stops any
 *   repetition. Releasing the disposable cancels nothing.
 * - release(ctx) runs exactly once: after a one-shot item has run, when the
 *   item is cancelled (before it ran, or after its current run), or at once
 *   if the call fails. It runs on the thread that ran or cancelled the item.
 * - Pending work keeps its scheduler alive, and releasing a scheduler cancels
 *   nothing: a serial scheduler released with work pending still runs it.
 * - A test scheduler or run loop runs work only when its owner drives it, so
 *   it lives exactly as long as the program's references to it (operators
 *   hold it weakly). Once the last one is released nothing can run its
 *   pending work: that work is dropped, never run, and each context is
 *   released; subscriptions waiting on it end (their observer's release
 *   runs); and an operator signal made with it gives subscriptions that end
 *   at once.
 * ======================================================================== */

/* The immediate scheduler (shared, borrowed: never release it). Work runs on
   the calling thread before rpl_scheduler_schedule returns. Scheduling from
   inside immediate work on the same thread queues the new item to run right
   after the current one returns, still before the outermost schedule returns
   (a trampoline), so recursive scheduling never grows the stack.
   rpl_scheduler_after blocks the calling thread until the delay has passed
   (a delay of UINT64_MAX never runs). rpl_scheduler_repeat and the operators
   that need a timer (throttle, timeout, interval) reject it (RPL_ERR_INVALID),
   since it would block its caller forever. */
rpl_scheduler_t *RPL_NONNULL rpl_scheduler_immediate(void);

/* The shared background pool (borrowed: never release it): concurrent worker
   threads, one per core (at least two), created on demand. Items start in
   FIFO order but may run at the same time. */
rpl_scheduler_t *RPL_NONNULL rpl_scheduler_background(void);

/* A new serial scheduler (+1): items run one at a time, in FIFO order (timed
   items when due), on a thread of its own that is created on demand and
   exits after 50 ms of idleness. label (copied; NULL for "ripple.serial")
   names the thread (first 15 bytes). NULL only when out of memory. */
rpl_scheduler_t *RPL_NULLABLE rpl_scheduler_create_serial(const char *RPL_NULLABLE label);

/* The scheduler running the calling code (borrowed), or NULL outside
   scheduled work. */
rpl_scheduler_t *RPL_NULLABLE rpl_scheduler_current(void);

/* s's clock in ns: CLOCK_MONOTONIC, or the virtual time of a test scheduler
   (which, inside its work, is the time the item was due). 0 (and the last
   error) for a NULL or non-scheduler handle. */
uint64_t rpl_scheduler_now(rpl_scheduler_t *RPL_NULLABLE s);

/* Runs fn(ctx) on s as soon as possible, after items scheduled before it.
   Returns a disposable (+1) that cancels it (see Ownership above); for the
   immediate scheduler the work has already run. Errors: s NULL
   (RPL_ERR_NULL) or not a scheduler (RPL_ERR_KIND), fn NULL (RPL_ERR_NULL);
   release(ctx) still runs. */
rpl_disposable_t *RPL_NULLABLE rpl_scheduler_schedule(rpl_scheduler_t *RPL_NULLABLE s,
                                                      void (*RPL_NULLABLE fn)(void *RPL_NULLABLE ctx),
                                                      void *RPL_NULLABLE ctx,
                                                      rpl_release_fn RPL_NULLABLE release);

/* Runs fn(ctx) once delay_ns have passed on s's clock. Items due at the same
   time run in the order they were scheduled. Same return and errors as
   rpl_scheduler_schedule. */
rpl_disposable_t *RPL_NULLABLE rpl_scheduler_after(rpl_scheduler_t *RPL_NULLABLE s, uint64_t delay_ns,
                                                   void (*RPL_NULLABLE fn)(void *RPL_NULLABLE ctx),
                                                   void *RPL_NULLABLE ctx,
                                                   rpl_release_fn RPL_NULLABLE release);

/* Runs fn(ctx) after delay_ns, then every interval_ns, until the returned
   disposable (+1) is disposed. Occurrences are due at start + delay +
   k * interval (no drift); one occurrence never overlaps the next. Errors as
   rpl_scheduler_schedule, plus interval_ns 0 or the immediate scheduler
   (RPL_ERR_INVALID); release(ctx) still runs. */
rpl_disposable_t *RPL_NULLABLE rpl_scheduler_repeat(rpl_scheduler_t *RPL_NULLABLE s, uint64_t delay_ns,
                                                    uint64_t interval_ns,
                                                    void (*RPL_NULLABLE fn)(void *RPL_NULLABLE ctx),
                                                    void *RPL_NULLABLE ctx,
                                                    rpl_release_fn RPL_NULLABLE release);

/* --- Test scheduler: virtual time ---------------------------------------- */

/* A new test scheduler (+1) with a virtual clock starting at 0. Work runs
   only inside rpl_test_scheduler_advance_by / rpl_test_scheduler_run, on the
   calling thread; scheduling never runs anything. Every time operator below
   can run on it, so time-based code is tested without sleeping. */
rpl_scheduler_t *RPL_NULLABLE rpl_test_scheduler_create(void);

/* Moves the clock forward by ns, running every item that falls due, in time
   order and FIFO among equal times (items scheduled meanwhile run too if
   they fall due). While an item runs the clock reads its due time; at the end
   it reads the old time + ns. Errors: s NULL (RPL_ERR_NULL), not a test
   scheduler (RPL_ERR_KIND). */
rpl_status rpl_test_scheduler_advance_by(rpl_scheduler_t *RPL_NULLABLE s, uint64_t ns);

/* Runs items until none is pending, moving the clock to each one's due time.
   Never call it with repeating work pending (it would not return); use
   rpl_test_scheduler_advance_by. Errors as rpl_test_scheduler_advance_by. */
rpl_status rpl_test_scheduler_run(rpl_scheduler_t *RPL_NULLABLE s);

/* --- Run loop: a scheduler driven by the program's own loop -------------- */

/* A run loop is a scheduler whose work runs only when the program asks, on
   the thread that asks: a GUI or event-loop thread, or a host language that
   cannot take callbacks on foreign threads. Work may be scheduled on it from
   any thread. Its descriptor (rpl_run_loop_fd) is readable while work is
   ready or a timed item is due, so it can sit in poll/epoll beside the
   program's other sources:

       struct pollfd p = { rpl_run_loop_fd(loop), POLLIN, 0 };
       while (running) {
           poll(&p, 1, -1);
           rpl_run_loop_run_until_idle(loop);
       }

   The run loop is also a scheduler: rpl_run_loop_scheduler returns the same
   object, to pass to rpl_scheduler_* and to the operators.

   Inside another event loop: watch the descriptor for POLLIN and, when it
   is readable, call rpl_run_loop_run_one up to a batch of times. The
   descriptor also wakes for timed items, to the nanosecond, so no timer of
   the host loop is needed. A batch keeps the host loop fair where
   rpl_run_loop_run_until_idle would not (it also runs the work that work
   schedules, without end): what is left keeps the descriptor readable and
   runs in the host's next iteration. Drive a run loop from one thread: a
   second one gets RPL_ERR_STATE, and its host loop then wakes again at once
   until the first has drained the loop. rpl_run_loop_stop is for
   rpl_run_loop_run: a stop requested while no rpl_run_loop_run is active
   keeps the descriptor readable until one runs.

   The installed adapters do this for GLib (ripple_glib.h), libuv
   (ripple_uv.h) and libevent (ripple_event.h), and share these rules: an
   attachment holds a reference to the run loop until it is detached (the
   program may release its own at once); run-loop work, and the callbacks it
   delivers, run on the host loop's thread one item at a time, and work
   scheduled from any thread wakes the host loop; one wake runs at most
   RPL_LOOP_BATCH items (below); work still pending at detach stays on the
   run loop, to run if the loop is driven again or be cancelled when it is
   freed; attach a run loop to one host loop and drive it from nowhere else. */
typedef struct rpl_run_loop rpl_run_loop_t;

/* The most run-loop items one wake of an adapter runs (ripple_glib.h,
   ripple_uv.h, ripple_event.h) before the host loop gets its turn again.
   256 unless defined (-DRPL_LOOP_BATCH=n, or a #define before the first
   #include of ripple.h or an adapter). */
#ifndef RPL_LOOP_BATCH
#define RPL_LOOP_BATCH 256
#endif

/* A new run loop (+1; release it with rpl_release). NULL if its descriptors
   cannot be created (RPL_ERR_NOMEM; errno says why). */
rpl_run_loop_t *RPL_NULLABLE rpl_run_loop_create(void);

/* The run loop as a scheduler: the same object, borrowed (retain it to keep
   it). NULL (and the last error) if loop is NULL or not a run loop. */
rpl_scheduler_t *RPL_NULLABLE rpl_run_loop_scheduler(rpl_run_loop_t *RPL_NULLABLE loop);

/* The run loop's descriptor for poll/epoll (POLLIN), owned by the loop:
   do not read or close it. It is readable while work is ready or a timed
   item is due, and stops being readable once the loop has run what was
   ready. -1 (and the last error) for bad input. */
int rpl_run_loop_fd(rpl_run_loop_t *RPL_NULLABLE loop);

/* Runs ready work and due timed items until there is none (items scheduled
   meanwhile included); never waits. Returns how many ran (>= 0), or a
   negative rpl_status: bad input (RPL_ERR_NULL, RPL_ERR_KIND), or another
   thread is driving the loop (RPL_ERR_STATE). */
int64_t rpl_run_loop_run_until_idle(rpl_run_loop_t *RPL_NULLABLE loop);

/* Runs at most one item; never waits. Returns 1 if one ran, 0 if nothing was
   ready, or a negative rpl_status as rpl_run_loop_run_until_idle. */
int64_t rpl_run_loop_run_one(rpl_run_loop_t *RPL_NULLABLE loop);

/* Runs work on the calling thread, sleeping while there is none, until
   rpl_run_loop_stop is called (from an item or another thread); returns
   RPL_OK then. A stop requested while no rpl_run_loop_run was active makes
   the next one return at once. Errors as rpl_run_loop_run_until_idle. */
rpl_status rpl_run_loop_run(rpl_run_loop_t *RPL_NULLABLE loop);

/* Makes rpl_run_loop_run return after its current item. Any thread. */
rpl_status rpl_run_loop_stop(rpl_run_loop_t *RPL_NULLABLE loop);

/* ns until the loop next has work: 0 if work is ready or due, UINT64_MAX if
   nothing is pending. For loops that prefer a poll timeout to watching the
   descriptor. UINT64_MAX (and the last error) for bad input. */
uint64_t rpl_run_loop_next_timeout(rpl_run_loop_t *RPL_NULLABLE loop);

/* --- Scheduling and time operators --------------------------------------- */
/* Each returns a new signal (+1) and retains sig and s. Errors: sig or s NULL
   (RPL_ERR_NULL), the wrong kind (RPL_ERR_KIND); NULL is returned. Disposing
   a subscription cancels its pending timers and drops events not yet
   delivered. All of them work on a test scheduler. */

/* Subscribes to sig on s: the subscription (sig's subscribe side effects)
   runs as work on s; events then arrive wherever sig sends them. Disposing
   before that work ran cancels it. */
rpl_signal_t *RPL_NULLABLE rpl_signal_subscribe_on(rpl_signal_t *RPL_NULLABLE sig,
                                                   rpl_scheduler_t *RPL_NULLABLE s);

/* Delivers every event of sig on s, in order. The hand-off is batched: while
   events keep arriving they are queued and delivered in runs, without an
   allocation or a wake-up per event. The queue is unbounded: a producer
   faster than s's consumer grows it without limit (memory); use
   rpl_signal_deliver_on_bounded for a bound. */
rpl_signal_t *RPL_NULLABLE rpl_signal_deliver_on(rpl_signal_t *RPL_NULLABLE sig,
                                                 rpl_scheduler_t *RPL_NULLABLE s);

/* What a value sent into a full rpl_signal_deliver_on_bounded queue does. */
typedef enum {
    RPL_OVERFLOW_BLOCK,        /* the sender waits until there is room */
    RPL_OVERFLOW_DROP_NEWEST,  /* the new value is dropped */
    RPL_OVERFLOW_DROP_OLDEST,  /* the oldest waiting value is dropped and the new one
                                  appended (order kept; capacity 1 = "latest only") */
    RPL_OVERFLOW_FAIL          /* the signal fails with RPL_ERROR_OVERFLOW */
} rpl_overflow;

/* rpl_signal_deliver_on with a bound: at most capacity values wait for s.
   The event s's consumer is busy with no longer waits, so capacity more may.
   A value sent into a full queue meets policy (rpl_overflow above). A failure
   (RPL_OVERFLOW_FAIL, or a BLOCK send that could never get room: one made
   from s's own thread - inside work s is running - or into a queue on a test
   scheduler, which runs work only inside advance_by/run) drops that value,
   disposes sig's subscription and fails the result with domain
   RPL_ERROR_DOMAIN, code RPL_ERROR_OVERFLOW, delivered after the values
   already waiting. Terminal events are never dropped and never wait: they
   arrive after the waiting values (under FAIL a terminal event into a full
   queue is not an overflow). Disposing the subscription drops the waiting
   values and lets a blocked sender go (its value is dropped). Each value is
   handed over singly (no batching). Errors as above, and capacity 0 or a
   policy not listed: RPL_ERR_INVALID. Default name "[sig] -deliverOn:
   bounded <capacity>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_deliver_on_bounded(rpl_signal_t *RPL_NULLABLE sig,
                                                         rpl_scheduler_t *RPL_NULLABLE s,
                                                         size_t capacity, rpl_overflow policy);

/* Delays each value and the completion by ns on s (in order); an error is
   delivered at once and drops what is still pending. On the immediate
   scheduler the sender blocks for ns instead. */
rpl_signal_t *RPL_NULLABLE rpl_signal_delay(rpl_signal_t *RPL_NULLABLE sig, uint64_t ns,
                                            rpl_scheduler_t *RPL_NULLABLE s);

/* RAC's throttle (Rx's debounce): a value is sent, on s, only once ns pass
   with no newer value; each new value replaces the pending one and restarts
   the wait. Completion sends the pending value at once, then completes; an
   error drops it and is delivered at once. s must not be the immediate
   scheduler (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_throttle(rpl_signal_t *RPL_NULLABLE sig, uint64_t ns,
                                               rpl_scheduler_t *RPL_NULLABLE s);

/* Fails with an error of domain RPL_ERROR_DOMAIN, code RPL_ERROR_TIMEOUT,
   sent on s, when sig has not terminated within ns of subscription (values do
   not reset the deadline), and then disposes sig's subscription. s must not
   be the immediate scheduler (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_timeout(rpl_signal_t *RPL_NULLABLE sig, uint64_t ns,
                                              rpl_scheduler_t *RPL_NULLABLE s);

/* Sends the ints 0, 1, 2, ... on s, the first ns after subscription and then
   every ns; never completes (dispose it, or use rpl_signal_take). ns must be
   positive and s not the immediate scheduler (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_interval(uint64_t ns, rpl_scheduler_t *RPL_NULLABLE s);

/* ---- More time operators -----------------------------------------------------
 * (delay_subscription, throttle_first, throttle_if, buffer_with_time)
 * ------------------------------------------------------------------------ */

/* Each retains sig and s; ns is in nanoseconds on s's clock, and every
   one works on a test scheduler. */

/* RxSwift's delaySubscription: subscribes to sig ns after the subscription,
   as work on s; events then arrive wherever sig sends them. Disposing before
   then cancels it (sig is never subscribed). Default name
   "[sig] -delaySubscription: 1000000". Errors: sig or s NULL (RPL_ERR_NULL)
   or the wrong kind (RPL_ERR_KIND); the immediate scheduler
   (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_delay_subscription(rpl_signal_t *RPL_NULLABLE sig, uint64_t ns,
                                                         rpl_scheduler_t *RPL_NULLABLE s);

/* RxSwift's throttle(_:latest: false) (rate limiting, not RAC's throttle):
   the first value passes, then values are dropped until ns have passed on
   s's clock since the last value sent; a value exactly ns after it passes.
   Values pass at once, on the thread that sent them; completion and errors
   pass at once. s is only read as a clock (no timer), so the immediate
   scheduler is allowed. Fused: no allocation per value. Default name
   "[sig] -throttleFirst: 1000000". Errors: sig or s NULL (RPL_ERR_NULL) or
   the wrong kind (RPL_ERR_KIND). */
rpl_signal_t *RPL_NULLABLE rpl_signal_throttle_first(rpl_signal_t *RPL_NULLABLE sig, uint64_t ns,
                                                     rpl_scheduler_t *RPL_NULLABLE s);

/* ReactiveObjC's throttle:valuesPassingTest:. predicate(ctx, v) runs for each
   value, on the thread that sent it. A value for which it is true is
   throttled as by rpl_signal_throttle: it replaces the pending value and
   restarts the wait, and is sent on s once ns pass without a newer one. A
   value for which it is false discards the pending value and is sent at
   once, on the thread that sent it. Completion sends the pending value at
   once, then completes (on the thread that completed); an error drops it
   and passes at once. predicate may fail the result through
   rpl_callback_fail (the value is dropped and sig is disposed). release(ctx)
   runs once the result and every subscription to it are gone. Default name
   "[sig] -throttle:valuesPassingTest: 1000000". Errors: sig or s NULL
   (RPL_ERR_NULL) or the wrong kind (RPL_ERR_KIND), then predicate NULL
   (RPL_ERR_NULL), then the immediate scheduler (RPL_ERR_INVALID);
   release(ctx) still runs. */
rpl_signal_t *RPL_NULLABLE rpl_signal_throttle_if(rpl_signal_t *RPL_NULLABLE sig, uint64_t ns,
                                                  rpl_scheduler_t *RPL_NULLABLE s,
                                                  rpl_predicate_fn RPL_NULLABLE predicate, void *RPL_NULLABLE ctx,
                                                  rpl_release_fn RPL_NULLABLE release);

/* ReactiveObjC's bufferWithTime:onScheduler:: the first value of a batch
   starts a timer on s; when it fires (ns later) the batch is sent, on s, as
   one tuple of its values in order (nil values included), and the next value
   starts a new batch. No timer runs while nothing is buffered, so a quiet
   interval sends nothing (never an empty tuple). Completion sends the batch,
   if any, at once, then completes (on the thread that completed); an error
   drops it and passes at once.
   Default name "[sig] -bufferWithTime: 1000000". Errors: sig or s NULL
   (RPL_ERR_NULL) or the wrong kind (RPL_ERR_KIND); the immediate scheduler
   (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_signal_buffer_with_time(rpl_signal_t *RPL_NULLABLE sig, uint64_t ns,
                                                       rpl_scheduler_t *RPL_NULLABLE s);

/* ===========================================================================
 * Names, tracing and counting: seeing what a running program's signals do
 * ---------------------------------------------------------------------------
 * Names. Every signal has a name (never NULL). Constructors and operators
 * give their result a default name, after ReactiveCocoa, built from the
 * names of their inputs:
 *   constructors   "+empty", "+never", "+return:", "+error:", "+create:",
 *                  "+defer:", "+subject", "+behaviorSubject:",
 *                  "+replaySubject: 3", "+interval: 1000000" (ns),
 *                  "+fromArray: 3", "+range: 5 count: 3", "+timer: 1000000",
 *                  "+startLazilyWithScheduler:block:",
 *                  "+startEagerlyWithScheduler:block:", and "+groupBy: group"
 *                  for each group of rpl_signal_group_by
 *   one input      "[input] -map:", "[input] -filter:", "[input] -collect",
 *                  "[input] -take: 3", "[input] -delay: 500" (ns),
 *                  "[input] -buffer: 3", "[input] -flatten: 2",
 *                  "[input] -concat", "[input] -share: 1",
 *                  "[input] -deliverOn: bounded 16" (the capacity), ...
 *   two inputs     "[a] -concat: [b]", "[a] -takeUntil: [trigger]",
 *                  "[a] -sample: [sampler]", "[a] -withLatestFrom: [b]",
 *                  "[a] -switchIfEmpty: [b]", ...
 *   a list         "+merge: ([a], [b])", "+combineLatest: (...)", "+zip: (...)",
 *                  "+if:then:else: ([cond], [then], [else])",
 *                  "+switch:cases:default: ([key], [case0], ..., [default])"
 * where [input] is the input's name (one cut to 256 bytes ends in "...]"),
 * the operator word is the function's name without rpl_signal_ in RAC's
 * camel case, and a number is the size_t or nanosecond argument. A name set
 * with rpl_signal_set_name replaces the default and is what later operators
 * embed. Default names are built the first time they are needed (by
 * rpl_signal_name or a trace), never when a signal is made or an event sent.
 * ======================================================================== */

/* Sets sig's name to a copy of name (UTF-8, NUL-terminated). A name returned
   earlier by rpl_signal_name stays valid while sig lives. Any thread.
   Errors: NULL sig or name (RPL_ERR_NULL), not a signal (RPL_ERR_KIND). */
rpl_status rpl_signal_set_name(rpl_signal_t *RPL_NULLABLE sig, const char *RPL_NULLABLE name);
/* sig's name: borrowed, valid while sig lives (keep a reference or copy it).
   Never NULL for a valid signal; NULL (with RPL_ERR_NULL / RPL_ERR_KIND)
   for a NULL handle or one that is not a signal. Any thread. */
const char *RPL_NULLABLE rpl_signal_name(const rpl_signal_t *RPL_NULLABLE sig);

/* Tracing. With a hook set, every subscription made with rpl_signal_subscribe
 * or rpl_signal_subscribe_next reports, in the order they happen for it:
 * SUBSCRIBE (before any event), each NEXT, then ERROR or COMPLETED if it
 * terminates, and DISPOSE when it ends - after a terminal event too, since
 * that ends it (rules 26-27). Events are reported just before
 * the observer's callback runs; DISPOSE just before its release(ctx).
 * Subscriptions of one signal to another inside operators are not reported:
 * the trace shows what the program's observers see.
 * A subscription made while tracing was off is reported from its next event
 * on (no SUBSCRIBE), with signal_name "(subscribed before tracing)", since
 * the signal may be gone by then.
 * The same five events are USDT probes, provider "ripple": subscribe, next,
 * error, completed, dispose, each with two arguments, the signal's name (a C
 * string) and the subscription id (uint64_t) - arg0 and arg1 in bpftrace -
 * so perf, bpftrace or SystemTap can
 * trace a running program (see the README). A probe has a semaphore: while
 * no tracer is attached nothing is computed for it.
 * Cost while neither a hook nor a probe is on: two loads of global words (the
 * hook flag, the next probe's semaphore) and one predictable branch per event. */
typedef enum {
    RPL_TRACE_SUBSCRIBE = 0,
    RPL_TRACE_NEXT = 1,
    RPL_TRACE_ERROR = 2,
    RPL_TRACE_COMPLETED = 3,
    RPL_TRACE_DISPOSE = 4
} rpl_trace_kind;

#define RPL_TRACE_EVENT_VERSION 1
/* One reported event; everything in it is borrowed for the hook's call. */
typedef struct rpl_trace_event {
    uint32_t version;                       /* RPL_TRACE_EVENT_VERSION */
    rpl_trace_kind kind;
    const char *RPL_NONNULL signal_name;    /* the name of the signal subscribed to */
    uint64_t subscription;                  /* process-unique id of the subscription (1, 2, ...) */
    const rpl_value *RPL_NULLABLE value;    /* NEXT only, else NULL */
    const rpl_error_t *RPL_NULLABLE error;  /* ERROR only (the error sent), else NULL */
} rpl_trace_event;

typedef void (*rpl_trace_fn)(void *RPL_NULLABLE ctx, const rpl_trace_event *RPL_NONNULL e);

/* Sets the process-wide trace hook (fn NULL: tracing off, the default);
   replaces the previous one. The hook runs on the thread of the event, with
   that subscription's events one at a time (several subscriptions may
   report concurrently from several threads). It runs inside a delivery, so
   it must not call back into the runtime - no sending, subscribing,
   disposing, creating or releasing - except to read what it was given
   (rpl_value_* accessors on e->value, rpl_error_* on e->error); copy what it
   needs and return quickly.
   A call that started on another thread may still be running when
   rpl_trace_set returns. A hook set from inside a subject's callback
   reports from that subject's next send on (the send under way was checked
   once, at its start). ctx is not released by the runtime. Never fails:
   returns RPL_OK. */
rpl_status rpl_trace_set(rpl_trace_fn RPL_NULLABLE fn, void *RPL_NULLABLE ctx);

/* The built-in trace hook: writes every event to fd as one JSON line
 * (JSON Lines), for the `ripple-trace` command to draw as a timeline:
 *   {"ripple_trace":1,"pid":4242,"clock":"monotonic","start_unix_ns":...}
 *   {"t":18211,"thread":4242,"kind":"next","sub":3,"signal":"clicks","value":"42"}
 *   {"t":19020,"thread":4243,"kind":"error","sub":3,"signal":"clicks",
 *    "error":{"domain":"net","code":7,"message":"timed out"}}
 * The first line says where the times count from; then one line per event:
 * t, nanoseconds since rpl_trace_write started (CLOCK_MONOTONIC); thread,
 * the Linux thread id; kind, subscribe / next / error / completed /
 * dispose (as rpl_trace_kind); sub, the subscription id; signal, the name
 * of the signal subscribed to (cut to 512 bytes); value (next only), the
 * value as rpl_signal_log writes it (cut to 256 bytes: 42, 1.5, "text",
 * (1, "a"), <3 bytes>, ...); error (error only). Strings are JSON-escaped
 * UTF-8; a cut one ends in "...".
 *
 * fd >= 0 starts writing to a duplicate of fd (close-on-exec), so the
 * caller may close fd at once; fd -1 stops and closes the duplicate. A new
 * fd ends the previous file first. The writer is the trace hook: it and
 * rpl_trace_set share the one hook slot, each replacing the other
 * (rpl_trace_write(-1) then leaves the other hook set).
 *
 * Threads: any thread. Lines never mix: each is formatted by the thread of
 * its event and appended under a lock to a buffer that goes out in whole
 * lines, in time order, when 32 KiB are pending, when an event comes 50 ms
 * after the last write, at rpl_trace_write(-1) and at exit (lines pending
 * when the process is killed are lost). Cost per event (make bench, "trace
 * write" row): the line's formatting and a lock; the write(2) is shared by
 * hundreds of events.
 *
 * Write errors never reach the program: EINTR and partial writes are
 * retried, a full non-blocking fd is waited for (up to 1 s per stall), SIGPIPE
 * is held back during the write. A write that fails (closed pipe, full
 * disk, a full fd that stays full) ends the writing: later events are
 * counted as dropped, and the call that ends that file (fd -1 or a new fd)
 * returns RPL_ERR_STATE with the cause and the count in
 * rpl_last_error_message() (a new fd is started all the same).
 *
 * The environment variable RIPPLE_TRACE=path starts the writer when the
 * library is loaded, so an unmodified program can be traced:
 *   RIPPLE_TRACE=trace.jsonl ./program && ripple-trace trace.jsonl -o trace.html
 * The file is created or truncated (mode 0644 before the umask); "%p" in
 * the path becomes the process id. A path that cannot be opened is
 * reported on stderr and the program runs untraced.
 * A child made by fork does not write its parent's trace (a new
 * rpl_trace_write in the child starts its own).
 *
 * Errors: fd < -1, not open, or open read-only (RPL_ERR_INVALID: nothing
 * changes); the ended file's write failure (RPL_ERR_STATE, as above). */
rpl_status rpl_trace_write(int fd);

/* Runtime objects alive now: every handle kind (signals, subjects,
   subscriptions and other disposables, connections, schedulers, errors) and
   boxed values. The shared schedulers (rpl_scheduler_immediate,
   rpl_scheduler_background), which are never freed, are not counted. A
   test takes it at its start and checks that it is back there at its end,
   so a leak fails the test without valgrind. Counting costs a plain add to
   a per-thread counter per object created or freed (no locked instruction),
   nothing per event; this call sums the counters under a lock. A cancelled
   timer a scheduler keeps until its due time (empty, bounded) is not
   counted, nor an ended subscription kept for reuse (rpl_release). Any
   thread; a snapshot. Never fails. */
size_t rpl_live_objects(void);

/* RAC's logAll: a signal (+1) that sends what sig sends and writes each
   event of each subscription to stderr, one line per event:
   "<label>: next <value>", "<label>: error <domain> <code> <message>",
   "<label>: completed". Tuples and events nested more than 16 deep in a
   value are written "...", and a value's text is cut to 4 KiB (ending in
   "..."); values are written as rpl_trace_write writes them. label NULL means sig's name (taken when the first
   event is logged). Named "[sig] -logAll". Errors: NULL sig (RPL_ERR_NULL),
   not a signal (RPL_ERR_KIND). */
rpl_signal_t *RPL_NULLABLE rpl_signal_log(rpl_signal_t *RPL_NULLABLE sig, const char *RPL_NULLABLE label);

/* ===========================================================================
 * The operating system: descriptors, sockets, OS signals, processes, files
 * ---------------------------------------------------------------------------
 * Each function returns a cold signal (+1). A subscription watches its
 * source while it lasts: the watch (an epoll registration, the signal
 * disposition, the inotify watch, the pidfd) is in place when
 * rpl_signal_subscribe returns and removed when rpl_disposable_dispose (or
 * the subscription's terminal event) returns; after that Ripple makes no
 * further system call on the descriptor, so the caller may close it.
 *
 * Events are delivered as work on s: a run loop's scheduler (the run loop's
 * descriptor, rpl_run_loop_fd, then also becomes readable while one of its
 * sources is ready, so one poll() serves everything; the sources are
 * collected by the rpl_run_loop_run* calls), a serial scheduler, or the
 * background scheduler. One subscription's events keep their order on every
 * scheduler. The immediate scheduler and a test scheduler are refused
 * (RPL_ERR_INVALID). Readiness comes from one watcher per process (one epoll
 * set and one thread for serial and background schedulers; a run loop's own
 * set for its sources): subscribing and disposing cost O(1), whatever else
 * is watched. Freeing a run loop ends the subscriptions of its sources
 * (their release runs, no terminal event): nothing could deliver to them.
 *
 * A system call that fails is an error event with domain
 * RPL_ERROR_DOMAIN_ERRNO ("errno"), code errno, and a message naming the
 * call; one that fails while the subscription is being set up (a missing
 * path, a pid that is not a child) is delivered the same way, as work on s.
 * EINTR is retried, never reported. Descriptors stay the caller's: Ripple
 * never closes one it did not create, and may set O_NONBLOCK on one it reads
 * or writes (read, read_lines, write, accept), as libuv does. Readiness is
 * level-triggered: a descriptor that stays ready is reported again after its
 * previous event was handled. See docs/behaviour.md (anchor os-sources) for
 * descriptors closed under a watch, partial writes, a signal several
 * subscribers watch, a path that goes away, and fork.
 *
 * Errors at the call (NULL is returned): s NULL (RPL_ERR_NULL), not a
 * scheduler (RPL_ERR_KIND), the immediate or a test scheduler
 * (RPL_ERR_INVALID); a negative or closed descriptor (RPL_ERR_INVALID), and
 * the per-function ones below. Thread safety: any thread.
 * ======================================================================== */

/* Errors of the OS sources: domain RPL_ERROR_DOMAIN_ERRNO, code errno. */
#define RPL_ERROR_DOMAIN_ERRNO "errno"
/* rpl_signal_read_lines met a line longer than max_line (domain RPL_ERROR_DOMAIN). */
enum { RPL_ERROR_LINE_TOO_LONG = 7 };

/* fd (an int value) each time fd is readable: level-triggered, so while it
   stays readable (the observer does not read it all) it is sent again after
   each value has been handled. Never completes; dispose to stop. A
   descriptor epoll cannot watch (a regular file) fails with EPERM. Name:
   "+fdReadable: <fd>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_fd_readable(int fd, rpl_scheduler_t *RPL_NULLABLE s);
/* Like rpl_signal_fd_readable, for writability. Name: "+fdWritable: <fd>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_fd_writable(int fd, rpl_scheduler_t *RPL_NULLABLE s);
/* The bytes read from fd, as bytes values (RPL_TYPE_BYTES) of at most
   max_chunk bytes, in order; completes at end of input; a read error fails
   it (errno). fd is made non-blocking. Errors at the call: max_chunk 0
   (RPL_ERR_INVALID). Name: "+read: <fd>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_read(int fd, size_t max_chunk, rpl_scheduler_t *RPL_NULLABLE s);
/* The lines read from fd, as strings (RPL_TYPE_STRING) without their "\n"
   or "\r\n"; at end of input an unterminated last line (if any; a final
   "\r" is kept there), then completion. A line longer than max_line bytes
   (its ending not counted) fails the signal (domain RPL_ERROR_DOMAIN, code
   RPL_ERROR_LINE_TOO_LONG) as soon as the bytes read show it, so a
   subscription buffers at most about max_line bytes; the lines before it
   are sent. An idle subscription holds no read buffer. fd is made
   non-blocking. Errors at the call: max_line 0 (RPL_ERR_INVALID). Name:
   "+readLines: <fd>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_read_lines(int fd, size_t max_line, rpl_scheduler_t *RPL_NULLABLE s);
/* Writes each string or bytes value of sig to fd, in order, waiting for
   writability (a partial write continues when fd is writable again); sends
   each value's byte count (an int) once all of it is written. Completes once
   sig completed and everything is written; sig's error fails it after the
   values before it are written. A value of another type fails it (domain
   RPL_ERROR_DOMAIN, code RPL_ERROR_TYPE) after the values before it are
   written; sig is then disposed. sig is subscribed synchronously, inside
   rpl_signal_subscribe, once the watch is in place; disposing the result
   disposes sig (values not yet written are dropped). fd is made
   non-blocking. sig is borrowed (retained). Errors at the call: sig NULL
   (RPL_ERR_NULL) or not a signal (RPL_ERR_KIND). Name: "[sig] -write: <fd>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_write(rpl_signal_t *RPL_NULLABLE sig, int fd, rpl_scheduler_t *RPL_NULLABLE s);
/* Each connection accepted on the listening socket listen_fd, as its
   descriptor (an int; non-blocking and close-on-exec), owned by the
   receiver from then on. Failures that concern only the connection being
   accepted (ECONNABORTED, EPROTO, network errors) are skipped; others
   (EMFILE, a socket that is not listening: EINVAL) fail the signal.
   listen_fd is made non-blocking. Name: "+accept: <fd>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_accept(int listen_fd, rpl_scheduler_t *RPL_NULLABLE s);
/* signo (an int) each time the process gets that signal while subscribed.
   The first subscription to signo installs Ripple's handler and saves the
   previous disposition, which is not chained (the old handler does not run
   while subscribed); the last one to end restores it. Every subscription to
   signo gets every delivery. Signals that arrive faster than they are
   delivered may coalesce, as the kernel's own do. Errors at the call: signo
   out of range, SIGKILL or SIGSTOP (RPL_ERR_INVALID); a signal the C library
   reserves (sigaction fails) is an EINVAL error event. Name:
   "+osSignal: <signo>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_os_signal(int signo, rpl_scheduler_t *RPL_NULLABLE s);
/* The raw waitpid status (an int: WIFEXITED, WEXITSTATUS, ... apply) of the
   child process pid once it has ended - the child is reaped - then
   completes. A pid that is not this process's child fails with ECHILD (also
   when something else reaped it first). Watched through a pidfd (Linux 5.3
   or later; else ENOSYS). Errors at the call: pid <= 0 or above INT_MAX
   (RPL_ERR_INVALID). Name: "+childExit: <pid>". */
rpl_signal_t *RPL_NULLABLE rpl_signal_child_exit(int64_t pid, rpl_scheduler_t *RPL_NULLABLE s);
/* Changes to path (a directory, or one file), as tuples (RPL_TYPE_TUPLE,
   2 items): the name (a string, relative to the watched directory; for an
   event about path itself, path's last component) and RPL_FILE_* flags (an
   int). When path itself goes away (deleted, or moved away) that event is
   sent, then the signal completes. A missing path is an ENOENT error event
   (the path may exist by the time of the subscription). path is copied.
   Each subscription holds one inotify instance (the system limits how many
   a user has: EMFILE beyond it). Errors at the call: path NULL
   (RPL_ERR_NULL) or empty (RPL_ERR_INVALID). Name: "+fileChanges:". */
rpl_signal_t *RPL_NULLABLE rpl_signal_file_changes(const char *RPL_NULLABLE path, rpl_scheduler_t *RPL_NULLABLE s);
/* The flags of rpl_signal_file_changes. */
enum {
    RPL_FILE_CREATED = 1,   /* a name was created */
    RPL_FILE_MODIFIED = 2,  /* its contents or attributes changed */
    RPL_FILE_DELETED = 4,   /* it was deleted */
    RPL_FILE_MOVED = 8      /* it was moved (from or to the name) */
};

/* ===========================================================================
 * Marble tests: signals drawn as text, on a test scheduler
 * ---------------------------------------------------------------------------
 * A marble diagram draws a signal on a time line, one character per frame of
 * 1 ms of virtual time, as RxJS's TestScheduler reads it in run mode:
 *   -        one frame passes
 *   a        a value, in one frame (see the table below)
 *   (ab)     a group: a and b in the same frame, the group's first; the group
 *            takes as many frames as it has characters ("(ab)" four)
 *   |        completion          #   an error (domain "marble", code 1,
 *                                    message "error")
 *   ^        the subscription point (frame 0 of a hot diagram)
 *   !        unsubscription (subscription diagrams only; takes no frame)
 *   ' '      spaces are ignored, so diagrams can be aligned
 *   10ms 1.5s 2m   a time progression: that much time passes (at the start
 *            of the diagram or after a space, and followed by a space;
 *            "a 10ms b" puts b 11 frames after a)
 * Values. Each function takes a table of (key, value) pairs: the character
 * key stands for the value. Without an entry, a digit stands for that int
 * (rpl_int) and any other character for a one-character string (rpl_string).
 * A key may not be a character the syntax claims (- ( ) | # ^ ! and space)
 * nor appear twice. A drawn value (rpl_marble_record, a failed expectation)
 * is its table key (the first entry rpl_value_equal to it), else its digit
 * (an int 0 to 9) or its character (a one-character string that is no
 * digit, syntax or table key), else '?'.
 * Time. Frame 0 of rpl_marble_expect and rpl_marble_record is the test
 * scheduler's time at the call; a cold diagram's frames count from each
 * subscription, a hot one's from its creation ('^' is then), and
 * rpl_marble_subscriptions' from the marble's creation. As in RxJS, a
 * subscription made at a frame (its '^') gets the hot events of that frame,
 * and one ended at a frame (its '!') gets none of that frame's events: the
 * test subscribes and unsubscribes ahead of the other work due in the same
 * frame. An event between frames (a delay of 1.5 ms) is drawn with a time
 * progression ("1.5ms a"). The syntax cannot draw an event less than a
 * group's width after the group: a drawing then shows it late, and a failed
 * expectation's first line gives the frames.
 * Departures from RxJS: '^' in a hot or expected diagram is frame 0 where the
 * frames before it put it (RxJS counts the characters before it, spaces and
 * time progressions included, which agrees when there are none); the
 * diagrams RxJS accepts but cannot mean are refused: a group inside a
 * group, an unclosed or unopened group, a second '^' or '!', '^' inside a
 * group of events or after '!', an event after '|' or '#', '^' in a cold
 * diagram, '!' outside a subscription diagram, and any character but - ^ !
 * ( ) and time progressions in a subscription diagram. A refused diagram is
 * RPL_ERR_INVALID, with the 1-based column and the reason in the message:
 *   "rpl_marble_cold: column 3 of \"a|b\": an event after '|'".
 * Threads: the marble functions drive the test scheduler like
 * rpl_test_scheduler_run: call them from one thread at a time.
 * ======================================================================== */

/* One entry of a marble value table: key stands for value. */
typedef struct rpl_marble_value {
    char key;
    rpl_value value;
} rpl_marble_value;

/* A cold signal (+1) that, for each subscriber, plays marbles on the test
   scheduler test, its frames counted from that subscription (frame 0's
   events come when the scheduler next runs, as every later frame's).
   The values in values[0..count) are consumed, also on failure (except for a
   count too large for an array: RPL_ERR_INVALID, nothing read); each
   subscriber gets its own references. The signal holds test weakly, like
   every operator: once test is freed, a new subscription ends at once and
   pending events are dropped. Default name "+cold: <marbles>".
   Errors, in this order: test NULL (RPL_ERR_NULL), not a test scheduler
   (RPL_ERR_KIND); marbles NULL, or values NULL with count > 0
   (RPL_ERR_NULL); count too large, a table entry of an unlisted type, a
   syntax key or a repeated key, or a refused diagram, including '^'
   (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_marble_cold(rpl_scheduler_t *RPL_NULLABLE test, const char *RPL_NULLABLE marbles,
                                           rpl_marble_value *RPL_NULLABLE values, size_t count);

/* A plain subject (+1) that plays marbles once, on the test scheduler test,
   from now: '^' marks the scheduler's current time (no '^': the diagram
   starts now). Events before '^' are sent at once (before anyone can have
   subscribed, so only a terminal event among them has an effect: later
   subscribers get it); frame 0's and later ones' when the scheduler runs.
   Pending events keep the subject alive; it is a subject like any other
   (rpl_subject_send_* work too). Values as for rpl_marble_cold. Errors as
   rpl_marble_cold, '^' allowed once. Default name "+hot: <marbles>". */
rpl_subject_t *RPL_NULLABLE rpl_marble_hot(rpl_scheduler_t *RPL_NULLABLE test, const char *RPL_NULLABLE marbles,
                                           rpl_marble_value *RPL_NULLABLE values, size_t count);

/* Subscribes sig at the '^' of the subscription diagram subscription (NULL
   or "": now, frame 0), disposes that subscription at its '!' (if it has
   one), and runs the test scheduler until no work is pending, or 60,000
   frames past the last frame the diagrams reach (the subscription diagram,
   and every marble's events scheduled so far), so that work without end,
   such as an interval, stops (what is due later stays pending). Returns what sig did, drawn in the same
   syntax with the table values (borrowed) as a string value (+1): e.g.
   "--a--(bc)|". Frame 0 is the scheduler's time at the call. Errors: test
   NULL or not a test scheduler, sig NULL or not a signal, values NULL with
   count > 0, count too large, a bad table or subscription diagram; nil is
   returned. */
rpl_value rpl_marble_record(rpl_scheduler_t *RPL_NULLABLE test, rpl_signal_t *RPL_NULLABLE sig,
                            const char *RPL_NULLABLE subscription,
                            const rpl_marble_value *RPL_NULLABLE values, size_t count);

/* Runs sig as rpl_marble_record does (the expected diagram's end counting
   among the frames the diagrams reach) and compares what it did with
   expected: RPL_OK when sig sent exactly those events in exactly those
   frames (values compared with rpl_value_equal against the table's, '#'
   matching any error); else RPL_ERR_FAILED with the difference in
   rpl_last_error_message(), on four lines:
     rpl_marble_expect: at frame 4 expected value 'b', got value 'c'
     expected: --a-b-|
     actual:   --a-c-|
                   ^
   (both drawn the same way, the caret under the first difference). The
   subscription is disposed only at the diagram's '!': without one it stays
   subscribed after the call (what it gets then is dropped). Errors as
   rpl_marble_record, and a refused expected diagram (RPL_ERR_INVALID). */
rpl_status rpl_marble_expect(rpl_scheduler_t *RPL_NULLABLE test, rpl_signal_t *RPL_NULLABLE sig,
                             const char *RPL_NULLABLE subscription, const char *RPL_NULLABLE expected,
                             const rpl_marble_value *RPL_NULLABLE values, size_t count);

/* The subscriptions made so far to a signal from rpl_marble_cold or a
   subject from rpl_marble_hot (pass it cast to rpl_signal_t *), one line
   each, in the order they were made, separated by newline characters (none
   at the end; "" for none): "^" where it began, "!" where it ended - disposed or
   terminated, as in RxJS - frames from the marble's creation: "--^---!",
   "(^!)" for one that ended in its first frame, "^" for one still going.
   Returned as a string value (+1). Errors: marble NULL (RPL_ERR_NULL), not
   a marble signal or subject (RPL_ERR_KIND); nil is returned. */
rpl_value rpl_marble_subscriptions(rpl_signal_t *RPL_NULLABLE marble);

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* RIPPLE_H */
