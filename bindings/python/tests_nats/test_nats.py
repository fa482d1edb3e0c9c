"""ripple.nats: every function of ripple_nats.h through Python, against a
real nats-server (see conftest.py)."""
import re
import threading
import time
import uuid

import pytest

import ripple
from ripple import nats, lib


class Rec:
    """Collects one subscription's events; wait() for a condition."""

    def __init__(self):
        self.values, self.error, self.done = [], None, False
        self.cv = threading.Condition()

    def on_next(self, v):
        with self.cv:
            self.values.append(v)
            self.cv.notify_all()

    def on_error(self, e):
        with self.cv:
            self.error = e
            self.cv.notify_all()

    def on_completed(self):
        with self.cv:
            self.done = True
            self.cv.notify_all()

    def sub(self, sig):
        return sig.subscribe(self.on_next, self.on_error, self.on_completed)

    def wait(self, cond, timeout=10.0):
        with self.cv:
            assert self.cv.wait_for(lambda: cond(self), timeout), (self.values, self.error, self.done)


def unique(prefix):
    return "%s.%s" % (prefix, uuid.uuid4().hex[:8])


def test_header_constants_match():
    """The module's numbers are ripple_nats.h's."""
    import os
    header = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Include", "ripple_nats.h")
    text = open(header).read()
    for name in [n for n in nats.__all__ if n.startswith("ERR_")]:
        m = re.search(r"RPL_NATS_%s = (\d+)" % name, text)
        assert m and int(m.group(1)) == getattr(nats, name), name
    assert re.search(r"RPL_NATS_OPTIONS_VERSION %d\b" % nats.OPTIONS_VERSION, text)
    assert "RPL_NATS_CONNECTED = 1, RPL_NATS_DISCONNECTED, RPL_NATS_RECONNECTED, RPL_NATS_CLOSED" in text
    assert "RPL_NATS_CODEC_MSGPACK = 0, RPL_NATS_CODEC_RAW = 1" in text


def test_publish_subscribe_values(nc):
    subject = unique("py.values")
    values = [1, -2**63, 2.5, True, None, "héllo", b"\x00\xffbytes", (1, ("nested", b"x"), None)]
    r = Rec()
    with r.sub(nc.subscribe(subject)):
        nc.publish(ripple.Signal.of(*values), subject)
        r.wait(lambda r: len(r.values) == len(values))
    assert r.values == values


def test_wildcards_messages_and_queue_groups(nc):
    base = unique("py.w")
    star, msgs, g = Rec(), Rec(), [Rec(), Rec()]
    with star.sub(nc.subscribe(base + ".*")), msgs.sub(nc.subscribe_messages(base + ".>")), \
            g[0].sub(nc.subscribe(base + ".q", "workers")), g[1].sub(nc.subscribe(base + ".q", "workers")):
        nc.publish(ripple.Signal.of("a"), base + ".x")
        nc.publish(ripple.Signal.of(*range(20)), base + ".q")
        star.wait(lambda r: len(r.values) == 21)
        msgs.wait(lambda r: len(r.values) == 21)
        time.sleep(0.3)
    assert msgs.values[0] == (base + ".x", "a", None)
    # Each message of the queue group went to exactly one member.
    assert sorted(g[0].values + g[1].values) == list(range(20))


def test_request_and_serve(nc):
    subject = unique("py.svc")

    def handler(req):
        if req == "boom":
            raise ValueError("no boom here")
        if req == "sig":
            return ripple.Signal.of("from a signal")
        return req * 2
    with nc.serve(subject, handler):
        assert nc.request(subject, 21, timeout=5).first(timeout=10) == 42
        assert nc.request(subject, "sig").first(timeout=10) == "from a signal"
        with pytest.raises(ripple.RippleError) as ei:
            nc.request(subject, "boom").first(timeout=10)
        assert "no boom here" in ei.value.message
    # Nobody answers: a distinct error at once.
    with pytest.raises(ripple.RippleError) as ei:
        nc.request(unique("py.nobody"), 1, timeout=5).first(timeout=10)
    assert ei.value.domain == nats.ERROR_DOMAIN and ei.value.code == nats.ERR_NO_RESPONDERS
    # A responder that never answers: the request's timeout.
    silent = unique("py.silent")
    with nc.subscribe(silent).subscribe(lambda v: None):
        with pytest.raises(ripple.RippleTimeoutError) as ei:
            nc.request(silent, 1, timeout=0.2).first(timeout=10)
        assert ei.value.domain == "ripple" and ei.value.code == lib.RPL_ERROR_TIMEOUT


def test_status_and_close(url):
    c = nats.connect(url)
    r = Rec()
    d = r.sub(c.status())
    r.wait(lambda r: r.values == [nats.CONNECTED])
    c.close()
    r.wait(lambda r: r.done)
    assert r.values == [nats.CONNECTED, nats.CLOSED]
    assert c.closed
    c.close()  # idempotent
    with pytest.raises(ripple.StatusError) as ei:
        c.subscribe("a")
    assert ei.value.status == lib.RPL_ERR_STATE
    d.dispose()


