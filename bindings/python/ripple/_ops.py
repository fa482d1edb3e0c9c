"""Signal's operators that take no Python callback, or one returning a signal
(bind, flatten_map, catch: an exception becomes an error signal and so reaches
the error path), and the sharing ones (publish, multicast, replay...): the
Operators mixin of Signal. The operators whose Python callback produces a value
(map, filter, scan, ...) are Signal methods in _core; the 0.2 ones are in
_ops02. No operator is implemented in Python: each is the C one, under the C
name without its ``rpl_signal_`` prefix (a Python keyword gets a trailing
underscore: ``return_``, ``not_``).

_core imports this module before it defines Signal (Signal derives from the
mixins), so Signal is reached through the _core module at call time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Protocol, Sequence, Tuple, Union, overload

from . import _core
from ._core import (
    RPL_FOREVER_COUNT, _cb, _ctx, _exc_from_err, _from_c, _live, _owned, _release_ctx, _to_c, ffi, lib,
)

if TYPE_CHECKING:
    from ._core import Disposable, Signal
    from ._sched import Scheduler
    from ._subjects import Connection, Subject


def _signal(ptr: Any) -> Signal:
    """A new Signal owning ptr (+1)."""
    return _core.Signal._own(ptr)


def _count(n: Optional[int]) -> int:
    if n is None:
        return RPL_FOREVER_COUNT
    if n < 0:
        raise ValueError("a count cannot be negative")
    return n


def _signals(sigs: Sequence[Signal]) -> Any:
    arr = ffi.new("rpl_signal_t *[]", max(len(sigs), 1))
    for i, s in enumerate(sigs):
        if not isinstance(s, _core.Signal):
            raise TypeError("expected ripple.Signal, got %r" % (s,))
        arr[i] = s._c()
    return arr


def _sched(s: Optional[Scheduler]) -> Any:
    from ._sched import Scheduler
    return (s if s is not None else Scheduler.background())._ptr


def _seconds_ns(seconds: float) -> int:
    from ._sched import _seconds_ns
    return _seconds_ns(seconds)


# -- callbacks returning signals ----------------------------------------------

def _signal_or_empty(s: Optional[Signal]) -> Signal:
    return _core.Signal.empty() if s is None else s


@_cb("rpl_flatten_map_fn", "rpl_signal_t *(uintptr_t, const rpl_value *)")
def _flat_map_cb(ctx: int, v: Any) -> Any:
    fn = _live[ctx]
    return _core._signal_result(lambda: _signal_or_empty(fn(_from_c(v))))


@_cb("rpl_bind_fn", "rpl_signal_t *(uintptr_t, const rpl_value *, bool *)")
def _bind_cb(ctx: int, v: Any, stop: Any) -> Any:
    fn = _live[ctx]
    try:
        r = fn(_from_c(v))
    except BaseException as exc:
        return _core._signal_result(lambda: _core.Signal.error(exc))
    if r is None:
        return ffi.NULL
    if isinstance(r, tuple):
        r, stop_now = r
        if stop_now:
            stop[0] = True
        if r is None:
            return ffi.NULL
    return _core._signal_result(lambda: r)


@_cb("rpl_catch_fn", "rpl_signal_t *(uintptr_t, const rpl_error_t *)")
def _catch_cb(ctx: int, e: Any) -> Any:
    fn = _live[ctx]
    exc = _exc_from_err(e)
    return _core._signal_result(lambda: fn(exc))


# -- merge, combine_latest, zip: Signal.merge(a, b), Signal.merge([a, b]) and a.merge(b)

class _Combine(Protocol):
    def __call__(self, *sigs: Union[Signal, Iterable[Signal]]) -> Signal: ...


class _CombineWith(Protocol):
    def __call__(self, *others: Signal) -> Signal: ...


class _Combiner:
    """Both a class-level function of signals (or of one iterable of them) and,
    on a signal, a method combining it with others."""

    def __init__(self, cname: str, doc: str) -> None:
        self.cname, self.__doc__ = cname, doc

    def _combine(self, *sigs: Any) -> Signal:
        if len(sigs) == 1 and not isinstance(sigs[0], _core.Signal):
            sigs = tuple(sigs[0])  # an iterable of signals
        return _signal(getattr(lib, self.cname)(_signals(sigs), len(sigs)))

    @overload
    def __get__(self, obj: None, cls: Any = None) -> _Combine: ...
    @overload
    def __get__(self, obj: Signal, cls: Any = None) -> _CombineWith: ...

    def __get__(self, obj: Optional[Signal], cls: Any = None) -> Union[_Combine, _CombineWith]:
        if obj is None:
            return self._combine
        return lambda *others: self._combine(obj, *others)


Mapping = Callable[[Any], Optional["Signal"]]


class Operators:
    """Signal's C operators without a value-producing Python callback."""

    __slots__ = ()

    if TYPE_CHECKING:
        def _c(self) -> Any: ...

    # -- no callback
    def take(self, n: Optional[int]) -> Signal:
        """The first n values, then completes (and disposes the source)."""
        return _signal(lib.rpl_signal_take(self._c(), _count(n)))

    def skip(self, n: Optional[int]) -> Signal:
        """Drops the first n values."""
        return _signal(lib.rpl_signal_skip(self._c(), _count(n)))

    def take_last(self, n: Optional[int]) -> Signal:
        """The last n values, sent at completion."""
        return _signal(lib.rpl_signal_take_last(self._c(), _count(n)))

    def distinct_until_changed(self) -> Signal:
        """Drops each value equal to the previous one."""
        return _signal(lib.rpl_signal_distinct_until_changed(self._c()))

    def materialize(self) -> Signal:
        """Each event as an ripple.Event value, then completes."""
        return _signal(lib.rpl_signal_materialize(self._c()))

    def dematerialize(self) -> Signal:
        """The inverse of materialize."""
        return _signal(lib.rpl_signal_dematerialize(self._c()))

    def collect(self) -> Signal:
        """One tuple of every value, at completion."""
        return _signal(lib.rpl_signal_collect(self._c()))

    def flatten(self) -> Signal:
        """For a signal of signals: merges the inner signals' values."""
        return _signal(lib.rpl_signal_flatten(self._c()))

    def switch_to_latest(self) -> Signal:
        """For a signal of signals: only the latest inner signal's values."""
        return _signal(lib.rpl_signal_switch_to_latest(self._c()))

    def concat(self, *others: Signal) -> Signal:
        """This signal's events, then each of others' in turn."""
        out: Any = self
        for o in others:
            out = _signal(lib.rpl_signal_concat(out._c(), o._c()))
        return out  # type: ignore[no-any-return]

    merge = _Combiner("rpl_signal_merge", "Every value of every signal, as they arrive.")
    combine_latest = _Combiner("rpl_signal_combine_latest", "Tuples of each signal's latest value.")
    zip = _Combiner("rpl_signal_zip", "Tuples of the i-th values of every signal.")

    def start_with(self, value: Any) -> Signal:
        """value first, then this signal's events."""
        return _signal(lib.rpl_signal_start_with(self._c(), _to_c(value)))

    def then(self, next_signal: Signal) -> Signal:
        """Ignores the values; at completion, next_signal's events."""
        return _signal(lib.rpl_signal_then(self._c(), next_signal._c()))

    def take_until(self, trigger: Signal) -> Signal:
        """Events until trigger sends a value or completes."""
        return _signal(lib.rpl_signal_take_until(self._c(), trigger._c()))

    def catch_to(self, replacement: Signal) -> Signal:
        """On error, continues with replacement."""
        return _signal(lib.rpl_signal_catch_to(self._c(), replacement._c()))

    def retry(self, n: Optional[int] = None) -> Signal:
        """On error, resubscribes at most n times (None: without limit)."""
        return _signal(lib.rpl_signal_retry(self._c(), _count(n)))

    def repeat(self, n: Optional[int] = None) -> Signal:
        """Subscribes n times in all, one after the other (None: forever)."""
        return _signal(lib.rpl_signal_repeat(self._c(), _count(n)))

    # -- callbacks returning signals
    def flatten_map(self, fn: Mapping) -> Signal:
        """fn(v) returns a signal for each value; their values are merged. None
        is an empty signal; an exception is the error downstream."""
        return _signal(lib.rpl_signal_flatten_map(self._c(), _flat_map_cb, _ctx(fn), _release_ctx))

    def bind(self, fn: Callable[[Any], Union[None, Signal, Tuple[Optional[Signal], bool]]]) -> Signal:
        """RAC's bind: fn(v) returns a signal to subscribe, None to stop, or
        (signal, stop) to subscribe it and stop taking source values."""
        return _signal(lib.rpl_signal_bind(self._c(), _bind_cb, _ctx(fn), _release_ctx))

    def catch(self, fn: Callable[[BaseException], Signal]) -> Signal:
        """On error, fn(exception) returns the signal to continue with."""
        return _signal(lib.rpl_signal_catch(self._c(), _catch_cb, _ctx(fn), _release_ctx))

    # -- time and threads
    def subscribe_on(self, scheduler: Scheduler) -> Signal:
        """Runs the subscription on scheduler."""
        return _signal(lib.rpl_signal_subscribe_on(self._c(), scheduler._ptr))

    def deliver_on(self, scheduler: Scheduler) -> Signal:
        """Delivers every event on scheduler."""
        return _signal(lib.rpl_signal_deliver_on(self._c(), scheduler._ptr))

    def delay(self, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """Delays values and completion (default scheduler: background)."""
        return _signal(lib.rpl_signal_delay(self._c(), _seconds_ns(seconds), _sched(scheduler)))

    def throttle(self, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """Sends a value once `seconds` pass without a newer one (debounce)."""
        return _signal(lib.rpl_signal_throttle(self._c(), _seconds_ns(seconds), _sched(scheduler)))

    def timeout(self, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """Fails with RippleTimeoutError unless terminated within `seconds`."""
        return _signal(lib.rpl_signal_timeout(self._c(), _seconds_ns(seconds), _sched(scheduler)))

    @classmethod
    def interval(cls, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """Sends 0, 1, 2, ... every `seconds` (never completes)."""
        return _signal(lib.rpl_signal_interval(_seconds_ns(seconds), _sched(scheduler)))

    # -- sharing (the classes are in _subjects)
    def publish(self) -> Connection:
        """A Connection multicasting through a plain subject."""
        from ._subjects import Connection
        return Connection(_owned(lib.rpl_signal_publish(self._c())))

    def multicast(self, subject: Subject) -> Connection:
        """A Connection multicasting through `subject`."""
        from ._subjects import Connection
        return Connection(_owned(lib.rpl_signal_multicast(self._c(), subject._subj)))

    def replay(self) -> Signal:
        """Multicast through an unlimited replay subject, connected at once."""
        return _signal(lib.rpl_signal_replay(self._c()))

    def replay_last(self) -> Signal:
        """Like replay(), keeping only the last value."""
        return _signal(lib.rpl_signal_replay_last(self._c()))

    def replay_lazily(self) -> Signal:
        """Like replay(), connected at the first subscription."""
        return _signal(lib.rpl_signal_replay_lazily(self._c()))

    def subscribe_subject(self, subject: Subject) -> Disposable:
        """Sends this signal's events into subject; returns the subscription."""
        return _core.Disposable._wrap(_owned(lib.rpl_signal_subscribe_subject(self._c(), subject._subj)))
