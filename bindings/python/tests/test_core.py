"""The compiled core and the cffi fallback: which one runs, and what only the
compiled core has (the subject hub, thread names, the GIL)."""
import os
import threading

import ripple
from ripple import Scheduler, Signal, Subject
from conftest import needs


def test_the_expected_core_is_running():
    """check.sh runs the suite with the compiled core (RIPPLE_EXPECT_NATIVE=1)
    and again with RIPPLE_PURE=1; each run must be on the core it asked for."""
    if os.environ.get("RIPPLE_EXPECT_NATIVE"):
        assert ripple.NATIVE, ripple._core.NATIVE_REASON
    if os.environ.get("RIPPLE_PURE"):
        assert not ripple.NATIVE


def events(sig, got, tag):
    return sig.subscribe(lambda v: got.append((tag, v)), lambda e: got.append((tag, "E", e)),
                         lambda: got.append((tag, "C")))


def test_many_subscribers_in_order_with_terminal():
    s = Subject()
    got = []
    ds = [events(s, got, k) for k in range(6)]  # more than the C loop's limit: the Python fan-out
    s.send(1)
    assert got == [(k, 1) for k in range(6)] and s.subscriber_count == 6
    got.clear()
    ds[2].dispose()
    s.send(2)
    assert [k for k, _ in got] == [0, 1, 3, 4, 5] and s.subscriber_count == 5
    got.clear()
    s.send_completed()
    assert got == [(k, "C") for k in (0, 1, 3, 4, 5)] and s.subscriber_count == 0
    late = []
    events(s, late, "late")
    assert late == [("late", "C")]


def test_dispose_and_subscribe_during_a_delivery():
    s = Subject()
    got = []
    ds = []

    def first(v):
        got.append(("first", v))
        if v == 1:
            ds[3].dispose()                    # a later member: not called for this value
            events(s, got, "new")              # a new member: only later values (rule 8)
    ds.append(s.subscribe(first))
    for k in range(1, 6):
        ds.append(events(s, got, k))
    s.send(1)
    s.send(2)
    assert ("3", 1) not in got and (3, 1) not in got and (3, 2) not in got
    assert ("new", 1) not in got and ("new", 2) in got
    assert got[:5] == [("first", 1), (1, 1), (2, 1), (4, 1), (5, 1)]


def test_exception_in_one_subscriber_does_not_stop_the_others(reported):
    s = Subject()
    got = []

    def bad(v):
        raise KeyError(v)
    for k in range(5):
        s.subscribe(bad if k == 2 else got.append)
    s.send(7)
    assert got == [7, 7, 7, 7] and len(reported) == 1 and isinstance(reported[0], KeyError)


def test_error_reaches_every_subscriber_and_unobserved_is_reported(reported):
    s = Subject()
    got = []
    for k in range(5):
        events(s, got, k)
    s.subscribe(lambda v: None)  # no on_error
    s.send_error(ValueError("v"))
    assert [g[0] for g in got] == [0, 1, 2, 3, 4] and all(isinstance(g[2], ValueError) for g in got)
    assert len(reported) == 1 and isinstance(reported[0], ValueError)


def test_hub_member_works_as_a_disposable():
    s = Subject()
    got = []
    d = s.subscribe(got.append)
    c = ripple.CompoundDisposable(d)
    s.send(1)
    c.dispose()
    s.send(2)
    assert got == [1] and d.is_disposed and s.subscriber_count == 0
    with s.subscribe(got.append):
        s.send(3)
    s.send(4)
    assert got == [1, 3]


