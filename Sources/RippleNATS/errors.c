/* Errors of libripple-nats: NATS statuses as rpl_error_t values, this
   thread's last error through the public API, and argument checks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The numbers ripple_nats.h names are the client's (ours, the client's). */
#define RN_SAME_STATUS(ours, theirs) _Static_assert(RPL_NATS_ERR_##ours == NATS_##theirs, #ours);
RN_SAME_STATUS(CONNECTION_CLOSED, CONNECTION_CLOSED)
RN_SAME_STATUS(NO_SERVER, NO_SERVER)
RN_SAME_STATUS(SECURE_REQUIRED, SECURE_CONNECTION_REQUIRED)
RN_SAME_STATUS(AUTH_FAILED, CONNECTION_AUTH_FAILED)
RN_SAME_STATUS(NOT_PERMITTED, NOT_PERMITTED)
RN_SAME_STATUS(NOT_FOUND, NOT_FOUND)
RN_SAME_STATUS(INVALID_SUBJECT, INVALID_SUBJECT)
RN_SAME_STATUS(INVALID_ARG, INVALID_ARG)
RN_SAME_STATUS(SLOW_CONSUMER, SLOW_CONSUMER)
RN_SAME_STATUS(MAX_PAYLOAD, MAX_PAYLOAD)
RN_SAME_STATUS(TIMEOUT, TIMEOUT)
RN_SAME_STATUS(SSL, SSL_ERROR)
RN_SAME_STATUS(NO_RESPONDERS, NO_RESPONDERS)
#undef RN_SAME_STATUS

void *rn_calloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) abort();
    return p;
}

char *rn_strdup(const char *s) {
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

rpl_error_t *rn_nats_error(natsStatus s, const char *prefix) {
    natsStatus last = NATS_OK;
    const char *text = nats_GetLastError(&last);
    /* The client's text for this status when it is the one it recorded
       (the server's reason, say); it carries no source location. */
    if (!text || !*text || last != s) text = natsStatus_GetText(s);
    /* The client may put its source location first: "(conn.c:1905): ". */
    if (text[0] == '(') {
        const char *close = strstr(text, "): ");
        if (close && memchr(text, ':', (size_t)(close - text)) && !memchr(text, ' ', (size_t)(close - text)))
            text = close + 3;
    }
    char buf[1024];
    if (prefix) snprintf(buf, sizeof buf, "%s: %s", prefix, text);
    else snprintf(buf, sizeof buf, "%s", text);
    return rpl_error_create(RPL_NATS_ERROR_DOMAIN, (int64_t)s, buf);
}

rpl_status rn_fail(rpl_status status, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return rpl_set_last_error(status, buf);
}

rpl_status rn_fail_nats(natsStatus s, const char *prefix) {
    if (s == NATS_NO_MEMORY) return rpl_set_last_error(RPL_ERR_NOMEM, NULL);
    return rn_fail_error(rn_nats_error(s, prefix));
}

rpl_status rn_fail_error(rpl_error_t *e) {
    /* RPL_ERR_FAILED promises the error in rpl_last_signal_error(), which
       only a blocking helper sets: run one on a signal failing with it, then
       put the error's own text in place of the helper's. */
    rpl_signal_t *sig = rpl_signal_error(e);
    rpl_value out;
    if (rpl_signal_first(sig, &out, RPL_FOREVER) == RPL_OK) rpl_value_release(&out);
    rpl_release(sig);
    rpl_status st = rpl_set_last_error(RPL_ERR_FAILED, rpl_error_message(e));
    rpl_release(e);
    return st;
}

/* NATS subjects: dot-separated non-empty tokens without white space; "*" is
   one token, ">" the rest, both only where wildcards are allowed. */
bool rn_check_subject(const char *fn, const char *what, const char *subject, bool wildcards_ok) {
    if (!subject) {
        rn_fail(RPL_ERR_NULL, "%s: %s is NULL", fn, what);
        return false;
    }
    if (!*subject) {
        rn_fail(RPL_ERR_INVALID, "%s: %s is empty", fn, what);
        return false;
    }
    const char *tok = subject;
    for (;;) {
        const char *end = strchr(tok, '.');
        size_t n = end ? (size_t)(end - tok) : strlen(tok);
        if (n == 0) {
            rn_fail(RPL_ERR_INVALID, "%s: %s \"%s\" has an empty token", fn, what, subject);
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)tok[i];
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch < 0x20) {
                rn_fail(RPL_ERR_INVALID, "%s: %s \"%s\" contains white space or a control character", fn, what, subject);
                return false;
            }
        }
        bool star = n == 1 && tok[0] == '*', gt = n == 1 && tok[0] == '>';
        if ((star || gt) && !wildcards_ok) {
            rn_fail(RPL_ERR_INVALID, "%s: %s \"%s\" has a wildcard (not allowed here)", fn, what, subject);
            return false;
        }
        if (gt && end) {
            rn_fail(RPL_ERR_INVALID, "%s: %s \"%s\": '>' must be the last token", fn, what, subject);
            return false;
        }
        if (!end) return true;
        tok = end + 1;
    }
}

/* Queue groups (forbidden "") and stream and durable names (".*>"): non-empty,
   no white space. */
bool rn_check_name(const char *fn, const char *what, const char *name, bool null_ok, const char *forbidden) {
    if (!name) {
        if (null_ok) return true;
        rn_fail(RPL_ERR_NULL, "%s: %s is NULL", fn, what);
        return false;
    }
    if (!*name) {
        rn_fail(RPL_ERR_INVALID, "%s: %s is empty", fn, what);
        return false;
    }
    for (const char *p = name; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch <= ' ' || strchr(forbidden, ch)) {
            rn_fail(RPL_ERR_INVALID, "%s: %s \"%s\" may not contain white space%s%s", fn, what, name,
                    *forbidden ? " or any of " : "", forbidden);
            return false;
        }
    }
    return true;
}
