/*
 * ripple_nats.h - Ripple signals across processes and machines, through a
 * NATS server (libripple-nats.so, pkg-config ripple-nats).
 *
 * A separate library over the public Ripple C API (ripple.h) and the NATS C
 * client (nats.c); libripple itself does not depend on it. Subjects map onto
 * NATS subjects, queue groups share work, request/reply and serve answer
 * questions, and JetStream keeps streams that must not lose data.
 *
 * ---------------------------------------------------------------------------
 * Conventions (those of ripple.h, and these)
 * ---------------------------------------------------------------------------
 * Handles   rpl_nats_t is a Ripple handle: rpl_retain()/rpl_release() work on
 *           it, the functions returning one return +1. Signals and
 *           disposables made here are ordinary Ripple handles and do not
 *           keep the connection open: releasing the last reference of the
 *           rpl_nats_t closes the connection (rpl_disposable_dispose() on it,
 *           cast to rpl_disposable_t *, closes it too); the status signal then
 *           sends RPL_NATS_CLOSED and completes, every data subscription
 *           completes, pending requests fail, and later subscriptions to its
 *           signals complete at once. A pointer that is not a live
 *           connection is refused (see Errors).
 * Payloads  With RPL_NATS_CODEC_MSGPACK (the default) a value travels as
 *           MessagePack: nil, bool, int (int64), double, string (str), bytes
 *           (bin) and tuples (arrays, nested) - so Python's msgpack or any
 *           other client reads what C sends. A pointer, signal or event
 *           cannot travel: it ends that publish with an error of domain
 *           RPL_ERROR_DOMAIN, code RPL_ERROR_TYPE. A received payload that
 *           is not one MessagePack value of those kinds (a map, an ext type,
 *           an integer above INT64_MAX, trailing bytes, garbage) arrives as
 *           an RPL_TYPE_BYTES value holding the payload as it came: one bad
 *           publisher ends no subscriber's stream and nothing is dropped.
 *           With RPL_NATS_CODEC_RAW a payload is bytes both ways: a bytes
 *           value is sent as is, a string as its UTF-8 bytes (without the
 *           NUL), any other type ends that publish with RPL_ERROR_TYPE, and
 *           every message arrives as an RPL_TYPE_BYTES value.
 * Threads   Every function may be called from any thread. Events arrive on a
 *           thread of the NATS client (one per subscription); compose
 *           rpl_signal_deliver_on to move them. One subscription's events
 *           never overlap, and messages from one publisher arrive in order.
 *           rpl_nats_connect blocks the calling thread's asynchronous
 *           signals while it connects (an interrupted read would fail the
 *           handshake): one sent then runs when it returns, or on another
 *           thread; the client's threads block them for good.
 * Errors    A function returning a handle returns NULL on failure, one
 *           returning rpl_status a negative status, and rpl_last_error()
 *           says why, as for ripple.h's functions: RPL_ERR_NULL for a NULL
 *           nc, subject, stream, urls or fn; RPL_ERR_KIND for an nc that is
 *           not an open rpl_nats_t; RPL_ERR_INVALID for an empty or invalid
 *           argument (a subject with spaces or empty tokens, a wildcard in a
 *           publish subject, timeout_ns 0, an unknown codec, a request value
 *           that cannot travel); RPL_ERR_FAILED when the NATS client or the
 *           server refused (no server, credentials, TLS, a stream update):
 *           then rpl_last_signal_error() is that error (borrowed, as for the
 *           blocking helpers; domain "nats", an RPL_NATS_ERR_* code).
 *           rpl_last_error_message() is the function's name and the reason,
 *           the server's own text for a refusal, e.g.
 *           "rpl_nats_connect: Authorization Violation". Errors travelling
 *           in signals are rpl_error_t values:
 *             - domain RPL_NATS_ERROR_DOMAIN ("nats") with a NATS client
 *               status as code (RPL_NATS_ERR_* below): the server's or the
 *               client's text, without the client's source location;
 *             - domain "ripple": RPL_ERROR_TIMEOUT for a request past its
 *               timeout, RPL_ERROR_TYPE for a value that cannot travel.
 *           A failed call still consumes its
 *           by-value arguments and runs the release function it was given.
 * Delivery  NATS core delivery is at most once. A subscriber slower than the
 *           client's pending limit (65536 messages or 64 MiB waiting) fails
 *           with RPL_NATS_ERR_SLOW_CONSUMER: the client had to drop messages,
 *           so the stream ends with an error instead of going on with a gap.
 *           JetStream subscriptions are at least once (see
 *           rpl_nats_stream_subscribe).
 */
