"""The OS sources from Python: read_lines/read over pipes and file objects,
write, accept over real sockets, os_signal, child_exit, file_changes, bad
input."""
import os
import signal
import socket
import subprocess
import tempfile
import threading

import pytest

import ripple
from ripple import RippleError, RunLoop, Scheduler, Signal, StatusError, Subject
from conftest import needs

pytestmark = needs("rpl_signal_read_lines", "rpl_signal_write", "rpl_signal_accept", "rpl_signal_os_signal",
                   "rpl_signal_child_exit", "rpl_signal_file_changes", "rpl_signal_fd_readable",
                   "rpl_signal_fd_writable", "rpl_signal_read")


def test_read_lines_from_a_pipe_on_the_background_scheduler():
    r, w = os.pipe()
    try:
        os.write(w, b"one\ntwo\r\n\nlast")
        os.close(w)
        w = -1
        assert Signal.read_lines(r).to_list(timeout=5) == ["one", "two", "", "last"]
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def test_read_lines_accepts_a_file_object_and_a_run_loop():
    loop = RunLoop()
    r, w = os.pipe()
    with os.fdopen(r, "rb", buffering=0) as f:
        got, done = [], []
        d = Signal.read_lines(f, scheduler=loop).subscribe(got.append, on_completed=lambda: done.append(1))
        os.write(w, b"a\nb\n")
        os.close(w)
        import select
        for _ in range(500):
            if done:
                break
            select.select([loop.fd], [], [], 0.01)
            loop.run_until_idle()
        assert got == ["a", "b"] and done == [1]
        d.dispose()


def test_line_too_long_fails_with_its_code():
    r, w = os.pipe()
    try:
        os.write(w, b"ok\n" + b"x" * 10)
        with pytest.raises(RippleError) as e:
            Signal.read_lines(r, max_line=4).to_list(timeout=5)
        assert e.value.code == ripple.ERROR_LINE_TOO_LONG
    finally:
        os.close(r)
        os.close(w)


def test_read_chunks_are_bytes():
    r, w = os.pipe()
    try:
        os.write(w, b"0123456789")
        os.close(w)
        w = -1
        chunks = Signal.read(r, max_chunk=4).to_list(timeout=5)
        assert b"".join(chunks) == b"0123456789" and all(isinstance(c, bytes) and len(c) <= 4 for c in chunks)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def test_accept_and_write_over_tcp():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    accepted = []
    got = threading.Event()

    def on_conn(fd):
        accepted.append(fd)
        got.set()
    d = Signal.accept(listener).subscribe(on_conn)
    client = socket.create_connection(("127.0.0.1", port))
    assert got.wait(5)
    conn = socket.socket(fileno=accepted[0])
    counts = Signal.from_iterable(["hello ", b"world"]).write(conn).to_list(timeout=5)
    assert counts == [6, 5]
    data = b""
    while len(data) < 11:
        data += client.recv(100)
    assert data == b"hello world"
    d.dispose()
    conn.close()
    client.close()
    listener.close()


def test_fd_readable_sends_the_descriptor():
    a, b = socket.socketpair()
    try:
        b.send(b"x")
        assert Signal.fd_readable(a).first(timeout=5) == a.fileno()
        assert Signal.fd_writable(a).first(timeout=5) == a.fileno()
    finally:
        a.close()
        b.close()


def test_os_signal_replaces_python_handler_while_subscribed():
    hits = []
    old = signal.signal(signal.SIGUSR1, lambda *a: hits.append("python"))
    try:
        got = threading.Event()
        d = Signal.os_signal(signal.SIGUSR1).subscribe(lambda s: got.set())
        os.kill(os.getpid(), signal.SIGUSR1)
        assert got.wait(5)
        d.dispose()
        assert hits == []
    finally:
        signal.signal(signal.SIGUSR1, old)


def test_child_exit_status():
    p = subprocess.Popen(["/bin/sh", "-c", "exit 3"])
    status = Signal.child_exit(p.pid).first(timeout=5)
    assert os.waitstatus_to_exitcode(status) == 3
    p.returncode = 3  # reaped by Ripple


def test_child_exit_of_a_stranger_is_echild():
    import errno
    with pytest.raises(RippleError) as e:
        Signal.child_exit(1).first(timeout=5)
    assert e.value.domain == ripple.ERROR_DOMAIN_ERRNO and e.value.code == errno.ECHILD


def test_file_changes_in_a_directory():
    with tempfile.TemporaryDirectory() as d:
        seen = []
        created = threading.Event()
        sub = Signal.file_changes(d).subscribe(lambda t: (seen.append(t), created.set()))
        open(os.path.join(d, "new.txt"), "w").close()
        assert created.wait(5)
        sub.dispose()
        assert seen[0] == ("new.txt", ripple.FILE_CREATED)


def test_bad_input_is_refused_at_the_call():
    with pytest.raises(StatusError):
        Signal.read_lines(-1)
    with pytest.raises(StatusError):
        Signal.read_lines(0, max_line=0)
    with pytest.raises(StatusError):
        Signal.os_signal(signal.SIGKILL)
    with pytest.raises(StatusError):
        Signal.child_exit(0)
    with pytest.raises(StatusError):
        Signal.read_lines(0, scheduler=Scheduler.immediate())
    with pytest.raises(TypeError):
        Signal.read_lines("not a descriptor")