def test_raw_codec(url):
    subject = unique("py.raw")
    with nats.connect(url, codec=nats.CODEC_RAW) as raw:
        r = Rec()
        with r.sub(raw.subscribe(subject)):
            raw.publish(ripple.Signal.of("text", b"\x01\x02"), subject)
            r.wait(lambda r: len(r.values) == 2)
        assert r.values == [b"text", b"\x01\x02"]


def test_jetstream(nc):
    stream = "PY" + uuid.uuid4().hex[:8].upper()
    subject = stream.lower() + ".events"
    nc.stream_ensure(stream, subject + ", " + stream.lower() + ".other", 1)
    nc.stream_ensure(stream, subject, 0)  # an update the server allows
    seqs = nc.stream_publish(ripple.Signal.of(*range(10)), subject).to_list(timeout=30)
    assert seqs == list(range(1, 11))
    # A durable resumes where it left off; start_sequence replays.
    first = nc.stream_subscribe(stream, "py-durable").take(4).to_list(timeout=30)
    assert first == [0, 1, 2, 3]
    rest = nc.stream_subscribe(stream, "py-durable").take(6).to_list(timeout=30)
    assert rest == [4, 5, 6, 7, 8, 9]
    assert nc.stream_subscribe(stream, None, 8).take(3).to_list(timeout=30) == [7, 8, 9]
    with pytest.raises(ripple.RippleError) as ei:
        nc.stream_subscribe("NOSUCH" + stream, "x").first(timeout=30)
    assert ei.value.domain == nats.ERROR_DOMAIN and ei.value.code == nats.ERR_NOT_FOUND


def status_error(fn):
    with pytest.raises(ripple.StatusError) as ei:
        fn()
    return ei.value.status, ei.value.message


def test_errors(nc, url, token_url):
    # Bad arguments: the status and the library's exact message.
    assert status_error(lambda: nc.subscribe("a b")) == (
        lib.RPL_ERR_INVALID, 'rpl_nats_subscribe: subject "a b" contains white space or a control character')
    assert status_error(lambda: nc.publish(ripple.Signal.never(), "a.*")) == (
        lib.RPL_ERR_INVALID, 'rpl_nats_publish: subject "a.*" has a wildcard (not allowed here)')
    assert status_error(lambda: nc.subscribe(None)) == (lib.RPL_ERR_NULL, "rpl_nats_subscribe: subject is NULL")
    assert status_error(lambda: nc.request("a", 1, timeout=0))[0] == lib.RPL_ERR_INVALID
    assert status_error(lambda: nc.request("a", object()))[0] == lib.RPL_ERR_INVALID
    assert status_error(lambda: nc.stream_ensure("a.b", "x"))[0] == lib.RPL_ERR_INVALID
    assert status_error(lambda: nc.stream_subscribe("S", "bad.durable"))[0] == lib.RPL_ERR_INVALID
    assert status_error(lambda: nats.connect(url, codec=7)) == (lib.RPL_ERR_INVALID, "rpl_nats_connect: unknown codec 7")
    assert status_error(lambda: nats.connect(""))[0] == lib.RPL_ERR_INVALID
    # Refused by the server: its reason, after the function's name only.
    assert status_error(lambda: nats.connect(token_url, token="guess", max_reconnects=0)) == (
        lib.RPL_ERR_FAILED, "rpl_nats_connect: Authorization Violation")
    st, msg = status_error(lambda: nats.connect("nats://127.0.0.1:1", max_reconnects=0))
    assert st == lib.RPL_ERR_FAILED and msg.startswith("rpl_nats_connect: ")
    with nats.connect(token_url, token="s3cret") as ok:
        assert ok.status().first(timeout=10) == nats.CONNECTED
    with pytest.raises(TypeError):
        nc.subscribe(b"bytes")  # type: ignore[arg-type]

    with pytest.raises(ValueError):
        nc.request("a", 1, timeout=-1)


def test_creds_file(creds):
    """creds_file against a server in operator (JWT) mode."""
    url, good, foreign, missing = creds
    subject = unique("py.creds")
    with nats.connect(url, creds_file=good, max_reconnects=0) as c:
        r = Rec()
        with r.sub(c.subscribe(subject)):
            c.publish(ripple.Signal.of(1, "two"), subject)
            r.wait(lambda r: len(r.values) == 2)
    assert r.values == [1, "two"]
    # A user signed by an account the server does not trust: refused.
    assert status_error(lambda: nats.connect(url, creds_file=foreign, max_reconnects=0)) == (
        lib.RPL_ERR_FAILED, "rpl_nats_connect: Authorization Violation")
    assert lib.rpl_error_code(lib.rpl_last_signal_error()) == nats.ERR_AUTH_FAILED
    assert status_error(lambda: nats.connect(url, creds_file=missing, max_reconnects=0)) == (
        lib.RPL_ERR_FAILED, 'rpl_nats_connect: creds_file "%s" cannot be read: No such file or directory' % missing)
