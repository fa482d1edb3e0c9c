import pytest

import ripple
from ripple import Event, Signal
from conftest import needs

S = Signal.of


def test_stages():
    assert S(1, 2, 3).map(lambda x: x + 1).to_list() == [2, 3, 4]
    assert S(1, 2, 3, 4).filter(lambda x: x % 2 == 0).to_list() == [2, 4]
    assert S(1, 2, 3).scan(0, lambda a, x: a + x).to_list() == [1, 3, 6]
    assert S(1, 2, 3).aggregate(10, lambda a, x: a + x).to_list() == [16]
    assert Signal.empty().aggregate("init", lambda a, x: a).to_list() == ["init"]
    assert S(1, 2, 3, 1).take_while(lambda x: x < 3).to_list() == [1, 2]
    assert S(1, 2, 3, 1).skip_while(lambda x: x < 3).to_list() == [3, 1]
    seen = []
    assert S(1, 2).do(seen.append, on_completed=lambda: seen.append("C")).to_list() == [1, 2]
    assert seen == [1, 2, "C"]


def test_stage_state_is_per_subscription():
    s = S(1, 2).scan(0, lambda a, x: a + x)
    assert s.to_list() == [1, 3] and s.to_list() == [1, 3]
    got = []
    s.subscribe(got.append)
    s.subscribe(got.append)
    assert got == [1, 3, 1, 3]


def test_stage_end_stops_delivery_and_disposes_the_source():
    state = {}

    def body(sub):
        state["sub"] = sub
        for i in range(100):
            sub.send_next(i)
    got = []
    Signal.create(body).take_while(lambda x: x < 3).subscribe(got.append, on_completed=lambda: got.append("C"))
    assert got == [0, 1, 2, "C"]
    assert state["sub"].is_disposed  # disposed as soon as its subscribe returned


@needs("rpl_signal_take")
def test_c_take_stops_an_infinite_synchronous_source():
    def body(sub):
        i = 0
        while not sub.is_disposed:
            sub.send_next(i)
            i += 1
    assert Signal.create(body).map(lambda x: x * 2).take(3).to_list(timeout=5) == [0, 2, 4]


@needs("rpl_signal_take", "rpl_signal_skip", "rpl_signal_take_last")
def test_counting():
    assert S(1, 2, 3, 4).take(2).to_list() == [1, 2]
    assert S(1, 2, 3, 4).skip(3).to_list() == [4]
    assert S(1, 2, 3, 4).take_last(2).to_list() == [3, 4]
    assert Signal.never().take(0).to_list(timeout=1) == []


@needs("rpl_signal_distinct_until_changed", "rpl_signal_collect")
def test_distinct_collect():
    assert S(1, 1, "a", "a", 1, (1,), (1,)).distinct_until_changed().to_list() == [1, "a", 1, (1,)]
    assert S(1, "b").collect().to_list() == [(1, "b")]


@needs("rpl_signal_materialize", "rpl_signal_dematerialize")
def test_materialize_round_trip():
    evs = S(1, 2).materialize().to_list()
    assert evs == [Event.next(1), Event.next(2), Event.completed()]
    assert S(1, 2).materialize().dematerialize().to_list() == [1, 2]
    failed = Signal.error(KeyError("k")).materialize().to_list()
    assert failed[0].kind == "error" and isinstance(failed[0].error, KeyError)
    with pytest.raises(ValueError):
        S(Event.next(1), Event.failed(ValueError("v"))).dematerialize().to_list()


@needs("rpl_signal_merge", "rpl_signal_combine_latest", "rpl_signal_zip", "rpl_signal_concat")
def test_combining():
    assert sorted(Signal.merge(S(1, 2), S(3)).to_list()) == [1, 2, 3]
    assert S(1).merge(S(2), S(3)).to_list() == [1, 2, 3]
    assert Signal.merge([]).to_list() == []
    assert Signal.zip(S(1, 2, 3), S("a", "b")).to_list() == [(1, "a"), (2, "b")]
    assert S(1, 2).combine_latest(S("x")).to_list() == [(2, "x")]
    assert S(1).concat(S(2), S(3)).to_list() == [1, 2, 3]


