/* rpl_nats_request and rpl_nats_serve. Requests share one wildcard inbox
   subscription per connection (the mux): each request is a token in a
   table, answered by the reply that names it, or by its timer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { REQ_BUCKETS = 1024 };

typedef struct rn_req {
    _Atomic long refs;
    struct rn_req *next;   /* in the table, guarded by the connection's mu */
    bool in_table;
    uint64_t token;
    rn_conn *c;
    rpl_subscriber_t *subscriber;
    rpl_disposable_t *timer;
} rn_req;

static void req_release(void *ctx) {
    rn_req *r = ctx;
    if (atomic_fetch_sub(&r->refs, 1) != 1) return;
    rpl_release(r->timer);
    rpl_release(r->subscriber);
    rn_conn_release(r->c);
    free(r);
}

/* Takes r out of the table (under mu); true if it was there, and the
   table's reference is then the caller's. */
static bool take_locked(rn_conn *c, rn_req *r) {
    if (!r->in_table) return false;
    for (rn_req **pp = &c->reqs[r->token % c->req_buckets]; *pp; pp = &(*pp)->next)
        if (*pp == r) { *pp = r->next; break; }
    r->in_table = false;
    return true;
}

static rn_req *take_token(rn_conn *c, uint64_t token) {
    rn_req *found = NULL;
    pthread_mutex_lock(&c->mu);
    if (c->reqs)
        for (rn_req *r = c->reqs[token % c->req_buckets]; r; r = r->next)
            if (r->token == token) { found = r; take_locked(c, r); break; }
    pthread_mutex_unlock(&c->mu);
    return found;
}

static bool take(rn_conn *c, rn_req *r) {
    pthread_mutex_lock(&c->mu);
    bool ok = take_locked(c, r);
    pthread_mutex_unlock(&c->mu);
    return ok;
}

/* Sends the error a reply carries in its headers (see rpl_nats_serve), or
   returns false when it carries none. */
static bool reply_error(natsMsg *m, rpl_subscriber_t *s) {
    const char *text = NULL, *code = NULL, *domain = NULL;
    if (natsMsgHeader_Get(m, "Nats-Service-Error", &text) != NATS_OK) return false;
    natsMsgHeader_Get(m, "Nats-Service-Error-Code", &code);
    natsMsgHeader_Get(m, "Ripple-Error-Domain", &domain);
    rpl_error_t *e = rpl_error_create(domain ? domain : RPL_NATS_ERROR_DOMAIN, code ? strtoll(code, NULL, 10) : 0, text);
    rpl_subscriber_send_error(s, e);
    rpl_release(e);
    return true;
}

static void on_reply(natsConnection *nc, natsSubscription *sub, natsMsg *m, void *closure) {
    (void)nc, (void)sub;
    rn_conn *c = closure;
    const char *subject = natsMsg_GetSubject(m);
    const char *dot = strrchr(subject, '.');
    rn_req *r = dot ? take_token(c, strtoull(dot + 1, NULL, 10)) : NULL;
    if (r) {
        if (r->timer) rpl_disposable_dispose(r->timer);  /* none without a timeout */
        if (natsMsg_IsNoResponders(m)) {
            rpl_error_t *e = rpl_error_create(RPL_NATS_ERROR_DOMAIN, NATS_NO_RESPONDERS, "no responders: nobody answers requests on this subject");
            rpl_subscriber_send_error(r->subscriber, e);
            rpl_release(e);
        } else if (!reply_error(m, r->subscriber)) {
            rpl_value v = rn_decode(c->codec, natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m));
            rpl_subscriber_send_next(r->subscriber, v);
            rpl_subscriber_send_completed(r->subscriber);
        }
        req_release(r);
    }
    natsMsg_Destroy(m);
}

static void mux_complete(void *closure) { rn_conn_release(closure); }

