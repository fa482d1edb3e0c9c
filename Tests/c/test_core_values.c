/* Values, version, handles, status strings and errors (issue 2). */
#include "check.h"
#include <ripple.h>
#include <math.h>
#include <pthread.h>

/* A failed call left a status and a non-empty message. */
#define CHECK_FAILED_WITH(status) do { \
    CHECK_EQ_INT(rpl_last_error(), (status)); \
    CHECK(rpl_last_error_message()[0] != '\0'); \
} while (0)

static void test_version(void) {
    CHECK_EQ_INT(rpl_version(), RPL_VERSION_NUMBER);
    CHECK(strcmp(rpl_version_string(), RPL_VERSION_STRING) == 0);
    CHECK(RPL_AT_LEAST_VERSION(0, 1, 0));
    CHECK(!RPL_AT_LEAST_VERSION(99, 0, 0));
}

static void test_status_strings(void) {
    const rpl_status all[] = { RPL_OK, RPL_ERR_NULL, RPL_ERR_KIND, RPL_ERR_INVALID, RPL_ERR_TIMEOUT,
                               RPL_ERR_NO_VALUE, RPL_ERR_FAILED, RPL_ERR_NOMEM, RPL_ERR_STATE,
                               RPL_ERR_MISUSE, RPL_ERR_DEPTH };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *s = rpl_status_string(all[i]);
        CHECK(s != NULL && s[0] != '\0');
        for (size_t j = 0; j < i; j++) CHECK(strcmp(s, rpl_status_string(all[j])) != 0);
    }
    CHECK(rpl_status_string(-12345) != NULL);
    CHECK(rpl_status_string(12345)[0] != '\0');
    CHECK(rpl_last_error_message() != NULL);
}

static void test_retain_release(void) {
    CHECK(rpl_retain(NULL) == NULL);
    rpl_release(NULL);
    rpl_error_t *e = rpl_error_create("d", 1, "m");
    CHECK(rpl_retain(e) == e);
    rpl_release(e);
    CHECK_EQ_INT(rpl_error_code(e), 1);  /* still alive: one reference left */
    rpl_release(e);
}

