/* API-sequence fuzzer of libripple-nats (libFuzzer). Each input is a little
 * program over every rpl_nats_* function, against a live nats-server with
 * JetStream that Tests/nats/run.py (case fuzz) starts for it, beside a server
 * wanting a token and a port nothing listens on:
 *   - connect with fuzzed options: good and bad URLs (empty, NULL, no URL in
 *     the list, a dead port, a bad port, TLS to a plain server), unknown
 *     versions and codecs, tokens right and wrong, creds and TLS files that
 *     are missing, empty, a directory or garbage;
 *   - status, subscribe and subscribe_messages with subjects valid, wildcard
 *     and invalid (NULL, empty, empty tokens, spaces, control characters,
 *     '>' not last) and queue groups good and bad;
 *   - publish from subjects, cold signals and (bounded by take) NATS
 *     subscriptions, values of every type, some that cannot travel or are
 *     above the server's max_payload; request with short timeouts, no
 *     responders, or answered by serve, whose handlers return a value, an
 *     error, nothing, NULL, a handle that is no signal, a signal that never
 *     answers or one of the input's subjects (answered when the input sends);
 *   - stream_ensure, stream_publish (only on subjects a stream takes: one
 *     that no stream takes is retried for 10 s by design) and
 *     stream_subscribe with ephemeral and durable consumers;
 *   - subscriptions disposed, released without dispose, or ended by take from
 *     inside a NATS delivery; connections released or disposed while their
 *     subscriptions, requests and services live, also from inside a delivery;
 *     every function called with NULL, a disposed connection and a handle
 *     that is no connection;
 *   - the MessagePack decoder on the input's bytes (the library's own
 *     rn_decode, compiled in), and decode(encode(v)) == v for every value
 *     the input makes that can travel.
 * Each call's result is checked against what ripple_nats.h promises (the
 * status in rpl_last_error() for each kind of bad argument, RPL_ERR_FAILED
 * with a "nats" error for what the server or client refused). Observers
 * check the grammar (next* then at most one terminal event), that one
 * subscription's callbacks never overlap, that nothing runs after release,
 * and that release runs exactly once. At the end of an input everything is
 * disposed and released; then every observer and every serve context must
 * have been released, and the live-object count must come back to where it
 * was (NATS threads finish their part asynchronously: waited for, up to 10
 * s). LeakSanitizer checks the rest. A violation aborts, so libFuzzer keeps
 * the input.
 *
 * libFuzzer's own -timeout works by SIGALRM, which interrupts the NATS
 * client's blocking reads (a connect then fails with "Expected 'PONG', got
 * ''"): run.py passes -timeout=0, and a watchdog thread here aborts an input
 * that runs for more than INPUT_LIMIT_S, so that libFuzzer keeps it.
 *
 * Environment (run.py sets it): NATS_FUZZ_URL (JetStream), NATS_FUZZ_TOKEN_URL
 * (token "s3cret"), NATS_FUZZ_DEAD_URL (nothing listens), NATS_FUZZ_DIR (a
 * scratch directory); FUZZ_TRACE=1 prints each operation. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>
#include <ripple_nats.h>

#include "internal.h" /* rn_encode, rn_decode: the codec, fuzzed directly */

#define FAIL(...) do { fprintf(stderr, "fuzz_nats: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)
#define TRACE(...) do { if (trace) { fprintf(stderr, "  " __VA_ARGS__); fputc('\n', stderr); } } while (0)

enum { NCONN = 3, NSIG = 12, NSUB = 16, NSUBJ = 3, MAX_OPS = 48 };
#define WAIT_NS 10000000000ull  /* what the end of an input waits for asynchronous releases */
#define INPUT_LIMIT_S 120       /* an input running longer hangs */
static int trace;

/* ---- what the input reads ---- */
static const uint8_t *in_p, *in_end;
static uint8_t u8(void) { return in_p < in_end ? *in_p++ : 0; }
static bool more(void) { return in_p < in_end; }

/* ---- the environment ---- */
static char live_url[256], token_url[256], dead_url[256], list_url[520], tls_url[256], localhost_dead[256];
static char garbage_file[512], scratch[400];
static natsConnection *raw;         /* nats.c directly: purges the streams between inputs */
static jsCtx *raw_js;
static bool touched_js;

/* ---- expectations ---- */
enum { ANY = 1000, ANY_FAILURE = 1001 };
static void expect(const char *what, bool ok, int want) {
    rpl_status got = ok ? RPL_OK : rpl_last_error();
    if (want == ANY) return;
    if (want == ANY_FAILURE) {
        if (ok) FAIL("%s: succeeded, a failure was expected", what);
    } else if ((int)got != want) {
        FAIL("%s: status %d, expected %d (%s)", what, (int)got, want, ok ? "ok" : rpl_last_error_message());
    }
    if (ok) return;
    const char *m = rpl_last_error_message();
    if (!m || strncmp(m, "rpl_", 4) != 0) FAIL("%s: message \"%s\" does not name the function", what, m ? m : "");
    if (got == RPL_ERR_FAILED) {
        rpl_error_t *e = rpl_last_signal_error();
        if (!e || strcmp(rpl_error_domain(e), RPL_NATS_ERROR_DOMAIN) != 0 || strcmp(rpl_error_message(e), m) != 0)
            FAIL("%s: RPL_ERR_FAILED without its \"nats\" error in rpl_last_signal_error()", what);
    } else if (got != RPL_ERR_NULL && got != RPL_ERR_INVALID && got != RPL_ERR_KIND) {
        FAIL("%s: status %d is none the header names (%s)", what, (int)got, m);
    }
}

