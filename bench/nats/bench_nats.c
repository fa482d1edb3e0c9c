/* make bench-nats: libripple-nats beside libnats used directly, through one
   nats-server on loopback (Tests/nats/run.py bench starts it), one run:
     - 100,000 small messages publish -> subscribe: messages per second
       (target: Ripple >= 0.75x libnats);
     - request/reply round trip, sequential (target: Ripple <= 1.25x);
     - JetStream publish with acknowledgements: messages per second.
   Each row: a separate publishing and subscribing connection; the clock runs
   from the first publish to the last message received.
     bench_nats URL */
#define _GNU_SOURCE
#include <nats/nats.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ripple_nats.h>

enum { N_MSGS = 100000, N_REQ = 5000, N_JS = 5000 };

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Atomic long received;
static _Atomic int failed;

static void wait_for(long n) {
    while (atomic_load(&received) < n && !atomic_load(&failed)) usleep(200);
}

/* ---- libnats ---- */
static void nats_count(natsConnection *nc, natsSubscription *sub, natsMsg *m, void *closure) {
    (void)nc, (void)sub, (void)closure;
    atomic_fetch_add(&received, 1);
    natsMsg_Destroy(m);
}

static void nats_echo(natsConnection *nc, natsSubscription *sub, natsMsg *m, void *closure) {
    (void)sub, (void)closure;
    natsConnection_Publish(nc, natsMsg_GetReply(m), natsMsg_GetData(m), natsMsg_GetDataLength(m));
    natsMsg_Destroy(m);
}

static natsConnection *nats_conn(const char *url) {
    natsConnection *nc = NULL;
    if (natsConnection_ConnectTo(&nc, url) != NATS_OK) {
        fprintf(stderr, "libnats connect failed\n");
        exit(1);
    }
    return nc;
}

static double nats_pubsub(const char *url) {
    natsConnection *pub = nats_conn(url), *subc = nats_conn(url);
    natsSubscription *sub = NULL;
    natsConnection_Subscribe(&sub, subc, "bench.nats", nats_count, NULL);
    natsSubscription_SetPendingLimits(sub, -1, -1);
    natsConnection_Flush(subc);
    atomic_store(&received, 0);
    double t0 = now_s();
    for (long i = 0; i < N_MSGS; i++) {
        uint8_t payload[2] = { 0xcd, (uint8_t)i };  /* the size of a small MessagePack int */
        natsConnection_Publish(pub, "bench.nats", payload, 2);
    }
    natsConnection_Flush(pub);
    wait_for(N_MSGS);
    double dt = now_s() - t0;
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(pub), natsConnection_Destroy(subc);
    return N_MSGS / dt;
}

static double nats_request(const char *url) {
    natsConnection *req = nats_conn(url), *srv = nats_conn(url);
    natsSubscription *sub = NULL;
    natsConnection_Subscribe(&sub, srv, "bench.echo", nats_echo, NULL);
    natsConnection_Flush(srv);
    double t0 = now_s();
    for (int i = 0; i < N_REQ; i++) {
        natsMsg *reply = NULL;
        if (natsConnection_Request(&reply, req, "bench.echo", "\x01", 1, 5000) != NATS_OK) {
            fprintf(stderr, "libnats request failed\n");
            exit(1);
        }
        natsMsg_Destroy(reply);
    }
    double dt = now_s() - t0;
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(req), natsConnection_Destroy(srv);
    return dt / N_REQ * 1e6;
}

static double nats_js(const char *url) {
    natsConnection *nc = nats_conn(url);
    jsCtx *js = NULL;
    natsConnection_JetStream(&js, nc, NULL);
    double t0 = now_s();
    for (int i = 0; i < N_JS; i++) {
        jsPubAck *pa = NULL;
        if (js_Publish(&pa, js, "benchjs.nats", "\x01", 1, NULL, NULL) != NATS_OK) {
            fprintf(stderr, "js_Publish failed\n");
            exit(1);
        }
        jsPubAck_Destroy(pa);
    }
    double dt = now_s() - t0;
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    return N_JS / dt;
}

/* ---- Ripple ---- */
static void count_next(void *ctx, const rpl_value *v) {
    (void)ctx, (void)v;
    atomic_fetch_add(&received, 1);
}
static void count_error(void *ctx, const rpl_error_t *e) {
    (void)ctx;
    fprintf(stderr, "ripple subscription failed: %s\n", rpl_error_message(e));
    atomic_store(&failed, 1);
}

