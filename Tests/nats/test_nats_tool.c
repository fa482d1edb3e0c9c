/* The NATS test programs that Tests/nats/run.py drives around servers it
   starts, stops and kills (one program, a command per role):
     status URL                      status events across a server restart
     connect URL [opts] [--fail TEXT [--code N]]
                                     a connection with credentials / TLS:
                                     --token T --user U --password P --ca F
                                     --cert F --key F --creds F; it answers a
                                     request and gets what it publishes. With
                                     --fail it must be refused with TEXT in
                                     the error (and code N, RPL_NATS_ERR_*).
                                     --repeat N: first N connects in a row,
                                     each accepted and released
     js_replay URL                   start_sequence, durables, stream_ensure
     js_produce URL STREAM SUBJECT N REPLICAS DELAY_US
                                     publishes 1..N with acknowledgements
     js_consume URL STREAM DURABLE N OUTFILE
                                     appends each value (a line) to OUTFILE
                                     before it is acknowledged; exits once it
                                     has seen 1..N
     interop URL                     with Tests/nats/interop.py (nats-py) */
#include "nats_test.h"

#include <fcntl.h>

static rpl_nats_t *connect_or_die(const char *url, rpl_nats_options *o) {
    rpl_nats_t *nc = rpl_nats_connect(url, o);
    if (!nc) {
        fprintf(stderr, "connect %s: %s\n", url, rpl_last_error_message());
        exit(2);
    }
    return nc;
}

static void say(const char *line) {
    printf("%s\n", line);
    fflush(stdout);
}

/* ---- status across a restart ---- */
static int cmd_status(const char *url) {
    rpl_nats_options o = RPL_NATS_OPTIONS_INIT;
    o.reconnect_wait_ns = 100000000;
    rpl_nats_t *nc = connect_or_die(url, &o);
    rec st, data;
    rec_init(&st), rec_init(&data);
    rpl_signal_t *status = rpl_nats_status(nc), *sub = rpl_nats_subscribe(nc, "st.x", NULL);
    rpl_disposable_t *ds = rec_subscribe(status, &st), *dd = rec_subscribe(sub, &data);
    CHECK(st.count == 1 && rpl_value_int(&st.values[0]) == RPL_NATS_CONNECTED);
    say("READY");  /* the harness restarts the server now */
    CHECK(REC_WAIT(&st, 20000, st.count >= 3));
    CHECK(st.count >= 3 && rpl_value_int(&st.values[1]) == RPL_NATS_DISCONNECTED &&
          rpl_value_int(&st.values[2]) == RPL_NATS_RECONNECTED);
    /* The subscription resumed: a publish after the reconnect reaches it. */
    rpl_signal_t *one = rpl_signal_return(rpl_string("after restart"));
    rpl_disposable_t *p = rpl_nats_publish(nc, one, "st.x");
    CHECK(REC_WAIT(&data, 5000, data.count == 1));
    CHECK(data.count == 1 && strcmp(rpl_value_string(&data.values[0], NULL), "after restart") == 0);
    /* A later subscriber of the status gets the current state first. */
    rec late;
    rec_init(&late);
    rpl_disposable_t *dl = rec_subscribe(status, &late);
    CHECK(late.count == 1 && rpl_value_int(&late.values[0]) == RPL_NATS_RECONNECTED);
    printf("status events:");
    for (size_t i = 0; i < st.count; i++) printf(" %lld", (long long)rpl_value_int(&st.values[i]));
    printf("\n");
    rpl_release(nc);
    CHECK(REC_WAIT(&st, 5000, st.completed == 1 && late.completed == 1));
    CHECK(REC_WAIT(&data, 5000, data.completed == 1));
    rpl_release(p), rpl_release(one), rpl_release(ds), rpl_release(dd), rpl_release(dl);
    rpl_release(status), rpl_release(sub);
    (void)REC_WAIT(&st, 2000, st.released == 1);
    (void)REC_WAIT(&late, 2000, late.released == 1);
    (void)REC_WAIT(&data, 2000, data.released == 1);
    rec_free(&st), rec_free(&data), rec_free(&late);
    return nt_report("status");
}

