#define _POSIX_C_SOURCE 200809L  /* fmemopen, dup */
/* Runs every operator of ripple.h on marble inputs under the test scheduler
   and prints what it did, for pkg/diagrams/draw.py (make docs, make man):

     op <function>          note <what the callbacks do>
     in <diagram>           one line per input lane, as created
     out <diagram>          what rpl_marble_record drew for the result
     legend <key> <value>   what a character of the lanes stands for
     end

   The inputs are cold marbles (lane 0 a hot one where the operator takes a
   signal of signals: its x, y, z are the other lanes' signals). Values a
   diagram cannot draw as themselves (tuples, events, numbers over 9) get a
   letter: each operator runs twice, the first time to find those values. */
#include <ripple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull
#define MAXIN 4

typedef rpl_signal_t *(*build_fn)(rpl_scheduler_t *t, rpl_signal_t **in);
typedef struct op {
    const char *name;
    const char *note;
    const char *lanes[MAXIN]; /* lane 0 starting with '^' ... is hot */
    const char *subscription;
    build_fn build;
} op_t;

static rpl_scheduler_t *T;  /* the scheduler of the current run, for callbacks */

/* Callbacks (ints in, ints out, so the diagrams stay readable). */
static rpl_value add1(void *c, const rpl_value *v) { (void)c; return rpl_int(rpl_value_int(v) + 1); }
static rpl_value parity(void *c, const rpl_value *v) { (void)c; return rpl_int(rpl_value_int(v) % 2); }
static bool odd(void *c, const rpl_value *v) { (void)c; return rpl_value_int(v) % 2 != 0; }
static bool below3(void *c, const rpl_value *v) { (void)c; return rpl_value_int(v) < 3; }
static rpl_value sum(void *c, const rpl_value *a, const rpl_value *v) { (void)c; return rpl_int(rpl_value_int(a) + rpl_value_int(v)); }
static rpl_value sum_items(void *c, const rpl_value *items, size_t n) {
    (void)c;
    int64_t s = 0;
    for (size_t i = 0; i < n; i++) s += rpl_value_int(&items[i]);
    return rpl_int(s);
}
static bool same_parity(void *c, const rpl_value *a, const rpl_value *b) {
    (void)c;
    return rpl_value_int(a) % 2 == rpl_value_int(b) % 2;
}
static void nothing_v(void *c, const rpl_value *v) { (void)c; (void)v; }
static void nothing_e(void *c, const rpl_error_t *e) { (void)c; (void)e; }
static void nothing(void *c) { (void)c; }
static rpl_signal_t *twice(void *c, const rpl_value *v) {
    (void)c;
    rpl_marble_value t[] = {{'v', rpl_value_copy(v)}};
    return rpl_marble_cold(T, "v-v|", t, 1);
}
static rpl_signal_t *bind_twice(void *c, const rpl_value *v, bool *stop) {
    *stop = rpl_value_int(v) >= 3;
    return twice(c, v);
}
static rpl_signal_t *recover(void *c, const rpl_error_t *e) {
    (void)c;
    (void)e;
    return rpl_marble_cold(T, "-9|", NULL, 0);
}
static rpl_signal_t *later(void *c) { (void)c; return rpl_marble_cold(T, "-1-2|", NULL, 0); }
static rpl_disposable_t *send12(void *c, rpl_subscriber_t *s) {
    (void)c;
    rpl_subscriber_send_next(s, rpl_int(1));
    rpl_subscriber_send_next(s, rpl_int(2));
    rpl_subscriber_send_completed(s);
    return NULL;
}

#define B(fn, expr) \
    static rpl_signal_t *build_##fn(rpl_scheduler_t *t, rpl_signal_t **in) { (void)t; (void)in; return expr; }
#define LIST2(a, b) (rpl_signal_t *[]){(a), (b)}

