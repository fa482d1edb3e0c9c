"""Callbacks from Ripple's threads take the GIL; one subscriber's callbacks never overlap."""
import threading
import time

from ripple import Scheduler, Signal, Subject
from conftest import needs


@needs("rpl_signal_subscribe_on", "rpl_signal_merge")
def test_merged_background_sources_are_serialized():
    def source(k):
        def body(sub):
            for i in range(300):
                sub.send_next((k, i))
            sub.send_completed()
        return Signal.create(body).subscribe_on(Scheduler.background())

    inside = [0]
    overlaps = [0]
    got = []
    done = threading.Event()

    def on_next(v):
        inside[0] += 1
        if inside[0] > 1:
            overlaps[0] += 1
        time.sleep(0)  # let the GIL go: another thread could try to enter
        got.append(v)
        inside[0] -= 1
    Signal.merge(*[source(k) for k in range(4)]).subscribe(on_next, on_completed=done.set)
    assert done.wait(20)
    assert overlaps[0] == 0 and len(got) == 1200
    for k in range(4):
        assert [i for kk, i in got if kk == k] == list(range(300))


@needs("rpl_subject_create", "rpl_signal_deliver_on")
def test_python_threads_and_ripple_threads_together():
    s = Subject()
    got = []
    done = threading.Event()
    s.deliver_on(Scheduler.serial()).map(lambda x: x * 2).subscribe(got.append, on_completed=done.set)

    def producer(base):
        for i in range(1000):
            s.send(base + i)
    ts = [threading.Thread(target=producer, args=(k * 10000,)) for k in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    s.send_completed()
    assert done.wait(20)
    assert len(got) == 3000


@needs("rpl_subject_create")
def test_callback_sends_back_into_a_subject_from_another_thread():
    a, b = Subject(), Subject()
    got = []
    a.subscribe(lambda v: b.send(v + 1) if v < 50 else None)
    b.subscribe(lambda v: (got.append(v), threading.Thread(target=a.send, args=(v,)).start()))
    a.send(0)
    deadline = time.time() + 10
    while len(got) < 50 and time.time() < deadline:
        time.sleep(0.01)
    assert got == list(range(1, 51))
