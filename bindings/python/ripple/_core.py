"""The Pythonic layer over the C API (see README.md for the user's view).

Lifetimes
---------
* Every handle the C API returns at +1 is wrapped with ``ffi.gc`` (see
  ``_gc``), so Python's reference counting drops the C reference.
* Every Python object handed to C as a callback context is kept in ``_live``
  under an integer id (the ``void *ctx``) until the runtime calls the matching
  ``release`` (or ``on_dispose``): that is the only thing that keeps Python
  callbacks alive, so an ended subscription frees them. Python objects sent
  as pointer values are ``ffi.new_handle`` handles kept in ``_objects`` until
  the value's destructor runs.
* The C callbacks are module-level ``ffi.callback`` objects, created once and
  never freed. They take the GIL when called from Ripple's threads; cffi
  releases the GIL around every call into the library, so blocking helpers
  (and sends that wait for another thread's delivery) never hold it.

Exceptions
----------
* Raised where a callback produces something (map, filter, scan, predicates,
  a ``Signal.create`` body, defer/flatten_map/catch factories): the exception
  becomes the signal's error and travels downstream. A Python ``on_error`` gets
  the original exception object back.
* Raised in an observer (``on_next``/``on_error``/``on_completed``) or in
  scheduled work, where nothing downstream exists: passed to the hook set with
  ``set_exception_handler`` (default: print the traceback to stderr). Never
  swallowed, never fatal.
"""

import asyncio
import atexit
import collections
import ctypes
import importlib.util
import itertools
import os
import platform
import queue as _queue
import struct
import sys
import threading
import traceback
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from ._lib import load as _load

if TYPE_CHECKING:
    from ._capi import Lib

ffi: Any
lib: "Lib"  # the C functions, with the types generated from ripple.h (_capi.pyi)
ffi, lib, CONSTANTS, LIBRARY_PATH = _load()

RPL_FOREVER = CONSTANTS.get("RPL_FOREVER", 2**64 - 1)
RPL_OBSERVER_VERSION = CONSTANTS.get("RPL_OBSERVER_VERSION", 1)
RPL_REPLAY_UNLIMITED = CONSTANTS.get("RPL_REPLAY_UNLIMITED", 2**64 - 1)
RPL_FOREVER_COUNT = CONSTANTS.get("RPL_FOREVER_COUNT", 2**64 - 1)

_NULL = ffi.NULL
_T_NIL, _T_BOOL, _T_INT, _T_DOUBLE = lib.RPL_TYPE_NIL, lib.RPL_TYPE_BOOL, lib.RPL_TYPE_INT, lib.RPL_TYPE_DOUBLE
_T_STRING, _T_BYTES, _T_POINTER = lib.RPL_TYPE_STRING, lib.RPL_TYPE_BYTES, lib.RPL_TYPE_POINTER
_T_TUPLE, _T_SIGNAL, _T_EVENT = lib.RPL_TYPE_TUPLE, lib.RPL_TYPE_SIGNAL, lib.RPL_TYPE_EVENT
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


# Interpreter shutdown. Releasing a handle can run release callbacks in
# Python (a subscription's observer, an operator's context), but while the
# interpreter tears itself down those functions and the module globals they
# use are being destroyed. So: from atexit on, handles are no longer released
# (the process is ending; the runtime's memory goes with it), and the
# module-level callbacks are kept alive forever (see _immortal).
class _State:
    exiting = False


_state = _State()
atexit.register(lambda: setattr(_state, "exiting", True))


def _release_handle(p, _state=_state, _release=lib.rpl_release):
    if not _state.exiting:
        _release(p)


def _gc(ptr):
    """Ties a +1 handle to the Python object: released when it is freed."""
    return ffi.gc(ptr, _release_handle)


def _immortal(*objs):
    """Keeps objects alive until the process ends (callbacks C may still call
    from its threads while the interpreter shuts down)."""
    for o in objs:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(o))
    return objs[0] if objs else None


def has(name: str) -> bool:
    """True when the loaded library exports the C function `name`."""
    try:
        getattr(lib, name)
        return True
    except AttributeError:
        return False


def version_number() -> int:
    """RPL_VERSION_NUMBER of the loaded library (compare with CONSTANTS)."""
    return lib.rpl_version()


def status_string(status: int) -> str:
    """The library's text for an rpl_status code."""
    return ffi.string(lib.rpl_status_string(status)).decode()


def version() -> Tuple[int, ...]:
    """(major, minor, patch) of the loaded library."""
    return tuple(int(x) for x in ffi.string(lib.rpl_version_string()).decode().split("."))


# ---------------------------------------------------------------------------
# Exceptions and the hook for exceptions nobody downstream can receive.

class RippleError(Exception):
    """An error carried by a signal (domain, code, message), or a failed call."""

    def __init__(self, message="", domain="python", code=1):
        super().__init__(message)
        self.domain = domain
        self.code = code
        self.message = message

    def __str__(self):
        return "%s (%s %d)" % (self.message, self.domain, self.code)


class RippleTimeoutError(RippleError, TimeoutError):
    """A timeout: a blocking call timed out, or rpl_signal_timeout fired."""


class NoValueError(RippleError, LookupError):
    """The signal completed without sending a value (first())."""


class StatusError(RippleError):
    """A C call failed (bad argument, wrong state, ...): status and message."""

    def __init__(self, status, message):
        super().__init__(message, "ripple.status", status)
        self.status = status
        self.status_name = status_string(status)


def _last_error():
    status = lib.rpl_last_error()
    return StatusError(status, ffi.string(lib.rpl_last_error_message()).decode("utf-8", "replace"))


def _check(status):
    if status < 0:
        raise _last_error()
    return status


def _default_handler(exc):
    sys.stderr.write("ripple: exception in a callback (set ripple.set_exception_handler to handle it):\n")
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


_handler = _default_handler


def set_exception_handler(handler: Optional[Callable[[BaseException], Any]]) -> Callable[[BaseException], Any]:
    """Sets the function called with exceptions raised by observers
    (on_next/on_error/on_completed), scheduled work and pointer destructors,
    which have no downstream to fail. None restores the default (print the
    traceback to stderr). Returns the previous handler."""
    global _handler
    old = _handler
    _handler = handler if handler is not None else _default_handler
    return old