/* ---- credentials and TLS ---- */
static rpl_signal_t *echo(void *ctx, const rpl_value *req) {
    (void)ctx;
    return rpl_signal_return(rpl_value_copy(req));
}

static int cmd_connect(const char *url, int argc, char **argv) {
    rpl_nats_options o = RPL_NATS_OPTIONS_INIT;
    o.max_reconnects = 0;
    const char *fail = NULL;
    int code = 0;  /* with --fail: the RPL_NATS_ERR_* code wanted */
    long repeat = 0;
    for (int i = 0; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--token")) o.token = v;
        else if (!strcmp(k, "--user")) o.user = v;
        else if (!strcmp(k, "--password")) o.password = v;
        else if (!strcmp(k, "--ca")) o.tls_ca = v;
        else if (!strcmp(k, "--cert")) o.tls_cert = v;
        else if (!strcmp(k, "--key")) o.tls_key = v;
        else if (!strcmp(k, "--creds")) o.creds_file = v;
        else if (!strcmp(k, "--fail")) fail = v;
        else if (!strcmp(k, "--code")) code = atoi(v);
        else if (!strcmp(k, "--repeat")) repeat = atol(v);
    }
    long accepted = 0;
    for (long i = 0; i < repeat; i++) {
        rpl_nats_t *each = rpl_nats_connect(url, &o);
        if (each) accepted++;
        else fprintf(stderr, "connect %ld of %ld refused: %s\n", i + 1, repeat, rpl_last_error_message());
        rpl_release(each);
    }
    CHECK(accepted == repeat);
    if (repeat) printf("%ld connects in a row: %ld accepted\n", repeat, accepted);
    rpl_nats_t *nc = rpl_nats_connect(url, &o);
    if (fail) {
        CHECK(nc == NULL);
        /* The server's (or the client's) reason, after the function's name
           only; the NATS error itself in rpl_last_signal_error(). */
        CHECK(rpl_last_error() == RPL_ERR_FAILED);
        CHECK(strncmp(rpl_last_error_message(), "rpl_nats_connect: ", 18) == 0);
        CHECK(strstr(rpl_last_error_message(), fail) != NULL);
        CHECK(strstr(rpl_last_error_message(), "rpl_signal_first") == NULL);
        rpl_error_t *e = rpl_last_signal_error();
        CHECK(e && strcmp(rpl_error_domain(e), RPL_NATS_ERROR_DOMAIN) == 0);
        CHECK(e && strcmp(rpl_error_message(e), rpl_last_error_message()) == 0);
        if (strstr(fail, "Authorization Violation")) {
            CHECK(strcmp(rpl_last_error_message(), "rpl_nats_connect: Authorization Violation") == 0);
            CHECK(rpl_error_code(e) == RPL_NATS_ERR_AUTH_FAILED || rpl_error_code(e) == RPL_NATS_ERR_NOT_PERMITTED);
        }
        if (code) CHECK(e && rpl_error_code(e) == code);
        printf("refused: %s (code %lld)\n", rpl_last_error_message(), e ? (long long)rpl_error_code(e) : 0LL);
        rpl_release(nc);
        return nt_report("connect (refused)");
    }
    CHECK(nc != NULL);
    if (!nc) {
        fprintf(stderr, "connect: %s\n", rpl_last_error_message());
        return nt_report("connect");
    }
    rpl_disposable_t *s = rpl_nats_serve(nc, "sec.echo", NULL, echo, NULL, NULL);
    rpl_signal_t *q = rpl_nats_request(nc, "sec.echo", rpl_string("over the wire"), 5000000000ull);
    rpl_value out;
    CHECK(rpl_signal_first(q, &out, 10000000000ull) == RPL_OK);
    CHECK(strcmp(rpl_value_string(&out, NULL) ? rpl_value_string(&out, NULL) : "", "over the wire") == 0);
    rpl_value_release(&out);
    /* A subscription gets what the same connection publishes. */
    rec r;
    rec_init(&r);
    rpl_signal_t *sub = rpl_nats_subscribe(nc, "sec.data", NULL), *one = rpl_signal_return(rpl_int(42));
    rpl_disposable_t *ds = rec_subscribe(sub, &r), *dp = rpl_nats_publish(nc, one, "sec.data");
    CHECK(REC_WAIT(&r, 5000, r.count == 1));
    CHECK(r.count == 1 && rpl_value_int(&r.values[0]) == 42);
    rpl_disposable_dispose(ds);
    rpl_release(ds), rpl_release(dp), rpl_release(one), rpl_release(sub);
    rpl_disposable_dispose(s);
    rpl_release(s), rpl_release(q), rpl_release(nc);
    (void)REC_WAIT(&r, 2000, r.released == 1);
    rec_free(&r);
    nt_sleep_ms(100);
    return nt_report("connect");
}

