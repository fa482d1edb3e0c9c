"""Ripple signals across processes and machines through NATS: libripple-nats
(ripple_nats.h) for Python.

    from ripple import nats
    with nats.connect("nats://127.0.0.1:4222") as nc:
        nc.subscribe("sensors.>").subscribe(print)
        nc.publish(ripple.Signal.of(1, 2, 3), "sensors.a")

libripple-nats is found through RIPPLE_NATS_LIBRARY (a path), else beside the
libripple that ``ripple`` loaded, else on the default loader path. Values
travel as MessagePack by default (None, bool, int, float, str, bytes and
tuples); with ``codec=nats.CODEC_RAW`` payloads are bytes both ways.

A failed call raises ripple.StatusError: its ``status`` is the C status
(e.g. ``lib.RPL_ERR_INVALID`` for an invalid subject, ``lib.RPL_ERR_FAILED``
when the server refused) and its message the library's, e.g.
"rpl_nats_connect: Authorization Violation". Errors in signals are
ripple.RippleError with domain ``ERROR_DOMAIN`` ("nats") and a NATS client
status as code, or domain "ripple" (a request's timeout is a
RippleTimeoutError).

Events arrive on a thread of the NATS client; compose ``deliver_on`` to move
them. ``Connection.close()`` (or the end of a ``with`` block, or the
Connection being collected) closes the connection: the status signal sends
CLOSED and completes, data subscriptions complete.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Callable, Optional

from . import _core
from ._core import LIBRARY_PATH, Disposable, Signal, _cb, _ctx, _from_c, _last_error, _live, _release_ctx, ffi, lib

__all__ = [
    "CLOSED", "CODEC_MSGPACK", "CODEC_RAW", "CONNECTED", "Connection", "DISCONNECTED", "ERROR_DOMAIN", "RECONNECTED",
    "ERR_AUTH_FAILED", "ERR_CONNECTION_CLOSED", "ERR_INVALID_ARG", "ERR_INVALID_SUBJECT", "ERR_MAX_PAYLOAD",
    "ERR_NOT_FOUND", "ERR_NOT_PERMITTED", "ERR_NO_RESPONDERS", "ERR_NO_SERVER", "ERR_SECURE_REQUIRED",
    "ERR_SLOW_CONSUMER", "ERR_SSL", "ERR_TIMEOUT", "LIBRARY_PATH_NATS", "OPTIONS_VERSION", "connect",
]

# The declarations of ripple_nats.h that the module uses (its types come from
# ripple.h, already declared on the same ffi).
_CDEF = """
typedef struct rpl_nats rpl_nats_t;
typedef struct rpl_nats_options { uint32_t version; const char *name; const char *token;
    const char *user, *password, *creds_file; const char *tls_ca, *tls_cert, *tls_key;
    uint64_t reconnect_wait_ns; int32_t max_reconnects; int32_t codec; } rpl_nats_options;
rpl_nats_t *rpl_nats_connect(const char *urls, const rpl_nats_options *opts);
rpl_signal_t *rpl_nats_status(rpl_nats_t *nc);
rpl_signal_t *rpl_nats_subscribe(rpl_nats_t *nc, const char *subject, const char *queue_group);
rpl_signal_t *rpl_nats_subscribe_messages(rpl_nats_t *nc, const char *subject, const char *queue_group);
rpl_disposable_t *rpl_nats_publish(rpl_nats_t *nc, rpl_signal_t *sig, const char *subject);
rpl_signal_t *rpl_nats_request(rpl_nats_t *nc, const char *subject, rpl_value request, uint64_t timeout_ns);
rpl_disposable_t *rpl_nats_serve(rpl_nats_t *nc, const char *subject, const char *queue_group,
    rpl_signal_t *(*fn)(void *ctx, const rpl_value *request), void *ctx, rpl_release_fn release);
rpl_status rpl_nats_stream_ensure(rpl_nats_t *nc, const char *stream, const char *subjects, int32_t replicas);
rpl_signal_t *rpl_nats_stream_publish(rpl_nats_t *nc, rpl_signal_t *sig, const char *subject);
rpl_signal_t *rpl_nats_stream_subscribe(rpl_nats_t *nc, const char *stream, const char *durable,
    uint64_t start_sequence);