def test_sends_from_many_threads_reach_every_subscriber_once():
    s = Subject()
    counts = [0] * 8
    for k in range(8):
        s.subscribe(lambda v, k=k: counts.__setitem__(k, counts[k] + 1))

    def sender():
        for i in range(500):
            s.send(i)
    ts = [threading.Thread(target=sender) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert counts == [2000] * 8


@needs("rpl_signal_deliver_on")
def test_ripple_threads_are_named_after_their_scheduler():
    names = []
    done = threading.Event()
    Signal.of(1).deliver_on(Scheduler.serial("ripple-python-test")).subscribe(
        lambda v: names.append(threading.current_thread().name), on_completed=done.set)
    assert done.wait(5)
    if ripple.NATIVE:
        assert names == ["ripple-python-test"]  # the full label (the OS name keeps 15 bytes)


@needs("rpl_signal_deliver_on")
def test_operator_exception_on_a_ripple_thread_reaches_on_error():
    got = []
    done = threading.Event()
    Signal.of(1, 2).deliver_on(Scheduler.serial()).map(lambda v: 1 // (v - 2)).subscribe(
        got.append, lambda e: (got.append(e), done.set()))
    assert done.wait(5)
    assert got[0] == -1 and isinstance(got[1], ZeroDivisionError)


def test_a_callback_calling_into_the_library_while_a_send_runs():
    # A Python callback (inside a send) calls a cffi function that calls a
    # callback again on the same thread: the GIL hand-off must not deadlock.
    s = Subject()
    got = []
    s.map(lambda v: Signal.of(v, v + 1).map(lambda x: x * 10).to_list()).subscribe(got.append)
    s.send(1)
    assert got == [[10, 20]]


def test_other_python_threads_run_while_subscribers_wait():
    s = Subject()
    ev = threading.Event()
    out = []
    s.subscribe(lambda v: out.append(ev.wait(5)))
    t = threading.Thread(target=ev.set)
    t.start()
    s.send(1)
    t.join()
    assert out == [True]


def test_a_subscribers_handle_in_a_compound_does_not_keep_it_alive():
    import gc
    import weakref
    s = Subject()
    cb = lambda v: None  # noqa: E731
    r = weakref.ref(cb)
    d = s.subscribe(cb)
    c = ripple.CompoundDisposable(d)
    del cb, d, c
    for _ in range(3):
        gc.collect()
    assert r() is not None  # still subscribed (rule 6a: until disposed or ended)
    s.send_completed()
    gc.collect()
    assert r() is None


def test_compiled_calls_inside_a_cffi_callback_inside_a_compiled_call():
    # subscribe (compiled, GIL released) -> the create body (a cffi callback,
    # GIL taken by cffi) -> subscribe/send/release (compiled) -> callbacks:
    # each must find the GIL where it is.
    s = Subject()
    got = []

    def body(sub):
        d = s.map(lambda v: v * 2).subscribe(got.append)
        s.send(1)
        d.dispose()
        del d  # its release runs with the GIL held
        s.subscribe(got.append).dispose()
        sub.send_next(5)
        sub.send_completed()
    Signal.create(body).map(lambda v: v + 1).subscribe(got.append, on_completed=lambda: got.append("C"))
    assert got == [2, 6, "C"]


@needs("rpl_signal_deliver_on", "rpl_signal_range")
def test_batches_on_a_serial_scheduler_deliver_everything_and_let_python_threads_run():
    import time
    ser = Scheduler.serial("batch")
    got = []
    done = threading.Event()
    Signal.range(0, 20000).deliver_on(ser).map(lambda v: v * 2).filter(lambda v: v % 3 == 0).subscribe(
        got.append, on_completed=done.set)
    deadline = time.monotonic() + 30
    while not done.is_set() and time.monotonic() < deadline:
        time.sleep(0)  # this thread needs the GIL too: the batches hand it back
    assert done.is_set() and got == [2 * i for i in range(20000) if (2 * i) % 3 == 0]


def test_hub_under_concurrent_sends_subscribes_and_disposes():
    import random
    import time
    s = Subject()
    stop = time.monotonic() + 1.0
    boxes = []

    def sender():
        while time.monotonic() < stop:
            for i in range(50):
                s.send(i)

    def churn():
        ds = []
        while time.monotonic() < stop:
            if len(ds) < 10 or random.random() < 0.5:
                ds.append(s.subscribe(lambda v: None))
            else:
                ds.pop(random.randrange(len(ds))).dispose()
        for d in ds:
            d.dispose()

    def self_disposing():
        while time.monotonic() < stop:
            box = []

            def cb(v, box=box):
                if box:
                    box[0].dispose()
            box.append(s.subscribe(cb))
            boxes.append(box)
            time.sleep(0.0005)
    ts = [threading.Thread(target=f) for f in (sender, sender, churn, churn, self_disposing)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    assert not any(t.is_alive() for t in ts)
    s.send(-1)  # the self-disposing ones still subscribed go now
    assert s.subscriber_count == 0 and all(b[0].is_disposed for b in boxes)