/* The mux, made on first use. */
static natsStatus ensure_mux(rn_conn *c) {
    natsStatus s = NATS_OK;
    pthread_mutex_lock(&c->mu);
    if (c->closed) s = NATS_CONNECTION_CLOSED;
    else if (!c->mux) {
        char *inbox = NULL;
        s = natsInbox_Create(&inbox);
        if (s == NATS_OK) {
            size_t n = strlen(inbox);
            char *wild = rn_calloc(1, n + 3);
            memcpy(wild, inbox, n);
            memcpy(wild + n, ".*", 3);
            s = natsConnection_Subscribe(&c->mux, c->nc, wild, on_reply, c);
            if (s == NATS_OK) {
                rn_conn_retain(c);  /* until the mux's last delivery */
                if (natsSubscription_SetOnCompleteCB(c->mux, mux_complete, c) != NATS_OK) rn_conn_release(c);
                natsSubscription_SetPendingLimits(c->mux, -1, -1);
                wild[n + 1] = 0;  /* "<inbox>." */
                c->mux_prefix = wild;
                c->req_buckets = REQ_BUCKETS;
                c->reqs = rn_calloc(REQ_BUCKETS, sizeof *c->reqs);
            } else {
                c->mux = NULL;
                free(wild);
            }
            natsInbox_Destroy(inbox);
        }
    }
    pthread_mutex_unlock(&c->mu);
    return s;
}

void rn_requests_close(rn_conn *c) {
    for (;;) {
        rn_req *r = NULL;
        pthread_mutex_lock(&c->mu);
        for (size_t i = 0; c->reqs && i < c->req_buckets && !r; i++)
            if (c->reqs[i]) { r = c->reqs[i]; take_locked(c, r); }
        pthread_mutex_unlock(&c->mu);
        if (!r) return;
        if (r->timer) rpl_disposable_dispose(r->timer);
        rn_send_failure(r->subscriber, NATS_CONNECTION_CLOSED, "request");
        req_release(r);
    }
}

void rn_requests_free(rn_conn *c) {
    if (c->mux) natsSubscription_Destroy(c->mux);
    free(c->reqs);
    free(c->mux_prefix);
}

typedef struct req_sig {
    rn_conn *c;
    char *subject;
    void *payload;
    size_t len;
    uint64_t timeout_ns;
} req_sig;

static void on_timeout(void *ctx) {
    rn_req *r = ctx;
    if (!take(r->c, r)) return;
    rpl_error_t *e = rpl_error_create(RPL_ERROR_DOMAIN, RPL_ERROR_TIMEOUT, "request timed out: no reply within the timeout");
    rpl_subscriber_send_error(r->subscriber, e);
    rpl_release(e);
    req_release(r);  /* the table's reference */
}

static void dispose_req(void *ctx) {
    rn_req *r = ctx;
    if (take(r->c, r)) req_release(r);
    if (r->timer) rpl_disposable_dispose(r->timer);
}

static rpl_disposable_t *did_subscribe_req(void *ctx, rpl_subscriber_t *subscriber) {
    req_sig *q = ctx;
    rn_conn *c = q->c;
    natsStatus s = ensure_mux(c);
    if (s != NATS_OK) {
        rn_send_failure(subscriber, s, "request");
        return NULL;
    }
    rn_req *r = rn_calloc(1, sizeof *r);
    atomic_init(&r->refs, 2);  /* the disposable's and the table's */
    r->c = c;
    rn_conn_retain(c);
    r->subscriber = rpl_retain(subscriber);
    char reply[128];
    pthread_mutex_lock(&c->mu);
    r->token = ++c->next_token;
    snprintf(reply, sizeof reply, "%s%llu", c->mux_prefix, (unsigned long long)r->token);
    rn_req **bucket = &c->reqs[r->token % c->req_buckets];
    r->next = *bucket;
    *bucket = r;
    r->in_table = true;
    /* The timer exists before a reply or the timeout can look for it. */
    if (q->timeout_ns != RPL_FOREVER) {
        atomic_fetch_add(&r->refs, 1);  /* the timer's */
        r->timer = rpl_scheduler_after(rpl_scheduler_background(), q->timeout_ns, on_timeout, r, req_release);
    }
    pthread_mutex_unlock(&c->mu);
    s = natsConnection_PublishRequest(c->nc, q->subject, reply, q->payload, (int)q->len);
    /* The client sends a plain publish after a millisecond, to gather more;
       a flush writes the request now (with a PING), and the wait for the
       PONG overlaps the wait for the reply. While disconnected the request
       waits in the reconnect buffer for its timeout. */
    if (s == NATS_OK) rn_flush(c, 1000);
    if (s != NATS_OK && take(c, r)) {
        if (r->timer) rpl_disposable_dispose(r->timer);
        rn_send_failure(subscriber, s, "request");
        req_release(r);
    }
    return rpl_disposable_create_with_release(dispose_req, r, req_release);
}

