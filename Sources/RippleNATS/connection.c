/* rpl_nats_connect and the connection record: the rpl_nats_t handle is a
   Ripple disposable whose release closes the connection; a registry maps
   live handles to their records, so any other pointer is refused. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* ---- registry: handle -> record (chained hash, constant time) ---- */
enum { REG_BUCKETS = 256 };
typedef struct reg_entry { struct reg_entry *next; const void *handle; rn_conn *conn; } reg_entry;
static reg_entry *reg[REG_BUCKETS];
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t reg_hash(const void *p) {
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 56) % REG_BUCKETS;
}

static void reg_add(const void *handle, rn_conn *c) {
    reg_entry *e = rn_calloc(1, sizeof *e);
    e->handle = handle;
    e->conn = c;
    pthread_mutex_lock(&reg_mu);
    size_t h = reg_hash(handle);
    e->next = reg[h];
    reg[h] = e;
    pthread_mutex_unlock(&reg_mu);
}

static void reg_remove(rn_conn *c) {
    pthread_mutex_lock(&reg_mu);
    for (reg_entry **pp = &reg[reg_hash(c->handle)]; *pp; pp = &(*pp)->next) {
        if ((*pp)->conn == c) {
            reg_entry *e = *pp;
            *pp = e->next;
            free(e);
            break;
        }
    }
    pthread_mutex_unlock(&reg_mu);
}

rn_conn *rn_conn_get(const rpl_nats_t *nc, const char *fn) {
    if (!nc) {
        rn_fail(RPL_ERR_NULL, "%s: nc is NULL", fn);
        return NULL;
    }
    rn_conn *c = NULL;
    pthread_mutex_lock(&reg_mu);
    for (reg_entry *e = reg[reg_hash(nc)]; e; e = e->next)
        if (e->handle == (const void *)nc) { c = e->conn; rn_conn_retain(c); break; }
    pthread_mutex_unlock(&reg_mu);
    if (!c) rn_fail(RPL_ERR_KIND, "%s: nc is not an open rpl_nats_t connection", fn);
    return c;
}

rn_conn *rn_conn_checked(const rpl_nats_t *nc, const char *fn, bool args_ok) {
    rn_conn *c = rn_conn_get(nc, fn);  /* a bad nc is the error reported first */
    if (c && !args_ok) {
        rn_conn_release(c);
        return NULL;
    }
    return c;
}

/* ---- the record ---- */
void rn_conn_retain(rn_conn *c) { atomic_fetch_add(&c->refs, 1); }

/* An ended NATS subscription is destroyed only once the client's reader
   thread cannot hold it any more: Debian's libnats (3.4) looks a message's
   subscription up and then locks it without a reference, so destroying one
   while a message for it is being read frees what the reader is about to
   lock (nats.c issue 637, fixed in 3.6; subscribing and disposing under
   traffic corrupted the heap). The reader handles what arrives in order:
   once a flush's PONG came back, it is past every message sent before the
   flush began, and the subscriptions retired by then can go. The rest go
   with the connection, whose close joins the reader. */
static void retire(rn_conn *c, natsSubscription *sub) {
    pthread_mutex_lock(&c->mu);
    if (c->nretired == c->retired_cap) {
        size_t cap = c->retired_cap ? 2 * c->retired_cap : 16;
        natsSubscription **r = realloc(c->retired, cap * sizeof *r);
        if (!r) abort();
        c->retired = r;
        c->retired_cap = cap;
    }
    c->retired[c->nretired++] = sub;
    pthread_mutex_unlock(&c->mu);
}

/* Destroys the first n retired subscriptions (all when n is SIZE_MAX). */
static void reclaim(rn_conn *c, size_t n) {
    pthread_mutex_lock(&c->mu);
    if (n > c->nretired) n = c->nretired;
    if (!n) {
        pthread_mutex_unlock(&c->mu);
        return;
    }
    natsSubscription **gone = rn_calloc(n, sizeof *gone);
    memcpy(gone, c->retired, n * sizeof *gone);
    c->nretired -= n;
    if (c->nretired) memmove(c->retired, c->retired + n, c->nretired * sizeof *c->retired);
    pthread_mutex_unlock(&c->mu);
    for (size_t i = 0; i < n; i++) natsSubscription_Destroy(gone[i]);
    free(gone);
}

natsStatus rn_flush(rn_conn *c, int64_t timeout_ms) {
    pthread_mutex_lock(&c->mu);
    size_t before = c->nretired;
    pthread_mutex_unlock(&c->mu);
    natsStatus s = natsConnection_FlushTimeout(c->nc, timeout_ms);
    if (s == NATS_OK && before) reclaim(c, before);
    return s;
}

