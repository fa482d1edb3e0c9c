/* Private to libripple-nats: the connection record behind an rpl_nats_t, the
   codec, and the error helpers. Only ripple.h and nats.h are used. */
#ifndef RIPPLE_NATS_INTERNAL_H
#define RIPPLE_NATS_INTERNAL_H

#include <nats/nats.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ripple_nats.h"

#define RN_EXPORT __attribute__((visibility("default")))

/* ---- growable byte buffer (the codec's output) ---- */
typedef struct rn_buf {
    uint8_t *data;
    size_t len, cap;
    uint8_t inline_[256];
} rn_buf;
void rn_buf_init(rn_buf *b);
void rn_buf_free(rn_buf *b);

/* ---- codec ---- */
/* Encodes v (borrowed) for the connection's codec into b. false: a type that
   cannot travel (b's content is then undefined). */
bool rn_encode(int32_t codec, const rpl_value *v, rn_buf *b);
/* Decodes a payload; whatever does not decode is a bytes value. +1 value. */
rpl_value rn_decode(int32_t codec, const void *data, size_t len);

/* ---- errors ---- */
/* The error (+1) for a value the codec cannot send (RPL_ERROR_TYPE). */
rpl_error_t *rn_type_error(int32_t codec, const rpl_value *v);
/* A new error (+1) of domain "nats" for status s, with the client's last
   error text for this thread when it has one, else the status text;
   prefix (may be NULL) goes first ("prefix: text"). */
rpl_error_t *rn_nats_error(natsStatus s, const char *prefix);
/* Records a failure as this thread's last error (rpl_set_last_error) with a
   formatted text; returns status. See ripple_nats.h, Errors. */
rpl_status rn_fail(rpl_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records what the NATS client or server refused (status s): RPL_ERR_FAILED
   with rn_nats_error(s, prefix) as rpl_last_signal_error() and its text as
   the message (RPL_ERR_NOMEM for NATS_NO_MEMORY). Returns the status. */
rpl_status rn_fail_nats(natsStatus s, const char *prefix);
/* Records e (+1, taken) as the failure: RPL_ERR_FAILED, e as
   rpl_last_signal_error() and its text as the message. Returns the status. */
rpl_status rn_fail_error(rpl_error_t *e);
/* Subject checks: false after recording the failure for fn. */
bool rn_check_subject(const char *fn, const char *what, const char *subject, bool wildcards_ok);
bool rn_check_name(const char *fn, const char *what, const char *name, bool null_ok, const char *forbidden);
/* A copy of s (NULL stays NULL); aborts on out of memory. */
char *rn_strdup(const char *s);
void *rn_calloc(size_t n, size_t size);

/* ---- the connection ---- */
/* A NATS subscription the connection knows of (the first member of each
   kind's record): it ends when the connection closes, and the connection's
   error handler finds it for a slow consumer. Reference counted. */
typedef struct rn_sub rn_sub;
struct rn_sub {
    _Atomic long refs;
    struct rn_conn *c;     /* one reference, released by free_fn's caller */
    rn_sub *prev, *next;   /* guarded by the connection's mu */
    bool listed;
    natsSubscription *sub; /* set before it is listed */
    void (*on_close)(rn_sub *s);                 /* the connection closed */
    void (*on_error)(rn_sub *s, natsStatus err); /* an asynchronous error (slow consumer) */
    void (*free_fn)(rn_sub *s);                  /* the last reference went */
};
void rn_sub_retain(rn_sub *s);
/* The last reference runs free_fn, then releases the connection. */
void rn_sub_release(rn_sub *s);
/* Fills in a new record's base (one reference, the caller's). */
void rn_sub_init(rn_sub *s, struct rn_conn *c, void (*on_close)(rn_sub *), void (*on_error)(rn_sub *, natsStatus),
                 void (*free_fn)(rn_sub *));
/* The disposable a subscription returns: disposing it unsubscribes (and
   unlists) s; it holds the caller's reference. */
rpl_disposable_t *rn_sub_disposable(rn_sub *s);

/* A subscription delivering messages, decoded, to one Ripple subscriber
   (rpl_nats_subscribe and the JetStream subscription). */
typedef struct rn_data_sub {
    rn_sub base;
    rpl_subscriber_t *subscriber;
    bool messages;  /* (subject, payload, reply-to) tuples */
} rn_data_sub;
rn_data_sub *rn_data_sub_create(struct rn_conn *c, rpl_subscriber_t *subscriber, bool messages);

/* A connection and a subject: what both publishes keep. */
typedef struct rn_target {
    struct rn_conn *c;
    char *subject;
} rn_target;
rn_target *rn_target_create(struct rn_conn *c, const char *subject);  /* takes the reference on c */
void rn_target_free(void *t);

typedef struct rn_conn {
    _Atomic long refs;
    pthread_mutex_t mu;
    natsConnection *nc;
    jsCtx *js;
    int32_t codec;
    rpl_subject_t *status;  /* behavior subject of RPL_NATS_* ints */
    bool closed;            /* guarded by mu */
    rn_sub subs;            /* list head (sentinel), guarded by mu */
    /* request/reply: one wildcard inbox subscription, made on first use */
    natsSubscription *mux;
    char *mux_prefix;       /* "_INBOX.<id>." */
    uint64_t next_token;
    struct rn_req **reqs;   /* hash table token -> pending request */
    size_t req_buckets;
    char *msgid_prefix;     /* JetStream message ids: "<id>-" */
    /* Ended NATS subscriptions not destroyed yet (see rn_flush), oldest
       first, guarded by mu. */
    natsSubscription **retired;
    size_t nretired, retired_cap;
    _Atomic uint64_t next_msgid;
    const void *handle;     /* the rpl_nats_t, while registered */
} rn_conn;

void rn_conn_retain(rn_conn *c);
void rn_conn_release(rn_conn *c);
/* natsConnection_FlushTimeout, which also destroys the subscriptions that
   ended before it began (see connection.c). */
natsStatus rn_flush(rn_conn *c, int64_t timeout_ms);
/* The connection behind a handle (+1 on the record), or NULL after
   recording the failure for fn. */
rn_conn *rn_conn_get(const rpl_nats_t *nc, const char *fn);
/* rn_conn_get for an entry point whose other arguments were checked first
   (args_ok): NULL, the failed check's error kept, when they are not. */
rn_conn *rn_conn_checked(const rpl_nats_t *nc, const char *fn, bool args_ok);
/* Lists s so that it ends when the connection closes; false (not listed)
   when it is closed already. */
bool rn_conn_add_sub(rn_conn *c, rn_sub *s);
void rn_conn_remove_sub(rn_conn *c, rn_sub *s);

/* Subscribes base (its first reference is the caller's; on failure it is
   released and the status returned) on the client, lists it with the
   connection, and waits for the server's round trip, so the interest is
   registered when it returns (see ripple_nats.h). rn_listen_started does the
   part after the client's subscribe call (JetStream makes its own). */
natsStatus rn_listen(rn_conn *c, rn_sub *base, const char *subject, const char *queue, natsMsgHandler handler);
void rn_listen_started(rn_conn *c, rn_sub *base, natsSubscription *sub);
/* Ends subscriber for a failed NATS call: completed if the connection is
   closed, else an error of domain "nats" with the client's text. */
void rn_send_failure(rpl_subscriber_t *subscriber, natsStatus s, const char *what);

/* Request mux (request.c): fails every pending request when the connection
   closes. */
void rn_requests_close(rn_conn *c);
void rn_requests_free(rn_conn *c);

#endif