/* ---- JetStream ---- */
static void ints_expected(rec *r, int64_t from, int64_t to) {
    bool ok = r->count == (size_t)(to - from + 1);
    for (size_t i = 0; ok && i < r->count; i++) ok = rpl_value_int(&r->values[i]) == from + (int64_t)i;
    if (!ok) {
        fprintf(stderr, "  expected %lld..%lld, got %zu values:", (long long)from, (long long)to, r->count);
        for (size_t i = 0; i < r->count; i++) fprintf(stderr, " %lld", (long long)rpl_value_int(&r->values[i]));
        fprintf(stderr, "\n");
    }
    CHECK(ok);
}

static void take_into(rpl_signal_t *s, size_t n, rec *r) {
    rpl_signal_t *t = rpl_signal_take(s, n);
    rpl_disposable_t *d = rec_subscribe(t, r);
    CHECK(REC_WAIT(r, 15000, r->completed == 1));
    CHECK(REC_WAIT(r, 5000, r->released == 1));
    rpl_release(d), rpl_release(t);
}

static void publish_range(rpl_nats_t *nc, const char *subject, int64_t from, size_t n) {
    rpl_signal_t *src = rpl_signal_range(from, n);
    rpl_signal_t *acks = rpl_nats_stream_publish(nc, src, subject);
    rpl_value arr;
    CHECK(rpl_signal_to_array(acks, &arr, 30000000000ull) == RPL_OK);
    CHECK(rpl_value_tuple_count(&arr) == n);
    rpl_value_release(&arr);
    rpl_release(acks), rpl_release(src);
}

