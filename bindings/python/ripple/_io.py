"""The operating system's event sources (rpl_signal_fd_readable ... file_changes):
descriptors, sockets, OS signals, child processes and file changes as signals.

Each is attached to Signal only when the loaded library exports it. A
descriptor argument is an int or anything with fileno() (a socket, a file
object); the object must stay open while a subscription watches it (Ripple
never closes it). scheduler is a Scheduler or a RunLoop (default: the
background scheduler); the immediate and test schedulers are refused.
"""

from ._core import Signal, has, lib
from ._sched import Scheduler

_added: list = []

FILE_CREATED = getattr(lib, "RPL_FILE_CREATED", 1)
FILE_MODIFIED = getattr(lib, "RPL_FILE_MODIFIED", 2)
FILE_DELETED = getattr(lib, "RPL_FILE_DELETED", 4)
FILE_MOVED = getattr(lib, "RPL_FILE_MOVED", 8)
ERROR_LINE_TOO_LONG = getattr(lib, "RPL_ERROR_LINE_TOO_LONG", 7)
ERROR_DOMAIN_ERRNO = "errno"


def _fd(f):
    """A descriptor from an int or an object with fileno()."""
    if isinstance(f, int):
        return f
    fileno = getattr(f, "fileno", None)
    if fileno is None:
        raise TypeError("expected a descriptor (int) or an object with fileno(), got %r" % (f,))
    return fileno()


def _sched(s):
    if s is None:
        s = Scheduler.background()
    s = getattr(s, "scheduler", s)  # a RunLoop
    return s._ptr


def _size(n, what):
    if n < 0:
        raise ValueError("%s cannot be negative" % what)
    return n


def _attach(cname, pyname, fn, method=False):
    if has(cname):
        setattr(Signal, pyname, fn if method else classmethod(fn))
        _added.append((pyname, cname))


def _fd_readable(cls, fd, scheduler=None):
    """fd each time it is readable (level-triggered); never completes."""
    return cls._own(lib.rpl_signal_fd_readable(_fd(fd), _sched(scheduler)))


def _fd_writable(cls, fd, scheduler=None):
    """fd each time it is writable (level-triggered); never completes."""
    return cls._own(lib.rpl_signal_fd_writable(_fd(fd), _sched(scheduler)))


def _read(cls, fd, max_chunk=65536, scheduler=None):
    """The bytes read from fd, in chunks of at most max_chunk; completes at EOF.
    fd is made non-blocking."""
    return cls._own(lib.rpl_signal_read(_fd(fd), _size(max_chunk, "max_chunk"), _sched(scheduler)))


def _read_lines(cls, fd, max_line=65536, scheduler=None):
    """The lines read from fd (str, without "\\n" or "\\r\\n"); an unterminated last
    line at EOF, then completes; a line longer than max_line bytes fails it
    (RippleError, code ERROR_LINE_TOO_LONG). fd is made non-blocking."""
    return cls._own(lib.rpl_signal_read_lines(_fd(fd), _size(max_line, "max_line"), _sched(scheduler)))


def _write(self, fd, scheduler=None):
    """Writes each str or bytes value of this signal to fd in order, sending each
    value's byte count once written; completes once this signal completed and
    everything is written. fd is made non-blocking."""
    return Signal._own(lib.rpl_signal_write(self._c(), _fd(fd), _sched(scheduler)))


def _accept(cls, listen_fd, scheduler=None):
    """Each connection accepted on the listening socket, as its descriptor (an
    int, non-blocking, close-on-exec), owned by the receiver (socket.socket(fileno=fd))."""
    return cls._own(lib.rpl_signal_accept(_fd(listen_fd), _sched(scheduler)))


def _os_signal(cls, signo, scheduler=None):
    """signo each time the process gets that signal while subscribed. Ripple's
    handler replaces the previous disposition (Python's own handler included)
    until the last subscription ends."""
    return cls._own(lib.rpl_signal_os_signal(int(signo), _sched(scheduler)))


def _child_exit(cls, pid, scheduler=None):
    """The child's raw wait status (os.waitstatus_to_exitcode applies) once it
    ends - it is reaped - then completes; ECHILD for a pid that is not a child."""
    return cls._own(lib.rpl_signal_child_exit(int(pid), _sched(scheduler)))


def _file_changes(cls, path, scheduler=None):
    """Changes under path as tuples (name, FILE_* flags); completes when path
    itself goes away."""
    if not isinstance(path, (str, bytes)):
        path = str(path)  # a pathlib.Path
    if isinstance(path, str):
        path = path.encode()
    return cls._own(lib.rpl_signal_file_changes(path, _sched(scheduler)))


_attach("rpl_signal_fd_readable", "fd_readable", _fd_readable)
_attach("rpl_signal_fd_writable", "fd_writable", _fd_writable)
_attach("rpl_signal_read", "read", _read)
_attach("rpl_signal_read_lines", "read_lines", _read_lines)
_attach("rpl_signal_write", "write", _write, method=True)
_attach("rpl_signal_accept", "accept", _accept)
_attach("rpl_signal_os_signal", "os_signal", _os_signal)
_attach("rpl_signal_child_exit", "child_exit", _child_exit)
_attach("rpl_signal_file_changes", "file_changes", _file_changes)


def wrapped():
    """[(python name, C function)] for the sources attached here."""
    return list(_added)
