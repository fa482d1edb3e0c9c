#!/usr/bin/env python3
"""Drives examples-c/chat_server with real TCP clients on 127.0.0.1.

  chat_check.py [--clients N] [--timeout S] -- <server command...>

The server is started with "--port 0" appended; its first line names the
port. Checked: two clients chat (each message reaches every connection,
the sender too); a client that leaves in the middle of a line still has
that line delivered; N clients at once each get every one of the N
messages; SIGINT shuts the server down with every connection closed and
exit status 0 (under valgrind: no leak, no error)."""
import os
import selectors
import signal
import socket
import subprocess
import sys
import time


def fail(msg):
    print("chat_check: FAIL: " + msg)
    sys.exit(1)


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setblocking(False)
        self.buf = b""
        self.lines = []

    def send(self, data):
        self.sock.setblocking(True)
        self.sock.sendall(data)
        self.sock.setblocking(False)

    def pump(self):
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        self.buf += data
        *done, self.buf = self.buf.split(b"\n")
        self.lines += [l.decode() for l in done]


def wait_for(clients, cond, timeout, what):
    sel = selectors.DefaultSelector()
    for c in clients:
        sel.register(c.sock, selectors.EVENT_READ, c)
    end = time.time() + timeout
    while not cond():
        if time.time() > end:
            sel.close()
            fail("timed out waiting for " + what)
        for key, _ in sel.select(0.1):
            key.data.pump()
    sel.close()


def has(c, suffix):
    return any(l.endswith(suffix) for l in c.lines)


def main():
    args = sys.argv[1:]
    n, timeout = 200, 30.0
    while args and args[0] != "--":
        if args[0] == "--clients":
            n = int(args[1])
        elif args[0] == "--timeout":
            timeout = float(args[1])
        args = args[2:]
    cmd = args[1:] + ["--port", "0"]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        if not first.startswith("listening on 127.0.0.1:"):
            fail("server said %r" % first)
        port = int(first.rsplit(":", 1)[1])

        # Two clients chat: every message to every connection, the sender's too.
        a, b = Client(port), Client(port)
        a.send(b"hello\n")
        wait_for([a, b], lambda: has(a, "] hello") and has(b, "] hello"), timeout, "a chat message")
        b.send(b"hi there\r\n")
        wait_for([a, b], lambda: has(a, "] hi there") and has(b, "] hi there"), timeout, "a CRLF line")
        print("chat_check: two clients chat")

        # A client leaves in the middle of a line: that line is still sent.
        c = Client(port)
        c.send(b"mid-li")
        c.sock.close()
        wait_for([a, b], lambda: has(a, "] mid-li") and has(b, "] mid-li"), timeout, "the unterminated line")
        print("chat_check: a client leaving mid-line has its last line delivered")

        # N clients at once. Each first sees its own greeting (so it is in
        # the room), then all send one message and each gets all N.
        t0 = time.time()
        many = [Client(port) for _ in range(n)]
        for i, m in enumerate(many):
            m.send(b"join %d\n" % i)
        wait_for(many, lambda: all(has(m, "] join %d" % i) for i, m in enumerate(many)), timeout,
                 "%d clients to join" % n)
        for i, m in enumerate(many):
            m.send(b"msg %d\n" % i)
        expected = ["] msg %d" % i for i in range(n)]

        def everyone_has_all():
            for m in many:
                got = {l[l.index("]"):] for l in m.lines if "] msg " in l}
                if len(got) < n:
                    return False
            return True
        wait_for(many, everyone_has_all, timeout, "%d clients to get %d messages each" % (n, n))
        for m in many:
            got = {l[l.index("]"):] for l in m.lines if "] msg " in l}
            if got != set(expected):
                fail("a client got %d of the messages" % len(got))
        print("chat_check: %d clients at once, each got all %d messages (%.2f s)" % (n, n, time.time() - t0))
        for m in many[: n // 2]:
            m.sock.close()

        # SIGINT: a clean shutdown with clients still connected.
        server.send_signal(signal.SIGINT)
        try:
            rc = server.wait(timeout)
        except subprocess.TimeoutExpired:
            fail("the server did not stop on SIGINT")
        rest = server.stdout.read()
        if rc != 0:
            fail("server exit status %d; said %r" % (rc, rest))
        if " 0 open" not in rest:
            fail("connections left open: %r" % rest)
        for m in [a, b] + many[n // 2:]:
            m.sock.setblocking(True)
            m.sock.settimeout(timeout)
            try:
                while m.sock.recv(65536):
                    pass
            except OSError:
                pass
        print("chat_check: SIGINT closed every connection; " + rest.strip())
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