static void test_errors(void) {
    rpl_error_t *e = rpl_error_create("my.domain", 42, "boom");
    CHECK(e != NULL);
    CHECK(strcmp(rpl_error_domain(e), "my.domain") == 0);
    CHECK_EQ_INT(rpl_error_code(e), 42);
    CHECK(strcmp(rpl_error_message(e), "boom") == 0);

    rpl_error_t *d = rpl_error_create(NULL, RPL_ERROR_TIMEOUT, NULL);
    CHECK(strcmp(rpl_error_domain(d), RPL_ERROR_DOMAIN) == 0);
    CHECK(strcmp(rpl_error_message(d), "") == 0);
    CHECK_EQ_INT(rpl_error_code(d), RPL_ERROR_TIMEOUT);

    rpl_error_t *same = rpl_error_create("my.domain", 42, "other text");
    CHECK(rpl_error_equal(e, same));
    CHECK(rpl_error_equal(e, e));
    CHECK(!rpl_error_equal(e, d));

    /* Bad input: NULL and wrong kinds. */
    CHECK(rpl_error_domain(NULL) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK_EQ_INT(rpl_error_code(NULL), 0);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(rpl_error_message(NULL) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(!rpl_error_equal(NULL, e));
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    CHECK(!rpl_error_equal(e, NULL));
    CHECK_FAILED_WITH(RPL_ERR_NULL);

    rpl_disposable_t *disp = rpl_disposable_create(NULL, NULL);
    CHECK(rpl_error_domain((rpl_error_t *)disp) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_error_code((rpl_error_t *)disp), 0);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(rpl_error_message((rpl_error_t *)disp) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(!rpl_error_equal(e, (rpl_error_t *)disp));
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(strstr(rpl_last_error_message(), "rpl_error_equal") != NULL);
    rpl_release(disp);

    rpl_release(same);
    rpl_release(d);
    rpl_release(e);
}

/* rpl_set_last_error: how a library over the C API reports a failure. */
/* What another thread saw (checked by the main thread after the join: the
   check counters are not atomic). */
static void *set_last_error_thread(void *arg) {
    rpl_status *seen = arg;
    seen[0] = rpl_last_error();
    seen[1] = rpl_set_last_error(RPL_ERR_NOMEM, "other thread");
    seen[2] = rpl_last_error();
    return NULL;
}

static void test_set_last_error(void) {
    CHECK_EQ_INT(rpl_set_last_error(RPL_ERR_STATE, "my_lib_start: already started"), RPL_ERR_STATE);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_STATE);
    CHECK(strcmp(rpl_last_error_message(), "my_lib_start: already started") == 0);

    /* The message is copied. */
    char buf[32];
    snprintf(buf, sizeof buf, "my_lib: %d", 7);
    CHECK_EQ_INT(rpl_set_last_error(RPL_ERR_INVALID, buf), RPL_ERR_INVALID);
    memset(buf, 'x', sizeof buf - 1);
    CHECK(strcmp(rpl_last_error_message(), "my_lib: 7") == 0);
    /* Its own message again (the copy is made before the old one goes). */
    CHECK_EQ_INT(rpl_set_last_error(RPL_ERR_KIND, rpl_last_error_message()), RPL_ERR_KIND);
    CHECK(strcmp(rpl_last_error_message(), "my_lib: 7") == 0);

    /* NULL message: the status's own text. Every RPL_ERR_* is accepted. */
    const rpl_status all[] = { RPL_ERR_NULL, RPL_ERR_KIND, RPL_ERR_INVALID, RPL_ERR_TIMEOUT, RPL_ERR_NO_VALUE,
                               RPL_ERR_FAILED, RPL_ERR_NOMEM, RPL_ERR_STATE, RPL_ERR_MISUSE, RPL_ERR_DEPTH };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        CHECK_EQ_INT(rpl_set_last_error(all[i], NULL), all[i]);
        CHECK_EQ_INT(rpl_last_error(), all[i]);
        CHECK(strcmp(rpl_last_error_message(), rpl_status_string(all[i])) == 0);
    }

    /* Not an RPL_ERR_*: refused, and the last error says so. */
    const rpl_status bad[] = { RPL_OK, 1, -11, -12345, INT32_MIN, INT32_MAX };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_INT(rpl_set_last_error(bad[i], "ignored"), RPL_ERR_INVALID);
        CHECK_EQ_INT(rpl_last_error(), RPL_ERR_INVALID);
        CHECK(strstr(rpl_last_error_message(), "rpl_set_last_error") != NULL);
        CHECK(strstr(rpl_last_error_message(), "ignored") == NULL);
    }

    /* Per thread: another thread's last error is its own. */
    rpl_set_last_error(RPL_ERR_TIMEOUT, "main thread");
    pthread_t t;
    rpl_status seen[3] = { 1, 1, 1 };
    int created = pthread_create(&t, NULL, set_last_error_thread, seen);
    CHECK(created == 0);
    if (created == 0) CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ_INT(seen[0], RPL_OK);  /* a fresh thread has no last error */
    CHECK_EQ_INT(seen[1], RPL_ERR_NOMEM);
    CHECK_EQ_INT(seen[2], RPL_ERR_NOMEM);
    CHECK_EQ_INT(rpl_last_error(), RPL_ERR_TIMEOUT);
    CHECK(strcmp(rpl_last_error_message(), "main thread") == 0);
}