B(map, rpl_signal_map(in[0], add1, NULL, NULL))
B(filter, rpl_signal_filter(in[0], odd, NULL, NULL))
B(scan, rpl_signal_scan(in[0], rpl_int(0), sum, NULL, NULL))
B(aggregate, rpl_signal_aggregate(in[0], rpl_int(0), sum, NULL, NULL))
B(distinct_until_changed, rpl_signal_distinct_until_changed(in[0]))
B(materialize, rpl_signal_materialize(in[0]))
static rpl_signal_t *build_dematerialize(rpl_scheduler_t *t, rpl_signal_t **in) {
    (void)t;
    rpl_signal_t *m = rpl_signal_materialize(in[0]), *r = rpl_signal_dematerialize(m);
    rpl_release(m);
    return r;
}
B(collect, rpl_signal_collect(in[0]))
B(take, rpl_signal_take(in[0], 2))
B(skip, rpl_signal_skip(in[0], 1))
B(take_last, rpl_signal_take_last(in[0], 2))
B(take_while, rpl_signal_take_while(in[0], below3, NULL, NULL))
B(skip_while, rpl_signal_skip_while(in[0], below3, NULL, NULL))
B(do_next, rpl_signal_do_next(in[0], nothing_v, NULL, NULL))
B(do_error, rpl_signal_do_error(in[0], nothing_e, NULL, NULL))
B(do_completed, rpl_signal_do_completed(in[0], nothing, NULL, NULL))
B(bind, rpl_signal_bind(in[0], bind_twice, NULL, NULL))
B(flatten_map, rpl_signal_flatten_map(in[0], twice, NULL, NULL))
B(flatten, rpl_signal_flatten(in[0]))
B(switch_to_latest, rpl_signal_switch_to_latest(in[0]))
B(concat, rpl_signal_concat(in[0], in[1]))
B(merge, rpl_signal_merge(LIST2(in[0], in[1]), 2))
B(combine_latest, rpl_signal_combine_latest(LIST2(in[0], in[1]), 2))
B(zip, rpl_signal_zip(LIST2(in[0], in[1]), 2))
B(start_with, rpl_signal_start_with(in[0], rpl_int(0)))
B(then, rpl_signal_then(in[0], in[1]))
B(take_until, rpl_signal_take_until(in[0], in[1]))
B(catch, rpl_signal_catch(in[0], recover, NULL, NULL))
B(catch_to, rpl_signal_catch_to(in[0], in[1]))
B(retry, rpl_signal_retry(in[0], 1))
B(repeat, rpl_signal_repeat(in[0], 2))
B(subscribe_on, rpl_signal_subscribe_on(in[0], t))
B(deliver_on, rpl_signal_deliver_on(in[0], t))
B(deliver_on_bounded, rpl_signal_deliver_on_bounded(in[0], t, 1, RPL_OVERFLOW_DROP_OLDEST))
B(delay, rpl_signal_delay(in[0], 2 * MS, t))
B(throttle, rpl_signal_throttle(in[0], 2 * MS, t))
B(timeout, rpl_signal_timeout(in[0], 4 * MS, t))
B(interval, rpl_signal_interval(2 * MS, t))
B(from_array, rpl_signal_from_array((rpl_value[]){rpl_int(1), rpl_int(2), rpl_int(3)}, 3))
B(range, rpl_signal_range(1, 3))
B(timer, rpl_signal_timer(3 * MS, t))
B(return, rpl_signal_return(rpl_int(1)))
B(empty, rpl_signal_empty())
B(error, rpl_signal_error(NULL))
B(never, rpl_signal_never())
B(create, rpl_signal_create(send12, NULL, NULL))
B(defer, rpl_signal_defer(later, NULL, NULL))
B(start_lazily, rpl_signal_start_lazily(t, send12, NULL, NULL))
B(start_eagerly, rpl_signal_start_eagerly(t, send12, NULL, NULL))
B(share, rpl_signal_share(in[0], 1))
B(replay, rpl_signal_replay(in[0]))
B(replay_last, rpl_signal_replay_last(in[0]))
B(replay_lazily, rpl_signal_replay_lazily(in[0]))
static rpl_signal_t *build_autoconnect(rpl_scheduler_t *t, rpl_signal_t **in) {
    (void)t;
    rpl_connection_t *c = rpl_signal_publish(in[0]);
    rpl_signal_t *r = rpl_connection_autoconnect(c);
    rpl_release(c);
    return r;
}
B(delay_subscription, rpl_signal_delay_subscription(in[0], 2 * MS, t))
B(throttle_first, rpl_signal_throttle_first(in[0], 3 * MS, t))
B(throttle_if, rpl_signal_throttle_if(in[0], 2 * MS, t, odd, NULL, NULL))
B(buffer_with_time, rpl_signal_buffer_with_time(in[0], 3 * MS, t))
B(map_replace, rpl_signal_map_replace(in[0], rpl_int(0)))
B(ignore, rpl_signal_ignore(in[0], rpl_int(2)))
B(ignore_values, rpl_signal_ignore_values(in[0]))
B(reduce_each, rpl_signal_reduce_each(in[0], sum_items, NULL, NULL))
B(combine_previous, rpl_signal_combine_previous(in[0], rpl_int(0), sum, NULL, NULL))
B(distinct_until_changed_with, rpl_signal_distinct_until_changed_with(in[0], same_parity, NULL, NULL))
B(buffer, rpl_signal_buffer(in[0], 2))
B(not, rpl_signal_not(in[0]))
B(and, rpl_signal_and(in[0]))
B(or, rpl_signal_or(in[0]))
B(any, rpl_signal_any(in[0], odd, NULL, NULL))
B(all, rpl_signal_all(in[0], odd, NULL, NULL))
B(default_if_empty, rpl_signal_default_if_empty(in[0], rpl_int(0)))
B(initially, rpl_signal_initially(in[0], nothing, NULL, NULL))
B(finally, rpl_signal_finally(in[0], nothing, NULL, NULL))
B(do_dispose, rpl_signal_do_dispose(in[0], nothing, NULL, NULL))
B(flatten_max, rpl_signal_flatten_max(in[0], 1))
B(concat_all, rpl_signal_concat_all(in[0]))
B(concat_map, rpl_signal_concat_map(in[0], twice, NULL, NULL))
B(switch_if_empty, rpl_signal_switch_if_empty(in[0], in[1]))
B(if, rpl_signal_if(in[0], in[1], in[2]))
static rpl_signal_t *build_switch_cases(rpl_scheduler_t *t, rpl_signal_t **in) {
    (void)t;
    rpl_value keys[] = {rpl_int(1), rpl_int(2)};
    return rpl_signal_switch_cases(in[0], keys, (rpl_signal_t *[]){in[1], in[2]}, 2, NULL);
}
B(with_latest_from, rpl_signal_with_latest_from(in[0], in[1]))
B(sample, rpl_signal_sample(in[0], in[1]))
B(take_until_replacement, rpl_signal_take_until_replacement(in[0], in[1]))
B(skip_until, rpl_signal_skip_until(in[0], in[1]))
B(group_by, rpl_signal_group_by(in[0], parity, NULL, NULL))
static rpl_signal_t *build_log(rpl_scheduler_t *t, rpl_signal_t **in) {
    (void)t;
    return rpl_signal_log(in[0], "diagram");
}