static rpl_nats_t *rpl_conn(const char *url) {
    rpl_nats_t *nc = rpl_nats_connect(url, NULL);
    if (!nc) {
        fprintf(stderr, "%s\n", rpl_last_error_message());
        exit(1);
    }
    return nc;
}

static double ripple_pubsub(const char *url) {
    rpl_nats_t *pub = rpl_conn(url), *subc = rpl_conn(url);
    rpl_signal_t *s = rpl_nats_subscribe(subc, "bench.rpl", NULL);
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = count_next, o.on_error = count_error;
    rpl_disposable_t *d = rpl_signal_subscribe(s, &o);
    atomic_store(&received, 0);
    rpl_signal_t *range = rpl_signal_range(200, N_MSGS);  /* ints 200.. : two or three bytes each */
    double t0 = now_s();
    rpl_disposable_t *p = rpl_nats_publish(pub, range, "bench.rpl");  /* publishes all, then flushes */
    wait_for(N_MSGS);
    double dt = now_s() - t0;
    rpl_disposable_dispose(d);
    rpl_release(p), rpl_release(range), rpl_release(d), rpl_release(s), rpl_release(pub), rpl_release(subc);
    return N_MSGS / dt;
}

static rpl_signal_t *echo(void *ctx, const rpl_value *req) {
    (void)ctx;
    return rpl_signal_return(rpl_value_copy(req));
}

static double ripple_request(const char *url) {
    rpl_nats_t *req = rpl_conn(url), *srv = rpl_conn(url);
    rpl_disposable_t *svc = rpl_nats_serve(srv, "bench.recho", NULL, echo, NULL, NULL);
    rpl_signal_t *q = rpl_nats_request(req, "bench.recho", rpl_int(1), 5000000000ull);
    double t0 = now_s();
    for (int i = 0; i < N_REQ; i++) {
        rpl_value out;
        if (rpl_signal_first(q, &out, 10000000000ull) != RPL_OK) {  /* each subscription is one request */
            fprintf(stderr, "ripple request failed: %s\n", rpl_last_error_message());
            exit(1);
        }
    }
    double dt = now_s() - t0;
    rpl_disposable_dispose(svc);
    rpl_release(svc), rpl_release(q), rpl_release(req), rpl_release(srv);
    return dt / N_REQ * 1e6;
}

static double ripple_js(const char *url) {
    rpl_nats_t *nc = rpl_conn(url);
    rpl_signal_t *range = rpl_signal_range(1, N_JS);
    rpl_signal_t *acks = rpl_nats_stream_publish(nc, range, "benchjs.rpl");
    double t0 = now_s();
    rpl_status st = rpl_signal_wait(acks, 120000000000ull);
    double dt = now_s() - t0;
    if (st != RPL_OK) {
        fprintf(stderr, "ripple stream publish failed: %s\n", rpl_last_error_message());
        exit(1);
    }
    rpl_release(acks), rpl_release(range), rpl_release(nc);
    return N_JS / dt;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *url = argv[1];
    rpl_nats_t *nc = rpl_conn(url);
    if (rpl_nats_stream_ensure(nc, "BENCH", "benchjs.>", 1) != RPL_OK) {
        fprintf(stderr, "%s\n", rpl_last_error_message());
        return 1;
    }
    rpl_release(nc);
    FILE *f = fopen("/proc/loadavg", "r");
    char load[128] = "?";
    if (f && fgets(load, sizeof load, f)) load[strcspn(load, "\n")] = 0;
    if (f) fclose(f);
    /* Warm up both paths once, then measure. */
    nats_pubsub(url), ripple_pubsub(url);
    double np = nats_pubsub(url), rp = ripple_pubsub(url);
    double nr = nats_request(url), rr = ripple_request(url);
    double nj = nats_js(url), rj = ripple_js(url);
    printf("libripple-nats beside libnats, one nats-server on loopback (loadavg %s)\n", load);
    printf("  %-52s %12s %12s %8s\n", "row", "libnats", "ripple", "ratio");
    printf("  %-52s %12.0f %12.0f %7.2fx  (target >= 0.75x)\n", "pub -> sub, 100,000 small messages (msgs/s)", np, rp, rp / np);
    printf("  %-52s %12.1f %12.1f %7.2fx  (target <= 1.25x)\n", "request/reply round trip, 5,000 sequential (us)", nr, rr, rr / nr);
    printf("  %-52s %12.0f %12.0f %7.2fx\n", "JetStream publish with acks, 5,000 (msgs/s)", nj, rj, rj / nj);
    return 0;
}
