/* rpl_nats_publish: each value of a signal, encoded, on one subject. The
   encoding and the publish run in a do_next callback, so a value that cannot
   travel ends the chain through Ripple's failure channel. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

rn_target *rn_target_create(rn_conn *c, const char *subject) {
    rn_target *t = rn_calloc(1, sizeof *t);
    t->c = c;
    t->subject = rn_strdup(subject);
    return t;
}

void rn_target_free(void *ctx) {
    rn_target *t = ctx;
    rn_conn_release(t->c);
    free(t->subject);
    free(t);
}

rpl_error_t *rn_type_error(int32_t codec, const rpl_value *v) {
    static const char *const names[] = { "nil", "bool", "int", "double", "string", "bytes",
                                         "pointer", "tuple", "signal", "event" };
    rpl_type t = rpl_value_type(v);
    char buf[200];
    snprintf(buf, sizeof buf, "a %s value cannot be sent with the %s codec%s",
             (unsigned)t < 10 ? names[t] : "?", codec == RPL_NATS_CODEC_RAW ? "RAW" : "MessagePack",
             codec == RPL_NATS_CODEC_RAW ? " (bytes and strings only)" : "");
    return rpl_error_create(RPL_ERROR_DOMAIN, RPL_ERROR_TYPE, buf);
}

static void publish_one(void *ctx, const rpl_value *v) {
    rn_target *p = ctx;
    rn_buf b;
    rn_buf_init(&b);
    if (!rn_encode(p->c->codec, v, &b)) {
        rpl_callback_fail(rn_type_error(p->c->codec, v));
    } else {
        natsStatus s = natsConnection_Publish(p->c->nc, p->subject, b.data, (int)b.len);
        if (s != NATS_OK) rpl_callback_fail(rn_nats_error(s, "publish"));
    }
    rn_buf_free(&b);
}

/* What was published reaches the server before the publish ends. */
static void flush(void *ctx) {
    rn_conn *c = ctx;
    rn_flush(c, 5000);
}

static void release_conn(void *ctx) { rn_conn_release(ctx); }

RN_EXPORT rpl_disposable_t *rpl_nats_publish(rpl_nats_t *nc, rpl_signal_t *sig, const char *subject) {
    static const char fn[] = "rpl_nats_publish";
    rn_conn *c = rn_conn_checked(nc, fn, rn_check_subject(fn, "subject", subject, false));
    if (!c) return NULL;
    rn_conn_retain(c);  /* one for the target, one for the observer */
    rpl_signal_t *chain = rpl_signal_do_next(sig, publish_one, rn_target_create(c, subject), rn_target_free);
    if (!chain) {
        rn_conn_release(c);
        return NULL;  /* sig is not a signal: Ripple's error */
    }
    rpl_observer obs = RPL_OBSERVER_INIT;
    obs.on_completed = flush;
    obs.release = release_conn;
    obs.ctx = c;
    rpl_disposable_t *d = rpl_signal_subscribe(chain, &obs);
    rpl_release(chain);
    return d;
}