#define OP(fn, note, l0, l1, l2, l3, sub) {"rpl_signal_" #fn, note, {l0, l1, l2, l3}, sub, build_##fn}
#define OP1(fn, note, l0) OP(fn, note, l0, NULL, NULL, NULL, NULL)
#define OP2(fn, note, l0, l1) OP(fn, note, l0, l1, NULL, NULL, NULL)
#define OP0(fn, note) OP(fn, note, NULL, NULL, NULL, NULL, NULL)
#define ABC "-1-2-3-|"

static const op_t ops[] = {
    OP0(create, "subscribe: send 1, 2, complete"),
    OP0(return, "1"),
    OP0(empty, ""),
    OP0(error, "NULL (a generic error)"),
    OP(never, "", NULL, NULL, NULL, NULL, "^----!"),
    OP0(defer, "factory: a new -1-2| each time"),
    OP1(map, "fn: x + 1", ABC),
    OP1(filter, "fn: x is odd", "-1-2-3-4-|"),
    OP1(scan, "initial 0, fn: acc + x", ABC),
    OP1(aggregate, "initial 0, fn: acc + x", ABC),
    OP1(distinct_until_changed, "", "-1-1-2-2-1-|"),
    OP1(materialize, "", "-1-2-|"),
    OP1(dematerialize, "over rpl_signal_materialize(input)", "-1-2-#"),
    OP1(collect, "", ABC),
    OP1(take, "n = 2", ABC),
    OP1(skip, "n = 1", ABC),
    OP1(take_last, "n = 2", ABC),
    OP1(take_while, "fn: x < 3", "-1-2-3-1-|"),
    OP1(skip_while, "fn: x < 3", "-1-2-3-1-|"),
    OP1(do_next, "fn: a side effect", ABC),
    OP1(do_error, "fn: a side effect", "-1-2-#"),
    OP1(do_completed, "fn: a side effect", ABC),
    OP1(bind, "fn: v-v| (cold), stop after 3", "-1--2--3--4|"),
    OP1(flatten_map, "fn: v-v| (cold)", "-1--2-|"),
    OP(flatten, "", "-x----y|", "a-b-c-d|", "e-g|", NULL, NULL),
    OP(switch_to_latest, "", "-x----y|", "a-b-c-d|", "e-g|", NULL, NULL),
    OP2(concat, "", "-1-2|", "-3-4|"),
    OP2(merge, "", "-1---2-|", "--3-4--|"),
    OP2(combine_latest, "", "-1---2-|", "--3-4--|"),
    OP2(zip, "", "-1---2-|", "--3-4--|"),
    OP1(start_with, "v = 0", ABC),
    OP2(then, "", "-1-2|", "-3-4|"),
    OP2(take_until, "", "-1-2-3-4-|", "----0"),
    OP1(catch, "fn: -9| (cold)", "-1-2#"),
    OP2(catch_to, "", "-1-2#", "-9|"),
    OP1(retry, "n = 1", "-1-#"),
    OP1(repeat, "n = 2", "-1-2|"),
    OP1(subscribe_on, "the test scheduler", ABC),
    OP1(deliver_on, "the test scheduler", ABC),
    OP1(deliver_on_bounded, "capacity 1, RPL_OVERFLOW_DROP_OLDEST", "-(123)-|"),
    OP1(delay, "2 ms", ABC),
    OP1(throttle, "2 ms (debounce)", "-1-23----4-|"),
    OP1(timeout, "4 ms", "-1----2-|"),
    OP(interval, "2 ms", NULL, NULL, NULL, NULL, "^--------!"),
    OP0(from_array, "{1, 2, 3}"),
    OP0(range, "start 1, count 3"),
    OP0(timer, "3 ms"),
    OP0(start_lazily, "fn: send 1, 2, complete"),
    OP0(start_eagerly, "fn: send 1, 2, complete"),
    OP1(share, "replay 1", ABC),
    OP1(replay, "", ABC),
    OP1(replay_last, "", ABC),
    OP1(replay_lazily, "", ABC),
    {"rpl_connection_autoconnect", "rpl_signal_publish(input)", {ABC, NULL, NULL, NULL}, NULL, build_autoconnect},
    OP1(delay_subscription, "2 ms", ABC),
    OP1(throttle_first, "3 ms", "-12-3--4-|"),
    OP1(throttle_if, "2 ms, fn: x is odd", "-1-3--2--5-|"),
    OP1(buffer_with_time, "3 ms", "-12---3-4|"),
    OP1(map_replace, "v = 0", ABC),
    OP1(ignore, "v = 2", ABC),
    OP1(ignore_values, "", ABC),
    OP1(reduce_each, "fn: the sum of the items", "-p-q-|"),
    OP1(combine_previous, "start 0, fn: previous + x", ABC),
    OP1(distinct_until_changed_with, "fn: same parity", "-1-3-2-4-5-|"),
    OP1(buffer, "count 2", ABC),
    OP1(not, "", "-t-f-|"),
    OP1(and, "", "-u-v-|"),
    OP1(or, "", "-u-v-w-|"),
    OP1(any, "fn: x is odd", "-2-3-4-|"),
    OP1(all, "fn: x is odd", "-1-3-4-|"),
    OP1(default_if_empty, "v = 0", "---|"),
    OP1(initially, "fn: a side effect", ABC),
    OP1(finally, "fn: a side effect", ABC),
    OP1(do_dispose, "fn: a side effect", ABC),
    OP(flatten_max, "max_concurrent 1", "-x-y-|", "a-b|", "c-d|", NULL, NULL),
    OP(concat_all, "", "-x-y-|", "a-b|", "c-d|", NULL, NULL),
    OP1(concat_map, "fn: v-v| (cold)", "-1-2-|"),
    OP2(switch_if_empty, "", "---|", "-9|"),
    OP(if, "", "-t---f-|", "a-b-c-d-e|", "1-2-3-4-5|", NULL, NULL),
    OP(switch_cases, "keys 1, 2", "-1---2-|", "a-b-c-d-e|", "5-6-7-8-9|", NULL, NULL),
    OP2(with_latest_from, "", "-1--2-3-|", "--a----b|"),
    OP2(sample, "", "-1-2---3-|", "--s-s-s--|"),
    OP2(take_until_replacement, "", "-1-2-3-|", "----9|"),
    OP2(skip_until, "", "-1-2-3-4-|", "----0"),
    OP1(group_by, "key: x % 2", "-1-2-3-|"),
    OP1(log, "label \"diagram\" (to stderr)", ABC),
};

