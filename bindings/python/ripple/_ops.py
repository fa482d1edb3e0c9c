"""Operators backed by C functions, attached to Signal only when the loaded
library exports the function (so the package works with any library version
that has the core API).

The operators whose Python callback produces a value (map, filter, scan,
...) are Signal methods in _core; the ones here take no Python callback or
one returning a signal (bind, flat_map, catch), where an exception becomes an
error signal and so reaches the error path. The 0.2 operators are in _ops02.
No operator is implemented in Python: each is the C one.
"""

from ._core import (
    RPL_FOREVER_COUNT, Signal, _cb, _ctx, _exc_from_err, _from_c, _live, _release_ctx, _signal_result, _to_c,
    ffi, has, lib,
)
from ._sched import Scheduler, _seconds_ns

_added = [(name, "rpl_signal_" + name) for name in (
    "map", "filter", "scan", "aggregate", "take_while", "skip_while", "do_next", "do_error", "do_completed")]


def _op(cname):
    """Decorator: attach as a Signal method only if lib exports cname."""
    def attach(fn):
        if has(cname):
            setattr(Signal, fn.__name__, fn)
            _added.append((fn.__name__, cname))
        return fn
    return attach


def _count(n):
    if n is None:
        return RPL_FOREVER_COUNT
    if n < 0:
        raise ValueError("a count cannot be negative")
    return n


def _signals(sigs):
    arr = ffi.new("rpl_signal_t *[]", max(len(sigs), 1))
    for i, s in enumerate(sigs):
        if not isinstance(s, Signal):
            raise TypeError("expected ripple.Signal, got %r" % (s,))
        arr[i] = s._c()
    return arr


def _sched(s):
    return (s if s is not None else Scheduler.background())._ptr


# -- no callback -------------------------------------------------------------

@_op("rpl_signal_take")
def take(self, n):
    """The first n values, then completes (and disposes the source)."""
    return Signal._own(lib.rpl_signal_take(self._c(), _count(n)))


@_op("rpl_signal_skip")
def skip(self, n):
    """Drops the first n values."""
    return Signal._own(lib.rpl_signal_skip(self._c(), _count(n)))


@_op("rpl_signal_take_last")
def take_last(self, n):
    """The last n values, sent at completion."""
    return Signal._own(lib.rpl_signal_take_last(self._c(), _count(n)))


@_op("rpl_signal_distinct_until_changed")
def distinct_until_changed(self):
    """Drops each value equal to the previous one."""
    return Signal._own(lib.rpl_signal_distinct_until_changed(self._c()))


@_op("rpl_signal_materialize")
def materialize(self):
    """Each event as an ripple.Event value, then completes."""
    return Signal._own(lib.rpl_signal_materialize(self._c()))


@_op("rpl_signal_dematerialize")
def dematerialize(self):
    """The inverse of materialize."""
    return Signal._own(lib.rpl_signal_dematerialize(self._c()))


@_op("rpl_signal_collect")
def collect(self):
    """One tuple of every value, at completion."""
    return Signal._own(lib.rpl_signal_collect(self._c()))


@_op("rpl_signal_flatten")
def flatten(self):
    """For a signal of signals: merges the inner signals' values."""
    return Signal._own(lib.rpl_signal_flatten(self._c()))


@_op("rpl_signal_switch_to_latest")
def switch_to_latest(self):
    """For a signal of signals: only the latest inner signal's values."""
    return Signal._own(lib.rpl_signal_switch_to_latest(self._c()))


@_op("rpl_signal_concat")
def concat(self, *others):
    """This signal's events, then each of others' in turn."""
    out = self
    for o in others:
        out = Signal._own(lib.rpl_signal_concat(out._c(), o._c()))
    return out


def _multi(cname, pyname, doc):
    if not has(cname):
        return
    cfn = getattr(lib, cname)

    def combine(*sigs):
        if len(sigs) == 1 and not isinstance(sigs[0], Signal):
            sigs = tuple(sigs[0])  # an iterable of signals
        return Signal._own(cfn(_signals(sigs), len(sigs)))

    class both:  # Signal.merge(a, b) and a.merge(b)
        def __get__(self, obj, cls=None):
            if obj is None:
                return combine
            return lambda *others: combine(obj, *others)

    both.__doc__ = doc
    setattr(Signal, pyname, both())
    _added.append((pyname, cname))


_multi("rpl_signal_merge", "merge", "Every value of every signal, as they arrive.")
_multi("rpl_signal_combine_latest", "combine_latest", "Tuples of each signal's latest value.")
_multi("rpl_signal_zip", "zip", "Tuples of the i-th values of every signal.")


@_op("rpl_signal_start_with")
def start_with(self, value):
    """value first, then this signal's events."""
    return Signal._own(lib.rpl_signal_start_with(self._c(), _to_c(value)))


@_op("rpl_signal_then")
def then(self, next_signal):
    """Ignores the values; at completion, next_signal's events."""
    return Signal._own(lib.rpl_signal_then(self._c(), next_signal._c()))


