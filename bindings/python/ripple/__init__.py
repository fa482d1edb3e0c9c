"""Ripple for Python: reactive signals over libripple's C API.

See README.md. The library is found through RIPPLE_LIBRARY, pkg-config or the
default loader path, in that order; its declarations (ripple/_capi.py) are
generated from ripple.h by scripts/gen_api.py.
"""

import os as _os

# A compiled core built outside the package (the test suite's): RIPPLE_CEXT_DIR.
if _os.environ.get("RIPPLE_CEXT_DIR"):
    __path__.append(_os.environ["RIPPLE_CEXT_DIR"])

from ._core import (  # noqa: F401
    CONSTANTS, LIBRARY_PATH, RPL_FOREVER, CompoundDisposable, Disposable, Event,
    NATIVE, NoValueError, Pointer, RippleError, RippleTimeoutError, SerialDisposable, Signal, StatusError,
    Subscriber, TraceEvent, clear_error_cache, ffi, has, lib, live_objects, set_exception_handler,
    set_trace, status_string, trace, trace_write, version, version_number,
)
from ._sched import RunLoop, Scheduler, TestScheduler
from ._subjects import BehaviorSubject, Connection, ReplaySubject, Subject  # noqa: F401
from ._io import (  # noqa: F401
    ERROR_DOMAIN_ERRNO, ERROR_LINE_TOO_LONG, FILE_CREATED, FILE_DELETED, FILE_MODIFIED, FILE_MOVED,
)

# The public names (mypy --strict and pyright see these as re-exported).
__all__ = [
    "BehaviorSubject", "CONSTANTS", "CompoundDisposable", "Connection", "Disposable", "Event", "LIBRARY_PATH",
    "NATIVE", "NoValueError", "Pointer", "RPL_FOREVER", "ReplaySubject", "RippleError", "RippleTimeoutError",
    "Scheduler", "SerialDisposable", "Signal", "StatusError", "Subject", "Subscriber", "TestScheduler",
    "TraceEvent", "clear_error_cache", "ffi", "has", "lib", "live_objects", "set_exception_handler", "set_trace",
    "status_string", "trace", "version", "version_number", "wrapped_operators", "RunLoop",
    "ERROR_DOMAIN_ERRNO", "ERROR_LINE_TOO_LONG", "FILE_CREATED", "FILE_DELETED", "FILE_MODIFIED", "FILE_MOVED",
]

__version__ = "0.2.0"


def wrapped_operators() -> "list[tuple[str, str]]":
    """[(Signal method, C function)] for Signal's methods that are C operators
    of the same name (a trailing underscore dropped)."""
    return [(n, "rpl_signal_" + n.rstrip("_")) for n in sorted(dir(Signal))
            if not n.startswith("_") and has("rpl_signal_" + n.rstrip("_"))]