/* ---- connections ---- */
typedef struct conn { rpl_nats_t *h; bool disposed; int32_t codec; } conn;
static conn conns[NCONN];
static char zeros[64];              /* not a handle at all */
static rpl_signal_t *not_conn;      /* a handle that is no connection */

/* A connection argument and the status a call must fail with because of it
   (RPL_OK when it is a live one). */
typedef struct nc_pick { rpl_nats_t *h; int err; int32_t codec; } nc_pick;
static nc_pick pick_nc(uint8_t b) {
    switch (b % 8) {
    case 0: return (nc_pick){ NULL, RPL_ERR_NULL, 0 };
    case 1: return (nc_pick){ (rpl_nats_t *)(b & 8 ? (void *)zeros : (void *)not_conn), RPL_ERR_KIND, 0 };
    default:
        for (int i = 0; i < NCONN; i++) {  /* conns[b % NCONN] or the next one there is */
            conn *c = &conns[(b + i) % NCONN];
            if (c->h) return (nc_pick){ c->h, c->disposed ? RPL_ERR_KIND : RPL_OK, c->codec };
        }
        return (nc_pick){ NULL, RPL_ERR_NULL, 0 };
    }
}
static int first_err(int a, int b) { return a != RPL_OK ? a : b; }

/* ---- subjects and names, each with what it is ---- */
enum { S_OK, S_WILD, S_NULL, S_BAD };
typedef struct named { const char *s; int kind; } named;
static char long_subject[300];
static const named subjects_tab[] = {
    { "fz.a", S_OK }, { "fz.b", S_OK }, { "fz.a.b", S_OK }, { "fzjs.x", S_OK }, { long_subject, S_OK },
    { "fz.*", S_WILD }, { "fz.>", S_WILD }, { "*.a", S_WILD }, { NULL, S_NULL }, { "", S_BAD },
    { "fz..a", S_BAD }, { "fz a", S_BAD }, { "fz.>.a", S_BAD }, { "fz.\x01", S_BAD }, { "fz.", S_BAD },
    { ".fz", S_BAD }, { "fz.a\n", S_BAD }, { "fz\t.a", S_BAD },
};
#define NSUBJECTS (sizeof subjects_tab / sizeof subjects_tab[0])
static int subject_err(int kind, bool wild_ok) {
    switch (kind) {
    case S_NULL: return RPL_ERR_NULL;
    case S_BAD: return RPL_ERR_INVALID;
    case S_WILD: return wild_ok ? RPL_OK : RPL_ERR_INVALID;
    default: return RPL_OK;
    }
}
static const named queues_tab[] = { { NULL, S_OK }, { "q", S_OK }, { "q2", S_OK }, { "", S_BAD }, { "q q", S_BAD }, { "q\t", S_BAD } };
/* stream_publish: only subjects the stream FZ takes (fzjs.>), or invalid ones. */
static const named js_subjects_tab[] = { { "fzjs.x", S_OK }, { "fzjs.y.z", S_OK }, { "fzjs.*", S_WILD }, { "fzjs.>", S_WILD },
                                         { NULL, S_NULL }, { "", S_BAD }, { "fzjs x", S_BAD } };
static const named streams_tab[] = { { "FZ", S_OK }, { "FZ2", S_OK }, { "NOPE", S_OK }, { NULL, S_NULL }, { "", S_BAD },
                                     { "F.Z", S_BAD }, { "F Z", S_BAD }, { "F*", S_BAD } };
static const named durables_tab[] = { { NULL, S_OK }, { "d1", S_OK }, { "d2", S_OK }, { "", S_BAD }, { "d.1", S_BAD },
                                      { "d 1", S_BAD }, { "d>", S_BAD } };
static int name_err(const named *n, bool null_ok) {
    if (!n->s) return null_ok ? RPL_OK : RPL_ERR_NULL;
    return n->kind == S_BAD ? RPL_ERR_INVALID : RPL_OK;
}

/* ---- values ---- */
static int dummy;  /* what pointer values point at */
static rpl_value make_value(uint8_t b) {
    switch (b % 12) {
    case 0: return rpl_nil();
    case 1: return rpl_bool(b & 16);
    case 2: return rpl_int((int64_t)b * 1000003 - 77);
    case 3: return rpl_double((double)b / 4);
    case 4: return rpl_string("s");
    case 5: return rpl_string("");
    case 6: { uint8_t raw_b[3] = { b, 0, 0xff }; return rpl_bytes(raw_b, 3); }
    case 7: { rpl_value two[2] = { rpl_int(b), rpl_string("t") }; return rpl_tuple(two, 2); }
    case 8: return rpl_pointer(&dummy, NULL);                  /* cannot travel */
    case 9: { rpl_value two[2] = { rpl_int(1), rpl_pointer(&dummy, NULL) }; return rpl_tuple(two, 2); }
    case 10: return b & 1 ? rpl_tuple(NULL, 0) : rpl_int(INT64_MIN);
    default: {
        if ((b & 7) != 3) return rpl_string("fz");
        size_t n = 70000;                                     /* above the server's max_payload */
        uint8_t *big = calloc(1, n);
        rpl_value v = rpl_bytes(big, n);
        free(big);
        return v;
    }
    }
}
static bool travels(int32_t codec, const rpl_value *v) {
    rn_buf b;
    rn_buf_init(&b);
    bool ok = rn_encode(codec, v, &b);
    rn_buf_free(&b);
    return ok;
}
/* What travels arrives as it was sent: decode(encode(v)) == v for the
   values the input makes (same_value), and for any value (a decoded one may
   hold a NaN) encode(decode(encode(v))) == encode(v); RAW payloads arrive as
   bytes. */