@_op("rpl_signal_take_until")
def take_until(self, trigger):
    """Events until trigger sends a value or completes."""
    return Signal._own(lib.rpl_signal_take_until(self._c(), trigger._c()))


@_op("rpl_signal_catch_to")
def catch_to(self, replacement):
    """On error, continues with replacement."""
    return Signal._own(lib.rpl_signal_catch_to(self._c(), replacement._c()))


@_op("rpl_signal_retry")
def retry(self, n=None):
    """On error, resubscribes at most n times (None: without limit)."""
    return Signal._own(lib.rpl_signal_retry(self._c(), _count(n)))


@_op("rpl_signal_repeat")
def repeat(self, n=None):
    """Subscribes n times in all, one after the other (None: forever)."""
    return Signal._own(lib.rpl_signal_repeat(self._c(), _count(n)))


# -- callbacks returning signals ----------------------------------------------

class _BindCtx:
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


@_cb("rpl_flatten_map_fn", "rpl_signal_t *(uintptr_t, const rpl_value *)")
def _flat_map_cb(ctx, v):
    fn = _live[ctx]
    return _signal_result(lambda: _signal_or_empty(fn(_from_c(v))))


def _signal_or_empty(s):
    return Signal.empty() if s is None else s


@_cb("rpl_bind_fn", "rpl_signal_t *(uintptr_t, const rpl_value *, bool *)")
def _bind_cb(ctx, v, stop):
    fn = _live[ctx]
    try:
        r = fn(_from_c(v))
    except BaseException as exc:
        return _signal_result(lambda: Signal.error(exc))
    if r is None:
        return ffi.NULL
    if isinstance(r, tuple):
        r, stop_now = r
        if stop_now:
            stop[0] = True
        if r is None:
            return ffi.NULL
    return _signal_result(lambda: r)


@_cb("rpl_catch_fn", "rpl_signal_t *(uintptr_t, const rpl_error_t *)")
def _catch_cb(ctx, e):
    fn = _live[ctx]
    exc = _exc_from_err(e)
    return _signal_result(lambda: fn(exc))


@_op("rpl_signal_flatten_map")
def flat_map(self, fn):
    """fn(v) returns a signal for each value; their values are merged. None
    is an empty signal; an exception is the error downstream."""
    return Signal._own(lib.rpl_signal_flatten_map(
        self._c(), _flat_map_cb, _ctx(fn), _release_ctx))


if has("rpl_signal_flatten_map"):
    Signal.flatten_map = flat_map


@_op("rpl_signal_bind")
def bind(self, fn):
    """RAC's bind: fn(v) returns a signal to subscribe, None to stop, or
    (signal, stop) to subscribe it and stop taking source values."""
    return Signal._own(lib.rpl_signal_bind(self._c(), _bind_cb, _ctx(fn),
                                           _release_ctx))


@_op("rpl_signal_catch")
def catch(self, fn):
    """On error, fn(exception) returns the signal to continue with."""
    return Signal._own(lib.rpl_signal_catch(self._c(), _catch_cb, _ctx(fn), _release_ctx))


if has("rpl_signal_catch"):
    Signal.catch_error = catch


# -- time and threads ---------------------------------------------------------

@_op("rpl_signal_subscribe_on")
def subscribe_on(self, scheduler):
    """Runs the subscription on scheduler."""
    return Signal._own(lib.rpl_signal_subscribe_on(self._c(), scheduler._ptr))


@_op("rpl_signal_deliver_on")
def deliver_on(self, scheduler):
    """Delivers every event on scheduler."""
    return Signal._own(lib.rpl_signal_deliver_on(self._c(), scheduler._ptr))


observe_on = deliver_on
if has("rpl_signal_deliver_on"):
    Signal.observe_on = deliver_on


@_op("rpl_signal_delay")
def delay(self, seconds, scheduler=None):
    """Delays values and completion (default scheduler: background)."""
    return Signal._own(lib.rpl_signal_delay(self._c(), _seconds_ns(seconds), _sched(scheduler)))


@_op("rpl_signal_throttle")
def throttle(self, seconds, scheduler=None):
    """Sends a value once `seconds` pass without a newer one (debounce)."""
    return Signal._own(lib.rpl_signal_throttle(self._c(), _seconds_ns(seconds), _sched(scheduler)))


@_op("rpl_signal_timeout")
def timeout(self, seconds, scheduler=None):
    """Fails with RippleTimeoutError unless terminated within `seconds`."""
    return Signal._own(lib.rpl_signal_timeout(self._c(), _seconds_ns(seconds), _sched(scheduler)))


def _interval(cls, seconds, scheduler=None):
    """Sends 0, 1, 2, ... every `seconds` (never completes)."""
    return cls._own(lib.rpl_signal_interval(_seconds_ns(seconds), _sched(scheduler)))


if has("rpl_signal_interval"):
    setattr(Signal, "interval", classmethod(_interval))
    _added.append(("interval", "rpl_signal_interval"))


def wrapped():
    """[(python name, C function)] for the operators attached here."""
    return list(_added)

