/* JetStream: rpl_nats_stream_ensure, rpl_nats_stream_publish (a map whose
   callback publishes and waits for the stream's acknowledgement) and
   rpl_nats_stream_subscribe (a push consumer the library creates as a
   durable, then binds to with an ordinary subscription on its deliver
   subject, acknowledging each message after its delivery returned). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

enum {
    ACK_WAIT_S = 10,          /* an unacknowledged message comes again after this */
    MAX_ACK_PENDING = 1024,   /* messages out at once per consumer */
    EPHEMERAL_IDLE_S = 30,    /* an ephemeral consumer without interest goes after this */
    PUBLISH_WAIT_MS = 5000,   /* one publish's wait for its acknowledgement */
    PUBLISH_RETRY_MS = 30000, /* retries of a publish that timed out, in all */
    NO_RESPONDERS_MS = 10000  /* of those, while no stream answers (a leader being elected) */
};
#define NS_PER_S 1000000000LL

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- stream_ensure ---- */
RN_EXPORT rpl_status rpl_nats_stream_ensure(rpl_nats_t *nc, const char *stream, const char *subjects, int32_t replicas) {
    static const char fn[] = "rpl_nats_stream_ensure";
    rn_conn *c = rn_conn_get(nc, fn);
    if (!c) return rpl_last_error();
    rpl_status st = RPL_ERR_FAILED;  /* until it succeeds; then the failure recorded */
    char *list = NULL;
    const char **subs = NULL;
    if (!rn_check_name(fn, "stream", stream, false, ".*>")) goto done;
    if (!subjects || !*subjects) {
        rn_fail(subjects ? RPL_ERR_INVALID : RPL_ERR_NULL, "%s: subjects is %s", fn, subjects ? "empty" : "NULL");
        goto done;
    }
    if (replicas < 0) {
        rn_fail(RPL_ERR_INVALID, "%s: replicas %d is negative", fn, replicas);
        goto done;
    }
    list = rn_strdup(subjects);
    size_t n = 1;
    for (const char *p = list; *p; p++) n += *p == ',';
    subs = rn_calloc(n, sizeof *subs);
    n = 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        char *end = tok + strlen(tok);
        while (end > tok && end[-1] == ' ') *--end = 0;
        if (!rn_check_subject(fn, "a subject of subjects", tok, true)) goto done;
        subs[n++] = tok;
    }
    if (n == 0) {
        rn_fail(RPL_ERR_INVALID, "%s: subjects \"%s\" lists no subject", fn, subjects);
        goto done;
    }
    if (!c->js) {
        rn_fail(RPL_ERR_STATE, "%s: no JetStream context", fn);
        goto done;
    }
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = stream;
    cfg.Subjects = subs;
    cfg.SubjectsLen = (int)n;
    cfg.Replicas = replicas ? replicas : 1;
    cfg.Storage = js_FileStorage;
    jsStreamInfo *si = NULL;
    jsErrCode jerr = 0;
    natsStatus s = js_GetStreamInfo(&si, c->js, stream, NULL, &jerr);
    if (s == NATS_OK) {
        jsStreamInfo_Destroy(si);
        si = NULL;
        s = js_UpdateStream(&si, c->js, &cfg, NULL, &jerr);
    } else if (s == NATS_NOT_FOUND) {
        s = js_AddStream(&si, c->js, &cfg, NULL, &jerr);
    }
    if (si) jsStreamInfo_Destroy(si);
    if (s != NATS_OK) {
        rn_fail_nats(s, fn);
        goto done;
    }
    st = RPL_OK;
done:
    if (st != RPL_OK) st = rpl_last_error();
    free(subs);
    free(list);
    rn_conn_release(c);
    return st;
}

/* ---- stream_publish ---- */
/* Whether a failed publish goes again: a timeout or a lost connection, for
   PUBLISH_RETRY_MS in all; no responders for NO_RESPONDERS_MS from the first
   one - a stream whose leader is being elected (after losing a server, some
   seconds) answers like a subject no stream takes. */
