import asyncio
import threading
import time

import pytest

import ripple
from conftest import needs
from ripple import Disposable, NoValueError, RippleError, RippleTimeoutError, Signal


def events(sig):
    got = []
    sig.subscribe(got.append, lambda e: got.append(("E", e)), lambda: got.append("C"))
    return got


def test_create_and_subscribe():
    def body(sub):
        sub.send_next(1)
        sub.send_next("two")
        sub.send_completed()
        sub.send_next(3)  # after completion: ignored
    assert events(Signal.create(body)) == [1, "two", "C"]


def test_create_runs_per_subscriber():
    calls = []
    s = Signal.create(lambda sub: (calls.append(1), sub.send_completed()) and None)
    s.subscribe()
    s.subscribe()
    assert len(calls) == 2


def test_create_cleanup_runs_at_dispose():
    cleaned = []
    s = Signal.create(lambda sub: (lambda: cleaned.append(True)))
    d = s.subscribe()
    assert cleaned == []
    d.dispose()
    assert cleaned == [True]
    assert d.is_disposed
    d.dispose()  # idempotent
    assert cleaned == [True]


def test_create_cleanup_runs_at_completion():
    cleaned = []

    def body(sub):
        sub.send_completed()
        return Disposable(lambda: cleaned.append(1))
    Signal.create(body).subscribe()
    assert cleaned == [1]


def test_disposable_context_manager():
    keep = []
    s = Signal.create(lambda sub: keep.append(sub))
    got = []
    with s.subscribe(got.append) as d:
        keep[0].send_next(1)
    keep[0].send_next(2)  # after dispose: not delivered
    assert got == [1]
    assert d.is_disposed and keep[0].is_disposed


def test_send_from_another_thread():
    def body(sub):
        def run():
            for i in range(100):
                sub.send_next(i)
            sub.send_completed()
        threading.Thread(target=run).start()
    assert Signal.create(body).to_list(timeout=5) == list(range(100))


def test_return_empty_never_error():
    assert events(Signal.return_(3)) == [3, "C"]
    assert events(Signal.empty()) == ["C"]
    assert events(Signal.never()) == []
    got = events(Signal.error(ValueError("bad")))
    assert isinstance(got[0][1], ValueError) and str(got[0][1]) == "bad"


def test_generic_error():
    got = events(Signal.error())
    e = got[0][1]
    assert isinstance(e, RippleError) and e.domain == "ripple" and e.code == 1


def test_ripple_error_keeps_domain_and_code():
    e = RippleError("nope", "my.domain", 42)
    got = events(Signal.error(e))
    assert got[0][1] is e


def test_defer():
    n = []

    def factory():
        n.append(1)
        return Signal.of(len(n))
    s = Signal.defer(factory)
    assert s.first() == 1 and s.first() == 2


def test_defer_exception_is_the_error():
    with pytest.raises(KeyError):
        Signal.defer(lambda: {}["x"]).first()


def test_first_wait_to_list():
    assert Signal.of(1, 2, 3).first() == 1
    assert Signal.of(1, 2, 3).to_list() == [1, 2, 3]
    Signal.of(1).wait()
    with pytest.raises(NoValueError):
        Signal.empty().first()
    assert Signal.empty().first(default=7) == 7
    with pytest.raises(RippleTimeoutError):
        Signal.never().first(timeout=0.05)
    with pytest.raises(TimeoutError):
        Signal.never().wait(timeout=0.05)
    with pytest.raises(ZeroDivisionError):
        Signal.error(ZeroDivisionError("z")).to_list()


def test_blocking_releases_the_gil():
    def body(sub):
        def run():
            time.sleep(0.05)
            sub.send_next("late")  # a Python thread needs the GIL to get here
        threading.Thread(target=run).start()
    assert Signal.create(body).first(timeout=5) == "late"


def test_to_iter():
    assert list(Signal.of(1, 2, 3).to_iter(timeout=1)) == [1, 2, 3]
    with pytest.raises(ValueError):
        list(Signal.error(ValueError()).to_iter())
    it = Signal.never().to_iter(timeout=0.05)
    with pytest.raises(RippleTimeoutError):
        next(it)


