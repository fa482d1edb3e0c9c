/* rpl_nats_subscribe, rpl_nats_subscribe_messages: a hot signal per subject;
   each of its subscriptions is one NATS subscription. */
#include <stdlib.h>

#include "internal.h"

typedef struct sig_ctx {
    rn_conn *c;
    char *subject, *queue;
    bool messages;
} sig_ctx;

static void on_msg(natsConnection *nc, natsSubscription *sub, natsMsg *m, void *closure) {
    (void)nc, (void)sub;
    rn_data_sub *d = closure;
    rpl_value v = rn_decode(d->base.c->codec, natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m));
    if (d->messages) {
        const char *reply = natsMsg_GetReply(m);
        rpl_value items[3] = { rpl_string(natsMsg_GetSubject(m)), v, reply && *reply ? rpl_string(reply) : rpl_nil() };
        v = rpl_tuple(items, 3);
    }
    rpl_subscriber_send_next(d->subscriber, v);
    natsMsg_Destroy(m);
}

/* The client has delivered its last message to d. */
static void on_complete(void *closure) { rn_sub_release(closure); }

static void on_close(rn_sub *s) { rpl_subscriber_send_completed(((rn_data_sub *)s)->subscriber); }

static void on_error(rn_sub *s, natsStatus err) {
    if (err != NATS_SLOW_CONSUMER) return;
    /* The client dropped messages for this subscriber: end it with an error
       rather than go on with a gap (see ripple_nats.h, Delivery). */
    rpl_error_t *e = rpl_error_create(RPL_NATS_ERROR_DOMAIN, NATS_SLOW_CONSUMER,
                                      "slow consumer: the subscriber fell behind the client's pending limit and messages were dropped");
    rpl_subscriber_send_error(((rn_data_sub *)s)->subscriber, e);
    rpl_release(e);
}

static void free_data_sub(rn_sub *s) {
    rpl_release(((rn_data_sub *)s)->subscriber);
    free(s);
}

rn_data_sub *rn_data_sub_create(rn_conn *c, rpl_subscriber_t *subscriber, bool messages) {
    rn_data_sub *d = rn_calloc(1, sizeof *d);
    rn_sub_init(&d->base, c, on_close, on_error, free_data_sub);
    d->subscriber = rpl_retain(subscriber);
    d->messages = messages;
    return d;
}

static void dispose_sub(void *ctx) {
    rn_sub *s = ctx;
    rn_conn_remove_sub(s->c, s);
    natsSubscription_Unsubscribe(s->sub);
}

static void release_sub(void *ctx) { rn_sub_release(ctx); }

rpl_disposable_t *rn_sub_disposable(rn_sub *s) {
    return rpl_disposable_create_with_release(dispose_sub, s, release_sub);
}

static rpl_disposable_t *did_subscribe(void *ctx, rpl_subscriber_t *subscriber) {
    sig_ctx *sc = ctx;
    rn_data_sub *d = rn_data_sub_create(sc->c, subscriber, sc->messages);
    natsStatus s = rn_listen(sc->c, &d->base, sc->subject, sc->queue, on_msg);
    if (s != NATS_OK) {
        rn_send_failure(subscriber, s, "subscribe");
        return NULL;
    }
    return rn_sub_disposable(&d->base);
}

void rn_send_failure(rpl_subscriber_t *subscriber, natsStatus s, const char *what) {
    if (s == NATS_CONNECTION_CLOSED) {
        rpl_subscriber_send_completed(subscriber);
        return;
    }
    rpl_error_t *e = rn_nats_error(s, what);
    rpl_subscriber_send_error(subscriber, e);
    rpl_release(e);
}

natsStatus rn_listen(rn_conn *c, rn_sub *base, const char *subject, const char *queue, natsMsgHandler handler) {
    natsSubscription *sub = NULL;
    natsStatus s = queue ? natsConnection_QueueSubscribe(&sub, c->nc, subject, queue, handler, base)
                         : natsConnection_Subscribe(&sub, c->nc, subject, handler, base);
    if (s != NATS_OK) {
        rn_sub_release(base);
        return s;
    }
    rn_listen_started(c, base, sub);
    return NATS_OK;
}

void rn_listen_started(rn_conn *c, rn_sub *base, natsSubscription *sub) {
    base->sub = sub;
    rn_sub_retain(base);  /* held by the client until its last delivery */
    if (natsSubscription_SetOnCompleteCB(sub, on_complete, base) != NATS_OK) rn_sub_release(base);
    if (!rn_conn_add_sub(c, base)) {
        base->on_close(base);  /* closed meanwhile */
        return;
    }
    rn_flush(c, 10000);
}

static void release_sig(void *ctx) {
    sig_ctx *sc = ctx;
    rn_conn_release(sc->c);
    free(sc->subject);
    free(sc->queue);
    free(sc);
}

static rpl_signal_t *make_signal(rpl_nats_t *nc, const char *subject, const char *queue, bool messages, const char *fn) {
    rn_conn *c = rn_conn_checked(nc, fn, rn_check_subject(fn, "subject", subject, true) &&
                                             rn_check_name(fn, "queue_group", queue, true, ""));
    if (!c) return NULL;
    sig_ctx *sc = rn_calloc(1, sizeof *sc);
    sc->c = c;
    sc->subject = rn_strdup(subject);
    sc->queue = rn_strdup(queue);
    sc->messages = messages;
    return rpl_signal_create(did_subscribe, sc, release_sig);
}

RN_EXPORT rpl_signal_t *rpl_nats_subscribe(rpl_nats_t *nc, const char *subject, const char *queue_group) {
    return make_signal(nc, subject, queue_group, false, "rpl_nats_subscribe");
}

RN_EXPORT rpl_signal_t *rpl_nats_subscribe_messages(rpl_nats_t *nc, const char *subject, const char *queue_group) {
    return make_signal(nc, subject, queue_group, true, "rpl_nats_subscribe_messages");
}