def _report(exc):
    try:
        _handler(exc)
    except BaseException as again:  # the hook itself failed: never lose it
        try:
            _default_handler(again)
        except BaseException:
            pass


def _cffi_onerror(exc_type, exc_value, tb):
    # Only reached if a bug in this module lets an exception escape a
    # trampoline, or during interpreter shutdown.
    try:
        if exc_value is None:
            exc_value = exc_type()
        exc_value.__traceback__ = tb
        _report(exc_value)
    except BaseException:
        pass


# Python exceptions that became C errors, so that a Python on_error gets the
# original object back. Bounded: the C error stays valid (retained here) while
# its entry lives, so the address cannot be reused meanwhile.
_py_errors: "collections.OrderedDict[int, Tuple[Any, BaseException]]" = collections.OrderedDict()
_py_errors_lock = threading.Lock()
_PY_ERRORS_MAX = 256
PYTHON_ERROR_DOMAIN = "python"


def _err_from_exc(exc):
    """A C error (cdata owned by the returned object, +1 via ffi.gc) for exc."""
    if isinstance(exc, RippleError):
        domain, code, message = exc.domain, exc.code, exc.message
    else:
        domain, code = PYTHON_ERROR_DOMAIN, 1
        message = "%s: %s" % (type(exc).__name__, exc)
    e = lib.rpl_error_create(str(domain).encode(), int(code), str(message).encode("utf-8", "replace"))
    if e == _NULL:
        raise MemoryError("rpl_error_create")
    e = _gc(e)
    _detach_frames(exc)
    with _py_errors_lock:
        _py_errors[int(ffi.cast("uintptr_t", e))] = (e, exc)
        while len(_py_errors) > _PY_ERRORS_MAX:
            _py_errors.popitem(last=False)
    return e


def _detach_frames(exc):
    """Keeps exc's traceback printable without keeping the callbacks alive:
    drops the frames still running (the trampolines that caught it) and
    clears the locals of the finished ones (the user code that raised)."""
    tb = exc.__traceback__
    while tb is not None:
        try:
            tb.tb_frame.clear()
            break
        except RuntimeError:  # still executing: one of ours, up the stack
            tb = tb.tb_next
    if tb is not exc.__traceback__:
        exc.__traceback__ = tb
    if tb is not None:
        traceback.clear_frames(tb)


def _exc_from_err(e):
    """The Python exception for a borrowed C error."""
    if e == _NULL:
        return RippleError("unknown error", "ripple", 1)
    with _py_errors_lock:
        hit = _py_errors.get(int(ffi.cast("uintptr_t", e)))
    if hit is not None:
        return hit[1]
    dom = lib.rpl_error_domain(e)
    msg = lib.rpl_error_message(e)
    domain = ffi.string(dom).decode("utf-8", "replace") if dom != _NULL else "ripple"
    message = ffi.string(msg).decode("utf-8", "replace") if msg != _NULL else ""
    code = lib.rpl_error_code(e)
    if domain == "ripple" and code == lib.RPL_ERROR_TIMEOUT:
        return RippleTimeoutError(message, domain, code)
    return RippleError(message, domain, code)


# ---------------------------------------------------------------------------
# Contexts: Python objects kept alive while C holds a pointer to them.

_live: Dict[int, Any] = {}      # handle cdata -> (handle, object): released by rpl release callbacks
_objects: Dict[Any, Any] = {}   # pointer-value handles -> handle: released by the pointer destructor


_ids = itertools.count(1)
_callbacks: List[Any] = []  # every ffi.callback object (alive, and immortal, forever)


def _ctx(obj):
    """A context pointer for obj: an integer id, looked up in _live (a dict
    lookup is cheaper than ffi.from_handle on every event)."""
    i = next(_ids)
    _live[i] = obj
    return ffi.cast("void *", i)


def _cb(c_type, py_sig):
    """Decorator: a C callback of type c_type whose context argument Python
    receives as an integer (py_sig declares it uintptr_t, the same ABI)."""
    def make(fn):
        raw = ffi.callback(py_sig, fn, onerror=_cffi_onerror)
        _callbacks.append(raw)
        return ffi.cast(c_type, raw)
    return make


# Release callbacks bind the dicts as defaults: they may run while the
# interpreter shuts down, after module globals have been cleared.
@_cb("rpl_release_fn", "void(uintptr_t)")
def _release_ctx(ctx, _live=_live):
    _live.pop(ctx, None)


@ffi.callback("void(void *)", onerror=_cffi_onerror)
def _release_object(ctx, _objects=_objects):
    _objects.pop(ctx, None)


class Pointer:
    """A pointer value made by C code (not a Python object): its address."""

    __slots__ = ("address",)

    def __init__(self, address):
        self.address = address

    def __eq__(self, other):
        return isinstance(other, Pointer) and other.address == self.address

    def __hash__(self):
        return hash(self.address)

    def __repr__(self):
        return "ripple.Pointer(0x%x)" % self.address


class Event:
    """A materialized event: kind is 'next', 'error' or 'completed'."""

    __slots__ = ("kind", "value", "error")
    NEXT, ERROR, COMPLETED = "next", "error", "completed"

    def __init__(self, kind, value=None, error=None):
        self.kind, self.value, self.error = kind, value, error

    @classmethod
    def next(cls, value):
        return cls(cls.NEXT, value)

    @classmethod
    def failed(cls, error):
        return cls(cls.ERROR, error=error)

    @classmethod
    def completed(cls):
        return cls(cls.COMPLETED)

    def __eq__(self, other):
        return (isinstance(other, Event) and self.kind == other.kind and self.value == other.value
                and (self.error is other.error or type(self.error) is type(other.error)
                     and str(self.error) == str(other.error)))

    def __repr__(self):
        if self.kind == self.NEXT:
            return "Event.next(%r)" % (self.value,)
        if self.kind == self.ERROR:
            return "Event.failed(%r)" % (self.error,)
        return "Event.completed()"


# ---------------------------------------------------------------------------
# Values.

_rpl_int, _rpl_double, _rpl_bool = lib.rpl_int, lib.rpl_double, lib.rpl_bool
_NIL = lib.rpl_nil()