#ifndef RIPPLE_NATS_H
#define RIPPLE_NATS_H

#include <ripple.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-extension"
#endif

/* ===========================================================================
 * Connections
 * A connection to a NATS server or cluster: options, connecting, the status
 * signal and the error codes.
 * ======================================================================== */

/* A connection to a NATS server (or cluster): a Ripple handle. */
typedef struct rpl_nats rpl_nats_t;

#define RPL_NATS_OPTIONS_VERSION 1
/* How to connect. Every string is copied by rpl_nats_connect and may be NULL
   (not used). Start from RPL_NATS_OPTIONS_INIT so that fields added later keep
   their defaults. */
typedef struct rpl_nats_options {
    uint32_t version;              /* RPL_NATS_OPTIONS_VERSION */
    const char *RPL_NULLABLE name; /* the client name the server shows */
    const char *RPL_NULLABLE token;                  /* token authentication */
    const char *RPL_NULLABLE user, *RPL_NULLABLE password; /* user/password */
    const char *RPL_NULLABLE creds_file;             /* a .creds file (user JWT + nkey seed), for
                                                        a server in operator (JWT) mode */
    const char *RPL_NULLABLE tls_ca;   /* PEM file of the CA to trust; setting any tls_* turns TLS on */
    const char *RPL_NULLABLE tls_cert; /* PEM client certificate (with tls_key) */
    const char *RPL_NULLABLE tls_key;  /* PEM private key of tls_cert */
    uint64_t reconnect_wait_ns;    /* pause between reconnect attempts to one server */
    int32_t max_reconnects;        /* -1: for ever; 0: never reconnect */
    int32_t codec;                 /* RPL_NATS_CODEC_* */
} rpl_nats_options;
/* Defaults: reconnect for ever every 2 s, MessagePack. */
#define RPL_NATS_OPTIONS_INIT \
    { RPL_NATS_OPTIONS_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 2000000000u, -1, 0 }

enum { RPL_NATS_CODEC_MSGPACK = 0, RPL_NATS_CODEC_RAW = 1 };
/* The connection's states, as rpl_nats_status sends them (int values). */
enum { RPL_NATS_CONNECTED = 1, RPL_NATS_DISCONNECTED, RPL_NATS_RECONNECTED, RPL_NATS_CLOSED };

/* The domain of errors the NATS client or server reports. */
#define RPL_NATS_ERROR_DOMAIN "nats"
/* Codes of domain RPL_NATS_ERROR_DOMAIN: the NATS C client's natsStatus
   values, named here for the ones a program meets (others may occur, with
   their text). */
enum {
    RPL_NATS_ERR_ERR = 1,                  /* generic error */
    RPL_NATS_ERR_PROTOCOL = 2,             /* protocol error */
    RPL_NATS_ERR_IO = 3,                   /* I/O error */
    RPL_NATS_ERR_CONNECTION_CLOSED = 5,    /* the connection is closed */
    RPL_NATS_ERR_NO_SERVER = 6,            /* no server could be reached */
    RPL_NATS_ERR_SECURE_REQUIRED = 9,      /* the server requires TLS */
    RPL_NATS_ERR_AUTH_FAILED = 11,         /* the server refused the credentials */
    RPL_NATS_ERR_NOT_PERMITTED = 12,       /* a permissions violation */
    RPL_NATS_ERR_NOT_FOUND = 13,           /* no such stream or consumer */
    RPL_NATS_ERR_INVALID_SUBJECT = 15,     /* a subject that is not valid for the call */
    RPL_NATS_ERR_INVALID_ARG = 16,         /* a bad argument */
    RPL_NATS_ERR_SLOW_CONSUMER = 20,       /* the subscriber fell behind; messages were dropped */
    RPL_NATS_ERR_MAX_PAYLOAD = 21,         /* the payload is above the server's maximum */
    RPL_NATS_ERR_TIMEOUT = 26,             /* the client or server timed out */
    RPL_NATS_ERR_SSL = 29,                 /* TLS failed (e.g. a certificate not trusted) */
    RPL_NATS_ERR_NO_RESPONDERS = 34        /* a request reached no responder */
};
/* A serve handler's error travels back to the requester with its domain,
   code and message (NATS headers Nats-Service-Error, Nats-Service-Error-Code
   and Ripple-Error-Domain), and the requester's signal fails with it. */