static int cmd_js_replay(const char *url) {
    rpl_nats_t *nc = connect_or_die(url, NULL);
    /* Names of their own: the suite runs this plain, under valgrind and
       under ASan against one server. */
    char S[32], O[32], sub_all[48], sub_a[48], sub_b[48], more_all[48], more_x[48], both[96], other_all[48], overlap[96];
    int id = (int)getpid();
    snprintf(S, sizeof S, "REPLAY%d", id), snprintf(O, sizeof O, "OTHER%d", id);
    snprintf(sub_all, sizeof sub_all, "replay%d.>", id), snprintf(sub_a, sizeof sub_a, "replay%d.a", id);
    snprintf(sub_b, sizeof sub_b, "replay%d.b", id), snprintf(more_all, sizeof more_all, "more%d.*", id);
    snprintf(more_x, sizeof more_x, "more%d.x", id), snprintf(both, sizeof both, "%s, %s", sub_all, more_all);
    snprintf(other_all, sizeof other_all, "other%d.>", id), snprintf(overlap, sizeof overlap, "%s,other%d.x", sub_all, id);
    CHECK(rpl_nats_stream_ensure(nc, S, sub_all, 0) == RPL_OK);
    CHECK(rpl_nats_stream_ensure(nc, S, sub_all, 1) == RPL_OK);  /* the same again */
    /* Sequences come back in order. */
    rpl_signal_t *src = rpl_signal_range(1, 10);
    rpl_signal_t *acks = rpl_nats_stream_publish(nc, src, sub_a);
    rec ack;
    rec_init(&ack);
    take_into(acks, 10, &ack);
    ints_expected(&ack, 1, 10);
    rec_free(&ack);
    rpl_release(acks), rpl_release(src);
    /* start_sequence n > 0 starts there (ephemeral consumer). */
    rec r;
    rec_init(&r);
    rpl_signal_t *from5 = rpl_nats_stream_subscribe(nc, S, NULL, 5);
    take_into(from5, 6, &r);
    ints_expected(&r, 5, 10);
    rec_free(&r);
    /* A new durable with 0 gets everything; the durable outlives the
       subscription and resumes where it left off. */
    rpl_signal_t *d0 = rpl_nats_stream_subscribe(nc, S, "keeper", 0);
    rec_init(&r);
    take_into(d0, 10, &r);
    ints_expected(&r, 1, 10);
    rec_free(&r);
    publish_range(nc, sub_b, 11, 2);
    rec_init(&r);
    take_into(d0, 2, &r);
    ints_expected(&r, 11, 12);
    rec_free(&r);
    /* An existing durable with n > 0 is made anew from n. */
    rpl_signal_t *d3 = rpl_nats_stream_subscribe(nc, S, "keeper", 3);
    rec_init(&r);
    take_into(d3, 10, &r);
    ints_expected(&r, 3, 12);
    rec_free(&r);
    /* Two subscriptions of one signal are two consumers' worth of delivery. */
    rpl_signal_t *all = rpl_nats_stream_subscribe(nc, S, NULL, 0);
    rec a, b;
    rec_init(&a), rec_init(&b);
    rpl_disposable_t *da = rec_subscribe(all, &a), *db = rec_subscribe(all, &b);
    CHECK(REC_WAIT(&a, 10000, a.count == 12) && REC_WAIT(&b, 10000, b.count == 12));
    rpl_disposable_dispose(da), rpl_disposable_dispose(db);
    rpl_release(da), rpl_release(db);
    (void)REC_WAIT(&a, 2000, a.released), (void)REC_WAIT(&b, 2000, b.released);
    rec_free(&a), rec_free(&b);
    /* stream_ensure updates what the server allows and refuses the rest with
       its reason. */
    CHECK(rpl_nats_stream_ensure(nc, S, both, 1) == RPL_OK);
    publish_range(nc, more_x, 13, 1);
    CHECK(rpl_nats_stream_ensure(nc, O, sub_a, 1) == RPL_ERR_FAILED);  /* overlapping subjects */
    printf("  a new stream overlapping another: %s\n", rpl_last_error_message());
    CHECK(rpl_nats_stream_ensure(nc, O, other_all, 1) == RPL_OK);
    CHECK(rpl_nats_stream_ensure(nc, S, overlap, 1) == RPL_ERR_FAILED);  /* an update the server refuses */
    printf("  an update the server refuses: %s\n", rpl_last_error_message());
    CHECK(rpl_last_error() == RPL_ERR_FAILED);
    CHECK(rpl_last_signal_error() && strcmp(rpl_error_domain(rpl_last_signal_error()), "nats") == 0);
    CHECK(strncmp(rpl_last_error_message(), "rpl_nats_stream_ensure: ", 24) == 0);
    CHECK(strcmp(rpl_error_message(rpl_last_signal_error()), rpl_last_error_message()) == 0);
    /* A missing stream fails the subscription; a subject no stream takes
       fails the publish with no responders. */
    rpl_signal_t *missing = rpl_nats_stream_subscribe(nc, "NOSUCH", "x", 0);
    rpl_value out;
    CHECK(rpl_signal_first(missing, &out, 10000000000ull) == RPL_ERR_FAILED);
    CHECK(rpl_error_code(rpl_last_signal_error()) == RPL_NATS_ERR_NOT_FOUND);
    printf("  missing stream: %s\n", rpl_error_message(rpl_last_signal_error()));
    rpl_signal_t *one = rpl_signal_return(rpl_int(1));
    rpl_signal_t *nowhere = rpl_nats_stream_publish(nc, one, "no.stream.here");
    if (!getenv("NATS_TEST_QUICK")) {  /* 10 s of retries first (a leader election looks the same) */
        uint64_t t0 = nt_now_ns();
        CHECK(rpl_signal_first(nowhere, &out, 30000000000ull) == RPL_ERR_FAILED);
        CHECK(rpl_error_code(rpl_last_signal_error()) == RPL_NATS_ERR_NO_RESPONDERS);
        CHECK(nt_now_ns() - t0 >= 9000000000ull);
    }
    /* A value that cannot travel fails the stream publish with RPL_ERROR_TYPE. */
    rpl_signal_t *ptr = rpl_signal_return(rpl_pointer(&out, NULL));
    rpl_signal_t *typed = rpl_nats_stream_publish(nc, ptr, sub_a);
    CHECK(rpl_signal_first(typed, &out, 10000000000ull) == RPL_ERR_FAILED);
    CHECK(rpl_error_code(rpl_last_signal_error()) == RPL_ERROR_TYPE);
    rpl_release(ptr), rpl_release(typed), rpl_release(one), rpl_release(nowhere), rpl_release(missing);
    rpl_release(all), rpl_release(d0), rpl_release(d3), rpl_release(from5);
    rpl_release(nc);
    nt_sleep_ms(200);
    return nt_report("js_replay");
}

