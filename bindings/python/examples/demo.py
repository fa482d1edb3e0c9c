"""A tour of Ripple from Python: python3 examples/demo.py

Needs libripple (RIPPLE_LIBRARY=/path/to/libripple.so.0, pkg-config, or the
loader path).
"""
import asyncio
import threading

import ripple
from ripple import BehaviorSubject, Scheduler, Signal, Subject, TestScheduler

print("ripple", ".".join(map(str, ripple.version())), "from", ripple.LIBRARY_PATH)

# 1. A cold signal, operators as methods, a subscription as a context manager.
def numbers(sub):
    for i in range(1, 6):
        sub.send_next(i)
    sub.send_completed()

evens_squared = Signal.create(numbers).filter(lambda x: x % 2 == 0).map(lambda x: x * x)
with evens_squared.subscribe(on_next=lambda v: print("  next", v), on_completed=lambda: print("  completed")):
    pass
print("to_list:", Signal.of("a", 1, 2.5, None, b"\x00", (1, "t")).to_list())

# 2. Subjects are hot; a BehaviorSubject replays its current value.
if ripple.has("rpl_subject_create"):
    temperature = BehaviorSubject(20.0)
    temperature.map(lambda c: "%.1f F" % (c * 9 / 5 + 32)).subscribe(lambda f: print("  temperature", f))
    temperature.send(25.0)
    clicks = Subject()
    clicks.scan(0, lambda n, _: n + 1).take(3).subscribe(lambda n: print("  clicks", n),
                                                         on_completed=lambda: print("  enough clicks"))
    for _ in range(5):
        clicks.send("click")

# 3. Exceptions in callbacks become the signal's error, never a crash.
Signal.of(1, 0, 2).map(lambda x: 10 // x).subscribe(
    lambda v: print("  10 //", v), on_error=lambda e: print("  error:", repr(e)))

# 4. Higher-order operators and recovery.
print("flatten_map:", Signal.of(1, 2).flatten_map(lambda x: Signal.of(x, x * 100)).to_list())
print("zip:", Signal.zip(Signal.of(1, 2, 3), Signal.of("a", "b")).to_list())
print("catch:", Signal.error(KeyError("k")).catch(lambda e: Signal.of("recovered from %r" % e)).first())

# 5. Threads: events delivered on a serial scheduler's thread take the GIL.
done = threading.Event()
main_thread = threading.get_ident()
Signal.of(1, 2, 3).deliver_on(Scheduler.serial("demo")).subscribe(
    lambda v: print("  on a serial-scheduler thread:", threading.get_ident() != main_thread, "got", v),
    on_completed=done.set)
done.wait(5)

# 6. Virtual time: a test scheduler runs an interval without sleeping.
ts = TestScheduler()
got = []
Signal.interval(1.0, ts).take(3).subscribe(got.append)
ts.advance_by(10)
print("interval on virtual time:", got, "now =", ts.now, "s")

# 7. Iteration and asyncio.
print("to_iter:", [x for x in Signal.of(1, 2, 3).delay(0.01).to_iter(timeout=2)])


async def main():
    values = [v async for v in Signal.of("x", "y").subscribe_on(Scheduler.background())]
    first = await Signal.interval(0.01).map(lambda i: "tick %d" % i).first_async()
    print("asyncio:", values, first)

asyncio.run(main())

# 8. Multicast: one subscription to the source, shared.
if ripple.has("rpl_signal_publish"):
    def expensive(sub):
        print("  (source subscribed)")
        sub.send_next("shared")
        sub.send_completed()
    conn = Signal.create(expensive).publish()
    conn.signal.subscribe(lambda v: print("  A got", v))
    conn.signal.subscribe(lambda v: print("  B got", v))
    conn.connect()
print("done")