/* Connects to urls (comma separated, "nats://host:port" or "tls://..."; the
   client tries them in random order and reconnects to any of them, and to
   servers the cluster announces). A tls:// URL, like any tls_* option,
   makes the connection require TLS: a server without it is refused
   (RPL_ERR_FAILED), never used in the clear. Blocks until connected or refused. opts
   may be NULL (the defaults). +1.
   Errors: urls NULL (RPL_ERR_NULL), empty or listing no URL (only commas
   and spaces), an unknown opts->version or codec (RPL_ERR_INVALID); RPL_ERR_FAILED with rpl_last_signal_error()'s
   code saying why for a creds_file, tls_ca, tls_cert or tls_key that cannot
   be read (missing, empty, a directory: RPL_NATS_ERR_ERR for creds_file,
   RPL_NATS_ERR_SSL for the TLS files; checked before connecting, the
   message e.g. 'rpl_nats_connect: creds_file "u.creds" cannot be read: No
   such file or directory'), a creds file holding no user JWT or seed
   (RPL_NATS_ERR_ERR), no server reachable (RPL_NATS_ERR_NO_SERVER), a
   server refusing the credentials - a wrong token or password, a creds
   file whose user's account the server does not trust or whose seed does
   not match its JWT - (RPL_NATS_ERR_AUTH_FAILED or
   RPL_NATS_ERR_NOT_PERMITTED, the message "rpl_nats_connect: Authorization
   Violation"), a certificate not trusted (RPL_NATS_ERR_SSL).
   With a creds_file and a libnats older than 3.8.0, a refused connect is
   tried twice more before it is reported: those versions leave the
   signature out of one connect in 256 and the server refuses it. A
   reconnect refused that way is one failed reconnect attempt (libnats
   stops reconnecting when a server refuses twice in a row: one reconnect
   in 65536). */
rpl_nats_t *RPL_NULLABLE rpl_nats_connect(const char *RPL_NULLABLE urls,
                                          const rpl_nats_options *RPL_NULLABLE opts);

/* The connection's state as int values RPL_NATS_*: a new subscriber first
   gets the current state, then each change as it happens (DISCONNECTED when
   the server goes away, RECONNECTED when the client is back - its
   subscriptions resume by themselves). When the connection closes for good
   (its last handle released, or reconnecting given up) it sends
   RPL_NATS_CLOSED and completes. +1. Errors: nc NULL (RPL_ERR_NULL) or not a
   connection (RPL_ERR_KIND). */
rpl_signal_t *RPL_NULLABLE rpl_nats_status(rpl_nats_t *RPL_NULLABLE nc);

/* ===========================================================================
 * Messaging: subscribe, publish, request and serve
 * Core NATS: at most once, as fast as the network.
 * ======================================================================== */