static void test_scalars(void) {
    rpl_value n = rpl_nil(), t = rpl_bool(true), f = rpl_bool(false), i = rpl_int(-7),
              big = rpl_int(INT64_MIN), x = rpl_double(2.5);
    CHECK_EQ_INT(rpl_value_type(&n), RPL_TYPE_NIL);
    CHECK_EQ_INT(rpl_value_type(&t), RPL_TYPE_BOOL);
    CHECK_EQ_INT(rpl_value_type(&i), RPL_TYPE_INT);
    CHECK_EQ_INT(rpl_value_type(&x), RPL_TYPE_DOUBLE);
    CHECK(rpl_value_bool(&t));
    CHECK(!rpl_value_bool(&f));
    CHECK_EQ_INT(rpl_value_int(&i), -7);
    CHECK(rpl_value_int(&big) == INT64_MIN);
    CHECK(rpl_value_double(&x) == 2.5);
    CHECK_EQ_INT(sizeof(rpl_value), 16);

    /* Rule 21: accessors never convert. */
    CHECK_EQ_INT(rpl_value_int(&x), 0);
    CHECK(rpl_value_double(&i) == 0.0);
    CHECK(!rpl_value_bool(&i));
    CHECK(rpl_value_string(&i, NULL) == NULL);
    CHECK(rpl_value_bytes(&i, NULL) == NULL);
    CHECK(rpl_value_pointer(&i) == NULL);
    CHECK_EQ_INT(rpl_value_tuple_count(&i), 0);
    CHECK(rpl_value_signal(&i) == NULL);

    /* NULL value pointers. */
    CHECK_EQ_INT(rpl_value_type(NULL), RPL_TYPE_NIL);
    CHECK(!rpl_value_bool(NULL));
    CHECK_EQ_INT(rpl_value_int(NULL), 0);
    CHECK(rpl_value_double(NULL) == 0.0);
    size_t len = 99;
    CHECK(rpl_value_string(NULL, &len) == NULL);
    CHECK_EQ_INT(len, 0);
    len = 99;
    CHECK(rpl_value_bytes(NULL, &len) == NULL);
    CHECK_EQ_INT(len, 0);
    CHECK(rpl_value_pointer(NULL) == NULL);
    CHECK_EQ_INT(rpl_value_tuple_count(NULL), 0);
    CHECK(rpl_value_signal(NULL) == NULL);

    /* Equality of scalars. */
    rpl_value i2 = rpl_int(-7), d2 = rpl_double(2.5), nan1 = rpl_double(NAN), t2 = rpl_bool(true);
    CHECK(rpl_value_equal(&i, &i2));
    CHECK(rpl_value_equal(&x, &d2));
    CHECK(!rpl_value_equal(&nan1, &nan1));  /* doubles compare with == */
    CHECK(rpl_value_equal(&t, &t2));
    CHECK(!rpl_value_equal(&t, &f));
    CHECK(rpl_value_equal(&n, &n));
    rpl_value one_i = rpl_int(1), one_d = rpl_double(1.0);
    CHECK(!rpl_value_equal(&one_i, &one_d));  /* no conversion */
    CHECK(rpl_value_equal(NULL, NULL));
    CHECK(!rpl_value_equal(&n, NULL));
    CHECK(!rpl_value_equal(NULL, &n));

    /* Copy / release of scalars is harmless; release sets nil. */
    rpl_value c = rpl_value_copy(&i);
    CHECK(rpl_value_equal(&c, &i));
    rpl_value_release(&c);
    CHECK_EQ_INT(rpl_value_type(&c), RPL_TYPE_NIL);
    rpl_value_release(NULL);
    rpl_value cn = rpl_value_copy(NULL);
    CHECK_EQ_INT(rpl_value_type(&cn), RPL_TYPE_NIL);
}