void rn_conn_release(rn_conn *c) {
    if (atomic_fetch_sub(&c->refs, 1) != 1) return;
    rn_requests_free(c);
    if (c->js) jsCtx_Destroy(c->js);
    if (c->nc) natsConnection_Destroy(c->nc);
    reclaim(c, SIZE_MAX);  /* closed: its reader has been joined */
    free(c->retired);
    rpl_release(c->status);
    free(c->msgid_prefix);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void rn_sub_retain(rn_sub *s) { atomic_fetch_add(&s->refs, 1); }

void rn_sub_release(rn_sub *s) {
    if (atomic_fetch_sub(&s->refs, 1) != 1) return;
    rn_conn *c = s->c;
    if (s->sub) retire(c, s->sub);
    s->free_fn(s);
    rn_conn_release(c);
}

void rn_sub_init(rn_sub *s, rn_conn *c, void (*on_close)(rn_sub *), void (*on_error)(rn_sub *, natsStatus),
                 void (*free_fn)(rn_sub *)) {
    atomic_init(&s->refs, 1);
    s->c = c;
    rn_conn_retain(c);
    s->on_close = on_close;
    s->on_error = on_error;
    s->free_fn = free_fn;
}

bool rn_conn_add_sub(rn_conn *c, rn_sub *s) {
    pthread_mutex_lock(&c->mu);
    bool ok = !c->closed;
    if (ok) {
        s->prev = c->subs.prev;
        s->next = &c->subs;
        c->subs.prev->next = s;
        c->subs.prev = s;
        s->listed = true;
        rn_sub_retain(s);
    }
    pthread_mutex_unlock(&c->mu);
    return ok;
}

void rn_conn_remove_sub(rn_conn *c, rn_sub *s) {
    pthread_mutex_lock(&c->mu);
    bool was = s->listed;
    if (was) {
        s->prev->next = s->next;
        s->next->prev = s->prev;
        s->listed = false;
    }
    pthread_mutex_unlock(&c->mu);
    if (was) rn_sub_release(s);
}

static void status_send(rn_conn *c, int state) {
    rpl_subject_send_next(c->status, rpl_int(state));
}

/* ---- the client's connection events (its callback thread) ---- */
static void on_disconnected(natsConnection *nc, void *closure) {
    (void)nc;
    rn_conn *c = closure;
    pthread_mutex_lock(&c->mu);
    bool closed = c->closed;
    pthread_mutex_unlock(&c->mu);
    if (!closed && !natsConnection_IsClosed(nc)) status_send(c, RPL_NATS_DISCONNECTED);
}

static void on_reconnected(natsConnection *nc, void *closure) {
    (void)nc;
    status_send(closure, RPL_NATS_RECONNECTED);
}

/* The connection is closed for good (our close, or reconnecting gave up):
   CLOSED and completion on the status signal, then every listed
   subscription ends, then pending requests fail. */
static void on_closed(natsConnection *nc, void *closure) {
    (void)nc;
    rn_conn *c = closure;
    pthread_mutex_lock(&c->mu);
    c->closed = true;
    size_t n = 0;
    for (rn_sub *s = c->subs.next; s != &c->subs; s = s->next) n++;
    rn_sub **subs = rn_calloc(n ? n : 1, sizeof *subs);
    n = 0;
    while (c->subs.next != &c->subs) {  /* the list's references move to the array */
        rn_sub *s = c->subs.next;
        s->prev->next = s->next;
        s->next->prev = s->prev;
        s->listed = false;
        subs[n++] = s;
    }
    pthread_mutex_unlock(&c->mu);
    status_send(c, RPL_NATS_CLOSED);
    rpl_subject_send_completed(c->status);
    for (size_t i = 0; i < n; i++) {
        subs[i]->on_close(subs[i]);
        rn_sub_release(subs[i]);
    }
    free(subs);
    rn_requests_close(c);
    rn_conn_release(c);  /* the reference the open connection held */
}

static void on_error(natsConnection *nc, natsSubscription *sub, natsStatus err, void *closure) {
    (void)nc;
    rn_conn *c = closure;
    if (!sub) return;
    rn_sub *found = NULL;
    pthread_mutex_lock(&c->mu);
    for (rn_sub *s = c->subs.next; s != &c->subs; s = s->next)
        if (s->sub == sub) { found = s; rn_sub_retain(s); break; }
    pthread_mutex_unlock(&c->mu);
    if (found) {
        if (found->on_error) found->on_error(found, err);
        rn_sub_release(found);
    }
}

/* The last reference of the handle (or a dispose of it): the connection
   closes; on_closed finishes the rest on the client's thread. */
static void handle_gone(void *ctx) {
    rn_conn *c = ctx;
    reg_remove(c);
    pthread_mutex_lock(&c->mu);
    bool was_closed = c->closed;
    c->closed = true;  /* no new subscriptions from here on */
    pthread_mutex_unlock(&c->mu);
    (void)was_closed;
    natsConnection_Close(c->nc);
    rn_conn_release(c);
}

/* urls is a comma-separated list; the client wants an array. A tls:// URL
   makes the connection require TLS (the client alone would connect to a
   server without TLS in the clear). */
static natsStatus set_servers(natsOptions *o, const char *urls) {
    char *list = rn_strdup(urls);
    size_t n = 1;
    for (const char *p = list; *p; p++) n += *p == ',';
    const char **servers = rn_calloc(n, sizeof *servers);
    n = 0;
    bool tls = false;
    for (char *save = NULL, *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        servers[n++] = tok;
        tls |= strncasecmp(tok, "tls://", 6) == 0;
    }
    natsStatus s = n ? natsOptions_SetServers(o, servers, (int)n) : NATS_INVALID_ARG;
    if (s == NATS_OK && tls) s = natsOptions_SetSecure(o, true);
    free(servers);
    free(list);
    return s;
}

/* The files the options name can be read: else the failure says which
   option, which path and why (the client would connect without an empty
   creds_file, and its text for a missing CA file ends in "(null)"). The
   codes are the client's for each kind of file. */
static bool files_readable(const rpl_nats_options *opt) {
    const struct { const char *option, *path; natsStatus code; } files[] = {
        { "creds_file", opt->creds_file, NATS_ERR },
        { "tls_ca", opt->tls_ca, NATS_SSL_ERROR },
        { "tls_cert", opt->tls_cert, NATS_SSL_ERROR },
        { "tls_key", opt->tls_key, NATS_SSL_ERROR },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (!files[i].path) continue;
        int err = 0, fd = open(files[i].path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0) err = errno;
        else if (fstat(fd, &st) != 0) err = errno;
        else if (S_ISDIR(st.st_mode)) err = EISDIR;
        if (fd >= 0) close(fd);
        if (!err) continue;
        char text[1024];
        snprintf(text, sizeof text, "rpl_nats_connect: %s \"%s\" cannot be read: %s", files[i].option, files[i].path,
                 strerror(err));
        rn_fail_error(rpl_error_create(RPL_NATS_ERROR_DOMAIN, files[i].code, text));
        return false;
    }
    return true;
}

static natsStatus apply_options(natsOptions *o, const char *urls, const rpl_nats_options *opt, rn_conn *c) {
    natsStatus s = set_servers(o, urls);
    if (s == NATS_OK && opt->name) s = natsOptions_SetName(o, opt->name);
    if (s == NATS_OK && opt->token) s = natsOptions_SetToken(o, opt->token);
    if (s == NATS_OK && (opt->user || opt->password)) s = natsOptions_SetUserInfo(o, opt->user, opt->password);
    if (s == NATS_OK && opt->creds_file) s = natsOptions_SetUserCredentialsFromFiles(o, opt->creds_file, NULL);
    if (s == NATS_OK && (opt->tls_ca || opt->tls_cert || opt->tls_key)) {
        s = natsOptions_SetSecure(o, true);
        if (s == NATS_OK && opt->tls_ca) s = natsOptions_LoadCATrustedCertificates(o, opt->tls_ca);
        if (s == NATS_OK && (opt->tls_cert || opt->tls_key)) s = natsOptions_LoadCertificatesChain(o, opt->tls_cert, opt->tls_key);
    }
    if (s == NATS_OK) s = natsOptions_SetAllowReconnect(o, opt->max_reconnects != 0);
    if (s == NATS_OK) s = natsOptions_SetMaxReconnect(o, opt->max_reconnects < 0 ? -1 : opt->max_reconnects);
    if (s == NATS_OK) {
        int64_t ms = (int64_t)(opt->reconnect_wait_ns / 1000000u);
        s = natsOptions_SetReconnectWait(o, ms > 0 ? ms : 1);
    }
    if (s == NATS_OK) s = natsOptions_SetDisconnectedCB(o, on_disconnected, c);
    if (s == NATS_OK) s = natsOptions_SetReconnectedCB(o, on_reconnected, c);
    if (s == NATS_OK) s = natsOptions_SetClosedCB(o, on_closed, c);
    if (s == NATS_OK) s = natsOptions_SetErrorHandler(o, on_error, c);
    return s;
}

/* The client connects c->nc. It reads the server's first answers on this
   thread and takes an interrupted read for a closed connection ("Expected
   'PONG', got ''"): a program's interval timer made connects fail at
   random. Asynchronous signals wait meanwhile (the threads the client
   starts, its library's own on first use, keep that mask, so they are not
   interrupted either); faults stay deliverable. */
static natsStatus open_client(rn_conn *c, const char *urls, const rpl_nats_options *opt) {
    sigset_t async, old;
    sigfillset(&async);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&async, faults[i]);
    pthread_sigmask(SIG_BLOCK, &async, &old);
    natsOptions *o = NULL;
    natsStatus s = natsOptions_Create(&o);
    if (s == NATS_OK) s = apply_options(o, urls, opt, c);
    /* libnats before 3.8.0 sends no signature when the signature's first
       byte is 0 (its base64 encoder takes that byte for an empty input), so
       the server refuses one creds_file connect in 256 (nats.c #705). A
       refused creds_file connect is tried twice more: a refusal reaches the
       caller after three, and a spurious one once in 256^3. */
    int tries = opt->creds_file && nats_GetVersionNumber() < 0x030800 ? 3 : 1;
    if (s == NATS_OK) {
        do s = natsConnection_Connect(&c->nc, o);
        while (s == NATS_CONNECTION_AUTH_FAILED && --tries > 0);
    }
    natsOptions_Destroy(o);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (s != NATS_OK) c->nc = NULL;
    return s;
}

