"""The 0.2 operators as Signal methods: values, completion, errors, and an
exception in a Python callback reaching on_error through rpl_callback_fail.
A test whose C function the library lacks is skipped (needs)."""
import threading

import pytest

import ripple
from ripple import Scheduler, Signal, Subject, TestScheduler
from conftest import needs

S = Signal.of


class Boom(Exception):
    pass


def boom(*_):
    raise Boom("boom")


def run(sig):
    """Everything the signal sends, with ("E", exc) and "C" for the ends."""
    got = []
    sig.subscribe(got.append, lambda e: got.append(("E", e)), lambda: got.append("C"))
    return got


def timed(make, *steps):
    """Subscribes make(subject, test_scheduler), then plays steps: a value is
    sent, "tick" advances the clock 1 s, "end" completes. Returns what came."""
    s, ts = Subject(), TestScheduler()
    got = run(make(s, ts))
    for step in steps:
        if step == "tick":
            ts.advance_by(1.0)
        elif step == "end":
            s.send_completed()
        else:
            s.send(step)
    return got


def failed_with(got, kind=Boom):
    return len(got) >= 1 and isinstance(got[-1], tuple) and got[-1][0] == "E" and isinstance(got[-1][1], kind)


# -- creating -----------------------------------------------------------------------

@needs("rpl_signal_from_array", "rpl_signal_range")
def test_from_array_and_range():
    assert run(Signal.from_array([1, "a", (2, None)])) == [1, "a", (2, None), "C"]
    assert run(Signal.from_array([])) == ["C"]
    assert run(Signal.range(-2, 4)) == [-2, -1, 0, 1, "C"]
    assert run(Signal.range(5, 0)) == ["C"]


@needs("rpl_signal_timer")
def test_timer_on_a_test_scheduler():
    ts = TestScheduler()
    got = run(Signal.timer(1.0, ts))
    assert got == []
    ts.advance_by(0.5)
    assert got == []
    ts.advance_by(0.5)
    assert got == [0, "C"]


@needs("rpl_signal_start_lazily", "rpl_signal_start_eagerly")
def test_start_lazily_and_eagerly():
    calls = []

    def body(sub):
        calls.append(1)
        sub.send_next(1)
        sub.send_next(2)
        sub.send_completed()
    lazy = Signal.start_lazily(body, Scheduler.immediate())
    assert calls == []
    assert lazy.to_list(timeout=5) == [1, 2] and lazy.to_list(timeout=5) == [1, 2] and calls == [1]
    eager = Signal.start_eagerly(body, Scheduler.immediate())
    assert calls == [1, 1]
    assert eager.to_list(timeout=5) == [1, 2]
    assert failed_with(run(Signal.start_lazily(boom, Scheduler.immediate())))


# -- sharing and time --------------------------------------------------------------------

@needs("rpl_signal_share")
def test_share():
    subscriptions = []

    def body(sub):
        subscriptions.append(sub)
    s = Signal.create(body).share(1)
    a, b = [], []
    da = s.subscribe(a.append)
    s.subscribe(b.append)
    assert len(subscriptions) == 1
    subscriptions[0].send_next(1)
    c = []
    s.subscribe(c.append)
    assert a == [1] and b == [1] and c == [1]  # the late one got the replay
    subscriptions[0].send_completed()
    got = run(s)  # a fresh connection after the end
    assert len(subscriptions) == 2 and got == []
    da.dispose()


@needs("rpl_signal_delay_subscription", "rpl_signal_throttle_first")
def test_delay_subscription_and_throttle_first():
    ts = TestScheduler()
    got = run(S(1, 2).delay_subscription(1.0, ts))
    assert got == []
    ts.advance_by(1.0)
    assert got == [1, 2, "C"]
    assert timed(lambda s, ts: s.throttle_first(1.0, ts), 1, 2, "tick", 3, "end") == [1, 3, "C"]
    assert failed_with(run(Signal.error(Boom()).throttle_first(1.0, ts)))


@needs("rpl_signal_throttle_if")
def test_throttle_if():
    # 1 is throttled, 2 passes at once and drops the pending 1, 3 waits its second
    assert timed(lambda s, ts: s.throttle_if(1.0, lambda v: v % 2 == 1, ts), 1, 2, 3, "tick") == [2, 3]
    assert failed_with(timed(lambda s, ts: s.throttle_if(1.0, boom, ts), 1))


