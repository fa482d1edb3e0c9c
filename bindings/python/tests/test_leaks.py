"""A subscription that ends releases its Python callbacks (weakref + gc)."""
import threading
import weakref

import ripple
from ripple import Signal
from conftest import collect, needs


class Callback:
    def __init__(self):
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return args[0] if args else None


def live():
    return len(ripple._core._live)


def test_completed_subscription_releases_callbacks():
    before = live()
    cbs = [Callback() for _ in range(3)]
    refs = [weakref.ref(c) for c in cbs]
    Signal.of(1, 2).subscribe(*cbs)
    assert cbs[0].calls == 2 and cbs[2].calls == 1
    del cbs
    collect()
    assert all(r() is None for r in refs)
    assert live() <= before + 0


def test_disposed_subscription_releases_callbacks():
    keep = []
    s = Signal.create(lambda sub: keep.append(sub))
    cb = Callback()
    r = weakref.ref(cb)
    d = s.subscribe(cb)
    del cb
    collect()
    assert r() is not None  # still subscribed
    d.dispose()
    collect()
    assert r() is None


def test_failed_subscription_releases_callbacks():
    cb, err = Callback(), Callback()
    rs = [weakref.ref(cb), weakref.ref(err)]
    Signal.error(ValueError()).subscribe(cb, err)
    assert err.calls == 1
    del cb, err
    collect()
    assert all(r() is None for r in rs)


def test_stage_callbacks_released_with_the_signal():
    f, p = Callback(), Callback()
    rs = [weakref.ref(f), weakref.ref(p)]
    s = Signal.of(1, 2).map(f).filter(p)
    assert s.to_list() == [1, 2]  # materialized relay
    s.subscribe()                  # direct
    del f, p, s
    collect()
    assert all(r() is None for r in rs)


def test_stage_exception_does_not_pin_callbacks():
    class Bad(Callback):
        def __call__(self, x):
            raise ValueError(x)
    f = Bad()
    r = weakref.ref(f)
    errors = []
    Signal.of(1).map(f).subscribe(on_error=errors.append)
    try:
        Signal.of(1).map(f).to_list()
    except ValueError:
        pass
    errors.clear()
    del f
    collect()
    assert r() is None


def test_create_body_released_with_the_signal():
    body = Callback()
    r = weakref.ref(body)
    s = Signal.create(body)
    s.subscribe()
    del body, s
    collect()
    assert r() is None


@needs("rpl_signal_flatten_map", "rpl_signal_catch")
def test_operator_callbacks_released():
    f = lambda v: Signal.of(v)  # noqa: E731
    g = lambda e: Signal.empty()  # noqa: E731
    rs = [weakref.ref(f), weakref.ref(g)]
    s = Signal.of(1).flatten_map(f).catch(g)
    assert s.to_list() == [1]
    del f, g, s
    collect()
    assert all(r() is None for r in rs)


@needs("rpl_signal_deliver_on")
def test_thread_delivery_releases():
    done = threading.Event()
    cb = Callback()
    r = weakref.ref(cb)
    Signal.of(1).deliver_on(ripple.Scheduler.serial()).subscribe(cb, on_completed=done.set)
    assert done.wait(5)
    del cb
    for _ in range(50):
        collect()
        if r() is None:
            break
        threading.Event().wait(0.01)
    assert r() is None


def test_no_handles_left_behind():
    collect()
    before = (live(), len(ripple._core._objects))
    for _ in range(100):
        Signal.of(1, "s", (object(),)).map(lambda x: x).to_list()
        Signal.of(2).subscribe(lambda x: None)
    collect()
    assert (live(), len(ripple._core._objects)) == before


@needs("rpl_subject_create")
def test_freed_source_releases_its_subscriptions_rule_6a():
    s = ripple.Subject()
    cb = Callback()
    r = weakref.ref(cb)
    s.map(lambda x: x).subscribe(cb)  # the disposable is dropped at once
    s.send(1)
    assert cb.calls == 1
    del cb, s
    collect()
    assert r() is None
