"""Subjects (hot signals you send into) and multicast connections.

A class whose C function the loaded library lacks raises NotImplementedError
when used.
"""

from typing import Any, Callable, Optional, cast

from ._core import (  # noqa: F401
    _cext, _sender, _trace_fn,
    Disposable, RPL_REPLAY_UNLIMITED, Signal, _check, _err_from_exc, _owned, _retained, _take, _to_c, ffi, has, lib,
)


def _require(name):
    if not has(name):
        raise NotImplementedError("%s is not in the loaded libripple (%s)" % (name, lib))


class Subject(Signal):
    """A hot signal: values sent with send()/on_next() reach the current
    subscribers. Remembers its terminal event (late subscribers get it).

    With the compiled core, the Python subscribers of a plain Subject share
    one C observer (a hub) that calls them in one C loop per event, in the
    order they subscribed, each at most once at a time, none after its
    dispose() returned; a Subject seen by a trace hook is subscribed directly."""

    __slots__ = ("_subj", "send")
    send: Callable[[Any], None]

    def __init__(self, _ptr: Any = None) -> None:
        if _ptr is None:
            _require("rpl_subject_create")
            _ptr = _owned(lib.rpl_subject_create())
        self._subj = _ptr  # owns the reference; _ptr is the same object as a signal
        self.send = _sender(_ptr)  # send(value): to every subscriber, synchronously
        Signal.__init__(self, ffi.cast("rpl_signal_t *", _ptr))

    @property
    def on_next(self) -> Callable[[Any], None]:
        """The same as send."""
        return self.send

    send_next = on_next

    def subscribe(self, on_next: Optional[Callable[[Any], Any]] = None,
                  on_error: Optional[Callable[[BaseException], Any]] = None,
                  on_completed: Optional[Callable[[], Any]] = None) -> Disposable:
        if type(self) is Subject and _cext is not None and _trace_fn[0] is None:
            return cast(Any, self.send).subscribe(on_next, on_error, on_completed)  # the compiled core's Sender
        return Signal.subscribe(self, on_next, on_error, on_completed)

    subscribe.__doc__ = Signal.subscribe.__doc__

    def send_error(self, exc: Optional[BaseException] = None) -> None:
        _check(lib.rpl_subject_send_error(self._subj, _err_from_exc(exc) if exc is not None else ffi.NULL))

    on_error = send_error

    def send_completed(self) -> None:
        _check(lib.rpl_subject_send_completed(self._subj))

    on_completed = complete = send_completed

    @property
    def subscriber_count(self) -> int:
        """How many subscribers are attached now."""
        _require("rpl_subject_subscriber_count")
        n = lib.rpl_subject_subscriber_count(self._subj)
        return n + cast(Any, self.send).count_delta() if _cext is not None else n

    @property
    def is_terminated(self) -> bool:
        """True once the subject has completed or failed."""
        _require("rpl_subject_is_terminated")
        return bool(lib.rpl_subject_is_terminated(self._subj))

    def as_signal(self) -> Signal:
        """A plain Signal for the same object (hides send)."""
        return Signal(_retained(lib.rpl_subject_as_signal(self._subj)))


class BehaviorSubject(Subject):
    """A subject that gives each new subscriber the latest value first."""

    __slots__ = ()

    def __init__(self, value: Any = None) -> None:
        _require("rpl_behavior_subject_create")
        Subject.__init__(self, _owned(lib.rpl_behavior_subject_create(_to_c(value))))

    @property
    def value(self) -> Any:
        """The current value."""
        _require("rpl_behavior_subject_value")
        out = ffi.new("rpl_value *")
        _check(lib.rpl_behavior_subject_value(self._subj, out))
        return _take(out[0])


class ReplaySubject(Subject):
    """A subject that replays the last `capacity` values (None: all of them)."""

    __slots__ = ()

    def __init__(self, capacity: Optional[int] = None) -> None:
        _require("rpl_replay_subject_create")
        cap = RPL_REPLAY_UNLIMITED if capacity is None else capacity
        if cap < 0:
            raise ValueError("capacity cannot be negative")
        Subject.__init__(self, _owned(lib.rpl_replay_subject_create(cap)))


class Connection:
    """A multicast connection (publish/multicast): subscribers attach to
    .signal; connect() subscribes the source once."""

    __slots__ = ("_ptr", "__weakref__")

    def __init__(self, ptr: Any) -> None:
        self._ptr = ptr

    @property
    def signal(self) -> Signal:
        return Signal(_retained(lib.rpl_connection_signal(self._ptr)))

    def connect(self) -> Disposable:
        """Subscribes the source (once, however often it is called); the
        Disposable disconnects."""
        return Disposable._wrap(_owned(lib.rpl_connection_connect(self._ptr)))

    def autoconnect(self) -> Signal:
        """A signal that connects at its first subscriber and disconnects when
        the last one leaves (and connects again for a later one)."""
        return Signal._own(lib.rpl_connection_autoconnect(self._ptr))

    def subscribe(self, on_next: Optional[Callable[[Any], Any]] = None,
                  on_error: Optional[Callable[[BaseException], Any]] = None,
                  on_completed: Optional[Callable[[], Any]] = None) -> Disposable:
        return self.signal.subscribe(on_next, on_error, on_completed)
