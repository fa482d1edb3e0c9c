"""Schedulers (rpl_scheduler_*), the test scheduler and the run loop.

Times in the Python API are seconds (floats), as in time.sleep and asyncio;
they are converted to the C API's nanoseconds.
"""

from typing import Any, Callable, Optional

from ._core import (
    _address, _cext, _scheduler_labels,
    Disposable, _cb, _check, _ctx, _live, _owned, _release_ctx, _report, _retained, ffi, has, lib,
)


def _seconds_ns(seconds):
    if seconds < 0:
        raise ValueError("a time cannot be negative")
    return int(round(seconds * 1e9))


class _Work:
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


@_cb("void(*)(void *)", "void(uintptr_t)")
def _run_work(ctx):
    try:
        _live[ctx].fn()
    except BaseException as exc:  # scheduled work has no downstream: the hook
        _report(exc)


_release_work = _release_ctx


class Scheduler:
    """An rpl_scheduler_t. Work scheduled from Python runs with the GIL held;
    its exceptions go to the exception handler."""

    __slots__ = ("_ptr", "__weakref__")

    def __init__(self, _ptr):
        self._ptr = _ptr

    @classmethod
    def immediate(cls) -> "Scheduler":
        """Runs work on the calling thread, at once (a trampoline)."""
        return cls(_retained(lib.rpl_scheduler_immediate()))

    @classmethod
    def background(cls) -> "Scheduler":
        """The shared pool of background threads."""
        return cls(_retained(lib.rpl_scheduler_background()))

    @classmethod
    def serial(cls, label: Optional[str] = None) -> "Scheduler":
        """A new serial scheduler: one thread of its own, FIFO, named label.
        With the compiled core, callbacks on that thread take the GIL once per
        run of queued work items, not once per callback."""
        s = cls(_owned(lib.rpl_scheduler_create_serial(label.encode() if label else ffi.NULL)))
        if _cext is not None:
            # Marked for good: the C scheduler usually outlives this object (the
            # operators using it retain it), and a later object at the same
            # address is again a serial scheduler made here, or one whose
            # thread is Python's (run loop, test scheduler), which never batches.
            addr = _address(s._ptr)
            _cext.serial_mark(addr, True)
            _scheduler_labels[addr] = label or "ripple.serial"
        return s

    @classmethod
    def current(cls) -> "Optional[Scheduler]":
        """The scheduler running the calling code, or None outside scheduled work."""
        p = lib.rpl_scheduler_current()
        return None if p == ffi.NULL else cls(_retained(p))

    @property
    def now_ns(self):
        return lib.rpl_scheduler_now(self._ptr)

    @property
    def now(self) -> float:
        """The scheduler's clock in seconds (virtual on a test scheduler)."""
        return self.now_ns / 1e9

    def schedule(self, fn: Callable[[], Any]) -> Disposable:
        """Runs fn() as soon as possible; returns a Disposable that cancels it."""
        return Disposable._wrap(_owned(lib.rpl_scheduler_schedule(self._ptr, _run_work, _ctx(_Work(fn)),
                                                                  _release_work)))

    def after(self, seconds: float, fn: Callable[[], Any]) -> Disposable:
        """Runs fn() once after `seconds`."""
        return Disposable._wrap(_owned(lib.rpl_scheduler_after(self._ptr, _seconds_ns(seconds), _run_work,
                                                               _ctx(_Work(fn)), _release_work)))

    def repeat(self, delay: float, interval: float, fn: Callable[[], Any]) -> Disposable:
        """Runs fn() after `delay`, then every `interval` seconds, until disposed."""
        return Disposable._wrap(_owned(lib.rpl_scheduler_repeat(self._ptr, _seconds_ns(delay),
                                                                _seconds_ns(interval), _run_work,
                                                                _ctx(_Work(fn)), _release_work)))

    def __eq__(self, other):
        return isinstance(other, Scheduler) and self._ptr == other._ptr

    def __hash__(self):
        return hash(self._ptr)


class TestScheduler(Scheduler):
    """A virtual clock starting at 0: work runs only in advance_by()/run()."""

    __slots__ = ()
    __test__ = False  # not a pytest test class

    def __init__(self):
        Scheduler.__init__(self, _owned(lib.rpl_test_scheduler_create()))

    def advance_by(self, seconds: float) -> None:
        """Moves the clock forward, running everything that falls due."""
        _check(lib.rpl_test_scheduler_advance_by(self._ptr, _seconds_ns(seconds)))

    def advance_by_ns(self, ns):
        _check(lib.rpl_test_scheduler_advance_by(self._ptr, int(ns)))

    def run(self) -> None:
        """Runs until nothing is pending (never with repeating work pending)."""
        _check(lib.rpl_test_scheduler_run(self._ptr))


class RunLoop:
    """A scheduler whose work runs only when this program asks, on the asking
    thread (rpl_run_loop_*). attach_asyncio() drives it from an asyncio loop,
    so that deliver_on(run_loop.scheduler) delivers on the event-loop thread."""

    __slots__ = ("_ptr", "scheduler", "_asyncio", "__weakref__")

    def __init__(self):
        self._ptr = _owned(lib.rpl_run_loop_create())
        self.scheduler = Scheduler(_retained(lib.rpl_run_loop_scheduler(self._ptr)))
        self._asyncio = None

    @property
    def fd(self):
        return lib.rpl_run_loop_fd(self._ptr)

    def run_until_idle(self):
        """Runs ready work until none is left; returns how many items ran."""
        return _check(lib.rpl_run_loop_run_until_idle(self._ptr))

    def run_one(self):
        return bool(_check(lib.rpl_run_loop_run_one(self._ptr)))

    def run(self):
        """Runs work (sleeping when there is none) until stop()."""
        _check(lib.rpl_run_loop_run(self._ptr))

    def stop(self):
        _check(lib.rpl_run_loop_stop(self._ptr))

    @property
    def next_timeout(self):
        """Seconds until work is due: 0 if ready, None if nothing is pending."""
        ns = lib.rpl_run_loop_next_timeout(self._ptr)
        return None if ns == 2**64 - 1 else ns / 1e9

    def attach_asyncio(self, loop=None):
        """Runs this loop's work from `loop` (default: the running loop) when
        its descriptor becomes readable."""
        import asyncio
        loop = loop or asyncio.get_running_loop()
        loop.add_reader(self.fd, self.run_until_idle)
        self._asyncio = loop
        return self

    def detach_asyncio(self):
        if self._asyncio is not None:
            self._asyncio.remove_reader(self.fd)
            self._asyncio = None


__all__ = ["Scheduler", "TestScheduler", "RunLoop"]