static void test_strings_and_bytes(void) {
    rpl_value s = rpl_string("héllo");
    size_t len = 0;
    CHECK_EQ_INT(rpl_value_type(&s), RPL_TYPE_STRING);
    CHECK(strcmp(rpl_value_string(&s, &len), "héllo") == 0);
    CHECK_EQ_INT(len, strlen("héllo"));
    CHECK(rpl_value_string(&s, NULL) != NULL);
    CHECK(rpl_value_bytes(&s, NULL) == NULL);  /* a string is not bytes */

    /* The string is copied. */
    char buf[8] = "abc";
    rpl_value s2 = rpl_string(buf);
    buf[0] = 'X';
    CHECK(strcmp(rpl_value_string(&s2, NULL), "abc") == 0);

    /* string_n keeps embedded NULs and adds a terminating NUL. */
    rpl_value sn = rpl_string_n("a\0b", 3);
    const char *p = rpl_value_string(&sn, &len);
    CHECK_EQ_INT(len, 3);
    CHECK(p[0] == 'a' && p[1] == '\0' && p[2] == 'b' && p[3] == '\0');
    rpl_value sn2 = rpl_string_n("a\0c", 3);
    CHECK(!rpl_value_equal(&sn, &sn2));  /* compares every byte, not up to the NUL */
    rpl_value sn3 = rpl_string_n("a\0b", 3);
    CHECK(rpl_value_equal(&sn, &sn3));
    rpl_value empty = rpl_string_n(NULL, 0);
    CHECK_EQ_INT(rpl_value_type(&empty), RPL_TYPE_STRING);
    CHECK(strcmp(rpl_value_string(&empty, &len), "") == 0);
    CHECK_EQ_INT(len, 0);
    rpl_value bad = rpl_string_n(NULL, 5);
    CHECK_EQ_INT(rpl_value_type(&bad), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    rpl_value sn_nil = rpl_string(NULL);
    CHECK_EQ_INT(rpl_value_type(&sn_nil), RPL_TYPE_NIL);

    rpl_value abc = rpl_string("abc"), abd = rpl_string("abd"), ab = rpl_string("ab");
    CHECK(rpl_value_equal(&s2, &abc));
    CHECK(!rpl_value_equal(&abc, &abd));
    CHECK(!rpl_value_equal(&abc, &ab));

    const unsigned char raw[4] = { 0, 1, 2, 0xff };
    rpl_value b = rpl_bytes(raw, 4);
    CHECK_EQ_INT(rpl_value_type(&b), RPL_TYPE_BYTES);
    const unsigned char *bp = rpl_value_bytes(&b, &len);
    CHECK_EQ_INT(len, 4);
    CHECK(memcmp(bp, raw, 4) == 0);
    CHECK(rpl_value_string(&b, NULL) == NULL);
    rpl_value b_same = rpl_bytes(raw, 4);
    CHECK(rpl_value_equal(&b, &b_same));
    rpl_value b_as_str = rpl_string_n((const char *)raw, 4);
    CHECK(!rpl_value_equal(&b, &b_as_str));  /* different types */
    rpl_value b0 = rpl_bytes(NULL, 0);
    CHECK_EQ_INT(rpl_value_type(&b0), RPL_TYPE_BYTES);
    rpl_value_bytes(&b0, &len);
    CHECK_EQ_INT(len, 0);
    rpl_value bbad = rpl_bytes(NULL, 1);
    CHECK_EQ_INT(rpl_value_type(&bbad), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);

    /* Copies share the box; each reference is released once. */
    rpl_value copy = rpl_value_copy(&s);
    CHECK(rpl_value_equal(&copy, &s));
    rpl_value_release(&s);
    CHECK_EQ_INT(rpl_value_type(&s), RPL_TYPE_NIL);
    CHECK(strcmp(rpl_value_string(&copy, NULL), "héllo") == 0);  /* still alive */
    rpl_value_release(&copy);

    /* A string or bytes type written by hand over another value's box (a
       pointer's) reads as no string: the accessors check what the box is. */
    int target = 0;
    rpl_value ptr = rpl_pointer(&target, NULL);
    rpl_value forged = ptr;
    forged.type = RPL_TYPE_STRING;
    len = 7;
    CHECK(rpl_value_string(&forged, &len) == NULL);
    CHECK_EQ_INT(len, 0);
    forged.type = RPL_TYPE_BYTES;
    CHECK(rpl_value_bytes(&forged, &len) == NULL);
    CHECK(!rpl_value_equal(&forged, &b));
    rpl_value_release(&ptr);

    rpl_value *all[] = { &s2, &sn, &sn2, &sn3, &empty, &abc, &abd, &ab, &b, &b_same, &b_as_str, &b0 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) rpl_value_release(all[i]);
}

static int dtor_calls;
static void *dtor_last;
static void count_dtor(void *p) { dtor_calls++; dtor_last = p; }

static void test_pointer(void) {
    int target = 0, other = 0;
    dtor_calls = 0;
    rpl_value p = rpl_pointer(&target, count_dtor);
    CHECK_EQ_INT(rpl_value_type(&p), RPL_TYPE_POINTER);
    CHECK(rpl_value_pointer(&p) == &target);
    rpl_value c1 = rpl_value_copy(&p), c2 = rpl_value_copy(&p);
    rpl_value same = rpl_pointer(&target, NULL), diff = rpl_pointer(&other, NULL);
    CHECK(rpl_value_equal(&p, &same));  /* by address */
    CHECK(!rpl_value_equal(&p, &diff));
    rpl_value_release(&p);
    rpl_value_release(&c1);
    CHECK_EQ_INT(dtor_calls, 0);
    rpl_value_release(&c2);  /* the last reference: the dtor runs, once */
    CHECK_EQ_INT(dtor_calls, 1);
    CHECK(dtor_last == &target);
    rpl_value_release(&c2);  /* already nil: nothing happens */
    CHECK_EQ_INT(dtor_calls, 1);
    rpl_value_release(&same);
    rpl_value_release(&diff);
    rpl_value np = rpl_pointer(NULL, NULL);
    CHECK_EQ_INT(rpl_value_type(&np), RPL_TYPE_POINTER);
    CHECK(rpl_value_pointer(&np) == NULL);
    rpl_value_release(&np);
    CHECK_EQ_INT(dtor_calls, 1);
}

static void test_tuples(void) {
    dtor_calls = 0;
    rpl_value items[4] = { rpl_int(1), rpl_string("two"), rpl_pointer(&dtor_calls, count_dtor), rpl_nil() };
    rpl_value t = rpl_tuple(items, 4);  /* consumes items */
    CHECK_EQ_INT(rpl_value_type(&t), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(&t), 4);
    rpl_value a = rpl_value_tuple_at(&t, 0), b = rpl_value_tuple_at(&t, 1), c = rpl_value_tuple_at(&t, 2);
    CHECK_EQ_INT(rpl_value_int(&a), 1);
    CHECK(strcmp(rpl_value_string(&b, NULL), "two") == 0);
    CHECK(rpl_value_pointer(&c) == &dtor_calls);

    /* Out of range, NULL and non-tuples. */
    rpl_value oob = rpl_value_tuple_at(&t, 4);
    CHECK_EQ_INT(rpl_value_type(&oob), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_INVALID);
    oob = rpl_value_tuple_at(&t, (size_t)-1);
    CHECK_EQ_INT(rpl_value_type(&oob), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_INVALID);
    oob = rpl_value_tuple_at(NULL, 0);
    CHECK_EQ_INT(rpl_value_type(&oob), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    oob = rpl_value_tuple_at(&a, 0);
    CHECK_EQ_INT(rpl_value_type(&oob), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);

    /* Equality item by item, including nested tuples. */
    rpl_value items2[4] = { rpl_int(1), rpl_string("two"), rpl_value_copy(&c), rpl_nil() };
    rpl_value t2 = rpl_tuple(items2, 4);
    CHECK(rpl_value_equal(&t, &t2));
    rpl_value items3[3] = { rpl_int(1), rpl_string("two"), rpl_value_copy(&c) };
    rpl_value t3 = rpl_tuple(items3, 3);
    CHECK(!rpl_value_equal(&t, &t3));
    rpl_value nest1[1] = { rpl_value_copy(&t) }, nest2[1] = { rpl_value_copy(&t2) };
    rpl_value n1 = rpl_tuple(nest1, 1), n2 = rpl_tuple(nest2, 1);
    CHECK(rpl_value_equal(&n1, &n2));

    rpl_value empty = rpl_tuple(NULL, 0);
    CHECK_EQ_INT(rpl_value_type(&empty), RPL_TYPE_TUPLE);
    CHECK_EQ_INT(rpl_value_tuple_count(&empty), 0);
    rpl_value bad = rpl_tuple(NULL, 2);
    CHECK_EQ_INT(rpl_value_type(&bad), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);

    rpl_value *all[] = { &a, &b, &t, &t2, &t3, &n1, &n2, &empty };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) rpl_value_release(all[i]);
    CHECK_EQ_INT(dtor_calls, 0);  /* c still holds the pointer box */
    rpl_value_release(&c);
    CHECK_EQ_INT(dtor_calls, 1);
}

static void test_signal_values(void) {
    rpl_signal_t *s = rpl_signal_empty();
    rpl_value v = rpl_signal_value(s);  /* retains s */
    CHECK_EQ_INT(rpl_value_type(&v), RPL_TYPE_SIGNAL);
    CHECK(rpl_value_signal(&v) == s);
    rpl_release(s);
    /* The value keeps the signal alive. */
    CHECK_EQ_INT(rpl_signal_wait(rpl_value_signal(&v), RPL_FOREVER), RPL_OK);
    rpl_value c = rpl_value_copy(&v);
    CHECK(rpl_value_equal(&v, &c));  /* identity */
    rpl_signal_t *s2 = rpl_signal_empty();
    rpl_value v2 = rpl_signal_value(s2);
    CHECK(!rpl_value_equal(&v, &v2));
    rpl_release(s2);
    rpl_value_release(&v2);
    rpl_value_release(&c);
    rpl_value_release(&v);

    rpl_value bad = rpl_signal_value(NULL);
    CHECK_EQ_INT(rpl_value_type(&bad), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    rpl_error_t *e = rpl_error_create(NULL, 1, NULL);
    bad = rpl_signal_value((rpl_signal_t *)e);
    CHECK_EQ_INT(rpl_value_type(&bad), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    rpl_release(e);
}

static void test_events(void) {
    dtor_calls = 0;
    rpl_value n = rpl_event_next(rpl_pointer(&dtor_calls, count_dtor));
    CHECK_EQ_INT(rpl_value_type(&n), RPL_TYPE_EVENT);
    CHECK_EQ_INT(rpl_value_event_kind(&n), RPL_EVENT_NEXT);
    rpl_value inner = rpl_value_event_value(&n);
    CHECK(rpl_value_pointer(&inner) == &dtor_calls);
    CHECK(rpl_value_event_error(&n) == NULL);

    rpl_error_t *e = rpl_error_create("d", 5, "x");
    rpl_value er = rpl_event_error(e);  /* retains e */
    rpl_release(e);
    CHECK_EQ_INT(rpl_value_event_kind(&er), RPL_EVENT_ERROR);
    CHECK_EQ_INT(rpl_error_code(rpl_value_event_error(&er)), 5);
    rpl_value nv = rpl_value_event_value(&er);
    CHECK_EQ_INT(rpl_value_type(&nv), RPL_TYPE_NIL);

    rpl_value generic = rpl_event_error(NULL);
    CHECK_EQ_INT(rpl_value_event_kind(&generic), RPL_EVENT_ERROR);
    CHECK(strcmp(rpl_error_domain(rpl_value_event_error(&generic)), RPL_ERROR_DOMAIN) == 0);
    CHECK_EQ_INT(rpl_error_code(rpl_value_event_error(&generic)), RPL_ERROR_GENERIC);

    rpl_value c = rpl_event_completed();
    CHECK_EQ_INT(rpl_value_event_kind(&c), RPL_EVENT_COMPLETED);
    CHECK(rpl_value_event_error(&c) == NULL);
    rpl_value c2 = rpl_value_copy(&c);
    CHECK(rpl_value_equal(&c, &c2));  /* identity */

    /* Bad input. */
    rpl_value i = rpl_int(1);
    CHECK_EQ_INT(rpl_value_event_kind(&i), -1);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK_EQ_INT(rpl_value_event_kind(NULL), -1);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    rpl_value x = rpl_value_event_value(&i);
    CHECK_EQ_INT(rpl_value_type(&x), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    x = rpl_value_event_value(NULL);
    CHECK_EQ_INT(rpl_value_type(&x), RPL_TYPE_NIL);
    CHECK(rpl_value_event_error(&i) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    CHECK(rpl_value_event_error(NULL) == NULL);
    CHECK_FAILED_WITH(RPL_ERR_NULL);
    rpl_disposable_t *d = rpl_disposable_create(NULL, NULL);
    rpl_value bad = rpl_event_error((rpl_error_t *)d);  /* wrong kind */
    CHECK_EQ_INT(rpl_value_type(&bad), RPL_TYPE_NIL);
    CHECK_FAILED_WITH(RPL_ERR_KIND);
    rpl_release(d);

    rpl_value_release(&n);
    CHECK_EQ_INT(dtor_calls, 0);
    rpl_value_release(&inner);
    CHECK_EQ_INT(dtor_calls, 1);
    rpl_value_release(&er);
    rpl_value_release(&generic);
    rpl_value_release(&c);
    rpl_value_release(&c2);
}

/* Values shared across threads: copies and releases from many threads drop
   the box exactly once. */
#include <pthread.h>
static rpl_value shared_value;
static void *copy_release_loop(void *arg) {
    (void)arg;
    for (long i = 0; i < test_scale(100000, 2000); i++) {
        rpl_value c = rpl_value_copy(&shared_value);
        rpl_value_release(&c);
    }
    return NULL;
}

static void test_threads_refcount(void) {
    dtor_calls = 0;
    shared_value = rpl_pointer(&dtor_calls, count_dtor);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, copy_release_loop, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    CHECK_EQ_INT(dtor_calls, 0);
    rpl_value_release(&shared_value);
    CHECK_EQ_INT(dtor_calls, 1);
}

int main(void) {
    RUN(test_version);
    RUN(test_status_strings);
    RUN(test_retain_release);
    RUN(test_errors);
    RUN(test_set_last_error);
    RUN(test_scalars);
    RUN(test_strings_and_bytes);
    RUN(test_pointer);
    RUN(test_tuples);
    RUN(test_signal_values);
    RUN(test_events);
    RUN(test_threads_refcount);
    CHECK_DONE();
}