@needs("rpl_signal_buffer_with_time")
def test_buffer_with_time():
    assert timed(lambda s, ts: s.buffer_with_time(1.0, ts), 1, 2, "tick", 3, "end") == [(1, 2), (3,), "C"]


# -- transforming ----------------------------------------------------------------------------

@needs("rpl_signal_map_replace", "rpl_signal_ignore", "rpl_signal_ignore_values")
def test_map_replace_ignore():
    assert run(S(1, 2).map_replace("x")) == ["x", "x", "C"]
    assert run(S(1, None, 2, None).ignore(None)) == [1, 2, "C"]
    assert run(S(1, 2).ignore_values()) == ["C"]
    assert failed_with(run(Signal.error(Boom()).ignore_values()))


@needs("rpl_signal_reduce_each")
def test_reduce_each():
    assert run(S((1, 2), (3, 4)).reduce_each(lambda a, b: a * b)) == [2, 12, "C"]
    assert failed_with(run(S((1, 2)).reduce_each(boom)))
    got = run(S(1).reduce_each(lambda *a: a))  # not a tuple: a type error from the runtime
    assert isinstance(got[-1][1], ripple.RippleError)


@needs("rpl_signal_combine_previous")
def test_combine_previous():
    assert run(S(1, 2, 3).combine_previous(0, lambda p, c: c - p)) == [1, 1, 1, "C"]
    assert failed_with(run(S(1).combine_previous(0, boom)))


@needs("rpl_signal_distinct_until_changed_with")
def test_distinct_until_changed_with():
    got = run(S("a", "A", "b", "B", "a").distinct_until_changed_with(lambda x, y: x.lower() == y.lower()))
    assert got == ["a", "b", "a", "C"]
    assert failed_with(run(S(1, 2).distinct_until_changed_with(boom)))


@needs("rpl_signal_buffer")
def test_buffer():
    assert run(S(1, 2, 3, 4, 5).buffer(2)) == [(1, 2), (3, 4), (5,), "C"]
    with pytest.raises(ripple.StatusError):
        S(1).buffer(0)


@needs("rpl_signal_group_by")
def test_group_by():
    groups = {}
    keys = []

    def on_group(kg):
        key, group = kg
        keys.append(key)
        groups[key] = []
        group.subscribe(groups[key].append, on_completed=lambda: groups[key].append("C"))
    Signal.of(1, 2, 3, 4, 5).group_by(lambda v: v % 2).subscribe(on_group)
    assert keys == [1, 0] and groups == {1: [1, 3, 5, "C"], 0: [2, 4, "C"]}
    assert failed_with(run(S(1).group_by(boom)))


@needs("rpl_signal_not", "rpl_signal_and", "rpl_signal_or")
def test_booleans():
    assert run(S(True, False).not_()) == [False, True, "C"]
    assert run(S((True, True), (True, False)).and_()) == [True, False, "C"]
    assert run(S((False, False), (False, True)).or_()) == [False, True, "C"]
    assert isinstance(run(S(1).not_())[-1][1], ripple.RippleError)


@needs("rpl_signal_any", "rpl_signal_all")
def test_any_all():
    assert run(S(1, 2, 3).any(lambda v: v > 1)) == [True, "C"]
    assert run(S(1, 2, 3).any(lambda v: v > 5)) == [False, "C"]
    assert run(S(1, 2, 3).all(lambda v: v > 0)) == [True, "C"]
    assert run(S(1, 2, 3).all(lambda v: v > 1)) == [False, "C"]
    assert failed_with(run(S(1).any(boom))) and failed_with(run(S(1).all(boom)))


@needs("rpl_signal_default_if_empty")
def test_default_if_empty():
    assert run(Signal.empty().default_if_empty(7)) == [7, "C"]
    assert run(S(1).default_if_empty(7)) == [1, "C"]
    assert failed_with(run(Signal.error(Boom()).default_if_empty(7)))


@needs("rpl_signal_switch_if_empty")
def test_switch_if_empty():
    assert run(Signal.empty().switch_if_empty(S(8, 9))) == [8, 9, "C"]
    assert run(S(1).switch_if_empty(S(8))) == [1, "C"]


# -- side effects and lifetime ----------------------------------------------------------------

