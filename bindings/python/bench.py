"""Ripple for Python: the cost of an event, next to a plain Python loop.

    RIPPLE_LIBRARY=/path/to/libripple.so.0 python3 bench.py [N]

Rows (ns per event, best of 5 runs):
- the floor: a plain Python loop calling the same lambda(s) directly;
- Subject.send(i) from Python to a Python callback;
- the same through .map(lambda).filter(lambda);
- a created signal (Signal.create: the body sends with Subscriber.send_next);
- a source driven by C (return(1).repeat(N)), so only the C -> Python call is
  paid per event.
The target in the issue is at most 3x the plain loop.
"""
import gc
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))

import ripple  # noqa: E402
from ripple import Signal  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
RUNS = 5


def best(fn):
    times = []
    for _ in range(RUNS):
        gc.collect()
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return min(times) / N


sink = lambda x: None  # noqa: E731
f = lambda x: x + 1  # noqa: E731
g = lambda x: x % 2 == 0  # noqa: E731


def plain_sink():
    for i in range(N):
        sink(i)


def plain_chain():
    for i in range(N):
        v = f(i)
        if g(v):
            sink(v)


def subject_run(build):
    def run():
        s = ripple.Subject()
        d = build(s).subscribe(sink)
        send = s.send
        for i in range(N):
            send(i)
        d.dispose()
    return run


def created_run(build):
    def body(sub):
        send = sub.send_next
        for i in range(N):
            send(i)
        sub.send_completed()
    src = Signal.create(body)
    return lambda: build(src).subscribe(sink)


def c_driven_run(build):
    src = Signal.return_(1).repeat(N)
    return lambda: build(src).subscribe(sink)


def raw_ffi_call():
    v = ripple.lib.rpl_version
    for i in range(N):
        v()


def raw_callback_run():
    ffi, lib = ripple.ffi, ripple.lib
    cb = ffi.callback("void(void *, const rpl_value *)", lambda ctx, v: None)
    o = ffi.new("rpl_observer *")
    o.version = 1
    o.on_next = cb
    src = Signal.return_(1).repeat(N)
    return lambda cb=cb: lib.rpl_release(lib.rpl_signal_subscribe(src._c(), o))  # cb: keep it alive


ident = lambda s: s  # noqa: E731
chain = lambda s: s.map(f).filter(g)  # noqa: E731

rows = []
floor_one = best(plain_sink)
floor_chain = best(plain_chain)
rows.append(("plain loop: sink(i)", floor_one, floor_one))
if ripple.has("rpl_subject_create"):
    rows.append(("Subject.send -> callback", best(subject_run(ident)), floor_one))
rows.append(("Signal.create send_next -> callback", best(created_run(ident)), floor_one))
if ripple.has("rpl_signal_repeat"):
    rows.append(("C source (return.repeat) -> callback", best(c_driven_run(ident)), floor_one))
rows.append(("  cffi floor: empty call into C (rpl_version)", best(raw_ffi_call), floor_one))
if ripple.has("rpl_signal_repeat"):
    rows.append(("  cffi floor: empty callback from C", best(raw_callback_run()), floor_one))
rows.append(("plain loop: f, g, sink", floor_chain, floor_chain))
if ripple.has("rpl_subject_create"):
    rows.append(("Subject.send -> map(f).filter(g) -> callback", best(subject_run(chain)), floor_chain))
rows.append(("Signal.create -> map(f).filter(g) -> callback", best(created_run(chain)), floor_chain))
if ripple.has("rpl_signal_repeat"):
    rows.append(("C source -> map(f).filter(g) -> callback", best(c_driven_run(chain)), floor_chain))

print("Python %s, cffi %s (ABI mode), %d events, best of %d" % (
    sys.version.split()[0], ripple.ffi.__class__.__module__ and __import__("cffi").__version__, N, RUNS))
print("%-48s %10s %8s" % ("path", "ns/event", "x loop"))
for name, ns, base in rows:
    print("%-48s %10.0f %8.1f" % (name, ns, ns / base))
