"""Marble tests for Python (ripple.h, "Marble tests"; docs/marble-tests.md).

A marble diagram draws a signal on a time line, one character per frame of
1 ms of virtual time, as RxJS's TestScheduler reads it in run mode::

    from ripple.testing import Marbles

    def test_throttle():
        m = Marbles()
        clicks = m.hot("-a--b-c---d|")
        m.expect(clicks.throttle(0.002, m.scheduler), "---a----c--(d|)")

``Marbles.expect`` raises :class:`MarbleMismatch`, an ``AssertionError``, so
pytest and unittest report a difference as a test failure, with both diagrams
and a caret under the first difference. With pytest the ``marbles`` fixture
gives each test a fresh ``Marbles`` (installed as a pytest plugin, or imported
into a test module or conftest.py); with unittest, :class:`MarbleTestCase`
gives ``self.marbles`` and ``assertMarbles``.

Values: a table maps characters to values (``{"a": 1, "t": (1, "x")}``);
without an entry a digit stands for its int and any other character for a
one-character string. A bad diagram raises :class:`ripple.StatusError`
(``RPL_ERR_INVALID``) naming the column.
"""

import unittest
from typing import Any, Dict, List, Mapping, Optional

from ._core import Signal, _last_error, _owned, _take, _to_c, ffi, lib
from ._sched import TestScheduler
from ._subjects import Subject

__all__ = ["MarbleMismatch", "Marbles", "MarbleTestCase", "marbles"]


class MarbleMismatch(AssertionError):
    """A signal did not do what its expected diagram says: the message has
    the frame of the first difference, then both diagrams with a caret."""


def _table(values: Optional[Mapping[str, Any]]):
    """An rpl_marble_value array (owning its values) and its length."""
    if not values:
        return ffi.NULL, 0
    table = ffi.new("rpl_marble_value[]", len(values))
    for i, (key, value) in enumerate(values.items()):
        k = key.encode("utf-8")
        if len(k) != 1:
            for j in range(i):
                lib.rpl_value_release(ffi.addressof(table[j], "value"))
            raise ValueError("a marble key is one ASCII character, not %r" % (key,))
        table[i].key = k
        table[i].value = _to_c(value)
    return table, len(values)


def _release(table, n):
    for i in range(n):
        lib.rpl_value_release(ffi.addressof(table[i], "value"))


def _text(s: Optional[str]):
    return ffi.NULL if s is None else s.encode("utf-8")


class Marbles:
    """Marble diagrams on one test scheduler (``scheduler``; a new one by
    default). Frame 0 of ``expect`` and ``record`` is the scheduler's time at
    the call; each runs the scheduler until nothing is pending."""

    __test__ = False  # not a pytest test class

    def __init__(self, scheduler: Optional[TestScheduler] = None):
        self.scheduler = scheduler if scheduler is not None else TestScheduler()

    def cold(self, marbles: str, values: Optional[Mapping[str, Any]] = None) -> Signal:
        """A signal that plays ``marbles`` for each subscriber, from its subscription."""
        table, n = _table(values)
        return Signal(_owned(lib.rpl_marble_cold(self.scheduler._ptr, _text(marbles), table, n)))

    def hot(self, marbles: str, values: Optional[Mapping[str, Any]] = None) -> Subject:
        """A subject that plays ``marbles`` once, from now (its ``^``)."""
        table, n = _table(values)
        return Subject(_owned(lib.rpl_marble_hot(self.scheduler._ptr, _text(marbles), table, n)))

    def record(self, signal: Signal, subscription: Optional[str] = None,
               values: Optional[Mapping[str, Any]] = None) -> str:
        """What ``signal`` does, drawn as a diagram (values drawn by their
        key in ``values``), subscribed at ``subscription``'s ``^`` (now by
        default) and disposed at its ``!``."""
        table, n = _table(values)
        try:
            v = lib.rpl_marble_record(self.scheduler._ptr, signal._c(), _text(subscription), table, n)
            if v.type == lib.RPL_TYPE_NIL:
                raise _last_error()
            return _take(v)
        finally:
            _release(table, n)

    def expect(self, signal: Signal, expected: str, values: Optional[Mapping[str, Any]] = None,
               subscription: Optional[str] = None) -> None:
        """Raises MarbleMismatch unless ``signal`` does exactly ``expected``
        (``#`` matches any error)."""
        table, n = _table(values)
        try:
            status = lib.rpl_marble_expect(self.scheduler._ptr, signal._c(), _text(subscription),
                                           _text(expected), table, n)
        finally:
            _release(table, n)
        if status == lib.RPL_ERR_FAILED:
            message = ffi.string(lib.rpl_last_error_message()).decode("utf-8", "replace")
            raise MarbleMismatch(message.partition(": ")[2])
        if status < 0:
            raise _last_error()

    def subscriptions(self, marble: Signal) -> List[str]:
        """The subscriptions made to a cold or hot marble, one ``"^--!"`` each."""
        v = lib.rpl_marble_subscriptions(marble._c())
        if v.type == lib.RPL_TYPE_NIL:
            raise _last_error()
        text = _take(v)
        return text.split("\n") if text else []


class MarbleTestCase(unittest.TestCase):
    """A unittest base class: ``self.marbles`` is a fresh Marbles per test."""

    marbles: Marbles

    def setUp(self) -> None:
        super().setUp()
        self.marbles = Marbles()

    def assertMarbles(self, signal: Signal, expected: str, values: Optional[Dict[str, Any]] = None,
                      subscription: Optional[str] = None) -> None:
        """Fails the test unless ``signal`` does exactly ``expected``."""
        try:
            self.marbles.expect(signal, expected, values, subscription)
        except MarbleMismatch as e:
            raise self.failureException(str(e)) from None


try:
    import pytest  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - pytest is optional
    pass
else:
    @pytest.fixture
    def marbles() -> Marbles:
        """A fresh Marbles (and test scheduler) for each test."""
        return Marbles()