@needs("rpl_signal_initially", "rpl_signal_finally", "rpl_signal_do_dispose")
def test_initially_finally_do_dispose(reported):
    seen = []
    s = S(1).initially(lambda: seen.append("init")).finally_(lambda: seen.append("fin")) \
        .do_dispose(lambda: seen.append("disposed"))
    assert run(s) == [1, "C"] and seen == ["init", "fin", "disposed"]
    assert failed_with(run(S(1).initially(boom)))
    assert failed_with(run(S(1).finally_(boom)))
    # do_dispose runs after the subscription ended: the exception goes to the handler
    assert run(S(1).do_dispose(boom)) == [1, "C"] and isinstance(reported[-1], Boom)
    seen.clear()
    d = Signal.never().do_dispose(lambda: seen.append("d")).subscribe()
    d.dispose()
    assert seen == ["d"]


# -- flattening and combining ---------------------------------------------------------------

@needs("rpl_signal_flatten_max", "rpl_signal_concat_all")
def test_flatten_max_concat_all():
    assert run(S(S(1, 2), S(3)).flatten_max(1)) == [1, 2, 3, "C"]
    assert run(S(S(1), S(2)).flatten_max(0)) == [1, 2, "C"]
    assert run(S(S(1, 2), S(3)).concat_all()) == [1, 2, 3, "C"]


@needs("rpl_signal_concat_map")
def test_concat_map():
    assert run(S(1, 2).concat_map(lambda v: S(v, v * 10))) == [1, 10, 2, 20, "C"]
    assert failed_with(run(S(1).concat_map(boom)))


@needs("rpl_signal_if")
def test_if():
    cond = Subject()
    got = run(Signal.if_(cond, Signal.return_("yes"), Signal.return_("no")))
    cond.send(True)
    cond.send(False)
    cond.send_completed()
    assert got == ["yes", "no", "C"]


@needs("rpl_signal_switch_cases")
def test_switch_cases():
    key = Subject()
    got = run(Signal.switch_cases(key, {"a": Signal.return_(1), "b": Signal.return_(2)}, Signal.return_(0)))
    key.send("a")
    key.send("zz")
    key.send("b")
    key.send_completed()
    assert got == [1, 0, 2, "C"]
    k2 = Subject()
    got2 = run(Signal.switch_cases(k2, {"a": Signal.return_(1)}))
    k2.send("zz")
    assert isinstance(got2[-1][1], ripple.RippleError)


def two(make, *steps):
    """Subscribes make(a, b) for two subjects, then plays steps "a:v" / "b:v"
    (send v, an int when it looks like one), "a:C" (complete), "a:E" (fail
    with Boom). Returns what came."""
    subjects = {"a": Subject(), "b": Subject()}
    got = run(make(subjects["a"], subjects["b"]))
    for step in steps:
        which, v = step.split(":")
        s = subjects[which]
        if v == "C":
            s.send_completed()
        elif v == "E":
            s.send_error(Boom())
        else:
            s.send(int(v) if v.isdigit() else v)
    return got


@needs("rpl_signal_with_latest_from", "rpl_signal_sample")
def test_with_latest_from_and_sample():
    # a's 1 is dropped: b has sent nothing yet
    assert two(lambda a, b: a.with_latest_from(b), "a:1", "b:x", "a:2", "b:y", "a:3", "a:C") == \
        [(2, "x"), (3, "y"), "C"]
    # a tick before a value sends nothing; a tick re-sends the latest (RAC)
    assert two(lambda a, b: a.sample(b), "b:0", "a:1", "b:0", "b:0", "b:C") == [1, 1, "C"]
    assert failed_with(two(lambda a, b: a.sample(b), "a:E"))


@needs("rpl_signal_take_until_replacement", "rpl_signal_skip_until")
def test_take_until_replacement_and_skip_until():
    assert two(lambda a, b: a.take_until_replacement(b), "a:1", "b:r", "a:2", "b:C") == [1, "r", "C"]
    assert two(lambda a, b: a.skip_until(b), "a:1", "b:go", "a:2", "a:C") == [2, "C"]
    assert failed_with(two(lambda a, b: a.skip_until(b), "b:E"))


