import threading
import weakref

import pytest

import ripple
from ripple import BehaviorSubject, ReplaySubject, Signal, Subject
from conftest import collect, needs

pytestmark = needs("rpl_subject_create")


def events(sig):
    got = []
    d = sig.subscribe(got.append, lambda e: got.append(("E", e)), lambda: got.append("C"))
    return got, d


def test_subject_hot_and_remembers_terminal():
    s = Subject()
    s.send(0)
    a, da = events(s)
    s.send(1)
    s.send("x")
    assert s.subscriber_count == 1
    s.send_completed()
    s.send(2)
    late, _ = events(s)
    assert a == [1, "x", "C"] and late == ["C"] and s.is_terminated


def test_subject_error_remembered():
    s = Subject()
    s.send_error(KeyError("k"))
    late, _ = events(s)
    assert isinstance(late[0][1], KeyError)


def test_behavior_subject():
    b = BehaviorSubject(1)
    a, _ = events(b)
    b.send(2)
    late, _ = events(b)
    assert a == [1, 2] and late == [2] and b.value == 2
    assert BehaviorSubject().value is None


def test_replay_subject():
    r = ReplaySubject(2)
    for i in range(5):
        r.send(i)
    got, _ = events(r)
    assert got == [3, 4]
    u = ReplaySubject()
    for i in range(5):
        u.send(i)
    u.send_completed()
    assert u.to_list() == [0, 1, 2, 3, 4]
    with pytest.raises(ripple.StatusError):
        ReplaySubject(0)


def test_recursive_take_rule_4():
    s = Subject()
    got = []

    def on_next(v):
        got.append(v)
        s.send(v + 1)
    s.take(3).subscribe(on_next, on_completed=lambda: got.append("C"))
    s.send(0)
    assert got == [0, 1, 2, "C"]


def test_dispose_unsubscribes_and_releases():
    s = Subject()
    cb = lambda x: None  # noqa: E731
    r = weakref.ref(cb)
    with s.subscribe(cb):
        assert s.subscriber_count == 1
    assert s.subscriber_count == 0
    del cb
    collect()
    assert r() is None


def test_map_filter_on_subject():
    s = Subject()
    got, _ = events(s.map(lambda x: x * 2).filter(lambda x: x % 3))
    for i in range(6):
        s.send(i)
    assert got == [2, 4, 8, 10]


def test_send_from_many_threads():
    s = Subject()
    got = []
    s.subscribe(got.append)

    def run(base):
        for i in range(500):
            s.send(base + i)
    ts = [threading.Thread(target=run, args=(k * 1000,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(got) == 2000
    for k in range(4):  # per-thread order kept
        mine = [x for x in got if k * 1000 <= x < k * 1000 + 500]
        assert mine == sorted(mine)


def test_subscribe_subject():
    s = Subject()
    got, _ = events(s)
    Signal.of(1, 2).subscribe_subject(s)
    assert got == [1, 2, "C"]


def test_as_signal():
    s = Subject()
    sig = s.as_signal()
    assert not hasattr(sig, "send")
    got, _ = events(sig)
    s.send(5)
    assert got == [5]


@needs("rpl_signal_publish")
def test_publish_connect():
    calls = []
    src = Signal.create(lambda sub: (calls.append(1), sub.send_next("v"), sub.send_completed()) and None)
    conn = src.publish()
    a, _ = events(conn.signal)
    b, _ = events(conn.signal)
    d = conn.connect()
    conn.connect()
    assert calls == [1] and a == ["v", "C"] and b == ["v", "C"]
    d.dispose()


@needs("rpl_connection_autoconnect")
def test_autoconnect_reconnects():
    subs = []
    src = Signal.create(lambda sub: subs.append(sub))
    auto = src.publish().autoconnect()
    got, d1 = events(auto)
    assert len(subs) == 1
    subs[0].send_next(1)
    d1.dispose()
    assert subs[0].is_disposed
    got2, d2 = events(auto)
    assert len(subs) == 2
    subs[1].send_next(2)
    assert got == [1] and got2 == [2]
    d2.dispose()


@needs("rpl_signal_multicast")
def test_multicast_through_replay():
    conn = Signal.of(1, 2).multicast(ReplaySubject())
    conn.connect()
    assert conn.signal.to_list() == [1, 2]


@needs("rpl_signal_replay", "rpl_signal_replay_last", "rpl_signal_replay_lazily")
def test_replay_variants():
    calls = []

    def src():
        return Signal.create(lambda sub: (calls.append(1), sub.send_next(1), sub.send_next(2),
                                          sub.send_completed()) and None)
    r = src().replay()
    assert calls == [1]
    assert r.to_list() == [1, 2] and r.to_list() == [1, 2] and calls == [1]
    assert src().replay_last().to_list() == [2]
    lazy = src().replay_lazily()
    assert calls == [1, 1, 1] or len(calls) == 2
    n = len(calls)
    assert lazy.to_list() == [1, 2] and len(calls) == n + 1
    assert lazy.to_list() == [1, 2] and len(calls) == n + 1


@pytest.mark.parametrize("value", [0, -1, 2**63 - 1, -(2**63), 2**63, 1.5, -0.0, float("inf"), True, None,
                                   "s", b"b", (1, 2.5), object()])
def test_send_every_kind_of_value(value):
    s = Subject()
    got, _ = events(s)
    s.send(value)
    assert got[0] is value or got[0] == value
    assert type(got[0]) is type(value)
    sub_got = Signal.create(lambda sub: sub.send_next(value)).first()
    assert sub_got is value or sub_got == value


def test_fast_send_matches_the_platform():
    import platform
    if platform.machine() in ("x86_64", "aarch64"):
        assert ripple._core.FAST_SEND