static void round_trip(int32_t codec, const rpl_value *v, bool same_value) {
    rn_buf b, again;
    rn_buf_init(&b);
    rn_buf_init(&again);
    if (rn_encode(codec, v, &b)) {
        rpl_value back = rn_decode(codec, b.data, b.len);
        if (codec == RPL_NATS_CODEC_RAW && rpl_value_type(&back) != RPL_TYPE_BYTES) FAIL("a RAW payload did not arrive as bytes");
        if (codec == RPL_NATS_CODEC_MSGPACK) {
            if (same_value && !rpl_value_equal(v, &back)) FAIL("decode(encode(v)) != v (type %d)", (int)rpl_value_type(v));
            if (!rn_encode(codec, &back, &again) || again.len != b.len || memcmp(again.data, b.data, b.len) != 0)
                FAIL("encode(decode(encode(v))) != encode(v) (type %d)", (int)rpl_value_type(v));
        }
        rpl_value_release(&back);
    }
    rn_buf_free(&again);
    rn_buf_free(&b);
}

/* ---- observers (callbacks on NATS threads: atomics only) ---- */
typedef struct obs {
    atomic_int in_callback, terminated, released;
    atomic_long nexts;
    _Atomic(rpl_nats_t *) conn_ref;  /* a connection it releases from its first callback */
} obs;
enum { NOBS = 128 };
static obs *observers[NOBS];
static int nobs;

static void obs_enter(obs *o, const char *what) {
    if (atomic_load(&o->released)) FAIL("%s after release", what);
    if (atomic_exchange(&o->in_callback, 1)) FAIL("%s while another callback of the subscription runs", what);
    if (atomic_load(&o->terminated)) FAIL("%s after a terminal event", what);
}
static void obs_leave(obs *o) {
    rpl_nats_t *nc = atomic_exchange(&o->conn_ref, NULL);
    if (nc) rpl_release(nc);  /* maybe the connection's last handle, from inside its own delivery */
    atomic_store(&o->in_callback, 0);
}
static void on_next(void *ctx, const rpl_value *v) {
    obs *o = ctx;
    obs_enter(o, "next");
    (void)rpl_value_type(v);
    atomic_fetch_add(&o->nexts, 1);
    obs_leave(o);
}
static void on_error(void *ctx, const rpl_error_t *e) {
    obs *o = ctx;
    obs_enter(o, "error");
    if (!rpl_error_domain(e) || !rpl_error_message(e)) FAIL("an error without domain or message");
    atomic_store(&o->terminated, 1);
    obs_leave(o);
}
static void on_completed(void *ctx) {
    obs *o = ctx;
    obs_enter(o, "completed");
    atomic_store(&o->terminated, 1);
    obs_leave(o);
}
static void on_release(void *ctx) {
    obs *o = ctx;
    if (atomic_load(&o->in_callback)) FAIL("release while a callback runs");
    rpl_nats_t *nc = atomic_exchange(&o->conn_ref, NULL);
    if (nc) rpl_release(nc);
    if (atomic_exchange(&o->released, 1)) FAIL("release ran twice");
}

/* ---- serve handlers ---- */
typedef struct serve_ctx {
    atomic_int released, running;
    atomic_long calls;
    int mode;
    rpl_subject_t *subj;  /* its own reference, or NULL */
} serve_ctx;
enum { NSERVE = 16 };
static serve_ctx *serves[NSERVE];
static int nserve;
static serve_ctx static_ctx;  /* for services made with no release function */

static rpl_signal_t *serve_fn(void *ctx, const rpl_value *req) {
    serve_ctx *s = ctx;
    if (atomic_load(&s->released)) FAIL("a serve handler ran after its release");
    atomic_fetch_add(&s->running, 1);
    long n = atomic_fetch_add(&s->calls, 1);
    rpl_signal_t *out;
    switch ((s->mode + n) % 8) {
    case 0: out = rpl_signal_return(rpl_value_copy(req)); break;
    case 1: {
        rpl_error_t *e = rpl_error_create("fuzz", 7, "served an error\nwith a newline");
        out = rpl_signal_error(e);
        rpl_release(e);
    } break;
    case 2: out = rpl_signal_empty(); break;
    case 3: out = NULL; break;
    case 4: out = (rpl_signal_t *)rpl_disposable_create(NULL, NULL); break;  /* no signal */
    case 5: out = rpl_signal_never(); break;
    case 6: out = s->subj ? rpl_retain(rpl_subject_as_signal(s->subj)) : rpl_signal_return(rpl_int(6)); break;
    default: out = rpl_signal_return(rpl_pointer(&dummy, NULL)); break;  /* cannot travel */
    }
    atomic_fetch_sub(&s->running, 1);
    return out;
}
static void serve_release(void *ctx) {
    serve_ctx *s = ctx;
    if (atomic_load(&s->running)) FAIL("a serve context released while its handler runs");
    if (atomic_exchange(&s->released, 1)) FAIL("a serve context released twice");
    rpl_release(s->subj);
    s->subj = NULL;
}

/* ---- the input's handles ---- */
typedef struct sig_slot { rpl_signal_t *s; bool hot_nats; } sig_slot;  /* hot_nats: endless NATS messages */
static sig_slot sigs[NSIG];
static rpl_subject_t *subjs[NSUBJ];
static rpl_disposable_t *subs[NSUB];