@needs("rpl_signal_start_with", "rpl_signal_then", "rpl_signal_take_until")
def test_start_with_then_take_until():
    assert S(2).start_with(1).to_list() == [1, 2]
    assert S(1, 2).then(S("x")).to_list() == ["x"]
    a, b = [], []
    src = Signal.create(lambda sub: a.append(sub))
    trig = Signal.create(lambda sub: b.append(sub))
    got = []
    src.take_until(trig).subscribe(got.append, on_completed=lambda: got.append("C"))
    a[0].send_next(1)
    b[0].send_next("stop")
    a[0].send_next(2)
    assert got == [1, "C"]


@needs("rpl_signal_flatten_map", "rpl_signal_flatten", "rpl_signal_switch_to_latest", "rpl_signal_bind")
def test_higher_order():
    assert S(1, 2).flatten_map(lambda x: S(x, x * 10)).to_list() == [1, 10, 2, 20]
    assert S(1, 2).flatten_map(lambda x: None).to_list() == []
    assert S(S(1), S(2, 3)).flatten().to_list() == [1, 2, 3]
    assert S(S(1), S(2)).switch_to_latest().to_list() == [1, 2]
    assert S(1, 2, 3).bind(lambda x: S(x) if x < 2 else (S(x), True)).to_list() == [1, 2]
    assert S(1, 2, 3).bind(lambda x: S(x) if x < 3 else None).to_list() == [1, 2]


@needs("rpl_signal_catch", "rpl_signal_catch_to", "rpl_signal_retry", "rpl_signal_repeat")
def test_recovery():
    assert Signal.error(ValueError("v")).catch(lambda e: S(type(e).__name__)).to_list() == ["ValueError"]
    assert S(1).concat(Signal.error()).catch_to(S("r")).to_list() == [1, "r"]
    attempts = []

    def body(sub):
        attempts.append(1)
        if len(attempts) < 3:
            sub.send_error(RuntimeError("again"))
        else:
            sub.send_next("ok")
            sub.send_completed()
    assert Signal.create(body).retry(5).to_list() == ["ok"] and len(attempts) == 3
    attempts.clear()
    with pytest.raises(RuntimeError):
        Signal.create(body).retry(0).to_list()
    assert S(1, 2).repeat(3).to_list() == [1, 2] * 3
    assert S(1).repeat().take(4).to_list() == [1, 1, 1, 1]


def test_every_listed_operator_is_a_method():
    names = ["map", "filter", "scan", "aggregate", "take_while", "skip_while", "do_next", "do_error",
             "do_completed", "take", "skip", "take_last", "distinct_until_changed", "materialize",
             "dematerialize", "collect", "flatten", "switch_to_latest", "flatten_map", "bind", "concat", "merge",
             "combine_latest", "zip", "start_with", "then", "take_until", "catch", "catch_to", "retry",
             "repeat", "delay", "throttle", "timeout", "deliver_on", "subscribe_on", "interval", "publish",
             "multicast", "replay", "replay_last", "replay_lazily"]
    missing = [n for n in names if not hasattr(Signal, n)]
    # Only operators whose C function the library lacks may be missing.
    assert all(not ripple.has("rpl_signal_" + n) for n in missing), missing


@needs("rpl_signal_take_while")
def test_stage_end_stops_an_infinite_synchronous_source():
    def body(sub):
        i = 0
        while not sub.is_disposed:
            sub.send_next(i)
            i += 1
    src = Signal.create(body)
    assert src.take_while(lambda x: x < 5).to_list(timeout=5) == [0, 1, 2, 3, 4]
    got = []
    src.map(lambda x: 1 // (3 - x)).subscribe(got.append, got.append)
    assert got[:3] == [0, 0, 1] and isinstance(got[3], ZeroDivisionError) and len(got) == 4
