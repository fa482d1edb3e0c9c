"""Ripple for Python: reactive signals over libripple's C API.

See README.md. The library is found through RIPPLE_LIBRARY, pkg-config or the
default loader path, in that order; its declarations are generated at import
from the ripple.h installed next to it.
"""

import os as _os

# A compiled core built outside the package (the test suite's): RIPPLE_CEXT_DIR.
if _os.environ.get("RIPPLE_CEXT_DIR"):
    __path__.append(_os.environ["RIPPLE_CEXT_DIR"])

from ._core import (  # noqa: F401
    CONSTANTS, HEADER_PATH, LIBRARY_PATH, RPL_FOREVER, CompoundDisposable, Disposable, Event,
    NATIVE, NoValueError, Pointer, RippleError, RippleTimeoutError, SerialDisposable, Signal, StatusError,
    Subscriber, TraceEvent, clear_error_cache, ffi, has, lib, live_objects, set_exception_handler,
    set_trace, status_string, trace, trace_write, version, version_number,
)
from ._sched import *  # noqa: F401,F403
from ._sched import Scheduler, TestScheduler  # noqa: F401
from ._subjects import BehaviorSubject, Connection, ReplaySubject, Subject  # noqa: F401
from . import _ops, _ops02  # noqa: F401

__version__ = "0.1.0"


def wrapped_operators():
    """[(Signal method, C function)] for the C-backed operators available."""
    return _ops.wrapped()