/* The values lanes may use besides digits and letters. */
static size_t input_table(rpl_marble_value *t, rpl_signal_t **in, int lanes) {
    size_t n = 0;
    t[n++] = (rpl_marble_value){'t', rpl_bool(true)};
    t[n++] = (rpl_marble_value){'f', rpl_bool(false)};
    t[n++] = (rpl_marble_value){'p', rpl_tuple((rpl_value[]){rpl_int(1), rpl_int(2)}, 2)};
    t[n++] = (rpl_marble_value){'q', rpl_tuple((rpl_value[]){rpl_int(3), rpl_int(4)}, 2)};
    t[n++] = (rpl_marble_value){'u', rpl_tuple((rpl_value[]){rpl_bool(true), rpl_bool(true)}, 2)};
    t[n++] = (rpl_marble_value){'v', rpl_tuple((rpl_value[]){rpl_bool(true), rpl_bool(false)}, 2)};
    t[n++] = (rpl_marble_value){'w', rpl_tuple((rpl_value[]){rpl_bool(false), rpl_bool(false)}, 2)};
    for (int i = 1; i < lanes && i < 4; i++) t[n++] = (rpl_marble_value){"xyz"[i - 1], rpl_signal_value(in[i])};
    return n;
}

static void print_value(FILE *f, const rpl_value *v) {
    switch (rpl_value_type(v)) {
    case RPL_TYPE_NIL: fputs("nil", f); break;
    case RPL_TYPE_BOOL: fputs(rpl_value_bool(v) ? "true" : "false", f); break;
    case RPL_TYPE_INT: fprintf(f, "%lld", (long long)rpl_value_int(v)); break;
    case RPL_TYPE_DOUBLE: fprintf(f, "%g", rpl_value_double(v)); break;
    case RPL_TYPE_STRING: fprintf(f, "\"%s\"", rpl_value_string(v, NULL)); break;
    case RPL_TYPE_TUPLE: {
        fputc('(', f);
        for (size_t i = 0; i < rpl_value_tuple_count(v); i++) {
            rpl_value item = rpl_value_tuple_at(v, i);
            if (i) fputs(", ", f);
            print_value(f, &item);
            rpl_value_release(&item);
        }
        fputc(')', f);
    } break;
    case RPL_TYPE_SIGNAL: fputs("a signal", f); break;
    case RPL_TYPE_EVENT: {
        int k = rpl_value_event_kind(v);
        if (k == RPL_EVENT_NEXT) {
            rpl_value x = rpl_value_event_value(v);
            fputs("next ", f);
            print_value(f, &x);
            rpl_value_release(&x);
        } else {
            fputs(k == RPL_EVENT_ERROR ? "error" : "completed", f);
        }
    } break;
    default: fputs("a value", f); break;
    }
}