static void put_sig(rpl_signal_t *s, bool hot_nats) {
    if (!s) return;
    for (int i = 0; i < NSIG; i++)
        if (!sigs[i].s) { sigs[i] = (sig_slot){ s, hot_nats }; return; }
    rpl_release(s);
}
static void put_sub(rpl_disposable_t *d) {
    if (!d) return;
    for (int i = 0; i < NSUB; i++)
        if (!subs[i]) { subs[i] = d; return; }
    rpl_disposable_dispose(d);
    rpl_release(d);
}
static int pick_sig(uint8_t b) {
    for (int i = 0; i < NSIG; i++)
        if (sigs[(b + i) % NSIG].s) return (b + i) % NSIG;
    return -1;
}
static rpl_subject_t *pick_subj(uint8_t b) {
    for (int i = 0; i < NSUBJ; i++)
        if (subjs[(b + i) % NSUBJ]) return subjs[(b + i) % NSUBJ];
    return NULL;
}

/* A source for the publishes (+1, or NULL/a non-signal on purpose) and the
   status Ripple refuses it with. A NATS subscription goes through a take, so
   publishing it on its own subject cannot run for ever. */
static rpl_signal_t *pick_source(uint8_t b, int *err) {
    *err = RPL_OK;
    switch (b % 6) {
    case 0: *err = RPL_ERR_NULL; return NULL;
    case 1: *err = RPL_ERR_KIND; return (rpl_signal_t *)rpl_disposable_create(NULL, NULL);  /* a handle, no signal */
    case 2: {
        rpl_value vals[3] = { make_value(u8()), make_value(u8()), make_value(u8()) };
        return rpl_signal_from_array(vals, 1 + b % 3);
    }
    case 3: {
        rpl_subject_t *s = pick_subj(b >> 3);
        if (s) return rpl_retain(rpl_subject_as_signal(s));
    } /* fall through */
    default: {
        int i = pick_sig(b >> 3);
        if (i < 0) return rpl_signal_return(make_value(b));
        return sigs[i].hot_nats ? rpl_signal_take(sigs[i].s, 1 + (b >> 6)) : rpl_retain(sigs[i].s);
    }
    }
}

/* ---- operations ---- */
static const char *file_opt(uint8_t b, bool *unreadable) {
    *unreadable = true;
    switch (b % 5) {
    case 0: return "";
    case 1: return "/";
    case 2: return "/nonexistent/fuzz.file";
    case 3: *unreadable = false; return garbage_file;  /* readable: refused by the client */
    default: *unreadable = false; return NULL;
    }
}

static void op_connect(void) {
    uint8_t u = u8(), o = u8(), f = u8(), r = u8();
    const char *url;
    int want;  /* for the URL alone, with the default options */
    bool token_server = false, dead = false;
    switch (u % 12) {
    case 0: case 1: case 2: case 3: url = live_url; want = RPL_OK; break;
    case 4: url = list_url; want = RPL_OK; break;  /* a dead server and the live one */
    case 5: url = token_url; want = RPL_ERR_FAILED; token_server = true; break;
    case 6: case 7: url = u & 16 ? dead_url : localhost_dead; want = RPL_ERR_FAILED; dead = true; break;
    case 8: url = u & 16 ? "" : NULL; want = u & 16 ? RPL_ERR_INVALID : RPL_ERR_NULL; break;
    case 9: url = u & 16 ? ", ," : " "; want = RPL_ERR_INVALID; break;  /* no URL in the list */
    case 10: url = tls_url; want = ANY_FAILURE; break;                 /* TLS to a plain server */
    default: url = u & 16 ? "nats://127.0.0.1:notaport" : "nats://[::1"; want = ANY; break;
    }
    bool url_refused = want == RPL_ERR_NULL || want == RPL_ERR_INVALID;  /* checked first */
    bool null_opts = (o & 0xe1) == 0xe1;  /* the defaults */
    rpl_nats_options opt = RPL_NATS_OPTIONS_INIT;
    opt.max_reconnects = (int32_t)(r % 4) - 1;
    opt.reconnect_wait_ns = r & 4 ? 0 : 1000000;
    opt.codec = o & 1;
    int opt_err = RPL_OK;
    if ((o & 0x1e) == 0x1e) { opt.version = o & 0x20 ? 0 : 2 + (uint32_t)(o >> 6); opt_err = RPL_ERR_INVALID; }
    else if ((o & 0x0e) == 0x0c) { opt.codec = o & 16 ? 2 : -1; opt_err = RPL_ERR_INVALID; }
    if (f & 1) opt.name = f & 2 ? "" : "fuzz client";
    bool token_ok = false, has_user = false, unreadable = false, file_bad = false;
    if (f & 4) { opt.token = f & 8 ? "s3cret" : "guess"; token_ok = f & 8; }
    if ((f & 0x30) == 0x30) { opt.user = "u"; opt.password = f & 2 ? NULL : "p"; has_user = true; }
    if (f & 0x40) {
        opt.creds_file = file_opt(r >> 3, &unreadable);
        file_bad = opt.creds_file != NULL;  /* unreadable, or garbage the client refuses */
    }
    if (f & 0x80) {
        bool u2;
        const char **slot = (r & 0x40) ? &opt.tls_ca : (r & 0x80) ? &opt.tls_cert : &opt.tls_key;
        *slot = file_opt(r >> 5, &u2);
        unreadable |= u2 && *slot;
        file_bad |= *slot != NULL;  /* a garbage PEM, or TLS to a plain server */
    }
    if (null_opts) opt_err = RPL_OK, unreadable = file_bad = token_ok = has_user = false, opt.token = NULL;
    if (url_refused) {
    } else if (opt_err != RPL_OK) {
        want = opt_err;
    } else if (unreadable) {
        want = RPL_ERR_FAILED;
    } else if (file_bad) {
        want = ANY_FAILURE;
    } else if (token_server) {
        want = token_ok && !has_user ? RPL_OK : !opt.token && !has_user ? RPL_ERR_FAILED : ANY;
    }
    TRACE("connect %s (opts %s, version %u codec %d)", url ? url : "NULL", null_opts ? "NULL" : "set", opt.version, opt.codec);
    rpl_nats_t *h = rpl_nats_connect(url, null_opts ? NULL : &opt);
    expect("rpl_nats_connect", h != NULL, want);
    if (!h && rpl_last_error() == RPL_ERR_FAILED && want == RPL_ERR_FAILED && !unreadable) {
        int64_t code = rpl_error_code(rpl_last_signal_error());
        if (dead && code != RPL_NATS_ERR_NO_SERVER)
            FAIL("connect to a dead port: code %lld, not RPL_NATS_ERR_NO_SERVER", (long long)code);
        if (url == token_url && code != RPL_NATS_ERR_AUTH_FAILED && code != RPL_NATS_ERR_NOT_PERMITTED)
            FAIL("connect without the token: code %lld", (long long)code);
    }
    if (unreadable && !url_refused && !opt_err && h == NULL && !strstr(rpl_last_error_message(), "cannot be read"))
        FAIL("an unreadable file: \"%s\"", rpl_last_error_message());
    if (!h) return;
    if (token_server) {  /* no JetStream there: only looked at */
        rpl_signal_t *st = rpl_nats_status(h);
        rpl_value v;
        if (rpl_signal_first(st, &v, 1000000000ull) != RPL_OK || rpl_value_int(&v) != RPL_NATS_CONNECTED)
            FAIL("a new connection's status is not CONNECTED");
        rpl_release(st);
        rpl_release(h);
        return;
    }
    conn *c = &conns[u % NCONN];
    rpl_release(c->h);  /* the slot's connection goes, with whatever still uses it */
    *c = (conn){ h, false, null_opts ? RPL_NATS_CODEC_MSGPACK : opt.codec };
}