/* A hot signal of the messages on subject (wildcards * and > allowed), each
   decoded to a value. With a queue_group (NULL for none) each message goes
   to one member of the group. Each subscription of the signal is one NATS
   subscription, whose interest the server has registered when
   rpl_signal_subscribe returns (a round trip): a message published after
   that reaches it. Disposing it unsubscribes. The signal never completes by
   itself: it completes when the connection closes, and fails on a slow
   consumer (see Delivery). +1.
   Errors: nc NULL (RPL_ERR_NULL) or not a connection (RPL_ERR_KIND),
   subject NULL (RPL_ERR_NULL), empty or invalid (spaces, empty tokens;
   RPL_ERR_INVALID), queue_group empty or with spaces (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_nats_subscribe(rpl_nats_t *RPL_NULLABLE nc, const char *RPL_NULLABLE subject,
                                              const char *RPL_NULLABLE queue_group);
/* rpl_nats_subscribe whose values are 3-tuples (subject string, payload value,
   reply-to string or nil): a subscriber can answer a request itself with
   rpl_nats_publish on the reply-to subject. Same errors. +1. */
rpl_signal_t *RPL_NULLABLE rpl_nats_subscribe_messages(rpl_nats_t *RPL_NULLABLE nc, const char *RPL_NULLABLE subject,
                                                       const char *RPL_NULLABLE queue_group);

/* Subscribes to sig and publishes each value it sends on subject (no
   wildcards). Returns the subscription's disposable (+1; disposing it stops
   publishing, releasing it does not). A value that cannot be encoded, or a
   publish the client refuses (payload above the server's maximum, the
   connection closed), ends the publish: sig's subscription is disposed and
   the disposable reports disposed. When sig completes, what was published
   is flushed to the server (up to 5 s) before the subscription ends. While
   the connection is reconnecting, messages wait in the client's reconnect
   buffer (8 MiB). Errors: nc NULL (RPL_ERR_NULL) or not a connection
   (RPL_ERR_KIND), subject NULL (RPL_ERR_NULL), empty or invalid for a
   publish (a wildcard; RPL_ERR_INVALID); sig NULL or not a signal is
   refused by Ripple itself (RPL_ERR_NULL, RPL_ERR_KIND). */
rpl_disposable_t *RPL_NULLABLE rpl_nats_publish(rpl_nats_t *RPL_NULLABLE nc, rpl_signal_t *RPL_NULLABLE sig,
                                                const char *RPL_NULLABLE subject);

/* A cold signal: each subscription sends request (encoded once, here) to
   subject and gets the first reply: its value, then completed. It fails
   with domain "ripple", RPL_ERROR_TIMEOUT when no reply came within
   timeout_ns (RPL_FOREVER: no limit), with domain "nats",
   RPL_NATS_ERR_NO_RESPONDERS when nobody listens on subject, and with the
   responder's error when rpl_nats_serve answered with one. Disposing it
   forgets the request. Consumes request. +1.
   Errors: as for rpl_nats_publish, timeout_ns 0 and a request the codec
   cannot encode (RPL_ERR_INVALID, the message naming its type). */
rpl_signal_t *RPL_NULLABLE rpl_nats_request(rpl_nats_t *RPL_NULLABLE nc, const char *RPL_NULLABLE subject,
                                            rpl_value request, uint64_t timeout_ns);

/* Answers requests on subject (wildcards allowed; queue_group NULL or a
   group sharing the requests): for each, fn(ctx, request) runs on the
   client's thread and returns a signal (+1, taken); its first value is the
   reply. An error from it, a signal completing without a value, or fn
   returning NULL (RPL_ERROR_CALLBACK) becomes an error reply, which the
   requester receives as that error rather than a timeout. A message without
   a reply subject is handed to fn and its result discarded. The server has
   registered the interest when this returns. Returns a disposable (+1):
   disposing it stops serving. release(ctx) runs once, after the last fn
   call has returned and no other can start (the service stopped: disposed,
   or its connection closed) and the disposable has been released - or at
   once on failure. Releasing the disposable without disposing it leaves the
   service running until the connection closes.
   Errors: as for rpl_nats_subscribe, fn NULL (RPL_ERR_NULL). */
rpl_disposable_t *RPL_NULLABLE rpl_nats_serve(rpl_nats_t *RPL_NULLABLE nc, const char *RPL_NULLABLE subject,
                                              const char *RPL_NULLABLE queue_group,
                                              rpl_signal_t *RPL_NULLABLE (*RPL_NULLABLE fn)(void *RPL_NULLABLE ctx,
                                                                                              const rpl_value *RPL_NONNULL request),
                                              void *RPL_NULLABLE ctx, rpl_release_fn RPL_NULLABLE release);