# The hot path of a send. libffi passes a struct by value through a generic,
# slow path; rpl_value is 16 bytes of two INTEGER eightbytes (the payload
# union holds an int64_t), which x86-64 SysV and AArch64 pass exactly like two
# 64-bit integer arguments. So for int and float values the send functions
# are also called through a pointer typed (handle, uint64_t, int64_t): about
# half the cost. Enabled only on those little-endian ABIs, and only if a
# round trip through rpl_signal_return proves it at import.
_DBL, _I64 = struct.Struct("=d"), struct.Struct("=q")


def _fast(name):
    return ffi.cast("int32_t(*)(void *, uint64_t, int64_t)", ffi.addressof(lib, name))


def _fast_self_test():
    if platform.machine().lower() not in ("x86_64", "amd64", "aarch64", "arm64") or sys.byteorder != "little" \
            or ffi.sizeof("rpl_value") != 16:
        return False
    try:
        ret = ffi.cast("rpl_signal_t *(*)(uint64_t, int64_t)", ffi.addressof(lib, "rpl_signal_return"))
        for word0, word1, want, t in ((_T_INT, -0x123456789A, -0x123456789A, _T_INT),
                                      (_T_DOUBLE, _I64.unpack(_DBL.pack(2.5))[0], 2.5, _T_DOUBLE)):
            sig = ret(word0, word1)
            out = ffi.new("rpl_value *")
            ok = lib.rpl_signal_first(sig, out, 10**9) == 0 and out.type == t
            got = out.as_ if t == _T_INT else ffi.cast("rpl_value_view_ *", out).as_.d
            lib.rpl_release(sig)
            if not ok or got != want:
                return False
        return True
    except Exception:
        return False


FAST_SEND = _fast_self_test()


def _fast_sender(name):
    """send(handle, python_value) -> status, using the two-word call for
    ints and floats when FAST_SEND holds."""
    slow = getattr(lib, name)
    if not FAST_SEND:
        return lambda h, x: slow(h, _to_c(x))
    fast = _fast(name)

    def send(h, x, fast=fast, slow=slow, INT=_T_INT, DOUBLE=_T_DOUBLE, lo=_INT_MIN, hi=_INT_MAX,
             pack=_DBL.pack, unpack=_I64.unpack):
        t = type(x)
        if t is int and lo <= x <= hi:
            return fast(h, INT, x)
        if t is float:
            return fast(h, DOUBLE, unpack(pack(x))[0])
        return slow(h, _to_c(x))
    return send


def _sender(handle, subscriber=False):
    """send(value) for a subject (or subscriber) handle: the compiled core's
    Sender (the GIL released while Ripple delivers), or a cffi closure."""
    if _cext is not None:
        return _cext.Sender(_address(handle), subscriber)
    fast = _fast_sender("rpl_subscriber_send_next" if subscriber else "rpl_subject_send_next")

    def send(x):
        if fast(handle, x) < 0:
            raise _last_error()
    return send


def _to_c(x):
    """An rpl_value cdata (owning any box) for the Python object x."""
    t = type(x)
    if t is int:  # scalars: the C constructors are the cheapest way in ABI mode
        if _INT_MIN <= x <= _INT_MAX:
            return _rpl_int(x)
    elif t is float:
        return _rpl_double(x)
    elif t is bool:
        return _rpl_bool(x)
    elif x is None:
        return _NIL
    elif t is str:
        b = x.encode("utf-8", "surrogatepass")
        return lib.rpl_string_n(b, len(b))
    elif t is bytes:
        return lib.rpl_bytes(x, len(x))
    elif t is tuple:
        n = len(x)
        items = ffi.new("rpl_value[]", max(n, 1))
        for i, item in enumerate(x):
            items[i] = _to_c(item)
        return lib.rpl_tuple(items, n)
    elif isinstance(x, Signal):
        return lib.rpl_signal_value(x._c())
    elif t is Event:
        if x.kind == Event.NEXT:
            return lib.rpl_event_next(_to_c(x.value))
        if x.kind == Event.ERROR:
            return lib.rpl_event_error(_err_from_exc(x.error))
        return lib.rpl_event_completed()
    # Any other object (also subclasses of int/str/tuple, and ints beyond
    # int64) travels as a pointer value that keeps it alive.
    h = ffi.new_handle(x)
    _objects[h] = h
    return lib.rpl_pointer(h, _release_object)


def _from_c(v):
    """The Python object for a borrowed `const rpl_value *`."""
    t = v.type
    if t == _T_INT:
        return v.as_
    if t == _T_DOUBLE:
        return ffi.cast("rpl_value_view_ *", v).as_.d
    if t == _T_NIL:
        return None
    if t == _T_BOOL:
        return ffi.cast("rpl_value_view_ *", v).as_.b
    return _from_c_boxed(v, t)


def _from_c_boxed(v, t):
    if t == _T_STRING:
        n = ffi.new("size_t *")
        p = lib.rpl_value_string(v, n)
        return ffi.unpack(p, n[0]).decode("utf-8", "surrogatepass")
    if t == _T_BYTES:
        n = ffi.new("size_t *")
        p = lib.rpl_value_bytes(v, n)
        return ffi.unpack(ffi.cast("const char *", p), n[0]) if n[0] else b""
    if t == _T_TUPLE:
        return tuple(_take(lib.rpl_value_tuple_at(v, i)) for i in range(lib.rpl_value_tuple_count(v)))
    if t == _T_POINTER:
        p = lib.rpl_value_pointer(v)
        if p in _objects:
            return ffi.from_handle(p)
        return Pointer(int(ffi.cast("uintptr_t", p)))
    if t == _T_SIGNAL:
        return Signal._borrowed(lib.rpl_value_signal(v))
    if t == _T_EVENT:
        kind = lib.rpl_value_event_kind(v)
        if kind == lib.RPL_EVENT_NEXT:
            return Event.next(_take(lib.rpl_value_event_value(v)))
        if kind == lib.RPL_EVENT_ERROR:
            return Event.failed(_exc_from_err(lib.rpl_value_event_error(v)))
        return Event.completed()
    raise RippleError("ripple: unknown value type %d" % t)


def _take(value):
    """Converts an owned rpl_value (a +1 struct) and releases it."""
    p = ffi.new("rpl_value *", value)
    try:
        return _from_c(p)
    finally:
        lib.rpl_value_release(p)