static int cmd_js_produce(const char *url, const char *stream, const char *subject, long n, int replicas, long delay_us) {
    rpl_nats_options o = RPL_NATS_OPTIONS_INIT;
    o.reconnect_wait_ns = 100000000;
    rpl_nats_t *nc = connect_or_die(url, &o);
    /* A new cluster elects its JetStream leader first: try for a while. */
    rpl_status st = RPL_ERR_FAILED;
    for (int i = 0; i < 60 && st != RPL_OK; i++) {
        st = rpl_nats_stream_ensure(nc, stream, subject, replicas);
        if (st != RPL_OK) nt_sleep_ms(500);
    }
    CHECK(st == RPL_OK);
    if (st != RPL_OK) fprintf(stderr, "%s\n", rpl_last_error_message());
    rpl_subject_t *src = rpl_subject_create();
    rec acks;
    rec_init(&acks);
    rpl_signal_t *pub = rpl_nats_stream_publish(nc, (rpl_signal_t *)src, subject);
    rpl_disposable_t *d = rec_subscribe(pub, &acks);
    say("PUBLISHING");
    for (long i = 1; i <= n && acks.errors == 0; i++) {
        rpl_subject_send_next(src, rpl_int(i));  /* returns once the stream acknowledged it */
        if (delay_us) usleep((useconds_t)delay_us);
    }
    rpl_subject_send_completed(src);
    CHECK(acks.errors == 0 && acks.completed == 1);
    CHECK(acks.count == (size_t)n);
    if (acks.errors) fprintf(stderr, "stream publish failed: %s %lld %s\n", acks.domain, (long long)acks.code, acks.message);
    bool increasing = true;
    for (size_t i = 1; i < acks.count; i++) increasing &= rpl_value_int(&acks.values[i]) > rpl_value_int(&acks.values[i - 1]);
    CHECK(increasing);
    printf("published %zu, last sequence %lld\n", acks.count, acks.count ? (long long)rpl_value_int(&acks.values[acks.count - 1]) : 0LL);
    rpl_release(d), rpl_release(pub), rpl_release(src);
    rpl_release(nc);
    (void)REC_WAIT(&acks, 2000, acks.released == 1);
    rec_free(&acks);
    return nt_report("js_produce");
}

