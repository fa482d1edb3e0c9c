"""The operators added in Ripple 0.2 (the rest of RAC's
catalogue and the Rx operators users reach for, and the bounded handoff), as
Signal methods. Each is the C operator: a Python callback is its context, and
an exception the callback raises fails the operator through
rpl_callback_fail, so it reaches on_error as that exception. A method whose C
function the loaded library lacks is absent (see ripple.has).

Names are the C functions' (rpl_signal_ dropped); where the C name is a Python keyword it gets a
trailing underscore (``not_``, ``and_``, ``or_``, ``finally_``, ``if_``).
Times are seconds; a scheduler argument defaults to the background one.
"""

from typing import Any, Callable, Dict, Iterable, Optional, Sequence

from ._core import (
    RPL_REPLAY_UNLIMITED, Signal, _ACTION, _EQUAL, _ITEMS, _MAP, _PREDICATE, _REDUCE, _create_subscribe, _ctx,
    _release_ctx, _to_c, ffi, has, lib,
)
from ._ops import _added, _count, _flat_map_cb, _op, _sched, _signals
from ._sched import Scheduler, _seconds_ns

if has("rpl_signal_reduce_each"):
    _REDUCE_EACH = ffi.cast("rpl_reduce_each_fn", _ITEMS)
if has("rpl_signal_distinct_until_changed_with"):
    _EQUAL_FN = ffi.cast("rpl_equal_fn", _EQUAL)


def _classop(cname: str, name: Optional[str] = None) -> Callable[[Callable[..., Signal]], Callable[..., Signal]]:
    """Decorator: attach as Signal.<name> (a classmethod) only if lib exports cname."""
    def attach(fn: Callable[..., Signal]) -> Callable[..., Signal]:
        if has(cname):
            setattr(Signal, name or fn.__name__, classmethod(fn))
            _added.append((name or fn.__name__, cname))
        return fn
    return attach


def _values(values: Sequence[Any]) -> Any:
    arr = ffi.new("rpl_value[]", max(len(values), 1))
    for i, v in enumerate(values):
        arr[i] = _to_c(v)
    return arr


# -- creating ------------------------------------------------------------------

@_classop("rpl_signal_from_array")
def from_array(cls: Any, values: Iterable[Any]) -> Signal:
    """Sends each of values (taken now, as a list), then completes."""
    values = list(values)
    return Signal._own(lib.rpl_signal_from_array(_values(values), len(values)))


@_classop("rpl_signal_range", "range")
def range_(cls: Any, start: int, count: int) -> Signal:
    """Sends the ints start, start + 1, ... (count of them), then completes."""
    return Signal._own(lib.rpl_signal_range(start, _count(count)))


