/* subjects: the three kinds of subject, each a signal you send into yourself.
 *
 * 1. A plain subject: a value sent before anyone subscribed is lost; two
 *    subscribers each get what is sent after they subscribed.
 * 2. A behavior subject: each new subscriber first gets the latest value.
 * 3. A replay subject: a late subscriber gets everything, then completion.
 */
#include <ripple.h>
#include <stdio.h>

static void on_next(void *ctx, const rpl_value *v) {
    if (rpl_value_type(v) == RPL_TYPE_STRING)
        printf("  [%s] next \"%s\"\n", (const char *)ctx, rpl_value_string(v, NULL));
    else
        printf("  [%s] next %lld\n", (const char *)ctx, (long long)rpl_value_int(v));
}
static void on_completed(void *ctx) { printf("  [%s] completed\n", (const char *)ctx); }

static rpl_disposable_t *watch(void *subject, const char *name) {
    rpl_observer o = RPL_OBSERVER_INIT;
    o.on_next = on_next;
    o.on_completed = on_completed;
    o.ctx = (void *)name;
    return rpl_signal_subscribe(rpl_subject_as_signal(subject), &o);
}

int main(void) {
    printf("1. plain subject\n");
    rpl_subject_t *plain = rpl_subject_create();
    printf("  send \"lost\" (nobody is subscribed)\n");
    rpl_subject_send_next(plain, rpl_string("lost"));
    rpl_disposable_t *a = watch(plain, "A");
    printf("  send 1\n");
    rpl_subject_send_next(plain, rpl_int(1));
    rpl_disposable_t *b = watch(plain, "B");
    printf("  send 2 (A and B are subscribed)\n");
    rpl_subject_send_next(plain, rpl_int(2));
    printf("  subscribers: %zu\n", rpl_subject_subscriber_count(plain));
    rpl_subject_send_completed(plain);

    printf("2. behavior subject (initial value 0)\n");
    rpl_subject_t *behavior = rpl_behavior_subject_create(rpl_int(0));
    rpl_disposable_t *c = watch(behavior, "C");
    printf("  send 1, send 2\n");
    rpl_subject_send_next(behavior, rpl_int(1));
    rpl_subject_send_next(behavior, rpl_int(2));
    printf("  D subscribes late\n");
    rpl_disposable_t *d = watch(behavior, "D");
    rpl_value current;
    rpl_behavior_subject_value(behavior, &current);
    printf("  current value: %lld\n", (long long)rpl_value_int(&current));
    rpl_value_release(&current);
    rpl_subject_send_completed(behavior);

    printf("3. replay subject (unlimited)\n");
    rpl_subject_t *replay = rpl_replay_subject_create(RPL_REPLAY_UNLIMITED);
    rpl_subject_send_next(replay, rpl_string("a"));
    rpl_subject_send_next(replay, rpl_string("b"));
    rpl_subject_send_next(replay, rpl_string("c"));
    rpl_subject_send_completed(replay);
    printf("  sent a, b, c, completed; E subscribes afterwards\n");
    rpl_disposable_t *e = watch(replay, "E");

    rpl_release(a);
    rpl_release(b);
    rpl_release(c);
    rpl_release(d);
    rpl_release(e);
    rpl_release(plain);
    rpl_release(behavior);
    rpl_release(replay);
    printf("done\n");
    return 0;
}