def test_to_iter_early_exit_disposes():
    subs = []
    s = Signal.create(lambda sub: subs.append(sub))
    it = s.to_iter(timeout=1)
    threading.Timer(0.02, lambda: subs[-1].send_next(5)).start()
    assert next(it) == 5
    it.close()
    assert subs[-1].is_disposed


def test_async_for_and_first_async():
    async def main():
        values = [x async for x in Signal.of(1, 2, 3)]
        first = await Signal.of("a", "b").first_async()

        def body(sub):
            threading.Timer(0.02, lambda: (sub.send_next(9), sub.send_completed())).start()
        threaded = [x async for x in Signal.create(body)]
        with pytest.raises(ValueError):
            await Signal.error(ValueError()).first_async()
        with pytest.raises(RippleTimeoutError):
            await Signal.never().first_async(timeout=0.05)
        assert await Signal.empty().first_async(default=None) is None
        return values, first, threaded
    assert asyncio.run(main()) == ([1, 2, 3], "a", [9])


def test_bad_arguments_raise():
    with pytest.raises(TypeError):
        Signal.create(3)
    with pytest.raises(ripple.StatusError) as info:
        ripple.Subscriber(ripple.ffi.NULL).send_completed()
    assert info.value.status == ripple.lib.RPL_ERR_NULL
    with pytest.raises(ripple.StatusError) as info:
        ripple.Subscriber(ripple.ffi.NULL).send_next(1)
    assert info.value.status == ripple.lib.RPL_ERR_NULL


def test_compound_and_serial_disposables():
    hits = []
    c = ripple.CompoundDisposable(lambda: hits.append("a"))
    b = Disposable(lambda: hits.append("b"))
    c.add(b)
    c.dispose()
    assert sorted(hits) == ["a", "b"]
    c.add(lambda: hits.append("late"))  # disposed compound: at once
    assert hits[-1] == "late"
    s = ripple.SerialDisposable()
    first = Disposable(lambda: hits.append("first"))
    assert s.swap(first) is None
    old = s.swap(Disposable(lambda: hits.append("second")))
    assert old is not None and not old.is_disposed
    s.dispose()
    assert hits[-1] == "second"


def test_generic_error_from_a_subscriber_and_plain_disposables():
    got = []
    Signal.create(lambda sub: sub.send_error()).subscribe(on_error=got.append)
    assert isinstance(got[0], RippleError) and got[0].domain == "ripple"
    d = Disposable()
    assert not d.is_disposed
    d.dispose()
    assert d.is_disposed
    c = ripple.CompoundDisposable()
    hits = []
    x = Disposable(lambda: hits.append("x"))
    c.add(x)
    c.remove(x)
    c.dispose()
    assert hits == [] and not x.is_disposed


def test_terminal_then_cleanup_order_rule_5():
    order = []

    def body(sub):
        sub.send_next(1)
        sub.send_completed()
        return lambda: order.append("cleanup")
    Signal.create(body).subscribe(order.append, on_completed=lambda: order.append("C"))
    assert order == [1, "C", "cleanup"]


@needs("rpl_subject_create")
def test_dispose_inside_own_callback_rule_6():
    s = ripple.Subject()
    got = []
    box = {}

    def on_next(v):
        got.append(v)
        if v == 2:
            box["d"].dispose()
            s.send(99)  # after dispose: never delivered
    box["d"] = s.subscribe(on_next)
    for i in range(1, 5):
        s.send(i)
    assert got == [1, 2] and s.subscriber_count == 0


def test_disposable_callable_is_freed_disposed_or_not():
    import gc
    import weakref

    class Action:
        def __init__(self):
            self.runs = 0

        def __call__(self):
            self.runs += 1

    kept = Action()
    probe = weakref.ref(kept)
    d = Disposable(kept)
    del kept
    gc.collect()
    assert probe() is not None          # held while the disposable may still run it
    d.dispose()
    assert probe() is None or probe().runs == 1
    gc.collect()
    assert probe() is None              # released right after it ran

    unused = Action()
    probe = weakref.ref(unused)
    d = Disposable(unused)
    del unused
    del d                               # freed without dispose: dropped, never run
    gc.collect()
    assert probe() is None