"""

# ripple_nats.h's constants (checked against the library by the C tests).
OPTIONS_VERSION = 1
CODEC_MSGPACK: int = 0
CODEC_RAW: int = 1
CONNECTED: int = 1
DISCONNECTED: int = 2
RECONNECTED: int = 3
CLOSED: int = 4
ERROR_DOMAIN = "nats"
# Codes of domain ERROR_DOMAIN (the NATS client's statuses).
ERR_CONNECTION_CLOSED: int = 5
ERR_NO_SERVER: int = 6
ERR_SECURE_REQUIRED: int = 9
ERR_AUTH_FAILED: int = 11
ERR_NOT_PERMITTED: int = 12
ERR_NOT_FOUND: int = 13
ERR_INVALID_SUBJECT: int = 15
ERR_INVALID_ARG: int = 16
ERR_SLOW_CONSUMER: int = 20
ERR_MAX_PAYLOAD: int = 21
ERR_TIMEOUT: int = 26
ERR_SSL: int = 29
ERR_NO_RESPONDERS: int = 34

SONAME = "libripple-nats.so.0"
_NULL = ffi.NULL
_load_lock = threading.Lock()
_nlib: Any = None
LIBRARY_PATH_NATS: Optional[str] = None


def _candidates() -> "list[str]":
    env = os.environ.get("RIPPLE_NATS_LIBRARY")
    if env:
        return [env]
    beside = os.path.join(os.path.dirname(LIBRARY_PATH), SONAME) if os.path.sep in LIBRARY_PATH else None
    return ([beside] if beside and os.path.exists(beside) else []) + [SONAME]


def _load() -> Any:
    global _nlib, LIBRARY_PATH_NATS
    with _load_lock:
        if _nlib is not None:
            return _nlib
        errors = []
        for name in _candidates():
            try:
                # RTLD_GLOBAL is not needed: libripple-nats links libripple
                # itself, and the loader finds the one already loaded by soname.
                nl = ffi.dlopen(name, ffi.RTLD_NOW | ffi.RTLD_LOCAL | getattr(ffi, "RTLD_NODELETE", 0))
            except OSError as e:
                errors.append("%s: %s" % (name, e))
                continue
            ffi.cdef(_CDEF)
            _nlib, LIBRARY_PATH_NATS = nl, name
            return nl
        raise ImportError("ripple.nats: cannot load libripple-nats (%s). Set RIPPLE_NATS_LIBRARY to the path of %s, "
                          "or install it (make install-nats)." % ("; ".join(errors), SONAME))


_load()


def _text(s: Optional[str], what: str) -> Any:
    """A C string for s (None: NULL, which the library refuses where it must)."""
    if s is None:
        return _NULL
    if not isinstance(s, str):
        raise TypeError("%s must be a str, got %r" % (what, s))
    return s.encode("utf-8")


def _ns(seconds: float, what: str) -> int:
    if seconds < 0:
        raise ValueError("%s cannot be negative" % what)
    return int(seconds * 1e9)


def _signal(ptr: Any) -> Signal:
    if ptr == _NULL:
        raise _last_error()
    return Signal._own(ptr)


def _disposable(ptr: Any) -> Disposable:
    if ptr == _NULL:
        raise _last_error()
    d = Disposable.__new__(Disposable)
    d._take(_core._address(ptr))
    return d


@_cb("rpl_signal_t *(*)(void *, const rpl_value *)", "rpl_signal_t *(uintptr_t, const rpl_value *)")
def _serve_cb(ctx: int, request: Any) -> Any:
    fn = _live[ctx]

    def answer() -> Signal:
        r = fn(_from_c(request))
        return r if isinstance(r, Signal) else Signal.return_(r)
    return _core._signal_result(answer)


class Connection:
    """A connection to a NATS server or cluster (an rpl_nats_t). Made by
    connect(); a context manager that closes it on exit."""

    __slots__ = ("_nc", "_lock", "__weakref__")

    def __init__(self, ptr: Any) -> None:
        self._lock = threading.Lock()
        self._nc = ptr

    def _c(self) -> Any:
        nc = self._nc
        if nc is None:
            raise _core.StatusError(lib.RPL_ERR_STATE, "ripple.nats: the connection is closed")
        return nc

    def close(self) -> None:
        """Closes the connection (idempotent): the status signal sends CLOSED
        and completes, data subscriptions complete, pending requests fail."""
        with self._lock:
            nc, self._nc = self._nc, None
        if nc is not None:
            lib.rpl_disposable_dispose(ffi.cast("rpl_disposable_t *", nc))
            lib.rpl_release(nc)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter teardown
            pass

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._nc is None

    def status(self) -> Signal:
        """The connection's states (CONNECTED, DISCONNECTED, RECONNECTED,
        CLOSED): the current one first, then each change; completes after
        CLOSED."""
        return _signal(_nlib.rpl_nats_status(self._c()))

    def subscribe(self, subject: str, queue_group: Optional[str] = None) -> Signal:
        """A signal of the payloads (decoded) of messages on subject
        (wildcards allowed); with queue_group each message goes to one member.
        Interest is registered before subscribe() returns."""
        return _signal(_nlib.rpl_nats_subscribe(self._c(), _text(subject, "subject"), _text(queue_group, "queue_group")))

    def subscribe_messages(self, subject: str, queue_group: Optional[str] = None) -> Signal:
        """As subscribe, with (subject, payload, reply_to or None) tuples."""
        return _signal(_nlib.rpl_nats_subscribe_messages(self._c(), _text(subject, "subject"),
                                                         _text(queue_group, "queue_group")))

    def publish(self, signal: Signal, subject: str) -> Disposable:
        """Publishes each value of signal on subject; dispose to stop. A value
        that cannot travel ends that publish."""
        if not isinstance(signal, Signal):
            raise TypeError("expected a ripple.Signal, got %r" % (signal,))
        return _disposable(_nlib.rpl_nats_publish(self._c(), signal._c(), _text(subject, "subject")))

    def request(self, subject: str, value: Any, timeout: float = 5.0) -> Signal:
        """A cold signal: the reply to value sent on subject, then completion;
        RippleTimeoutError past timeout (seconds), ERR_NO_RESPONDERS when
        nobody serves subject."""
        return _signal(_nlib.rpl_nats_request(self._c(), _text(subject, "subject"), _core._to_c(value),
                                              _ns(timeout, "timeout")))

    def serve(self, subject: str, fn: Callable[[Any], Any], queue_group: Optional[str] = None) -> Disposable:
        """Answers requests on subject: fn(request) returns the reply, or a
        Signal whose first value is; an exception (or an error of that
        signal) goes back to the requester as its error. Dispose to stop."""
        if not callable(fn):
            raise TypeError("serve needs a callable")
        return _disposable(_nlib.rpl_nats_serve(self._c(), _text(subject, "subject"), _text(queue_group, "queue_group"),
                                                _serve_cb, _ctx(fn), _release_ctx))

    def stream_ensure(self, stream: str, subjects: str, replicas: int = 0) -> None:
        """Creates the JetStream stream (subjects comma separated; replicas 0
        means 1), or updates it; raises StatusError with the server's reason
        when it refuses."""
        _core._check(_nlib.rpl_nats_stream_ensure(self._c(), _text(stream, "stream"), _text(subjects, "subjects"),
                                                  int(replicas)))

    def stream_publish(self, signal: Signal, subject: str) -> Signal:
        """Publishes each value of signal to JetStream and sends the stream's
        sequence number once the server acknowledged it."""
        if not isinstance(signal, Signal):
            raise TypeError("expected a ripple.Signal, got %r" % (signal,))
        return _signal(_nlib.rpl_nats_stream_publish(self._c(), signal._c(), _text(subject, "subject")))

    def stream_subscribe(self, stream: str, durable: Optional[str] = None, start_sequence: int = 0) -> Signal:
        """The stream's messages, at least once: each is acknowledged after
        every observer's on_next returned. durable names a consumer that
        outlives the subscription; start_sequence 0 resumes it (or starts at
        the beginning), n > 0 starts at sequence n."""
        if start_sequence < 0:
            raise ValueError("start_sequence cannot be negative")
        return _signal(_nlib.rpl_nats_stream_subscribe(self._c(), _text(stream, "stream"), _text(durable, "durable"),
                                                       int(start_sequence)))


def connect(urls: str, *, name: Optional[str] = None, token: Optional[str] = None, user: Optional[str] = None,
            password: Optional[str] = None, creds_file: Optional[str] = None, tls_ca: Optional[str] = None,
            tls_cert: Optional[str] = None, tls_key: Optional[str] = None, reconnect_wait: float = 2.0,
            max_reconnects: int = -1, codec: int = CODEC_MSGPACK) -> Connection:
    """Connects to urls (comma separated "nats://host:port" or "tls://...");
    blocks until connected. Raises StatusError when refused (the server's
    reason in its message)."""
    keep = []  # the strings, alive during the call

    def s(v: Optional[str], what: str) -> Any:
        c = _text(v, what)
        if c is not _NULL:
            c = ffi.new("char[]", c)
            keep.append(c)
        return c
    o = ffi.new("rpl_nats_options *")
    o.version = OPTIONS_VERSION
    o.name, o.token, o.user, o.password = s(name, "name"), s(token, "token"), s(user, "user"), s(password, "password")
    o.creds_file, o.tls_ca = s(creds_file, "creds_file"), s(tls_ca, "tls_ca")
    o.tls_cert, o.tls_key = s(tls_cert, "tls_cert"), s(tls_key, "tls_key")
    o.reconnect_wait_ns = _ns(reconnect_wait, "reconnect_wait")
    o.max_reconnects = int(max_reconnects)
    o.codec = int(codec)
    ptr = _nlib.rpl_nats_connect(_text(urls, "urls"), o)
    if ptr == _NULL:
        raise _last_error()
    return Connection(ptr)