static bool retryable(rn_conn *c, natsStatus s, int64_t now, int64_t deadline, int64_t *no_responders_since) {
    if (now >= deadline) return false;
    if (s == NATS_TIMEOUT || s == NATS_CONNECTION_DISCONNECTED || s == NATS_NOT_YET_CONNECTED) return true;
    if (s != NATS_NO_RESPONDERS) return false;
    if (natsConnection_Status(c->nc) != NATS_CONN_STATUS_CONNECTED) return true;  /* between servers */
    if (!*no_responders_since) *no_responders_since = now;
    return now - *no_responders_since < NO_RESPONDERS_MS;
}

/* Publishes one value and waits for the stream's acknowledgement; a publish
   that timed out goes again with the same message id, so the stream keeps
   one copy (its duplicate window is 2 minutes by default). */
static rpl_value publish_acked(void *ctx, const rpl_value *v) {
    rn_target *p = ctx;
    rn_conn *c = p->c;
    rn_buf b;
    rn_buf_init(&b);
    if (!rn_encode(c->codec, v, &b)) {
        rpl_callback_fail(rn_type_error(c->codec, v));
        rn_buf_free(&b);
        return rpl_nil();
    }
    char id[96];
    snprintf(id, sizeof id, "%s%llu", c->msgid_prefix, (unsigned long long)atomic_fetch_add(&c->next_msgid, 1));
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MsgId = id;
    po.MaxWait = PUBLISH_WAIT_MS;
    int64_t deadline = now_ms() + PUBLISH_RETRY_MS, no_responders_since = 0;
    for (;;) {
        jsPubAck *pa = NULL;
        jsErrCode jerr = 0;
        natsStatus s = js_Publish(&pa, c->js, p->subject, b.data, (int)b.len, &po, &jerr);
        if (s == NATS_OK) {
            rpl_value seq = rpl_int((int64_t)pa->Sequence);
            jsPubAck_Destroy(pa);
            rn_buf_free(&b);
            return seq;
        }
        if (!retryable(c, s, now_ms(), deadline, &no_responders_since)) {
            rpl_callback_fail(rn_nats_error(s, "stream publish"));
            rn_buf_free(&b);
            return rpl_nil();
        }
        nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
    }
}

RN_EXPORT rpl_signal_t *rpl_nats_stream_publish(rpl_nats_t *nc, rpl_signal_t *sig, const char *subject) {
    static const char fn[] = "rpl_nats_stream_publish";
    rn_conn *c = rn_conn_checked(nc, fn, rn_check_subject(fn, "subject", subject, false));
    if (!c) return NULL;
    return rpl_signal_map(sig, publish_acked, rn_target_create(c, subject), rn_target_free);  /* sig's errors are Ripple's */
}

/* ---- stream_subscribe ---- */
typedef struct jsig {
    rn_conn *c;
    char *stream, *durable;
    uint64_t start;
} jsig;

static void on_js_msg(natsConnection *nc, natsSubscription *sub, natsMsg *m, void *closure) {
    (void)sub;
    rn_data_sub *j = closure;
    const char *reply = natsMsg_GetReply(m);
    /* Only stream messages have an ack subject ($JS.ACK...); anything else
       on the deliver subject (a status, flow control) is the server's. */
    if (reply && strncmp(reply, "$JS.ACK.", 8) == 0 && !rpl_subscriber_is_disposed(j->subscriber)) {
        rpl_value v = rn_decode(j->base.c->codec, natsMsg_GetData(m), (size_t)natsMsg_GetDataLength(m));
        rpl_subscriber_send_next(j->subscriber, v);
        /* Delivered: every observer reached from this send has returned. */
        natsConnection_Publish(nc, reply, "+ACK", 4);
    }
    natsMsg_Destroy(m);
}

/* The consumer to bind to: the durable as it is, or made (anew from
   start_sequence); an ephemeral one otherwise. */
