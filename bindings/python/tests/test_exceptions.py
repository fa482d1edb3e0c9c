"""Python exceptions raised in callbacks are never lost and never crash."""
import threading

import pytest

import ripple
from ripple import Scheduler, Signal
from conftest import needs


def run(sig):
    got = []
    sig.subscribe(got.append, lambda e: got.append(("E", e)), lambda: got.append("C"))
    return got


class Boom(Exception):
    pass


def boom(*_):
    raise Boom("boom")


@pytest.mark.parametrize("make", [
    lambda s: s.map(boom),
    lambda s: s.filter(boom),
    lambda s: s.scan(0, boom),
    lambda s: s.aggregate(0, boom),
    lambda s: s.take_while(boom),
    lambda s: s.skip_while(boom),
    lambda s: s.do_next(boom),
])
def test_stage_exception_is_the_error_downstream(make, reported):
    got = run(make(Signal.of(1, 2, 3)))
    assert len(got) == 1 and got[0][0] == "E" and isinstance(got[0][1], Boom)
    assert reported == []


def test_values_before_the_exception_pass():
    got = run(Signal.of(1, 2, 0, 4).map(lambda x: 10 // x))
    assert got[:2] == [10, 5] and isinstance(got[2][1], ZeroDivisionError) and len(got) == 3


@needs("rpl_signal_take")
def test_stage_exception_through_c_operators():
    # map is materialized (a relay into C), then take: the error still travels.
    got = run(Signal.of(1, 2, 3).map(boom).take(5))
    assert isinstance(got[0][1], Boom)
    with pytest.raises(Boom):
        Signal.of(1).map(boom).to_list()


def test_error_passes_later_stages():
    seen = []
    got = run(Signal.of(1).map(boom).do_error(seen.append).map(lambda x: x))
    assert isinstance(seen[0], Boom) and got[0][1] is seen[0]


def test_create_body_exception_is_the_error():
    got = run(Signal.create(boom))
    assert isinstance(got[0][1], Boom)


@needs("rpl_signal_flatten_map", "rpl_signal_catch", "rpl_signal_bind")
def test_signal_returning_callbacks():
    assert isinstance(run(Signal.of(1).flatten_map(boom))[0][1], Boom)
    assert isinstance(run(Signal.of(1).bind(boom))[0][1], Boom)
    assert isinstance(run(Signal.error(ValueError()).catch(boom))[0][1], Boom)
    assert isinstance(run(Signal.of(1).flatten_map(lambda v: "not a signal"))[0][1], TypeError)


def test_observer_exceptions_reach_the_handler(reported):
    got = []

    def on_next(x):
        got.append(x)
        raise Boom(x)
    Signal.of(1, 2).subscribe(on_next, on_completed=boom)
    assert got == [1, 2]  # the subscription goes on
    assert [type(e) for e in reported] == [Boom, Boom, Boom]


def test_unobserved_error_reaches_the_handler(reported):
    Signal.of(1).map(boom).subscribe(lambda x: None)
    assert len(reported) == 1 and isinstance(reported[0], Boom)


def test_default_handler_prints(capfd):
    ripple.set_exception_handler(None)
    Signal.of(1).subscribe(boom)
    err = capfd.readouterr().err
    assert "Boom: boom" in err and "ripple: exception in a callback" in err


def test_failing_handler_falls_back(capfd):
    old = ripple.set_exception_handler(boom)
    try:
        Signal.of(1).subscribe(boom)
    finally:
        ripple.set_exception_handler(old)
    assert "Boom" in capfd.readouterr().err


@needs("rpl_signal_deliver_on")
def test_exception_on_a_background_thread(reported):
    done = threading.Event()
    Signal.of(1).deliver_on(Scheduler.serial()).subscribe(boom, on_completed=done.set)
    assert done.wait(5)
    assert isinstance(reported[0], Boom)


def test_scheduled_work_exception(reported):
    Scheduler.immediate().schedule(boom)
    assert isinstance(reported[0], Boom)


@pytest.mark.parametrize("make", [
    lambda s: s.concat(Signal.error(KeyError("k"))).do_error(boom),
    lambda s: s.do_completed(boom),
    lambda s: s.do(on_completed=boom),
])
def test_terminal_side_effect_exception_replaces_the_terminal_event(make, reported):
    got = run(make(Signal.of(1, 2)))
    assert got[:2] == [1, 2] and len(got) == 3 and isinstance(got[2][1], Boom) and reported == []


def test_the_error_carries_the_exceptions_type_and_message(monkeypatch):
    # With no cache of original exceptions, on_error gets what the C error
    # holds: domain "python", "<type>: <message>".
    monkeypatch.setattr(ripple._core, "_PY_ERRORS_MAX", 0)
    ripple.clear_error_cache()
    got = run(Signal.of(1).map(boom))
    err = got[0][1]
    assert type(err) is ripple.RippleError and err.domain == "python" and err.message == "Boom: boom"