@_classop("rpl_signal_timer")
def timer(cls: Any, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
    """Sends 0 once `seconds` have passed, then completes."""
    return Signal._own(lib.rpl_signal_timer(_seconds_ns(seconds), _sched(scheduler)))


def _start(cfn: Any, fn: Callable[[Any], Any], scheduler: Optional[Scheduler]) -> Signal:
    if not callable(fn):
        raise TypeError("expected a callable, got %r" % (fn,))
    return Signal._own(cfn(_sched(scheduler), _create_subscribe, _ctx(fn), _release_ctx))


@_classop("rpl_signal_start_lazily")
def start_lazily(cls: Any, fn: Callable[[Any], Any], scheduler: Optional[Scheduler] = None) -> Signal:
    """RAC's startLazilyWithScheduler:block:: at the first subscription, runs
    fn(subscriber) once on scheduler (as in Signal.create); every subscriber
    gets everything it sent (replayed), then the live events."""
    return _start(lib.rpl_signal_start_lazily, fn, scheduler)


@_classop("rpl_signal_start_eagerly")
def start_eagerly(cls: Any, fn: Callable[[Any], Any], scheduler: Optional[Scheduler] = None) -> Signal:
    """Like start_lazily, with fn scheduled now (releasing the result does not
    cancel it)."""
    return _start(lib.rpl_signal_start_eagerly, fn, scheduler)


@_classop("rpl_signal_if")
def if_(cls: Any, condition: Signal, then: Signal, else_: Signal) -> Signal:
    """RAC's if:then:else:: follows `then` while condition's latest value is
    true, `else_` while it is false."""
    return Signal._own(lib.rpl_signal_if(condition._c(), then._c(), else_._c()))


@_classop("rpl_signal_switch_cases")
def switch_cases(cls: Any, key_signal: Signal, cases: Dict[Any, Signal], default: Optional[Signal] = None) -> Signal:
    """RAC's switch:cases:default:: follows cases[key] for key_signal's latest
    key; an unknown key follows default (None: fails the signal)."""
    keys = list(cases)
    sigs = [cases[k] for k in keys]
    return Signal._own(lib.rpl_signal_switch_cases(key_signal._c(), _values(keys), _signals(sigs), len(keys),
                                                   default._c() if default is not None else ffi.NULL))


# -- sharing and time ------------------------------------------------------------

@_op("rpl_signal_share")
def share(self: Signal, replay: Optional[int] = 0) -> Signal:
    """Rx's share(replay:, scope: .whileConnected): one subscription of this
    signal for all subscribers, made at the first and ended after the last;
    a subscriber joining gets the last `replay` values (None: all)."""
    return Signal._own(lib.rpl_signal_share(self._c(), RPL_REPLAY_UNLIMITED if replay is None else _count(replay)))


@_op("rpl_signal_delay_subscription")
def delay_subscription(self: Signal, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
    """Subscribes to this signal `seconds` after the subscription."""
    return Signal._own(lib.rpl_signal_delay_subscription(self._c(), _seconds_ns(seconds), _sched(scheduler)))


@_op("rpl_signal_throttle_first")
def throttle_first(self: Signal, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
    """Rx's throttle: a value, then nothing for `seconds` (at most one value
    per interval)."""
    return Signal._own(lib.rpl_signal_throttle_first(self._c(), _seconds_ns(seconds), _sched(scheduler)))


@_op("rpl_signal_throttle_if")
def throttle_if(self: Signal, seconds: float, predicate: Callable[[Any], Any],
                scheduler: Optional[Scheduler] = None) -> Signal:
    """RAC's throttle:valuesPassingTest:: values passing predicate are
    throttled (see throttle), the others sent at once."""
    return self._with_fn(lib.rpl_signal_throttle_if, _PREDICATE, predicate, _seconds_ns(seconds), _sched(scheduler))


@_op("rpl_signal_buffer_with_time")
def buffer_with_time(self: Signal, seconds: float, scheduler: Optional[Scheduler] = None) -> Signal:
    """RAC's bufferWithTime: the values of each `seconds`, as one tuple."""
    return Signal._own(lib.rpl_signal_buffer_with_time(self._c(), _seconds_ns(seconds), _sched(scheduler)))


_POLICIES = {"block": "RPL_OVERFLOW_BLOCK", "drop_newest": "RPL_OVERFLOW_DROP_NEWEST",
             "drop_oldest": "RPL_OVERFLOW_DROP_OLDEST", "fail": "RPL_OVERFLOW_FAIL"}


@_op("rpl_signal_deliver_on_bounded")
def deliver_on_bounded(self: Signal, scheduler: Scheduler, capacity: int, policy: str = "block") -> Signal:
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
    return Signal._own(lib.rpl_signal_deliver_on_bounded(self._c(), scheduler._ptr, _count(capacity),
                                                         getattr(lib, _POLICIES[policy])))


# -- transforming ---------------------------------------------------------------

@_op("rpl_signal_map_replace")
def map_replace(self: Signal, value: Any) -> Signal:
    """Each value replaced by `value`."""
    return Signal._own(lib.rpl_signal_map_replace(self._c(), _to_c(value)))


@_op("rpl_signal_ignore")
def ignore(self: Signal, value: Any) -> Signal:
    """The values except those equal to `value`."""
    return Signal._own(lib.rpl_signal_ignore(self._c(), _to_c(value)))


@_op("rpl_signal_ignore_values")
def ignore_values(self: Signal) -> Signal:
    """No values: only the error or completion."""
    return Signal._own(lib.rpl_signal_ignore_values(self._c()))


@_op("rpl_signal_reduce_each")
def reduce_each(self: Signal, fn: Callable[..., Any]) -> Signal:
    """For each tuple value, fn(*items) (RAC's reduceEach:)."""
    return self._with_fn(lib.rpl_signal_reduce_each, _REDUCE_EACH, fn)


@_op("rpl_signal_combine_previous")
def combine_previous(self: Signal, start: Any, fn: Callable[[Any, Any], Any]) -> Signal:
    """fn(previous, current) for each value; previous is `start` for the first."""
    return self._with_fn(lib.rpl_signal_combine_previous, _REDUCE, fn, _to_c(start))


@_op("rpl_signal_distinct_until_changed_with")
def distinct_until_changed_with(self: Signal, equal: Callable[[Any, Any], Any]) -> Signal:
    """Drops each value for which equal(previous, value) is true."""
    return self._with_fn(lib.rpl_signal_distinct_until_changed_with, _EQUAL_FN, equal)


@_op("rpl_signal_buffer")
def buffer(self: Signal, count: int) -> Signal:
    """Tuples of `count` values; the rest at completion."""
    return Signal._own(lib.rpl_signal_buffer(self._c(), _count(count)))


@_op("rpl_signal_group_by")
def group_by(self: Signal, key: Callable[[Any], Any]) -> Signal:
    """A tuple (key, group signal) the first time key(v) gives a key; each
    group gets that key's values and ends with this signal."""
    return self._with_fn(lib.rpl_signal_group_by, _MAP, key)


@_op("rpl_signal_not")
def not_(self: Signal) -> Signal:
    """The negation of each bool value."""
    return Signal._own(lib.rpl_signal_not(self._c()))


@_op("rpl_signal_and")
def and_(self: Signal) -> Signal:
    """For each tuple of bools: all of them true."""
    return Signal._own(lib.rpl_signal_and(self._c()))


@_op("rpl_signal_or")
def or_(self: Signal) -> Signal:
    """For each tuple of bools: any of them true."""
    return Signal._own(lib.rpl_signal_or(self._c()))


@_op("rpl_signal_any")
def any(self: Signal, predicate: Callable[[Any], Any]) -> Signal:  # noqa: A001 - the C name
    """One bool, then completed: whether some value passes predicate."""
    return self._with_fn(lib.rpl_signal_any, _PREDICATE, predicate)


@_op("rpl_signal_all")
def all(self: Signal, predicate: Callable[[Any], Any]) -> Signal:  # noqa: A001 - the C name
    """One bool, then completed: whether every value passes predicate."""
    return self._with_fn(lib.rpl_signal_all, _PREDICATE, predicate)


@_op("rpl_signal_default_if_empty")
def default_if_empty(self: Signal, value: Any) -> Signal:
    """`value` when this signal completes without a value."""
    return Signal._own(lib.rpl_signal_default_if_empty(self._c(), _to_c(value)))


@_op("rpl_signal_switch_if_empty")
def switch_if_empty(self: Signal, other: Signal) -> Signal:
    """other's events when this signal completes without a value."""
    return Signal._own(lib.rpl_signal_switch_if_empty(self._c(), other._c()))


# -- side effects and lifetime -----------------------------------------------------

@_op("rpl_signal_initially")
def initially(self: Signal, fn: Callable[[], Any]) -> Signal:
    """Calls fn() at each subscription, before this signal is subscribed."""
    return self._with_fn(lib.rpl_signal_initially, _ACTION, fn)


@_op("rpl_signal_finally")
def finally_(self: Signal, fn: Callable[[], Any]) -> Signal:
    """Calls fn() when this signal errs or completes, before the event passes."""
    return self._with_fn(lib.rpl_signal_finally, _ACTION, fn)


@_op("rpl_signal_do_dispose")
def do_dispose(self: Signal, fn: Callable[[], Any]) -> Signal:
    """Calls fn() when a subscription ends for any reason (an exception in fn
    goes to the exception handler: the subscription is over)."""
    return self._with_fn(lib.rpl_signal_do_dispose, _ACTION, fn)


# -- flattening and combining --------------------------------------------------------

@_op("rpl_signal_flatten_max")
def flatten_max(self: Signal, max_concurrent: int) -> Signal:
    """RAC's flatten:: merges inner signals, at most max_concurrent at a time
    (0: no limit), the others waiting their turn."""
    return Signal._own(lib.rpl_signal_flatten_max(self._c(), _count(max_concurrent)))


@_op("rpl_signal_concat_map")
def concat_map(self: Signal, fn: Callable[[Any], Optional[Signal]]) -> Signal:
    """fn(v) returns a signal for each value; they run one after the other."""
    return Signal._own(lib.rpl_signal_concat_map(self._c(), _flat_map_cb, _ctx(fn), _release_ctx))


@_op("rpl_signal_concat_all")
def concat_all(self: Signal) -> Signal:
    """For a signal of signals: each inner signal after the previous one ends."""
    return Signal._own(lib.rpl_signal_concat_all(self._c()))


@_op("rpl_signal_with_latest_from")
def with_latest_from(self: Signal, other: Signal) -> Signal:
    """For each value v, the tuple (v, other's latest value)."""
    return Signal._own(lib.rpl_signal_with_latest_from(self._c(), other._c()))


@_op("rpl_signal_sample")
def sample(self: Signal, sampler: Signal) -> Signal:
    """This signal's latest value each time sampler sends (RAC's sample:)."""
    return Signal._own(lib.rpl_signal_sample(self._c(), sampler._c()))


@_op("rpl_signal_take_until_replacement")
def take_until_replacement(self: Signal, replacement: Signal) -> Signal:
    """This signal's events until replacement sends anything, then replacement's."""
    return Signal._own(lib.rpl_signal_take_until_replacement(self._c(), replacement._c()))


@_op("rpl_signal_skip_until")
def skip_until(self: Signal, trigger: Signal) -> Signal:
    """Drops values until trigger sends a value."""
    return Signal._own(lib.rpl_signal_skip_until(self._c(), trigger._c()))