/* ===========================================================================
 * JetStream
 * Streams the server keeps (on disk), replicated and replayable: at least
 * once.
 * ======================================================================== */

/* Makes sure the stream exists with these subjects (comma separated,
   wildcards allowed) and replicas (0 means 1; at most 5, and no more than
   the cluster's servers): creates it (file storage, limits retention), or
   updates an existing one to these settings when the server allows it,
   else refuses with the server's reason (e.g. a change of replicas on a
   server that cannot, subjects overlapping another stream). Blocks for the
   server's answer. Errors (the status returned and rpl_last_error()): nc,
   stream or subjects NULL (RPL_ERR_NULL), nc not a connection
   (RPL_ERR_KIND), stream or subjects empty or invalid, replicas negative
   (RPL_ERR_INVALID), no JetStream context (RPL_ERR_STATE), no JetStream on
   the server or the server's refusal (RPL_ERR_FAILED, the server's reason
   in the message, e.g. "rpl_nats_stream_ensure: subjects overlap with an
   existing stream"). */
rpl_status rpl_nats_stream_ensure(rpl_nats_t *RPL_NULLABLE nc, const char *RPL_NULLABLE stream,
                                  const char *RPL_NULLABLE subjects, int32_t replicas);

/* A cold signal: each subscription subscribes to sig and publishes each of
   its values on subject, waits for the stream's acknowledgement and sends
   the stored message's sequence number (int), in order. A publish that
   times out (the stream's leader moving, the client reconnecting) is
   retried with the same message id for up to 30 s, so the stream stores it
   once; one that no stream answers is retried for 10 s of those (a stream
   electing a new leader answers so for some seconds). sig's error or
   completion ends it the same way. It fails, and disposes sig's
   subscription, with RPL_ERROR_TYPE for a value that cannot be encoded,
   with RPL_NATS_ERR_NO_RESPONDERS when no stream takes subject (after those
   10 s), and with the server's error for a publish it refuses.
   Each publish blocks the thread that delivers sig's value until it is
   acknowledged. +1. Errors: as for rpl_nats_publish. */
rpl_signal_t *RPL_NULLABLE rpl_nats_stream_publish(rpl_nats_t *RPL_NULLABLE nc, rpl_signal_t *RPL_NULLABLE sig,
                                                   const char *RPL_NULLABLE subject);

/* A cold signal of the messages of stream, each decoded to a value, through
   the durable consumer named durable (NULL: an ephemeral consumer, deleted
   when the subscription ends). At least once: a message is acknowledged
   only after the send to the subscriber returned - that is, after every
   observer's on_next reached synchronously from it returned (an operator
   that moves delivery, such as deliver_on, hands the value over and the
   message counts as done then). A message not acknowledged (the process
   died, the subscription was disposed first) is delivered again after the
   consumer's ack wait (10 s), to the next subscription with the same
   durable.
   The durable outlives the subscription: disposing it leaves the consumer
   on the server, and the next subscription with that name goes on where it
   left off. start_sequence 0: a new durable starts at the stream's first
   message, an existing one where it left off; n > 0: delivery starts at
   sequence n (an existing durable is made anew from n). The consumer is
   created (or found) when a subscription starts: a missing stream fails
   the subscription (RPL_NATS_ERR_NOT_FOUND). Completes when the connection
   closes. +1. Errors: nc NULL (RPL_ERR_NULL) or not a connection
   (RPL_ERR_KIND), stream NULL (RPL_ERR_NULL) or empty, durable empty or
   with '.', '*', '>' or spaces (RPL_ERR_INVALID). */
rpl_signal_t *RPL_NULLABLE rpl_nats_stream_subscribe(rpl_nats_t *RPL_NULLABLE nc, const char *RPL_NULLABLE stream,
                                                     const char *RPL_NULLABLE durable, uint64_t start_sequence);

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* RIPPLE_NATS_H */