static void free_req_sig(void *ctx) {
    req_sig *q = ctx;
    rn_conn_release(q->c);
    free(q->subject);
    free(q->payload);
    free(q);
}

RN_EXPORT rpl_signal_t *rpl_nats_request(rpl_nats_t *nc, const char *subject, rpl_value request, uint64_t timeout_ns) {
    rn_conn *c = rn_conn_get(nc, "rpl_nats_request");
    if (!c) {
        rpl_value_release(&request);
        return NULL;
    }
    if (!rn_check_subject("rpl_nats_request", "subject", subject, false)) goto fail;
    if (timeout_ns == 0) {
        rn_fail(RPL_ERR_INVALID, "rpl_nats_request: timeout_ns is 0");
        goto fail;
    }
    rn_buf b;
    rn_buf_init(&b);
    if (!rn_encode(c->codec, &request, &b)) {
        rpl_error_t *e = rn_type_error(c->codec, &request);
        rn_fail(RPL_ERR_INVALID, "rpl_nats_request: %s", rpl_error_message(e));
        rpl_release(e);
        rn_buf_free(&b);
        goto fail;
    }
    req_sig *q = rn_calloc(1, sizeof *q);
    q->c = c;
    q->subject = rn_strdup(subject);
    q->len = b.len;
    q->payload = malloc(b.len ? b.len : 1);
    if (!q->payload) abort();
    memcpy(q->payload, b.data, b.len);
    q->timeout_ns = timeout_ns;
    rn_buf_free(&b);
    rpl_value_release(&request);
    return rpl_signal_create(did_subscribe_req, q, free_req_sig);
fail:
    rpl_value_release(&request);
    rn_conn_release(c);
    return NULL;
}

/* ---- serve ---- */
typedef struct serve {
    rn_sub base;
    rpl_signal_t *(*fn)(void *ctx, const rpl_value *request);
    void *ctx;
    rpl_release_fn release;
} serve;

typedef struct reply_ctx {
    rn_conn *c;
    char *reply;
    bool answered;
} reply_ctx;

/* An error reply: empty payload, the error in headers (the NATS service
   convention, plus the domain). */
static void send_error_reply(rn_conn *c, const char *reply, const char *domain, int64_t code, const char *text) {
    if (!reply) return;
    natsMsg *m = NULL;
    if (natsMsg_Create(&m, reply, NULL, NULL, 0) != NATS_OK) return;
    char msg[512], num[32];
    snprintf(msg, sizeof msg, "%s", text && *text ? text : "error");
    for (char *p = msg; *p; p++)
        if (*p == '\r' || *p == '\n') *p = ' ';  /* a header value is one line */
    snprintf(num, sizeof num, "%lld", (long long)code);
    natsMsgHeader_Set(m, "Nats-Service-Error", msg);
    natsMsgHeader_Set(m, "Nats-Service-Error-Code", num);
    natsMsgHeader_Set(m, "Ripple-Error-Domain", domain ? domain : RPL_ERROR_DOMAIN);
    natsConnection_PublishMsg(c->nc, m);
    natsMsg_Destroy(m);
}

