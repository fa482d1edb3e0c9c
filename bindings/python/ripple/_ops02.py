"""The operators added in Ripple 0.2: the rest of ReactiveCocoa's catalogue and
the Rx ones users reach for, and the bounded handoff; the Operators02 mixin of
Signal. Each is the C operator: a Python callback is its context, and an
exception the callback raises fails the operator through rpl_callback_fail, so
it reaches on_error as that exception.

Names are the C names without ``rpl_signal_``; a Python keyword gets a
trailing underscore (``not_``, ``and_``, ``or_``, ``finally_``, ``if_``).
Times are seconds; a scheduler argument defaults to the background one.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Optional, Sequence

from ._core import (
    RPL_REPLAY_UNLIMITED, _ACTION, _EQUAL, _ITEMS, _MAP, _PREDICATE, _REDUCE, _create_subscribe, _ctx,
    _release_ctx, _to_c, ffi, lib,
)
from ._ops import _count, _flat_map_cb, _sched, _seconds_ns, _signal, _signals

if TYPE_CHECKING:
    from ._core import Signal
    from ._sched import Scheduler

_REDUCE_EACH = ffi.cast("rpl_reduce_each_fn", _ITEMS)
_EQUAL_FN = ffi.cast("rpl_equal_fn", _EQUAL)


def _values(values: Sequence[Any]) -> Any:
    arr = ffi.new("rpl_value[]", max(len(values), 1))
    for i, v in enumerate(values):
        arr[i] = _to_c(v)
    return arr


# -- creating ------------------------------------------------------------------

def _start(cfn: Any, fn: Callable[[Any], Any], scheduler: Optional[Scheduler]) -> Signal:
    if not callable(fn):
        raise TypeError("expected a callable, got %r" % (fn,))
    return _signal(cfn(_sched(scheduler), _create_subscribe, _ctx(fn), _release_ctx))


_POLICIES = {"block": "RPL_OVERFLOW_BLOCK", "drop_newest": "RPL_OVERFLOW_DROP_NEWEST",
             "drop_oldest": "RPL_OVERFLOW_DROP_OLDEST", "fail": "RPL_OVERFLOW_FAIL"}


class Operators02:
    """Signal's 0.2 operators."""

    __slots__ = ()

    if TYPE_CHECKING:
        def _c(self) -> Any: ...
        def _with_fn(self, cfn: Any, kind: Any, fn: Callable[..., Any], *args: Any) -> Signal: ...

    @classmethod
    def from_array(cls, values: Iterable[Any]) -> Signal:
        """Sends each of values (taken now, as a list), then completes."""
        values = list(values)
        return _signal(lib.rpl_signal_from_array(_values(values), len(values)))

    @classmethod
    def range(cls, start: int, count: int) -> Signal:
        """Sends the ints start, start + 1, ... (count of them), then completes."""
        return _signal(lib.rpl_signal_range(start, _count(count)))

    @classmethod
    def timer(cls, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """Sends 0 once `seconds` have passed, then completes."""
        return _signal(lib.rpl_signal_timer(_seconds_ns(seconds), _sched(scheduler)))

    @classmethod
    def start_lazily(cls, fn: Callable[[Any], Any], scheduler: Optional[Scheduler] = None) -> Signal:
        """RAC's startLazilyWithScheduler:block:: at the first subscription, runs
        fn(subscriber) once on scheduler (as in Signal.create); every subscriber
        gets everything it sent (replayed), then the live events."""
        return _start(lib.rpl_signal_start_lazily, fn, scheduler)

    @classmethod
    def start_eagerly(cls, fn: Callable[[Any], Any], scheduler: Optional[Scheduler] = None) -> Signal:
        """Like start_lazily, with fn scheduled now (releasing the result does not
        cancel it)."""
        return _start(lib.rpl_signal_start_eagerly, fn, scheduler)

    @classmethod
    def if_(cls, condition: Signal, then: Signal, else_: Signal) -> Signal:
        """RAC's if:then:else:: follows `then` while condition's latest value is
        true, `else_` while it is false."""
        return _signal(lib.rpl_signal_if(condition._c(), then._c(), else_._c()))

    @classmethod
    def switch_cases(cls, key_signal: Signal, cases: Dict[Any, Signal], default: Optional[Signal] = None) -> Signal:
        """RAC's switch:cases:default:: follows cases[key] for key_signal's latest
        key; an unknown key follows default (None: fails the signal)."""
        keys = list(cases)
        sigs = [cases[k] for k in keys]
        return _signal(lib.rpl_signal_switch_cases(key_signal._c(), _values(keys), _signals(sigs), len(keys),
                                                       default._c() if default is not None else ffi.NULL))

    def share(self, replay: Optional[int] = 0) -> Signal:
        """Rx's share(replay:, scope: .whileConnected): one subscription of this
        signal for all subscribers, made at the first and ended after the last;
        a subscriber joining gets the last `replay` values (None: all)."""
        return _signal(lib.rpl_signal_share(self._c(), RPL_REPLAY_UNLIMITED if replay is None else _count(replay)))

    def delay_subscription(self, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """Subscribes to this signal `seconds` after the subscription."""
        return _signal(lib.rpl_signal_delay_subscription(self._c(), _seconds_ns(seconds), _sched(scheduler)))

    def throttle_first(self, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """Rx's throttle: a value, then nothing for `seconds` (at most one value
        per interval)."""
        return _signal(lib.rpl_signal_throttle_first(self._c(), _seconds_ns(seconds), _sched(scheduler)))

    def throttle_if(self, seconds: float, predicate: Callable[[Any], Any],
                    scheduler: Optional[Scheduler] = None) -> Signal:
        """RAC's throttle:valuesPassingTest:: values passing predicate are
        throttled (see throttle), the others sent at once."""
        return self._with_fn(lib.rpl_signal_throttle_if, _PREDICATE, predicate, _seconds_ns(seconds), _sched(scheduler))

    def buffer_with_time(self, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
        """RAC's bufferWithTime: the values of each `seconds`, as one tuple."""
        return _signal(lib.rpl_signal_buffer_with_time(self._c(), _seconds_ns(seconds), _sched(scheduler)))

    def deliver_on_bounded(self, scheduler: Scheduler, capacity: int, policy: str = "block") -> Signal:
        """deliver_on with at most `capacity` events waiting; a send into a full
        queue waits ("block"), is dropped ("drop_newest"), replaces the oldest
        waiting value ("drop_oldest") or fails the signal ("fail")."""
        if policy not in _POLICIES:
            raise ValueError("policy must be one of %s" % ", ".join(sorted(_POLICIES)))
        if policy == "block":
            # A blocking send may wait for a thread that needs the GIL: from now
            # on the compiled core hands the GIL back after every callback.
            from ._core import _cext
            if _cext is not None:
                _cext.set_lazy_keep(False)
        return _signal(lib.rpl_signal_deliver_on_bounded(self._c(), scheduler._ptr, _count(capacity),
                                                             getattr(lib, _POLICIES[policy])))

    def map_replace(self, value: Any) -> Signal:
        """Each value replaced by `value`."""
        return _signal(lib.rpl_signal_map_replace(self._c(), _to_c(value)))

    def ignore(self, value: Any) -> Signal:
        """The values except those equal to `value`."""
        return _signal(lib.rpl_signal_ignore(self._c(), _to_c(value)))

    def ignore_values(self) -> Signal:
        """No values: only the error or completion."""
        return _signal(lib.rpl_signal_ignore_values(self._c()))

    def reduce_each(self, fn: Callable[..., Any]) -> Signal:
        """For each tuple value, fn(*items) (RAC's reduceEach:)."""
        return self._with_fn(lib.rpl_signal_reduce_each, _REDUCE_EACH, fn)

    def combine_previous(self, start: Any, fn: Callable[[Any, Any], Any]) -> Signal:
        """fn(previous, current) for each value; previous is `start` for the first."""
        return self._with_fn(lib.rpl_signal_combine_previous, _REDUCE, fn, _to_c(start))

    def distinct_until_changed_with(self, equal: Callable[[Any, Any], Any]) -> Signal:
        """Drops each value for which equal(previous, value) is true."""
        return self._with_fn(lib.rpl_signal_distinct_until_changed_with, _EQUAL_FN, equal)

    def buffer(self, count: int) -> Signal:
        """Tuples of `count` values; the rest at completion."""
        return _signal(lib.rpl_signal_buffer(self._c(), _count(count)))

    def group_by(self, key: Callable[[Any], Any]) -> Signal:
        """A tuple (key, group signal) the first time key(v) gives a key; each
        group gets that key's values and ends with this signal."""
        return self._with_fn(lib.rpl_signal_group_by, _MAP, key)

    def not_(self) -> Signal:
        """The negation of each bool value."""
        return _signal(lib.rpl_signal_not(self._c()))

    def and_(self) -> Signal:
        """For each tuple of bools: all of them true."""
        return _signal(lib.rpl_signal_and(self._c()))

    def or_(self) -> Signal:
        """For each tuple of bools: any of them true."""
        return _signal(lib.rpl_signal_or(self._c()))

    def any(self, predicate: Callable[[Any], Any]) -> Signal:  # noqa: A001 - the C name
        """One bool, then completed: whether some value passes predicate."""
        return self._with_fn(lib.rpl_signal_any, _PREDICATE, predicate)

    def all(self, predicate: Callable[[Any], Any]) -> Signal:  # noqa: A001 - the C name
        """One bool, then completed: whether every value passes predicate."""
        return self._with_fn(lib.rpl_signal_all, _PREDICATE, predicate)

    def default_if_empty(self, value: Any) -> Signal:
        """`value` when this signal completes without a value."""
        return _signal(lib.rpl_signal_default_if_empty(self._c(), _to_c(value)))

    def switch_if_empty(self, other: Signal) -> Signal:
        """other's events when this signal completes without a value."""
        return _signal(lib.rpl_signal_switch_if_empty(self._c(), other._c()))

    def initially(self, fn: Callable[[], Any]) -> Signal:
        """Calls fn() at each subscription, before this signal is subscribed."""
        return self._with_fn(lib.rpl_signal_initially, _ACTION, fn)

    def finally_(self, fn: Callable[[], Any]) -> Signal:
        """Calls fn() when this signal errs or completes, before the event passes."""
        return self._with_fn(lib.rpl_signal_finally, _ACTION, fn)

    def do_dispose(self, fn: Callable[[], Any]) -> Signal:
        """Calls fn() when a subscription ends for any reason (an exception in fn
        goes to the exception handler: the subscription is over)."""
        return self._with_fn(lib.rpl_signal_do_dispose, _ACTION, fn)

    def flatten_max(self, max_concurrent: int) -> Signal:
        """RAC's flatten:: merges inner signals, at most max_concurrent at a time
        (0: no limit), the others waiting their turn."""
        return _signal(lib.rpl_signal_flatten_max(self._c(), _count(max_concurrent)))

    def concat_map(self, fn: Callable[[Any], Optional[Signal]]) -> Signal:
        """fn(v) returns a signal for each value; they run one after the other."""
        return _signal(lib.rpl_signal_concat_map(self._c(), _flat_map_cb, _ctx(fn), _release_ctx))

    def concat_all(self) -> Signal:
        """For a signal of signals: each inner signal after the previous one ends."""
        return _signal(lib.rpl_signal_concat_all(self._c()))

    def with_latest_from(self, other: Signal) -> Signal:
        """For each value v, the tuple (v, other's latest value)."""
        return _signal(lib.rpl_signal_with_latest_from(self._c(), other._c()))

    def sample(self, sampler: Signal) -> Signal:
        """This signal's latest value each time sampler sends (RAC's sample:)."""
        return _signal(lib.rpl_signal_sample(self._c(), sampler._c()))

    def take_until_replacement(self, replacement: Signal) -> Signal:
        """This signal's events until replacement sends anything, then replacement's."""
        return _signal(lib.rpl_signal_take_until_replacement(self._c(), replacement._c()))

    def skip_until(self, trigger: Signal) -> Signal:
        """Drops values until trigger sends a value."""
        return _signal(lib.rpl_signal_skip_until(self._c(), trigger._c()))