static void op_release_conn(uint8_t b, bool dispose) {
    conn *c = &conns[b % NCONN];
    if (!c->h) return;
    TRACE("%s conn %d", dispose ? "dispose" : "release", b % NCONN);
    if (dispose) {
        if (rpl_disposable_dispose((rpl_disposable_t *)c->h) != RPL_OK) FAIL("disposing a connection failed");
        c->disposed = true;
        /* A disposed connection is refused from now on. */
        if (rpl_nats_status(c->h) != NULL || rpl_last_error() != RPL_ERR_KIND) FAIL("a disposed connection was not refused");
    } else {
        rpl_release(c->h);
        *c = (conn){ 0 };
    }
}

static void op_status(uint8_t b) {
    nc_pick p = pick_nc(b);
    rpl_signal_t *s = rpl_nats_status(p.h);
    expect("rpl_nats_status", s != NULL, p.err);
    put_sig(s, false);
}

static void op_subscribe(uint8_t b) {
    nc_pick p = pick_nc(b);
    const named *sj = &subjects_tab[u8() % NSUBJECTS];
    const named *q = &queues_tab[u8() % (sizeof queues_tab / sizeof queues_tab[0])];
    int want = first_err(p.err, first_err(subject_err(sj->kind, true), name_err(q, true)));
    bool messages = b & 64;
    TRACE("subscribe%s %s queue %s", messages ? "_messages" : "", sj->s ? sj->s : "NULL", q->s ? q->s : "NULL");
    rpl_signal_t *s = messages ? rpl_nats_subscribe_messages(p.h, sj->s, q->s) : rpl_nats_subscribe(p.h, sj->s, q->s);
    expect(messages ? "rpl_nats_subscribe_messages" : "rpl_nats_subscribe", s != NULL, want);
    put_sig(s, true);
}

static void op_publish(uint8_t b) {
    nc_pick p = pick_nc(b);
    const named *sj = &subjects_tab[u8() % NSUBJECTS];
    int src_err;
    rpl_signal_t *src = pick_source(u8(), &src_err);
    int want = first_err(p.err, first_err(subject_err(sj->kind, false), src_err));
    TRACE("publish on %s", sj->s ? sj->s : "NULL");
    rpl_disposable_t *d = rpl_nats_publish(p.h, src, sj->s);
    expect("rpl_nats_publish", d != NULL, want);
    rpl_release(src);
    put_sub(d);
}

static void op_request(uint8_t b) {
    nc_pick p = pick_nc(b);
    const named *sj = &subjects_tab[u8() % NSUBJECTS];
    uint8_t t = u8();
    static const uint64_t timeouts[] = { 0, 1000000, 20000000, 200000000, RPL_FOREVER };
    uint64_t timeout = timeouts[t % 5];
    rpl_value v = make_value(u8());
    int want = first_err(p.err, subject_err(sj->kind, false));
    if (want == RPL_OK && timeout == 0) want = RPL_ERR_INVALID;
    if (want == RPL_OK && !travels(p.codec, &v)) want = RPL_ERR_INVALID;
    round_trip(RPL_NATS_CODEC_MSGPACK, &v, true);
    round_trip(RPL_NATS_CODEC_RAW, &v, true);
    TRACE("request %s timeout %llu", sj->s ? sj->s : "NULL", (unsigned long long)timeout);
    rpl_signal_t *s = rpl_nats_request(p.h, sj->s, v, timeout);  /* consumes v */
    expect("rpl_nats_request", s != NULL, want);
    put_sig(s, false);
}