static void reply_next(void *ctx, const rpl_value *v) {
    reply_ctx *r = ctx;
    if (r->answered) return;
    r->answered = true;
    if (!r->reply) return;
    rn_buf b;
    rn_buf_init(&b);
    if (rn_encode(r->c->codec, v, &b)) {
        natsConnection_Publish(r->c->nc, r->reply, b.data, (int)b.len);
    } else {
        rpl_error_t *e = rn_type_error(r->c->codec, v);
        send_error_reply(r->c, r->reply, rpl_error_domain(e), rpl_error_code(e), rpl_error_message(e));
        rpl_release(e);
    }
    rn_buf_free(&b);
}

static void reply_err(void *ctx, const rpl_error_t *e) {
    reply_ctx *r = ctx;
    if (r->answered) return;
    r->answered = true;
    send_error_reply(r->c, r->reply, rpl_error_domain(e), rpl_error_code(e), rpl_error_message(e));
}

static void reply_done(void *ctx) {
    reply_ctx *r = ctx;
    if (r->answered) return;
    r->answered = true;
    send_error_reply(r->c, r->reply, RPL_ERROR_DOMAIN, RPL_ERROR_GENERIC, "the serve handler's signal completed without a value");
}

static void reply_free(void *ctx) {
    reply_ctx *r = ctx;
    rn_conn_release(r->c);
    free(r->reply);
    free(r);
}

static void on_request(natsConnection *nc, natsSubscription *sub, natsMsg *m, void *closure) {
    (void)nc, (void)sub;
    serve *sv = closure;
    rn_conn *c = sv->base.c;
    rpl_value req = rn_decode(c->codec, natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m));
    const char *reply = natsMsg_GetReply(m);
    reply_ctx *r = rn_calloc(1, sizeof *r);
    r->c = c;
    rn_conn_retain(c);
    r->reply = reply && *reply ? rn_strdup(reply) : NULL;
    natsMsg_Destroy(m);
    rpl_signal_t *sig = sv->fn(sv->ctx, &req);
    rpl_value_release(&req);
    rpl_signal_t *first = sig ? rpl_signal_take(sig, 1) : NULL;
    rpl_release(sig);
    if (!first) {
        send_error_reply(r->c, r->reply, RPL_ERROR_DOMAIN, RPL_ERROR_CALLBACK,
                         sig ? "the serve handler returned a handle that is not a signal" : "the serve handler returned NULL");
        reply_free(r);
        return;
    }
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_next = reply_next;
    obs.on_error = reply_err;
    obs.on_completed = reply_done;
    obs.release = reply_free;
    obs.ctx = r;
    rpl_release(rpl_signal_subscribe(first, &obs));
    rpl_release(first);
}

static void serve_close(rn_sub *s) { (void)s; }

static void serve_free(rn_sub *s) {
    serve *sv = (serve *)s;
    if (sv->release) sv->release(sv->ctx);
    free(sv);
}

RN_EXPORT rpl_disposable_t *rpl_nats_serve(rpl_nats_t *nc, const char *subject, const char *queue_group,
                                           rpl_signal_t *(*fn)(void *ctx, const rpl_value *request), void *ctx,
                                           rpl_release_fn release) {
    rn_conn *c = rn_conn_get(nc, "rpl_nats_serve");
    if (!c) goto fail;
    if (!fn) {
        rn_fail(RPL_ERR_NULL, "rpl_nats_serve: fn is NULL");
        goto fail;
    }
    if (!rn_check_subject("rpl_nats_serve", "subject", subject, true) ||
        !rn_check_name("rpl_nats_serve", "queue_group", queue_group, true, ""))
        goto fail;
    serve *sv = rn_calloc(1, sizeof *sv);
    rn_sub_init(&sv->base, c, serve_close, NULL, serve_free);
    rn_conn_release(c);  /* the record holds its own */
    sv->fn = fn;
    sv->ctx = ctx;
    sv->release = release;
    natsStatus s = rn_listen(c, &sv->base, subject, queue_group, on_request);  /* sv released on failure */
    if (s != NATS_OK) return rn_fail_nats(s, "rpl_nats_serve"), NULL;
    return rn_sub_disposable(&sv->base);
fail:
    if (c) rn_conn_release(c);
    if (release) release(ctx);
    return NULL;
}