RN_EXPORT rpl_nats_t *rpl_nats_connect(const char *urls, const rpl_nats_options *opts) {
    static const rpl_nats_options defaults = RPL_NATS_OPTIONS_INIT;
    const rpl_nats_options *opt = opts ? opts : &defaults;
    if (!urls || !*urls) {
        rn_fail(urls ? RPL_ERR_INVALID : RPL_ERR_NULL, "rpl_nats_connect: urls is %s", urls ? "empty" : "NULL");
        return NULL;
    }
    if (!urls[strspn(urls, ", ")]) {  /* only separators (see set_servers) */
        rn_fail(RPL_ERR_INVALID, "rpl_nats_connect: urls \"%s\" lists no URL", urls);
        return NULL;
    }
    if (opt->version != RPL_NATS_OPTIONS_VERSION) {
        rn_fail(RPL_ERR_INVALID, "rpl_nats_connect: unknown options version %u", opt->version);
        return NULL;
    }
    if (opt->codec != RPL_NATS_CODEC_MSGPACK && opt->codec != RPL_NATS_CODEC_RAW) {
        rn_fail(RPL_ERR_INVALID, "rpl_nats_connect: unknown codec %d", opt->codec);
        return NULL;
    }
    if (!files_readable(opt)) return NULL;
    rn_conn *c = rn_calloc(1, sizeof *c);
    atomic_init(&c->refs, 1);
    pthread_mutex_init(&c->mu, NULL);
    c->codec = opt->codec;
    c->subs.next = c->subs.prev = &c->subs;
    c->status = rpl_behavior_subject_create(rpl_int(RPL_NATS_CONNECTED));
    if (!c->status) {
        rn_conn_release(c);
        rn_fail(RPL_ERR_NOMEM, "rpl_nats_connect: out of memory");
        return NULL;
    }

    natsStatus s = open_client(c, urls, opt);
    if (s != NATS_OK) {
        rn_fail_nats(s, "rpl_nats_connect");
        rn_conn_release(c);
        return NULL;
    }
    rn_conn_retain(c);  /* held by the open connection until on_closed */
    natsConnection_JetStream(&c->js, c->nc, NULL);
    char *inbox = NULL;
    natsInbox_Create(&inbox);
    const char *id = inbox ? strrchr(inbox, '.') : NULL;
    size_t n = strlen(id ? id + 1 : "rpl") + 2;
    c->msgid_prefix = rn_calloc(1, n);
    strcpy(c->msgid_prefix, id ? id + 1 : "rpl");
    strcat(c->msgid_prefix, "-");
    natsInbox_Destroy(inbox);

    rpl_disposable_t *h = rpl_disposable_create_with_release(NULL, c, handle_gone);
    if (!h) {  /* out of memory: handle_gone has run (release runs on failure) */
        return NULL;
    }
    c->handle = h;
    reg_add(h, c);
    return (rpl_nats_t *)h;
}

RN_EXPORT rpl_signal_t *rpl_nats_status(rpl_nats_t *nc) {
    rn_conn *c = rn_conn_get(nc, "rpl_nats_status");
    if (!c) return NULL;
    rpl_signal_t *s = rpl_retain(rpl_subject_as_signal(c->status));
    rn_conn_release(c);
    return s;
}