static void op_serve(uint8_t b) {
    nc_pick p = pick_nc(b);
    const named *sj = &subjects_tab[u8() % NSUBJECTS];
    const named *q = &queues_tab[u8() % (sizeof queues_tab / sizeof queues_tab[0])];
    uint8_t m = u8();
    bool no_fn = (m & 0x70) == 0x70, no_release = (m & 0x70) == 0x60 || nserve == NSERVE;
    serve_ctx *ctx = &static_ctx;
    if (!no_release) {
        ctx = calloc(1, sizeof *ctx);
        ctx->mode = m & 7;
        rpl_subject_t *s = pick_subj(m >> 3);
        ctx->subj = s ? rpl_retain(s) : NULL;
        serves[nserve++] = ctx;
    }
    int want = first_err(p.err, no_fn ? RPL_ERR_NULL : first_err(subject_err(sj->kind, true), name_err(q, true)));
    TRACE("serve %s queue %s mode %d", sj->s ? sj->s : "NULL", q->s ? q->s : "NULL", m & 7);
    rpl_disposable_t *d = rpl_nats_serve(p.h, sj->s, q->s, no_fn ? NULL : serve_fn, ctx, no_release ? NULL : serve_release);
    expect("rpl_nats_serve", d != NULL, want);
    if (!d && !no_release && !atomic_load(&ctx->released)) FAIL("a failed rpl_nats_serve did not run release");
    put_sub(d);
}

static void op_stream_ensure(uint8_t b) {
    nc_pick p = pick_nc(b);
    static const struct { const char *stream, *subjects; int want; } tab[] = {
        { "FZ", "fzjs.>", RPL_OK }, { "FZ2", "fzjs2.a", RPL_OK }, { "FZ2", "fzjs2.a, fzjs2.*", ANY },
        { "FZ3", "fzjs.a", RPL_ERR_FAILED },  /* overlaps FZ */
        { "FZ", NULL, RPL_ERR_NULL }, { "FZ", "", RPL_ERR_INVALID }, { "FZ", " , ", RPL_ERR_INVALID },
        { "FZ", "a..b", RPL_ERR_INVALID }, { NULL, "x", RPL_ERR_NULL }, { "", "x", RPL_ERR_INVALID },
        { "F.Z", "x", RPL_ERR_INVALID },
    };
    uint8_t i = u8() % (sizeof tab / sizeof tab[0]);
    int32_t replicas = (int32_t)(b >> 6) - 1;  /* -1, 0, 1, 2 */
    int want = tab[i].want;  /* the arguments' own error, or the server's answer */
    bool server = want == RPL_OK || want == RPL_ERR_FAILED || want == ANY;
    if (server && replicas < 0) want = RPL_ERR_INVALID;
    else if (want == RPL_OK && replicas > 1) want = ANY;  /* a server outside a cluster may take it as 1 */
    want = first_err(p.err, want);
    TRACE("stream_ensure %s %s %d", tab[i].stream ? tab[i].stream : "NULL", tab[i].subjects ? tab[i].subjects : "NULL", replicas);
    touched_js = true;
    rpl_status st = rpl_nats_stream_ensure(p.h, tab[i].stream, tab[i].subjects, replicas);
    expect("rpl_nats_stream_ensure", st == RPL_OK, want);
    if (st != RPL_OK && st != rpl_last_error()) FAIL("stream_ensure returned %d, rpl_last_error() %d", (int)st, (int)rpl_last_error());
}

static void op_stream_publish(uint8_t b) {
    nc_pick p = pick_nc(b);
    const named *sj = &js_subjects_tab[u8() % (sizeof js_subjects_tab / sizeof js_subjects_tab[0])];
    int src_err;
    rpl_signal_t *src = pick_source(u8(), &src_err);
    int want = first_err(p.err, first_err(subject_err(sj->kind, false), src_err));
    TRACE("stream_publish %s", sj->s ? sj->s : "NULL");
    touched_js = true;
    rpl_signal_t *s = rpl_nats_stream_publish(p.h, src, sj->s);
    expect("rpl_nats_stream_publish", s != NULL, want);
    rpl_release(src);
    put_sig(s, false);
}

static void op_stream_subscribe(uint8_t b) {
    nc_pick p = pick_nc(b);
    const named *st = &streams_tab[u8() % (sizeof streams_tab / sizeof streams_tab[0])];
    const named *du = &durables_tab[u8() % (sizeof durables_tab / sizeof durables_tab[0])];
    static const uint64_t starts[] = { 0, 0, 1, 3, 1000, UINT64_MAX };
    uint64_t start = starts[u8() % 6];
    int want = first_err(p.err, first_err(name_err(st, false), name_err(du, true)));
    TRACE("stream_subscribe %s durable %s start %llu", st->s ? st->s : "NULL", du->s ? du->s : "NULL", (unsigned long long)start);
    touched_js = true;
    rpl_signal_t *s = rpl_nats_stream_subscribe(p.h, st->s, du->s, start);
    expect("rpl_nats_stream_subscribe", s != NULL, want);
    put_sig(s, true);
}