@needs("rpl_signal_deliver_on_bounded")
def test_deliver_on_bounded():
    done = threading.Event()
    got = []
    S(1, 2, 3).deliver_on_bounded(Scheduler.serial(), 1, "block").subscribe(
        got.append, on_completed=done.set)
    assert done.wait(5) and got == [1, 2, 3]
    if ripple.NATIVE:  # "block" turned the lazy GIL hand-back off for the process: on again for later tests
        import gc
        gc.collect()
        ripple._core._cext.set_lazy_keep(True)
    with pytest.raises(ValueError):
        S(1).deliver_on_bounded(Scheduler.serial(), 1, "nope")
    ts = TestScheduler()  # work runs only in advance_by: a full queue stays full
    for policy, want in (("drop_newest", [1, "C"]), ("drop_oldest", [3, "C"])):
        got = run(S(1, 2, 3).deliver_on_bounded(ts, 1, policy))
        ts.run()
        assert got == want, policy
    got = run(S(1, 2).deliver_on_bounded(ts, 1, "fail"))
    ts.run()
    err = got[1][1]
    assert got[0] == 1 and err.domain == "ripple" and err.code == ripple.lib.RPL_ERROR_OVERFLOW


def test_every_02_operator_in_the_library_is_a_method():
    names = {"from_array": "from_array", "range": "range", "timer": "timer", "start_eagerly": "start_eagerly",
             "start_lazily": "start_lazily", "map_replace": "map_replace", "ignore": "ignore",
             "ignore_values": "ignore_values", "reduce_each": "reduce_each",
             "combine_previous": "combine_previous", "distinct_until_changed_with": "distinct_until_changed_with",
             "buffer": "buffer", "buffer_with_time": "buffer_with_time", "group_by": "group_by", "not": "not_",
             "and": "and_", "or": "or_", "any": "any", "all": "all", "flatten_max": "flatten_max",
             "concat_map": "concat_map", "concat_all": "concat_all", "with_latest_from": "with_latest_from",
             "sample": "sample", "if": "if_", "switch_cases": "switch_cases",
             "take_until_replacement": "take_until_replacement", "skip_until": "skip_until",
             "default_if_empty": "default_if_empty", "switch_if_empty": "switch_if_empty",
             "initially": "initially", "finally": "finally_", "do_dispose": "do_dispose",
             "throttle_first": "throttle_first", "throttle_if": "throttle_if",
             "delay_subscription": "delay_subscription", "share": "share",
             "deliver_on_bounded": "deliver_on_bounded"}
    missing = [c for c, py in names.items() if ripple.has("rpl_signal_" + c) and not hasattr(Signal, py)]
    assert missing == []


TS = TestScheduler()  # for the timed operators below; run after each subscription


def _ops_passing_errors():
    ts = TS
    ops = {
        "map_replace": lambda s: s.map_replace(1), "ignore": lambda s: s.ignore(1),
        "reduce_each": lambda s: s.reduce_each(lambda *a: a),
        "combine_previous": lambda s: s.combine_previous(0, lambda a, b: b),
        "distinct_until_changed_with": lambda s: s.distinct_until_changed_with(lambda a, b: a == b),
        "buffer": lambda s: s.buffer(2), "group_by": lambda s: s.group_by(lambda v: v),
        "not": lambda s: s.not_(), "and": lambda s: s.and_(), "or": lambda s: s.or_(),
        "default_if_empty": lambda s: s.default_if_empty(1), "switch_if_empty": lambda s: s.switch_if_empty(S(1)),
        "initially": lambda s: s.initially(lambda: None), "finally": lambda s: s.finally_(lambda: None),
        "do_dispose": lambda s: s.do_dispose(lambda: None), "flatten_max": lambda s: s.flatten_max(1),
        "concat_map": lambda s: s.concat_map(lambda v: S(v)), "concat_all": lambda s: s.concat_all(),
        "with_latest_from": lambda s: s.with_latest_from(S(1)), "sample": lambda s: s.sample(Signal.never()),
        "take_until_replacement": lambda s: s.take_until_replacement(Signal.never()),
        "skip_until": lambda s: s.skip_until(Signal.never()), "share": lambda s: s.share(1),
        "delay_subscription": lambda s: s.delay_subscription(1.0, ts),
        "throttle_first": lambda s: s.throttle_first(1.0, ts), "buffer_with_time": lambda s: s.buffer_with_time(1.0, ts),
        "throttle_if": lambda s: s.throttle_if(1.0, lambda v: True, ts),
    }
    return [pytest.param(op, marks=needs("rpl_signal_" + name), id=name) for name, op in ops.items()]


@pytest.mark.parametrize("op", _ops_passing_errors())
def test_an_error_of_the_source_reaches_on_error(op):
    got = run(op(Signal.error(Boom("src"))))
    TS.run()
    assert failed_with(got) and str(got[-1][1]) == "src"
