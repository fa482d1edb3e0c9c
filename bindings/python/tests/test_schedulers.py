import asyncio
import threading
import time

import pytest

import ripple
from ripple import Scheduler, Signal, Subject, TestScheduler
from conftest import needs

pytestmark = needs("rpl_scheduler_immediate", "rpl_test_scheduler_create")


def test_immediate_and_current():
    seen = []
    imm = Scheduler.immediate()
    imm.schedule(lambda: seen.append(Scheduler.current() == imm))
    assert seen == [True]
    assert Scheduler.current() is None


def test_serial_runs_on_its_thread():
    s = Scheduler.serial("py-serial")
    box = []
    done = threading.Event()
    s.schedule(lambda: (box.append((threading.get_ident(), Scheduler.current() == s)), done.set()))
    assert done.wait(5)
    assert box[0][0] != threading.get_ident() and box[0][1]


def test_after_and_cancel():
    s = Scheduler.background()
    hits = []
    ev = threading.Event()
    s.after(0.01, lambda: (hits.append(1), ev.set()))
    d = s.after(0.05, lambda: hits.append("cancelled"))
    d.dispose()
    assert ev.wait(5)
    time.sleep(0.1)
    assert hits == [1]


def test_test_scheduler_virtual_time():
    ts = TestScheduler()
    got = []
    ts.after(2, lambda: got.append(("a", ts.now)))
    ts.after(1, lambda: got.append(("b", ts.now)))
    rep = ts.repeat(0.5, 1, lambda: got.append("r"))
    ts.advance_by(1.6)
    rep.dispose()
    ts.run()
    assert got == ["r", ("b", 1.0), "r", ("a", 2.0)]


@needs("rpl_signal_interval", "rpl_signal_delay", "rpl_signal_throttle", "rpl_signal_timeout")
def test_time_operators_on_a_test_scheduler():
    ts = TestScheduler()
    got = []
    Signal.interval(1, ts).take(3).subscribe(got.append, on_completed=lambda: got.append("C"))
    ts.advance_by(10)
    assert got == [0, 1, 2, "C"]

    got = []
    Signal.of(1, 2).delay(5, ts).subscribe(got.append)
    ts.advance_by(4.9)
    assert got == []
    ts.advance_by(0.2)
    assert got == [1, 2]

    s = Subject()
    got = []
    s.throttle(1, ts).subscribe(got.append)
    s.send(1)
    ts.advance_by(0.5)
    s.send(2)
    ts.advance_by(1)
    assert got == [2]

    keep = []
    errs = []
    Signal.create(lambda sub: keep.append(sub)).timeout(3, ts).subscribe(on_error=errs.append)
    ts.advance_by(3)
    assert isinstance(errs[0], ripple.RippleTimeoutError) and errs[0].code == 2


@needs("rpl_signal_deliver_on", "rpl_signal_subscribe_on")
def test_deliver_on_and_subscribe_on_threads():
    s = Scheduler.serial()
    main = threading.get_ident()
    assert Signal.of(1).deliver_on(s).map(lambda x: threading.get_ident() != main).first(timeout=5)
    ids = []

    def body(sub):
        ids.append(threading.get_ident())
        sub.send_next(1)
        sub.send_completed()
    assert Signal.create(body).subscribe_on(Scheduler.background()).to_list(timeout=5) == [1]
    assert ids[0] != main


@needs("rpl_signal_deliver_on")
def test_many_background_callbacks_take_the_gil():
    s = Subject()
    got = []
    done = threading.Event()
    s.deliver_on(Scheduler.serial()).subscribe(got.append, on_completed=done.set)
    for i in range(5000):
        s.send(i)
    s.send_completed()
    assert done.wait(10)
    assert got == list(range(5000))


@needs("rpl_run_loop_create", "rpl_signal_deliver_on")
def test_run_loop_with_asyncio():
    async def main():
        rl = ripple.RunLoop().attach_asyncio()
        loop_thread = threading.get_ident()
        try:
            src = Signal.of(1, 2, 3).subscribe_on(Scheduler.background())
            values = []
            async for x in src.deliver_on(rl.scheduler).map(lambda v: (v, threading.get_ident())):
                values.append(x)
            return values, loop_thread
        finally:
            rl.detach_asyncio()
    values, tid = asyncio.run(main())
    assert [v for v, _ in values] == [1, 2, 3]
    assert all(t == tid for _, t in values)


@needs("rpl_run_loop_create")
def test_run_loop_manual():
    rl = ripple.RunLoop()
    hits = []
    rl.scheduler.schedule(lambda: hits.append(1))
    assert hits == [] and rl.next_timeout == 0
    assert rl.run_until_idle() == 1 and hits == [1]
    assert rl.next_timeout is None


@needs("rpl_run_loop_create")
def test_run_loop_run_and_stop():
    rl = ripple.RunLoop()
    hits = []
    rl.scheduler.after(0.01, lambda: (hits.append(Scheduler.current() == rl.scheduler), rl.stop()))
    t = threading.Thread(target=rl.run)
    t.start()
    t.join(5)
    assert not t.is_alive() and hits == [True]