typedef struct consume_ctx {
    int fd;
    long n;
    char *seen;
    long unique;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ended;
} consume_ctx;

static void consume_next(void *ctx, const rpl_value *v) {
    consume_ctx *c = ctx;
    char line[32];
    int len = snprintf(line, sizeof line, "%lld\n", (long long)rpl_value_int(v));
    if (write(c->fd, line, (size_t)len) != len) abort();  /* recorded before the acknowledgement */
    int64_t x = rpl_value_int(v);
    pthread_mutex_lock(&c->mu);
    if (x >= 1 && x <= c->n && !c->seen[x]) c->seen[x] = 1, c->unique++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void consume_end(void *ctx) {
    consume_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->ended = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void consume_error(void *ctx, const rpl_error_t *e) {
    fprintf(stderr, "stream subscription failed: %s %lld %s\n", rpl_error_domain(e), (long long)rpl_error_code(e),
            rpl_error_message(e));
    consume_end(ctx);
}

static int cmd_js_consume(const char *url, const char *stream, const char *durable, long n, const char *out) {
    rpl_nats_options o = RPL_NATS_OPTIONS_INIT;
    o.reconnect_wait_ns = 100000000;
    rpl_nats_t *nc = connect_or_die(url, &o);
    consume_ctx c = { .n = n };
    c.seen = calloc((size_t)n + 1, 1);
    /* What an earlier run of this consumer (killed, say) recorded counts. */
    FILE *prev = fopen(out, "r");
    long x;
    while (prev && fscanf(prev, "%ld", &x) == 1)
        if (x >= 1 && x <= n && !c.seen[x]) c.seen[x] = 1, c.unique++;
    if (prev) fclose(prev);
    c.fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    rpl_signal_t *s = NULL;
    rpl_disposable_t *d = NULL;
    /* The producer may not have made the stream yet. */
    for (int i = 0; i < 60; i++) {
        s = rpl_nats_stream_subscribe(nc, stream, durable, 0);
        rpl_observer ob = RPL_OBSERVER_INIT;
        ob.on_next = consume_next, ob.on_error = consume_error, ob.on_completed = consume_end, ob.ctx = &c;
        c.ended = 0;
        d = rpl_signal_subscribe(s, &ob);
        if (!rpl_disposable_is_disposed(d)) break;
        rpl_release(d), rpl_release(s);
        d = NULL, s = NULL;
        nt_sleep_ms(500);
    }
    CHECK(d != NULL);
    say("CONSUMING");
    pthread_mutex_lock(&c.mu);
    uint64_t deadline = nt_now_ns() + 120ull * 1000000000ull;
    while (c.unique < n && !c.ended && nt_now_ns() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&c.cv, &c.mu, &ts);
    }
    long unique = c.unique;
    pthread_mutex_unlock(&c.mu);
    CHECK(unique == n);
    printf("consumed %ld of %ld distinct values\n", unique, n);
    rpl_disposable_dispose(d);
    rpl_release(d), rpl_release(s), rpl_release(nc);
    nt_sleep_ms(200);
    close(c.fd);
    free(c.seen);
    return nt_report("js_consume");
}

/* ---- interop with nats-py (Tests/nats/interop.py) ---- */
static int cmd_interop(const char *url) {
    rpl_nats_t *nc = connect_or_die(url, NULL);
    rec r;
    rec_init(&r);
    rpl_signal_t *s = rpl_nats_subscribe(nc, "py.to.c", NULL);
    rpl_disposable_t *d = rec_subscribe(s, &r);
    rpl_disposable_t *svc = rpl_nats_serve(nc, "c.echo", NULL, echo, NULL, NULL);
    rec done;  /* interop.py requests c.echo and then says it is done on py.done */
    rec_init(&done);
    rpl_signal_t *done_sig = rpl_nats_subscribe(nc, "py.done", NULL);
    rpl_disposable_t *dd = rec_subscribe(done_sig, &done);
    say("READY");
    /* What interop.py sends: 7, "two", 3.5, nil, true, bytes 00 01,
       [1, [2, "x"]], -300, 2**40, {"a": 1} (a map: bytes). */
    CHECK(REC_WAIT(&r, 20000, r.count == 10));
    if (r.count == 10) {
        CHECK(rpl_value_int(&r.values[0]) == 7);
        CHECK(strcmp(rpl_value_string(&r.values[1], NULL), "two") == 0);
        CHECK(rpl_value_double(&r.values[2]) == 3.5);
        CHECK(rpl_value_type(&r.values[3]) == RPL_TYPE_NIL);
        CHECK(rpl_value_type(&r.values[4]) == RPL_TYPE_BOOL && rpl_value_bool(&r.values[4]));
        size_t len = 0;
        const uint8_t *b = rpl_value_bytes(&r.values[5], &len);
        CHECK(b && len == 2 && b[0] == 0 && b[1] == 1);
        CHECK(rpl_value_tuple_count(&r.values[6]) == 2);
        rpl_value inner = rpl_value_tuple_at(&r.values[6], 1);
        rpl_value x = rpl_value_tuple_at(&inner, 1);
        CHECK(rpl_value_int(&r.values[7]) == -300);
        CHECK(rpl_value_int(&r.values[8]) == (int64_t)1 << 40);
        CHECK(strcmp(rpl_value_string(&x, NULL), "x") == 0);
        rpl_value_release(&x), rpl_value_release(&inner);
        CHECK(rpl_value_type(&r.values[9]) == RPL_TYPE_BYTES);  /* a map does not decode */
    }
    /* And back: the same values, read by Python's msgpack. */
    rpl_value in2[2] = { rpl_int(2), rpl_string("x") };
    rpl_value in1[2] = { rpl_int(1), rpl_tuple(in2, 2) };
    uint8_t raw[2] = { 0, 1 };
    rpl_value vals[] = { rpl_int(7), rpl_string("two"), rpl_double(3.5), rpl_nil(), rpl_bool(true), rpl_bytes(raw, 2),
                         rpl_tuple(in1, 2), rpl_int(-300), rpl_int((int64_t)1 << 40) };
    rpl_signal_t *src = rpl_signal_from_array(vals, 9);
    rpl_disposable_t *p = rpl_nats_publish(nc, src, "c.to.py");
    say("SENT");
    CHECK(REC_WAIT(&done, 30000, done.count == 1));
    rpl_disposable_dispose(d), rpl_disposable_dispose(svc), rpl_disposable_dispose(dd);
    rpl_release(d), rpl_release(s), rpl_release(svc), rpl_release(p), rpl_release(src), rpl_release(dd), rpl_release(done_sig);
    rpl_release(nc);
    (void)REC_WAIT(&r, 2000, r.released == 1);
    (void)REC_WAIT(&done, 2000, done.released == 1);
    rec_free(&r), rec_free(&done);
    nt_sleep_ms(100);
    return nt_report("interop");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s COMMAND URL ...\n", argv[0]);
        return 2;
    }
    nt_watchdog(280);
    const char *cmd = argv[1], *url = argv[2];
    if (!strcmp(cmd, "status")) return cmd_status(url);
    if (!strcmp(cmd, "connect")) return cmd_connect(url, argc - 3, argv + 3);
    if (!strcmp(cmd, "js_replay")) return cmd_js_replay(url);
    if (!strcmp(cmd, "js_produce") && argc == 8)
        return cmd_js_produce(url, argv[3], argv[4], atol(argv[5]), atoi(argv[6]), atol(argv[7]));
    if (!strcmp(cmd, "js_consume") && argc == 7) return cmd_js_consume(url, argv[3], argv[4], atol(argv[5]), argv[6]);
    if (!strcmp(cmd, "interop")) return cmd_interop(url);
    fprintf(stderr, "unknown command or arguments: %s\n", cmd);
    return 2;
}