/* Subscribes an observer to one of the input's signals; some observers hold
   a connection handle that they release from inside their first callback. */
static void op_observe(uint8_t b) {
    int i = pick_sig(b);
    if (i < 0 || nobs == NOBS) return;
    obs *o = calloc(1, sizeof *o);
    observers[nobs++] = o;
    if ((b & 0xc0) == 0xc0) {
        conn *c = &conns[(b >> 3) % NCONN];
        if (c->h) atomic_store(&o->conn_ref, rpl_retain(c->h));
    }
    rpl_observer ob = RPL_OBSERVER_INIT;
    ob.on_next = on_next;
    ob.on_error = on_error;
    ob.on_completed = on_completed;
    ob.release = on_release;
    ob.ctx = o;
    TRACE("observe sig %d", i);
    rpl_disposable_t *d = rpl_signal_subscribe(sigs[i].s, &ob);
    if (!d) FAIL("subscribing a signal failed: %s", rpl_last_error_message());
    put_sub(d);
}

static void op_end_sub(uint8_t b) {
    rpl_disposable_t **d = &subs[b % NSUB];
    if (!*d) return;
    TRACE("%s sub %d", b & 16 ? "release" : "dispose", b % NSUB);
    if (!(b & 16)) rpl_disposable_dispose(*d);
    rpl_release(*d);
    *d = NULL;
}

static void op_release_sig(uint8_t b) {
    int i = pick_sig(b);
    if (i < 0) return;
    TRACE("release sig %d", i);
    rpl_release(sigs[i].s);
    sigs[i] = (sig_slot){ 0 };
}

static void op_subject(uint8_t b) {
    rpl_subject_t **s = &subjs[b % NSUBJ];
    switch ((b >> 2) % 4) {
    case 0:
        if (*s) break;
        *s = b & 64 ? rpl_behavior_subject_create(make_value(u8())) : b & 128 ? rpl_replay_subject_create(2) : rpl_subject_create();
        TRACE("new subject %d", b % NSUBJ);
        return;
    case 1:
        if (*s) {
            TRACE("subject %d: completed", b % NSUBJ);
            if (b & 64) {
                rpl_error_t *e = rpl_error_create("fuzz", b, "ended");
                rpl_subject_send_error(*s, e);
                rpl_release(e);
            } else {
                rpl_subject_send_completed(*s);
            }
        }
        return;
    case 2:
        if (*s) {
            TRACE("release subject %d", b % NSUBJ);
            rpl_release(*s);
            *s = NULL;
        }
        return;
    default: break;
    }
    if (*s) {
        rpl_value v = make_value(u8());
        TRACE("send into subject %d (type %d)", b % NSUBJ, (int)rpl_value_type(&v));
        rpl_subject_send_next(*s, v);
    }
}

static void op_take_or_first(uint8_t b) {
    int i = pick_sig(b);
    if (i < 0) return;
    if (b & 64) {
        TRACE("take %d of sig %d", 1 + (b >> 7), i);
        put_sig(rpl_signal_take(sigs[i].s, 1 + (b >> 7)), false);
        return;
    }
    rpl_value v;
    TRACE("first of sig %d", i);
    rpl_status st = rpl_signal_first(sigs[i].s, &v, 1000000ull * (1 + (b >> 3) % 30));
    if (st == RPL_OK) rpl_value_release(&v);
}

static void op_decode(uint8_t b) {
    size_t n = b % 64;
    if (n > (size_t)(in_end - in_p)) n = (size_t)(in_end - in_p);
    rpl_value v = rn_decode(b & 64 ? RPL_NATS_CODEC_RAW : RPL_NATS_CODEC_MSGPACK, in_p, n);
    in_p += n;
    rpl_type t = rpl_value_type(&v);
    if (t == RPL_TYPE_POINTER || t == RPL_TYPE_SIGNAL || t == RPL_TYPE_EVENT) FAIL("a payload decoded to type %d", (int)t);
    round_trip(RPL_NATS_CODEC_MSGPACK, &v, false);
    rpl_value_release(&v);
}

static void op_wait(uint8_t b) {
    TRACE("wait %d ms", 1 + b % 4);
    nanosleep(&(struct timespec){ 0, (1 + b % 4) * 1000000L }, NULL);
}

static void run(void) {
    for (int n = 0; n < MAX_OPS && more(); n++) {
        uint8_t op = u8(), b = u8();
        switch (op % 17) {
        case 0: op_connect(); break;
        case 1: op_release_conn(b, b & 1); break;
        case 2: op_status(b); break;
        case 3: op_subscribe(b); break;
        case 4: op_publish(b); break;
        case 5: op_request(b); break;
        case 6: op_serve(b); break;
        case 7: op_stream_ensure(b); break;
        case 8: op_stream_publish(b); break;
        case 9: op_stream_subscribe(b); break;
        case 10: case 11: op_observe(b); break;
        case 12: op_end_sub(b); break;
        case 13: op_release_sig(b); break;
        case 14: op_subject(b); break;
        case 15: op_take_or_first(b); break;
        default: if (b & 1) op_decode(b >> 1); else op_wait(b >> 1); break;
        }
    }
}

/* ---- the end of an input ---- */
static size_t live_at_start;
static size_t live_now(void) { return rpl_live_objects() - (rpl_last_signal_error() != NULL); }