def _ns(seconds):
    """Seconds (float) or None (forever) to a nanosecond timeout."""
    if seconds is None:
        return RPL_FOREVER
    if seconds < 0:
        raise ValueError("a timeout cannot be negative")
    return int(seconds * 1e9)


def _owned(ptr):
    """Wraps a +1 handle so Python releases it; NULL raises the last error."""
    if ptr == _NULL:
        raise _last_error()
    return _gc(ptr)


def _retained(ptr):
    """A new reference (+1, released by Python) to a borrowed handle."""
    if ptr == _NULL:
        raise _last_error()
    return _gc(lib.rpl_retain(ptr))


def _hand_over(cdata):
    """A +1 reference for C to take (e.g. a callback's returned signal)."""
    return lib.rpl_retain(cdata)


# ---------------------------------------------------------------------------
# The per-event path: the compiled core (ripple/_cext.c, built at install with
# the system compiler) or, where none was built, cffi callbacks (ABI mode).

def _load_cext():
    """The compiled core module, or (None, why not)."""
    if os.environ.get("RIPPLE_PURE"):
        return None, "RIPPLE_PURE is set"
    if importlib.util.find_spec(__name__.rpartition(".")[0] + "._cext") is None:
        return None, "the compiled core was not built at install time (no C compiler or no ripple.h then)"
    try:
        from . import _cext as mod
    except ImportError as e:
        return None, "the compiled core does not load (%s)" % e
    return mod, None


_cext, NATIVE_REASON = _load_cext()


class _HandleDisposable:
    """The fallback's disposable: a +1 rpl_disposable_t cdata."""

    __slots__ = ("_handle",)

    def dispose(self):
        _check(lib.rpl_disposable_dispose(self._handle))

    @property
    def is_disposed(self):
        return bool(lib.rpl_disposable_is_disposed(self._handle))

    def _addr(self):
        return int(ffi.cast("uintptr_t", self._handle))

    def _take(self, addr):
        self._handle = _gc(ffi.cast("rpl_disposable_t *", addr))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.dispose()
        return False


_DisposableBase = _cext.DisposableBase if _cext is not None else _HandleDisposable


def _address(cdata):
    return int(ffi.cast("uintptr_t", cdata))


# ---------------------------------------------------------------------------
# Disposables.

class Disposable(_DisposableBase):  # type: ignore[misc,valid-type]
    """A rpl_disposable_t. dispose() is idempotent and thread-safe. Also a
    context manager: ``with sig.subscribe(...):`` disposes on exit."""

    __slots__ = () if _cext is not None else ("__weakref__",)  # the compiled base has weak references

    def __init__(self, fn: Optional[Callable[[], Any]] = None) -> None:
        """Disposable(fn): calls fn() once, on the first dispose(). As in RAC,
        releasing it undisposed does not call fn; fn is dropped then (through
        rpl_disposable_create_with_release), or right after it ran."""
        if fn is None:
            ptr = lib.rpl_disposable_create(ffi.NULL, ffi.NULL)
        else:
            ptr = lib.rpl_disposable_create_with_release(_action_dispose, _ctx(_Action(fn)), _release_ctx)
        if ptr == _NULL:
            raise _last_error()
        self._take(_address(ptr))

    @classmethod
    def _wrap(cls, ptr):
        """A Disposable owning a new reference to the handle cdata ptr."""
        d = cls.__new__(cls)
        d._take(_address(lib.rpl_retain(ptr)))
        return d

    @property
    def _ptr(self):
        """The handle (borrowed from this object)."""
        return ffi.cast("rpl_disposable_t *", self._addr())

    def __repr__(self):
        return "<ripple.%s %s>" % (type(self).__name__, "disposed" if self.is_disposed else "active")


class _Action:
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


@_cb("void(*)(void *)", "void(uintptr_t)")
def _action_dispose(ctx):
    action = _live.pop(ctx, None)
    if action is None:
        return
    try:
        action.fn()
    except BaseException as e:
        _report(e)


class CompoundDisposable(Disposable):
    """Disposes every disposable added to it (RAC's RACCompoundDisposable)."""

    __slots__ = ()

    def __init__(self, *items: Any) -> None:
        self._take(_address(_owned_raw(lib.rpl_compound_disposable_create())))
        for d in items:
            self.add(d)

    def add(self, d: "Disposable | Callable[[], Any]") -> None:
        item = _as_disposable(d)  # alive during the call: _ptr is borrowed from it
        _check(lib.rpl_compound_disposable_add(self._ptr, item._ptr))

    def remove(self, d: "Disposable") -> None:
        _check(lib.rpl_compound_disposable_remove(self._ptr, d._ptr))


class SerialDisposable(Disposable):
    """Holds at most one disposable; disposing it disposes that one."""

    __slots__ = ()

    def __init__(self):
        self._take(_address(_owned_raw(lib.rpl_serial_disposable_create())))

    def swap(self, d: "Optional[Disposable | Callable[[], Any]]") -> "Optional[Disposable]":
        """Puts d (or None) in and returns the previous one (not disposed)."""
        item = _as_disposable(d) if d is not None else None  # alive during the call
        old = lib.rpl_serial_disposable_swap(self._ptr, item._ptr if item is not None else ffi.NULL)
        if old == _NULL:  # nothing was there (the arguments are checked Python objects)
            return None
        out = Disposable.__new__(Disposable)
        out._take(_address(old))
        return out


def _owned_raw(ptr):
    if ptr == _NULL:
        raise _last_error()
    return ptr


def _as_disposable(d):
    if isinstance(d, Disposable):
        return d
    if callable(d):
        return Disposable(d)
    raise TypeError("expected a ripple.Disposable or a callable, got %r" % (d,))


# ---------------------------------------------------------------------------
# Subscriber: what Signal.create's function sends to.

class Subscriber:
    """The receiving end of one subscription to a Signal.create signal. Keep it
    to send later, from any thread."""

    __slots__ = ("_ptr", "send_next")

    def __init__(self, ptr):
        self._ptr = ptr
        self.send_next = _sender(ptr, True)  # send_next(value): to this subscriber, synchronously

    @property
    def on_next(self):
        """The same as send_next."""
        return self.send_next

    def send_error(self, exc: Optional[BaseException] = None) -> None:
        _check(lib.rpl_subscriber_send_error(self._ptr, _err_from_exc(exc) if exc is not None else ffi.NULL))

    on_error = send_error

    def send_completed(self) -> None:
        _check(lib.rpl_subscriber_send_completed(self._ptr))

    on_completed = send_completed

    @property
    def is_disposed(self):
        return bool(lib.rpl_subscriber_is_disposed(self._ptr))


