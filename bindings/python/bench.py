"""Ripple for Python against RxPY (reactivex) and a plain loop, in one run.

    RIPPLE_LIBRARY=/path/to/libripple.so.0 python3 bench.py [N]

`make bench-python` runs it in a virtualenv with reactivex from PyPI and the
binding pip-installed (so with its compiled core). Four workloads, each on the
same lambdas in all three, best of 5 runs, ns per unit:

- send -> 1 subscriber: a subject, one subscriber, N sends (per send);
- map -> filter -> scan -> subscriber: the same through map(f), filter(g),
  scan(h) (per send);
- 100 subscribers, per delivery: one subject, 100 subscribers, N/100 sends
  (per delivery, i.e. per send / 100);
- subscribe + dispose: N/10 subscribe-then-dispose pairs on one subject.

The target of issue 13: Ripple costs at most half of RxPY on each row.
Without reactivex installed, the RxPY column is empty.
"""
import gc
import os
import sys
import time

# The installed package, not the sources next to this script (`make bench`
# puts the sources on PYTHONPATH itself).
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import ripple  # noqa: E402

try:
    import reactivex
    from reactivex import operators as rx_ops
    from reactivex.subject import Subject as RxSubject
except ImportError:  # pragma: no cover - bench only
    reactivex = None

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
RUNS = 5
FAN = 100

sink = lambda x: None  # noqa: E731
f = lambda x: x + 1  # noqa: E731
g = lambda x: x % 2 == 0  # noqa: E731
h = lambda a, x: a + x  # noqa: E731


def best(fn, units):
    times = []
    for _ in range(RUNS):
        gc.collect()
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return min(times) / units


# -- the plain loop: the same lambdas called directly --------------------------
def plain_one():
    for i in range(N):
        sink(i)


def plain_chain():
    acc = 0
    for i in range(N):
        v = f(i)
        if g(v):
            acc = h(acc, v)
            sink(acc)


def plain_fan():
    sinks = [sink] * FAN
    for i in range(N // FAN):
        for s in sinks:
            s(i)


def plain_subscribe():
    subs = []
    for i in range(N // 10):
        subs.append(sink)
        subs.pop()


# -- the two libraries: (subject factory, send name, subscribe, chain) ------------
def make_rows(new_subject, send_of, subscribe, chain):
    def one():
        s = new_subject()
        subscribe(s, sink)
        send = send_of(s)
        for i in range(N):
            send(i)

    def chained():
        s = new_subject()
        subscribe(chain(s), sink)
        send = send_of(s)
        for i in range(N):
            send(i)

    def fan():
        s = new_subject()
        keep = [subscribe(s, sink) for _ in range(FAN)]
        send = send_of(s)
        for i in range(N // FAN):
            send(i)
        return keep

    def sub_dispose():
        s = new_subject()
        for i in range(N // 10):
            subscribe(s, sink).dispose()

    return [one, chained, fan, sub_dispose]


ripple_rows = make_rows(ripple.Subject, lambda s: s.send, lambda s, fn: s.subscribe(fn),
                        lambda s: s.map(f).filter(g).scan(0, h))
rx_rows = make_rows(RxSubject, lambda s: s.on_next, lambda s, fn: s.subscribe(fn),
                    lambda s: s.pipe(rx_ops.map(f), rx_ops.filter(g), rx_ops.scan(h, 0))) if reactivex else None
plain_rows = [plain_one, plain_chain, plain_fan, plain_subscribe]
names = ["send -> 1 subscriber", "map -> filter -> scan -> subscriber", "100 subscribers, per delivery",
         "subscribe + dispose"]
units = [N, N, (N // FAN) * FAN, N // 10]

# Interleaved, so that a change of machine load hits all three alike.
results = []
for i, name in enumerate(names):
    plain = best(plain_rows[i], units[i])
    rip = best(ripple_rows[i], units[i])
    rx = best(rx_rows[i], units[i]) if rx_rows else None
    results.append((name, plain, rip, rx))

with open("/proc/loadavg") as fh:
    load = fh.read().split()[:3]
print("Python %s; ripple %s (%s); reactivex %s; %d events, best of %d; load average %s" % (
    sys.version.split()[0], ripple.__version__,
    "compiled core" if ripple.NATIVE else "cffi ABI mode: " + ripple._core.NATIVE_REASON,
    reactivex.__version__ if reactivex else "not installed", N, RUNS, " ".join(load)))
print()
print("| ns per unit | plain loop | Ripple (Python) | RxPY | Ripple / RxPY |")
print("|---|---|---|---|---|")
worst = 0.0
for name, plain, rip, rx in results:
    if rx is None:
        print("| %s | %.0f | %.0f | - | - |" % (name, plain, rip))
        continue
    ratio = rip / rx
    worst = max(worst, ratio)
    print("| %s | %.0f | %.0f | %.0f | %.2f |" % (name, plain, rip, rx, ratio))
if rx_rows:
    print()
    print("target: every ratio <= 0.50: %s (worst %.2f)" % ("met" if worst <= 0.5 else "NOT met", worst))