static void finish(void) {
    for (int i = 0; i < NSUB; i++)
        if (subs[i]) { rpl_disposable_dispose(subs[i]); rpl_release(subs[i]); subs[i] = NULL; }
    for (int i = 0; i < NSIG; i++) { rpl_release(sigs[i].s); sigs[i] = (sig_slot){ 0 }; }
    for (int i = 0; i < NSUBJ; i++) { rpl_release(subjs[i]); subjs[i] = NULL; }
    for (int i = 0; i < NCONN; i++) { rpl_release(conns[i].h); conns[i] = (conn){ 0 }; }
    /* An observer holding a connection that never got a callback lets go
       of it now, as its user would (else its subscription and the
       connection would keep each other). */
    for (int i = 0; i < nobs; i++) {
        rpl_nats_t *nc = atomic_exchange(&observers[i]->conn_ref, NULL);
        if (nc) rpl_release(nc);
    }
    /* The NATS client's threads finish their part (the last delivery, the
       connection's close) on their own: wait for them. */
    uint64_t waited = 0;
    for (;;) {
        bool done = live_now() == live_at_start;
        for (int i = 0; done && i < nobs; i++) done = atomic_load(&observers[i]->released);
        for (int i = 0; done && i < nserve; i++) done = atomic_load(&serves[i]->released);
        if (done) break;
        if (waited >= WAIT_NS) {
            for (int i = 0; i < nobs; i++)
                if (!atomic_load(&observers[i]->released)) FAIL("observer %d never released", i);
            for (int i = 0; i < nserve; i++)
                if (!atomic_load(&serves[i]->released)) FAIL("serve context %d never released", i);
            FAIL("%zu runtime objects alive after the input, %zu before", live_now(), live_at_start);
        }
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
        waited += 1000000;
    }
    for (int i = 0; i < nobs; i++) free(observers[i]);
    for (int i = 0; i < nserve; i++) free(serves[i]);
    nobs = nserve = 0;
    if (touched_js) {  /* what the input stored goes, so that replays stay short */
        js_PurgeStream(raw_js, "FZ", NULL, NULL);
        js_PurgeStream(raw_js, "FZ2", NULL, NULL);
        touched_js = false;
    }
}

static void env_copy(char *dst, size_t n, const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) {
        fprintf(stderr, "fuzz_nats: %s is not set: run it through Tests/nats/run.py fuzz (make fuzz-nats)\n", name);
        exit(2);
    }
    snprintf(dst, n, "%s", v);
}

static _Atomic int64_t input_started;  /* CLOCK_MONOTONIC seconds, 0 between inputs */
static int64_t now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}
static void *watchdog(void *arg) {
    (void)arg;
    for (;;) {
        sleep(1);
        int64_t t = atomic_load(&input_started);
        if (t && now_s() - t > INPUT_LIMIT_S) FAIL("an input ran for more than %d s (a hang)", INPUT_LIMIT_S);
    }
    return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    trace = getenv("FUZZ_TRACE") != NULL;
    env_copy(live_url, sizeof live_url, "NATS_FUZZ_URL");
    env_copy(token_url, sizeof token_url, "NATS_FUZZ_TOKEN_URL");
    env_copy(dead_url, sizeof dead_url, "NATS_FUZZ_DEAD_URL");
    env_copy(scratch, sizeof scratch, "NATS_FUZZ_DIR");
    snprintf(list_url, sizeof list_url, "%s, %s", dead_url, live_url);
    const char *port = strrchr(live_url, ':'), *dport = strrchr(dead_url, ':');
    snprintf(tls_url, sizeof tls_url, "tls://127.0.0.1%s", port ? port : ":4222");
    snprintf(localhost_dead, sizeof localhost_dead, "nats://localhost%s", dport ? dport : ":1");
    snprintf(garbage_file, sizeof garbage_file, "%s/garbage.file", scratch);
    FILE *g = fopen(garbage_file, "w");
    if (!g) FAIL("cannot write %s", garbage_file);
    fputs("-----BEGIN NATS USER JWT-----\nnot a jwt\n------END NATS USER JWT------\n", g);
    fclose(g);
    memset(long_subject, 'x', sizeof long_subject - 1);
    for (size_t i = 3; i < sizeof long_subject - 1; i += 4) long_subject[i] = '.';
    rpl_nats_t *nc = rpl_nats_connect(live_url, NULL);
    if (!nc) FAIL("cannot connect to %s: %s", live_url, rpl_last_error_message());
    if (rpl_nats_stream_ensure(nc, "FZ", "fzjs.>", 1) != RPL_OK) FAIL("stream FZ: %s", rpl_last_error_message());
    rpl_release(nc);
    not_conn = rpl_signal_never();
    pthread_t w;
    if (pthread_create(&w, NULL, watchdog, NULL) != 0) FAIL("no watchdog thread");
    pthread_detach(w);
    if (natsConnection_ConnectTo(&raw, live_url) != NATS_OK || natsConnection_JetStream(&raw_js, raw, NULL) != NATS_OK)
        FAIL("nats.c cannot connect to %s", live_url);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1024) return 0;
    atomic_store(&input_started, now_s());
    live_at_start = live_now();
    in_p = data;
    in_end = data + size;
    /* Every input starts with a connection of its own (the first of its
       slots), so that what it leaves running ends with it. */
    conns[0] = (conn){ rpl_nats_connect(live_url, NULL), false, RPL_NATS_CODEC_MSGPACK };
    if (!conns[0].h) FAIL("cannot connect to %s: %s", live_url, rpl_last_error_message());
    run();
    finish();
    atomic_store(&input_started, 0);
    return 0;
}