@_cb("rpl_subscribe_fn", "rpl_disposable_t *(uintptr_t, rpl_subscriber_t *)")
def _create_subscribe(ctx, sub):
    fn = _live[ctx]
    s = Subscriber(_retained(sub))
    try:
        r = fn(s)
    except BaseException as e:
        lib.rpl_subscriber_send_error(sub, _err_from_exc(e))
        return ffi.NULL
    if r is None:
        return ffi.NULL
    try:
        d = _as_disposable(r)  # alive during the call: _ptr is borrowed from it
        return _hand_over(d._ptr)
    except BaseException as e:
        lib.rpl_subscriber_send_error(sub, _err_from_exc(e))
        return ffi.NULL


# ---------------------------------------------------------------------------
# Callbacks. Every operator is the C one; a Python callback is its ctx. In the
# compiled core the C functions live in _cext (ctx: a reference to the Python
# callable); without it they are cffi callbacks (ctx: an id in _live). Either
# way an exception in an operator callback becomes the operator's error
# through rpl_callback_fail, carrying the exception (a Python on_error gets
# the same object back); an exception in an observer goes to the handler.

def _fail(exc):
    """Inside an operator callback: fail the operator with exc."""
    if lib.rpl_callback_fail(lib.rpl_retain(_err_from_exc(exc))) != lib.RPL_OK:
        _report(exc)  # not inside an operator callback: nobody downstream


_scheduler_labels: Dict[int, str] = {}  # serial schedulers made from Python: address -> full label


def _exc_name_thread(name):
    """Names the Python thread of a Ripple thread (the compiled core calls it
    at the thread's first callback): its scheduler's full label when it is a
    Scheduler.serial, else the OS thread name Ripple gave it."""
    label = _scheduler_labels.get(_address(lib.rpl_scheduler_current()))
    try:
        threading.current_thread().name = label or name
    except Exception:
        pass


def _fanout(x, fns, report=_report):
    """The compiled core's fan-out of one value to a subject's Python
    subscribers (fns: their on_next callables, _skip for a disposed one):
    one call from C, then Python-to-Python calls, which CPython makes
    without a C frame (cheaper than a call from C each)."""
    it = iter(fns)
    while True:
        try:
            for fn in it:
                fn(x)
            return
        except BaseException as exc:  # that subscriber's: reported, the others go on
            report(exc)


def _skip(x):
    pass


if _cext is not None:
    def _to_c_into(x, address):
        ffi.cast("rpl_value *", address)[0] = _to_c(x)

    try:
        _cext.init(LIBRARY_PATH, (
            _to_c_into,
            lambda address: _from_c(ffi.cast("rpl_value *", address)),
            lambda address: _exc_from_err(ffi.cast("rpl_error_t *", address)),
            lambda exc: _address(lib.rpl_retain(_err_from_exc(exc))),
            _report,
            _exc_name_thread,
            _fanout,
            _skip,
            _last_error,
        ), Disposable)
    except (ImportError, TypeError) as e:
        raise ImportError("ripple: the compiled core does not fit the loaded library (%s); reinstall the "
                          "package against it, or set RIPPLE_PURE=1" % e) from e
    atexit.register(_cext.set_exiting)

    def _k(name, ctype):
        return ffi.cast(ctype, getattr(_cext, name))

    _MAP: Any
    _REDUCE: Any
    _ITEMS: Any
    _PREDICATE: Any
    _EQUAL: Any
    _ACTION: Any
    _MAP, _REDUCE, _ITEMS = _k("MAP", "rpl_map_fn"), _k("REDUCE", "rpl_reduce_fn"), _k("ITEMS", "void *")
    _PREDICATE, _EQUAL = _k("PREDICATE", "rpl_predicate_fn"), _k("EQUAL", "void *")
    _DO_NEXT, _DO_ERROR = _k("DO_NEXT", "rpl_do_next_fn"), _k("DO_ERROR", "rpl_do_error_fn")
    _ACTION, _RELEASE = _k("ACTION", "void(*)(void *)"), _k("RELEASE", "rpl_release_fn")

    def _fn_ctx(fn):
        """The ctx for a callback kind above: a new reference to fn (RELEASE drops it)."""
        return ffi.cast("void *", _cext.ctx(fn))

    def _subscribe(sig, on_next, on_error, on_completed):
        return _cext.subscribe(_address(sig), on_next, on_error, on_completed)