/* The output values a diagram cannot draw as themselves, each with a letter,
   told apart by their text (events and signals compare by identity, and the
   second run makes new ones). */
typedef struct legend {
    char text[26][96];
    size_t n;
} legend_t;
static bool drawable(const rpl_value *v) {
    if (rpl_value_type(v) == RPL_TYPE_INT) return rpl_value_int(v) >= 0 && rpl_value_int(v) <= 9;
    size_t len;
    const char *s = rpl_value_string(v, &len);
    return s && len == 1 && strchr("-()|#^! 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", s[0]) == NULL;
}
static void text_of(const rpl_value *v, char *buf, size_t cap) {
    FILE *f = fmemopen(buf, cap, "w");
    print_value(f, v);
    fclose(f);
}
/* The letter of v's text, adding it when `add` (first run). */
static int letter(legend_t *l, const rpl_value *v, bool add) {
    char buf[96] = {0};
    text_of(v, buf, sizeof buf - 1);
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->text[i], buf) == 0) return 'A' + (int)i;
    if (!add || l->n == 26) return '?';
    strcpy(l->text[l->n], buf);
    return 'A' + (int)l->n++;
}
static void note_value(void *ctx, const rpl_value *v) {
    if (!drawable(v)) letter(ctx, v, true);
}
static rpl_value draw_value(void *ctx, const rpl_value *v) {
    if (drawable(v)) return rpl_value_copy(v);
    char key[2] = {(char)letter(ctx, v, false), 0};
    return rpl_string(key);
}