static natsStatus find_or_make(rn_conn *c, const jsig *q, jsConsumerInfo **ci, jsErrCode *jerrp) {
    jsErrCode jerr = 0;
    natsStatus s = NATS_NOT_FOUND;
    if (q->durable) {
        s = js_GetConsumerInfo(ci, c->js, q->stream, q->durable, NULL, &jerr);
        if (s == NATS_OK && q->start > 0) {
            jsConsumerInfo_Destroy(*ci);
            *ci = NULL;
            s = js_DeleteConsumer(c->js, q->stream, q->durable, NULL, &jerr);
            *jerrp = jerr;
            if (s != NATS_OK) return s;
            s = NATS_NOT_FOUND;
        }
        if (s == NATS_OK && !(*ci)->Config->DeliverSubject) {
            jsConsumerInfo_Destroy(*ci);
            *ci = NULL;
            return NATS_INVALID_ARG;  /* a pull consumer */
        }
        *jerrp = jerr;
        if (s == NATS_OK || s != NATS_NOT_FOUND) return s;
    }
    char *inbox = NULL;
    s = natsInbox_Create(&inbox);
    if (s != NATS_OK) return s;
    jsConsumerConfig cc;
    jsConsumerConfig_Init(&cc);
    cc.Durable = q->durable;
    cc.AckPolicy = js_AckExplicit;
    cc.DeliverPolicy = q->start ? js_DeliverByStartSequence : js_DeliverAll;
    cc.OptStartSeq = q->start;
    cc.AckWait = ACK_WAIT_S * NS_PER_S;
    cc.MaxAckPending = MAX_ACK_PENDING;
    cc.DeliverSubject = inbox;
    if (!q->durable) cc.InactiveThreshold = EPHEMERAL_IDLE_S * NS_PER_S;
    s = js_AddConsumer(ci, c->js, q->stream, &cc, NULL, &jerr);
    natsInbox_Destroy(inbox);
    *jerrp = jerr;
    return s;
}

static natsStatus consumer(rn_conn *c, const jsig *q, jsConsumerInfo **ci) {
    jsErrCode jerr = 0;
    natsStatus s = find_or_make(c, q, ci, &jerr);
    /* The server's "stream not found" is the client's generic error. */
    return s == NATS_ERR && jerr == JSStreamNotFoundErr ? NATS_NOT_FOUND : s;
}

static rpl_disposable_t *did_subscribe_js(void *ctx, rpl_subscriber_t *subscriber) {
    jsig *q = ctx;
    rn_conn *c = q->c;
    jsConsumerInfo *ci = NULL;
    natsStatus s = c->js ? consumer(c, q, &ci) : NATS_ERR;
    if (s != NATS_OK) {
        if (s == NATS_INVALID_ARG) {
            rpl_error_t *e = rpl_error_create(RPL_NATS_ERROR_DOMAIN, NATS_INVALID_ARG,
                                              "stream subscribe: the durable is a pull consumer; a push consumer is needed");
            rpl_subscriber_send_error(subscriber, e);
            rpl_release(e);
        } else {
            rn_send_failure(subscriber, s, "stream subscribe");
        }
        return NULL;
    }
    rn_data_sub *j = rn_data_sub_create(c, subscriber, false);
    s = rn_listen(c, &j->base, ci->Config->DeliverSubject, ci->Config->DeliverGroup, on_js_msg);
    jsConsumerInfo_Destroy(ci);
    if (s != NATS_OK) {
        rn_send_failure(subscriber, s, "stream subscribe");
        return NULL;
    }
    return rn_sub_disposable(&j->base);
}

static void free_jsig(void *ctx) {
    jsig *q = ctx;
    rn_conn_release(q->c);
    free(q->stream);
    free(q->durable);
    free(q);
}

RN_EXPORT rpl_signal_t *rpl_nats_stream_subscribe(rpl_nats_t *nc, const char *stream, const char *durable,
                                                  uint64_t start_sequence) {
    static const char fn[] = "rpl_nats_stream_subscribe";
    rn_conn *c = rn_conn_checked(nc, fn, rn_check_name(fn, "stream", stream, false, ".*>") &&
                                             rn_check_name(fn, "durable", durable, true, ".*>"));
    if (!c) return NULL;
    jsig *q = rn_calloc(1, sizeof *q);
    q->c = c;
    q->stream = rn_strdup(stream);
    q->durable = rn_strdup(durable);
    q->start = start_sequence;
    return rpl_signal_create(did_subscribe_js, q, free_jsig);
}