else:
    import warnings
    warnings.warn("ripple: running on cffi in ABI mode (slower per event): " + NATIVE_REASON,
                  RuntimeWarning, stacklevel=3)

    def _operator_callback(c_type, py_sig, args, result=None, failed=None):
        """A cffi callback of an operator: calls _live[ctx] with args(*c_args),
        returns result(its return value); an exception fails the operator."""
        def trampoline(ctx, *c_args):
            try:
                r = _live[ctx](*args(*c_args))
                return result(r) if result is not None else None
            except BaseException as exc:
                _fail(exc)
                return failed
        return _cb(c_type, py_sig)(trampoline)

    def _one(v):
        return (_from_c(v),)

    def _two(a, b):
        return (_from_c(a), _from_c(b))

    _V = "const rpl_value *"
    _MAP = _operator_callback("rpl_map_fn", "rpl_value(uintptr_t, %s)" % _V, _one, _to_c, _NIL)
    _REDUCE = _operator_callback("rpl_reduce_fn", "rpl_value(uintptr_t, %s, %s)" % (_V, _V), _two, _to_c, _NIL)
    _ITEMS = _operator_callback("void *", "rpl_value(uintptr_t, %s, size_t)" % _V,
                                lambda items, n: [_from_c(items + i) for i in range(n)], _to_c, _NIL)
    _PREDICATE = _operator_callback("rpl_predicate_fn", "bool(uintptr_t, %s)" % _V, _one, bool, False)
    _EQUAL = _operator_callback("void *", "bool(uintptr_t, %s, %s)" % (_V, _V), _two, bool, False)
    _DO_NEXT = _operator_callback("rpl_do_next_fn", "void(uintptr_t, %s)" % _V, _one)
    _DO_ERROR = _operator_callback("rpl_do_error_fn", "void(uintptr_t, const rpl_error_t *)",
                                   lambda e: (_exc_from_err(e),))
    _ACTION = _operator_callback("void(*)(void *)", "void(uintptr_t)", lambda: ())

    _RELEASE = _release_ctx
    _fn_ctx = _ctx

    class _Obs:
        """The ctx of one subscription made from Python (fallback)."""

        __slots__ = ("on_next", "on_error", "on_completed")

        def __init__(self, on_next, on_error, on_completed):
            self.on_next, self.on_error, self.on_completed = on_next, on_error, on_completed

    @_cb("void(*)(void *, const rpl_value *)", "void(uintptr_t, const rpl_value *)")
    def _obs_next(ctx, v, _live=_live, INT=_T_INT):
        fn = _live[ctx].on_next
        if fn is not None:
            try:
                fn(v.as_ if v.type == INT else _from_c(v))
            except BaseException as exc:
                _report(exc)

    @_cb("void(*)(void *, const rpl_error_t *)", "void(uintptr_t, const rpl_error_t *)")
    def _obs_error(ctx, e):
        fn, err = _live[ctx].on_error, _exc_from_err(e)
        if fn is None:
            _report(err)  # an error nobody observes is not lost either
            return
        try:
            fn(err)
        except BaseException as exc:
            _report(exc)

    @_cb("void(*)(void *)", "void(uintptr_t)")
    def _obs_completed(ctx):
        fn = _live[ctx].on_completed
        if fn is not None:
            try:
                fn()
            except BaseException as exc:
                _report(exc)

    def _subscribe(sig, on_next, on_error, on_completed):
        o = ffi.new("rpl_observer *")
        o.version = RPL_OBSERVER_VERSION
        o.on_next = _obs_next
        o.on_error = _obs_error
        o.on_completed = _obs_completed
        o.release = _release_ctx
        o.ctx = _ctx(_Obs(on_next, on_error, on_completed))
        d = lib.rpl_signal_subscribe(sig, o)
        if d == _NULL:
            raise _last_error()
        out = Disposable.__new__(Disposable)
        out._take(_address(d))
        return out

NATIVE = _cext is not None


# ---------------------------------------------------------------------------
# Signals.

_MISSING = object()

# The operators are mixins of Signal, one module per group; they use the
# helpers above, so they are imported here, after them.
from ._ops import Operators  # noqa: E402
from ._ops02 import Operators02  # noqa: E402
from ._io import OSSources  # noqa: E402