/* Ends the program: making input lane `lane` of o (-1: o itself, or its
   record) failed. */
static void fail(const op_t *o, int lane) {
    if (lane >= 0) fprintf(stderr, "run_operators: %s lane %d: %s\n", o->name, lane, rpl_last_error_message());
    else fprintf(stderr, "run_operators: %s: %s\n", o->name, rpl_last_error_message());
    exit(1);
}

/* Builds the operator over fresh inputs on a fresh scheduler and records it
   (with the legend, or, when `find` is set, filling it in). */
static char *run(const op_t *o, legend_t *l, bool find) {
    T = rpl_test_scheduler_create();
    rpl_signal_t *in[MAXIN] = {0};
    int lanes = 0;
    while (lanes < MAXIN && o->lanes[lanes]) lanes++;
    for (int i = lanes - 1; i >= 0; i--) {
        rpl_marble_value table[16];
        size_t n = input_table(table, in, i == 0 ? lanes : 0);
        bool outer = i == 0 && lanes > 2 && strchr(o->lanes[0], 'x');
        in[i] = outer ? (rpl_signal_t *)rpl_marble_hot(T, o->lanes[i], table, n)
                      : rpl_marble_cold(T, o->lanes[i], table, n);
        if (!in[i]) fail(o, i);
    }
    rpl_signal_t *out = o->build(T, in);
    if (!out) fail(o, -1);
    rpl_signal_t *seen = find ? rpl_signal_do_next(out, note_value, l, NULL) : rpl_signal_map(out, draw_value, l, NULL);
    rpl_value drawn = rpl_marble_record(T, seen, o->subscription, NULL, 0);
    const char *s = rpl_value_string(&drawn, NULL);
    if (!s) fail(o, -1);
    char *copy = strdup(s);
    rpl_value_release(&drawn);
    rpl_release(seen);
    rpl_release(out);
    for (int i = 0; i < lanes; i++) rpl_release(in[i]);
    rpl_release(T);
    return copy;
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const op_t *o = &ops[k];
        if (only && strcmp(only, o->name) != 0) continue;
        /* rpl_signal_log writes to stderr: keep the build's output clean. */
        int saved = -1;
        if (strcmp(o->name, "rpl_signal_log") == 0) {
            fflush(stderr);
            saved = dup(2);
            if (!freopen("/dev/null", "w", stderr)) return 1;
        }
        legend_t l = {.n = 0};
        free(run(o, &l, true));
        char *out = run(o, &l, false);
        if (saved >= 0) {
            fflush(stderr);
            dup2(saved, 2);
            close(saved);
        }
        printf("op %s\nnote %s\n", o->name, o->note);
        if (o->subscription) printf("subscription %s\n", o->subscription);
        for (int i = 0; i < MAXIN && o->lanes[i]; i++) printf("in %s\n", o->lanes[i]);
        printf("out %s\n", out);
        free(out);
        for (size_t i = 0; i < l.n; i++) printf("legend %c %s\n", 'A' + (int)i, l.text[i]);
        puts("end");
    }
    return 0;
}
