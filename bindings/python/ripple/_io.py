"""The operating system's event sources (rpl_signal_fd_readable ... file_changes):
descriptors, sockets, OS signals, child processes and file changes as signals;
the OSSources mixin of Signal.

A descriptor argument is an int or anything with fileno() (a socket, a file
object); the object must stay open while a subscription watches it (Ripple
never closes it; read, read_lines, write and accept make it non-blocking).
scheduler is a Scheduler or a RunLoop (default: the background scheduler); the
immediate and test schedulers are refused (StatusError). A failing system call
is a RippleError with domain ERROR_DOMAIN_ERRNO ("errno") and code errno.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional, Protocol, Union

from ._core import lib
from ._ops import _signal

if TYPE_CHECKING:
    from ._core import Signal
    from ._sched import RunLoop, Scheduler

FILE_CREATED: int = lib.RPL_FILE_CREATED
FILE_MODIFIED: int = lib.RPL_FILE_MODIFIED
FILE_DELETED: int = lib.RPL_FILE_DELETED
FILE_MOVED: int = lib.RPL_FILE_MOVED
ERROR_LINE_TOO_LONG: int = lib.RPL_ERROR_LINE_TOO_LONG
ERROR_DOMAIN_ERRNO = "errno"


class _HasFileno(Protocol):
    def fileno(self) -> int: ...


FileLike = Union[int, _HasFileno]


def _fd(f: FileLike) -> int:
    """A descriptor from an int or an object with fileno()."""
    if isinstance(f, int):
        return f
    fileno = getattr(f, "fileno", None)
    if fileno is None:
        raise TypeError("expected a descriptor (int) or an object with fileno(), got %r" % (f,))
    return int(fileno())


def _on(s: Optional[Union[Scheduler, RunLoop]]) -> Any:
    from ._sched import Scheduler
    if s is None:
        return Scheduler.background()._ptr
    return getattr(s, "scheduler", s)._ptr  # a RunLoop: its scheduler


def _size(n: int, what: str) -> int:
    if n < 0:
        raise ValueError("%s cannot be negative" % what)
    return n


class OSSources:
    """Signal's OS sources."""

    __slots__ = ()

    if TYPE_CHECKING:
        def _c(self) -> Any: ...

    @classmethod
    def fd_readable(cls, fd: FileLike, scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """fd (an int) each time it is readable (level-triggered); never completes."""
        return _signal(lib.rpl_signal_fd_readable(_fd(fd), _on(scheduler)))

    @classmethod
    def fd_writable(cls, fd: FileLike, scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """fd (an int) each time it is writable (level-triggered); never completes."""
        return _signal(lib.rpl_signal_fd_writable(_fd(fd), _on(scheduler)))

    @classmethod
    def read(cls, fd: FileLike, max_chunk: int = 65536,
             scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """The bytes read from fd, in chunks of at most max_chunk; completes at EOF."""
        return _signal(lib.rpl_signal_read(_fd(fd), _size(max_chunk, "max_chunk"), _on(scheduler)))

    @classmethod
    def read_lines(cls, fd: FileLike, max_line: int = 65536,
                   scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """The lines read from fd (str, without "\\n" or "\\r\\n"); an unterminated
        last line at EOF, then completes; a line longer than max_line bytes fails
        it (RippleError, code ERROR_LINE_TOO_LONG)."""
        return _signal(lib.rpl_signal_read_lines(_fd(fd), _size(max_line, "max_line"), _on(scheduler)))

    def write(self, fd: FileLike, scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """Writes each str or bytes value of this signal to fd in order, sending each
        value's byte count once written; completes once this signal completed and
        everything is written."""
        return _signal(lib.rpl_signal_write(self._c(), _fd(fd), _on(scheduler)))

    @classmethod
    def accept(cls, listen_fd: FileLike, scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """Each connection accepted on the listening socket, as its descriptor (an
        int, non-blocking, close-on-exec), owned by the receiver (socket.socket(fileno=fd))."""
        return _signal(lib.rpl_signal_accept(_fd(listen_fd), _on(scheduler)))

    @classmethod
    def os_signal(cls, signo: int, scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """signo each time the process gets that signal while subscribed. Ripple's
        handler replaces the previous disposition (Python's own handler included)
        until the last subscription ends."""
        return _signal(lib.rpl_signal_os_signal(int(signo), _on(scheduler)))

    @classmethod
    def child_exit(cls, pid: int, scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """The child's raw wait status (os.waitstatus_to_exitcode applies) once it
        ends - it is reaped - then completes; ECHILD for a pid that is not a child."""
        return _signal(lib.rpl_signal_child_exit(int(pid), _on(scheduler)))

    @classmethod
    def file_changes(cls, path: Union[str, bytes, "os.PathLike[str]"],
                     scheduler: Optional[Union[Scheduler, RunLoop]] = None) -> Signal:
        """Changes under path as tuples (name, FILE_* flags); completes when path
        itself goes away."""
        raw = os.fsencode(path)
        return _signal(lib.rpl_signal_file_changes(raw, _on(scheduler)))