class Signal(Operators, Operators02, OSSources):
    """A reactive signal: a C rpl_signal_t.

    Cold signals run their subscribe function once per subscriber. Methods
    return new signals; nothing runs until subscribe() (or a blocking helper).
    """

    __slots__ = ("_ptr", "__weakref__")

    def __init__(self, _ptr: Any) -> None:
        self._ptr = _ptr

    # -- internals
    @classmethod
    def _own(cls, ptr: Any) -> "Signal":
        return cls(_owned(ptr))

    @classmethod
    def _borrowed(cls, ptr: Any) -> "Signal":
        return cls(_retained(ptr))

    def _c(self) -> Any:
        """The C signal (borrowed from this object)."""
        return self._ptr

    # -- names and logging (ripple.h "Names, tracing and counting")
    @property
    def name(self) -> str:
        """The signal's name: RAC-style from its inputs ("[+subject] -map:")
        unless one was set. A signal with Python stages is named as a relay."""
        p = lib.rpl_signal_name(self._c())
        if p == _NULL:
            raise _last_error()
        return ffi.string(p).decode("utf-8", "replace")

    @name.setter
    def name(self, value: str) -> None:
        _check(lib.rpl_signal_set_name(self._c(), str(value).encode("utf-8")))

    def set_name(self, value: str) -> "Signal":
        """Sets the name and returns this signal (for chaining)."""
        self.name = value
        return self

    def log(self, label: Optional[str] = None) -> "Signal":
        """RAC's logAll: a signal writing each event to stderr as
        "label: next 1" (label None: this signal's name)."""
        c_label = _NULL if label is None else str(label).encode("utf-8")
        return Signal._own(lib.rpl_signal_log(self._c(), c_label))

    # -- constructors
    @classmethod
    def create(cls, fn: Callable[["Subscriber"], Any]) -> "Signal":
        """A cold signal: fn(subscriber) runs at each subscription and sends with
        subscriber.send_next(v) / send_error(exc) / send_completed(), now or
        later from any thread. It may return a Disposable or a callable to run
        when the subscription ends. An exception it raises becomes the error."""
        if not callable(fn):
            raise TypeError("Signal.create needs a callable")
        return cls._own(lib.rpl_signal_create(_create_subscribe, _ctx(fn), _release_ctx))

    @classmethod
    def return_(cls, value: Any) -> "Signal":
        """Sends value, then completes."""
        return cls._own(lib.rpl_signal_return(_to_c(value)))

    just = return_

    @classmethod
    def empty(cls) -> "Signal":
        return cls._own(lib.rpl_signal_empty())

    @classmethod
    def never(cls) -> "Signal":
        return cls._own(lib.rpl_signal_never())

    @classmethod
    def error(cls, exc: Optional[BaseException] = None) -> "Signal":
        """Fails every subscriber with exc (an exception; None: a generic error)."""
        return cls._own(lib.rpl_signal_error(_err_from_exc(exc) if exc is not None else ffi.NULL))

    @classmethod
    def defer(cls, factory: Callable[[], "Signal"]) -> "Signal":
        """Calls factory() at each subscription and subscribes to the signal it returns."""
        return cls._own(lib.rpl_signal_defer(_defer_factory, _ctx(factory), _release_ctx))

    @classmethod
    def from_iterable(cls, iterable: Iterable[Any]) -> "Signal":
        """Sends each item of iterable, then completes. A list or tuple is
        rpl_signal_from_array of its items (taken now); any other iterable
        (a generator, a file, ...) is iterated afresh per subscription, as the
        body of a Signal.create."""
        if type(iterable) in (list, tuple) and has("rpl_signal_from_array"):
            return cls.from_array(iterable)  # type: ignore[attr-defined]

        def body(sub):
            try:
                for x in iterable:
                    if sub.is_disposed:
                        return
                    sub.send_next(x)
            except BaseException as exc:
                sub.send_error(exc)
                return
            sub.send_completed()
        return cls.create(body)

    @classmethod
    def of(cls, *values: Any) -> "Signal":
        """The signal of values (from_iterable of them)."""
        return cls.from_iterable(values)

    # -- subscribing
    def subscribe(self, on_next: Optional[Callable[[Any], Any]] = None,
                  on_error: Optional[Callable[[BaseException], Any]] = None,
                  on_completed: Optional[Callable[[], Any]] = None) -> "Disposable":
        """Subscribes callbacks and returns the subscription's Disposable (also a
        context manager). Exceptions the callbacks raise go to the exception
        handler (see set_exception_handler); an error with no on_error too. The
        callbacks are released when the subscription ends (terminates or is
        disposed)."""
        return _subscribe(self._ptr, on_next, on_error, on_completed)

    # -- blocking helpers (release the GIL while waiting)
    def first(self, timeout: Optional[float] = None, default: Any = _MISSING) -> Any:
        """The first value. Raises the signal's error, RippleTimeoutError, or
        NoValueError if it completed empty (unless default is given)."""
        out = ffi.new("rpl_value *")
        st = lib.rpl_signal_first(self._c(), out, _ns(timeout))
        if st == lib.RPL_OK:
            try:
                return _from_c(out)
            finally:
                lib.rpl_value_release(out)
        if st == lib.RPL_ERR_NO_VALUE and default is not _MISSING:
            return default
        raise _blocking_error(st)

    def wait(self, timeout: Optional[float] = None) -> None:
        """Waits until the signal terminates; raises its error or a timeout."""
        st = lib.rpl_signal_wait(self._c(), _ns(timeout))
        if st != lib.RPL_OK:
            raise _blocking_error(st)

    def to_list(self, timeout: Optional[float] = None) -> List[Any]:
        """Every value, once the signal completes."""
        out = ffi.new("rpl_value *")
        st = lib.rpl_signal_to_array(self._c(), out, _ns(timeout))
        if st != lib.RPL_OK:
            raise _blocking_error(st)
        try:
            return list(_from_c(out))
        finally:
            lib.rpl_value_release(out)

    def to_iter(self, timeout: Optional[float] = None) -> Iterator[Any]:
        """Iterates the values as they arrive: `for x in sig.to_iter(timeout=1)`.
        timeout bounds the wait for each event (RippleTimeoutError). Leaving the
        loop early disposes the subscription."""
        q: "_queue.SimpleQueue[Any]" = _queue.SimpleQueue()
        d = self.subscribe(lambda x: q.put((0, x)), lambda e: q.put((1, e)), lambda: q.put((2, None)))
        try:
            while True:
                try:
                    kind, x = q.get(timeout=timeout)
                except _queue.Empty:
                    raise RippleTimeoutError("to_iter: no event within %s s" % timeout, "ripple",
                                             lib.RPL_ERROR_TIMEOUT) from None
                if kind == 0:
                    yield x
                elif kind == 1:
                    raise x
                else:
                    return
        finally:
            d.dispose()

    # -- asyncio
    def __aiter__(self) -> AsyncIterator[Any]:
        return self._aiter()

    async def _aiter(self):
        loop = asyncio.get_running_loop()
        q = asyncio.Queue()

        def put(item):
            try:
                loop.call_soon_threadsafe(q.put_nowait, item)
            except RuntimeError:  # the loop is closed: nobody is listening
                pass

        d = self.subscribe(lambda x: put((0, x)), lambda e: put((1, e)), lambda: put((2, None)))
        try:
            while True:
                kind, x = await q.get()
                if kind == 0:
                    yield x
                elif kind == 1:
                    raise x
                else:
                    return
        finally:
            d.dispose()

    async def first_async(self, timeout: Optional[float] = None, default: Any = _MISSING) -> Any:
        """Awaits the first value (the asyncio form of first())."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()

        def settle(kind, x):
            def apply():
                if fut.done():
                    return
                if kind == 0:
                    fut.set_result(x)
                elif kind == 1:
                    fut.set_exception(x)
                elif default is not _MISSING:
                    fut.set_result(default)
                else:
                    fut.set_exception(NoValueError("the signal completed without a value", "ripple", 0))
            try:
                loop.call_soon_threadsafe(apply)
            except RuntimeError:
                pass

        d = self.subscribe(lambda x: settle(0, x), lambda e: settle(1, e), lambda: settle(2, None))
        try:
            if timeout is None:
                return await fut
            try:
                return await asyncio.wait_for(fut, timeout)
            except asyncio.TimeoutError:
                raise RippleTimeoutError("first_async: no value within %s s" % timeout, "ripple",
                                         lib.RPL_ERROR_TIMEOUT) from None
        finally:
            d.dispose()

    # -- operators with Python callbacks (the C operators; see "Callbacks")
    def _with_fn(self, cfn: Any, kind: Any, fn: Callable[..., Any], *args: Any) -> "Signal":
        if not callable(fn):
            raise TypeError("expected a callable, got %r" % (fn,))
        return Signal._own(cfn(self._ptr, *args, kind, _fn_ctx(fn), _RELEASE))

    def map(self, f: Callable[[Any], Any]) -> "Signal":
        """Each value through f. An exception in f is the error downstream."""
        return self._with_fn(lib.rpl_signal_map, _MAP, f)

    select = map

    def filter(self, predicate: Callable[[Any], Any]) -> "Signal":
        """Only values for which predicate(v) is true."""
        return self._with_fn(lib.rpl_signal_filter, _PREDICATE, predicate)

    where = filter

    def scan(self, initial: Any, f: Callable[[Any, Any], Any]) -> "Signal":
        """Sends each running accumulation f(acc, v), starting from initial."""
        return self._with_fn(lib.rpl_signal_scan, _REDUCE, f, _to_c(initial))

    def aggregate(self, initial: Any, f: Callable[[Any, Any], Any]) -> "Signal":
        """Sends the final accumulation once the signal completes (initial if empty)."""
        return self._with_fn(lib.rpl_signal_aggregate, _REDUCE, f, _to_c(initial))

    reduce = aggregate

    def take_while(self, predicate: Callable[[Any], Any]) -> "Signal":
        """Values while predicate(v) holds, then completes."""
        return self._with_fn(lib.rpl_signal_take_while, _PREDICATE, predicate)

    def skip_while(self, predicate: Callable[[Any], Any]) -> "Signal":
        """Drops values while predicate(v) holds, then passes everything."""
        return self._with_fn(lib.rpl_signal_skip_while, _PREDICATE, predicate)

    def do(self, on_next: Optional[Callable[[Any], Any]] = None,
           on_error: Optional[Callable[[BaseException], Any]] = None,
           on_completed: Optional[Callable[[], Any]] = None) -> "Signal":
        """Side effects, events passed on unchanged (on_error gets the exception).
        An exception in one of them is the error downstream."""
        out = self
        if on_next is not None:
            out = out.do_next(on_next)
        if on_error is not None:
            out = out.do_error(on_error)
        if on_completed is not None:
            out = out.do_completed(on_completed)
        return out

    def do_next(self, f: Callable[[Any], Any]) -> "Signal":
        """Calls f(v) before passing each value on."""
        return self._with_fn(lib.rpl_signal_do_next, _DO_NEXT, f)

    def do_error(self, f: Callable[[BaseException], Any]) -> "Signal":
        """Calls f(exception) before passing the error on."""
        return self._with_fn(lib.rpl_signal_do_error, _DO_ERROR, f)

    def do_completed(self, f: Callable[[], Any]) -> "Signal":
        """Calls f() before passing the completion on."""
        return self._with_fn(lib.rpl_signal_do_completed, _ACTION, f)

    def __repr__(self) -> str:
        return "<ripple.%s %s>" % (type(self).__name__, self.name)


def _blocking_error(st):
    if st == lib.RPL_ERR_FAILED:
        return _exc_from_err(lib.rpl_last_signal_error())
    msg = ffi.string(lib.rpl_last_error_message()).decode("utf-8", "replace")
    if st == lib.RPL_ERR_TIMEOUT:
        return RippleTimeoutError(msg, "ripple", lib.RPL_ERROR_TIMEOUT)
    if st == lib.RPL_ERR_NO_VALUE:
        return NoValueError(msg, "ripple.status", st)
    return StatusError(st, msg)


def _signal_result(produce, *args):
    """Calls a Python function that must return a Signal; returns a +1 C
    signal for the runtime. An exception becomes an error signal."""
    try:
        s = produce(*args)
        if not isinstance(s, Signal):
            raise TypeError("expected a ripple.Signal, got %r" % (s,))
        return _hand_over(s._c())
    except BaseException as exc:
        return lib.rpl_signal_error(_err_from_exc(exc))


@_cb("rpl_signal_t *(*)(void *)", "rpl_signal_t *(uintptr_t)")
def _defer_factory(ctx):
    return _signal_result(_live[ctx])


def clear_error_cache() -> None:
    """Forgets the Python exceptions remembered for errors that crossed into C
    (at most 256 are kept, so that a Python on_error receives the original
    exception object); their tracebacks are then released."""
    with _py_errors_lock:
        _py_errors.clear()


_immortal(_release_object, _cffi_onerror, _release_handle, _callbacks)




# ---------------------------------------------------------------------------
# Tracing and counting (ripple.h rpl_trace_set, rpl_trace_write, rpl_live_objects).

def live_objects() -> int:
    """Runtime objects alive now (handles and boxed values, not the shared
    schedulers): compare before and after some work to find leaks. Python
    keeps handles until its objects are collected, so run gc.collect() first."""
    return lib.rpl_live_objects()


TraceEvent = collections.namedtuple("TraceEvent", "kind signal_name subscription value error")
TraceEvent.__doc__ = """One traced event: kind is "subscribe", "next", "error", "completed" or
"dispose"; value (next) and error (error) are converted copies, else None."""

_TRACE_KINDS = ("subscribe", "next", "error", "completed", "dispose")
_trace_fn: List[Optional[Callable[[Any], Any]]] = [None]


# One immortal C hook for the process; it calls whatever _trace_fn holds, so
# replacing or clearing the Python function never frees code C may be running.
@ffi.callback("void(void *, const rpl_trace_event *)", onerror=_cffi_onerror)
def _trace_hook(ctx, e, _fn=_trace_fn):
    fn = _fn[0]
    if fn is None:
        return
    try:
        value = _from_c(e.value) if e.value != _NULL else None
        error = _exc_from_err(e.error) if e.error != _NULL else None
        fn(TraceEvent(_TRACE_KINDS[e.kind], ffi.string(e.signal_name).decode("utf-8", "replace"),
                      e.subscription, value, error))
    except BaseException as exc:
        _report(exc)


_immortal(_trace_hook)


def set_trace(fn: Optional[Callable[[Any], Any]]) -> Optional[Callable[[Any], Any]]:
    """Sets the process-wide trace hook: fn(TraceEvent) is called for every
    subscribe, next, error, completed and dispose of every subscription, on
    the thread of the event. fn must not subscribe, send or dispose (it runs
    inside a delivery). None turns tracing off. Returns the previous fn."""
    old = _trace_fn[0]
    _trace_fn[0] = fn
    _check(lib.rpl_trace_set(_trace_hook if fn is not None else _NULL, _NULL))
    return old


def trace_write(file: Any) -> None:
    """Writes every event as one JSON line to file, for the ripple-trace
    command to draw as a timeline (ripple.h rpl_trace_write). file is a
    file descriptor or an object with fileno() (it is flushed first); the
    runtime writes to its own duplicate, so file may be closed at once.
    None (or -1) stops and writes out what is pending. Shares the one hook
    slot with set_trace: each replaces the other. Raises RippleError for a
    descriptor that is not open for writing, and when the file it ends had a
    write fail (its message says why and how many events were lost).
    RIPPLE_TRACE=path in the environment does the same from load time."""
    if file is None:
        fd = -1
    elif isinstance(file, int):
        fd = file
    else:
        file.flush()
        fd = file.fileno()
    _check(lib.rpl_trace_write(fd))


class trace:
    """Traces while the block runs and restores the previous hook after:

        with ripple.trace(events.append):
            ...
    """

    def __init__(self, fn):
        self._fn = fn
        self._old = None

    def __enter__(self):
        self._old = set_trace(self._fn)
        return self

    def __exit__(self, *exc):
        set_trace(self._old)
        return False
