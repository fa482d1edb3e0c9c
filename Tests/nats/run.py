#!/usr/bin/env python3
"""The NATS suite of make check: starts every nats-server it needs on free
loopback ports (each with its own config and store in a temporary
directory), runs the test programs against them, kills and restarts servers
where a test says so, and stops them all at the end.

    NATS_OUT=build ... python3 Tests/nats/run.py [case ...]

Environment (set by mk/nats.mk): NATS_OUT (the build directory), NATS_PY
(the virtualenv's python with nats-py and msgpack), NATS_VALGRIND (the
valgrind command line), NATS_VG_LIB (libripple without debug sections, for
valgrind), NATS_LSAN (Tests/lsan_check.sh)."""
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time

OUT = os.environ.get("NATS_OUT", os.path.join(os.getcwd(), "build"))
HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(OUT, "nats")
ASAN = os.path.join(OUT, "nats-asan")
EXAMPLES = os.path.join(BIN, "examples")
TMP = tempfile.mkdtemp(prefix="ripple-nats-")
servers = []
failures = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One nats-server on loopback, configured through a file."""

    def __init__(self, name, extra="", port=None, jetstream=True, cluster=None):
        self.name = name
        self.port = port or free_port()
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir, exist_ok=True)
        self.conf = os.path.join(self.dir, "server.conf")
        js = 'jetstream { store_dir: "%s" }' % os.path.join(self.dir, "js") if jetstream else ""
        with open(self.conf, "w") as f:
            f.write('server_name: "%s"\nlisten: "127.0.0.1:%d"\nmax_payload: 65536\n%s\n%s\n%s\n'
                    % (name, self.port, js, cluster or "", extra))
        self.proc = None
        servers.append(self)

    @property
    def url(self):
        return "nats://127.0.0.1:%d" % self.port

    def start(self):
        self.log = open(os.path.join(self.dir, "server.log"), "a")
        self.proc = subprocess.Popen(["nats-server", "-c", self.conf], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("nats-server %s exited: see %s" % (self.name, self.log.name))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nats-server %s did not start" % self.name)

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def stop_all():
    for s in servers:
        s.stop(signal.SIGKILL)


def run(name, argv, timeout=300, env=None, quiet=False):
    """Runs a program; a non-zero exit is a failure of the suite."""
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.time()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=e, text=True)
    ok = p.returncode == 0
    lines = p.stdout.strip().splitlines()
    tail = [l for l in lines if "passed" in l][-1:] if ok and quiet else lines
    print("--- %s (%.1f s)%s" % (name, time.time() - t0, "" if ok else " FAILED (exit %d)" % p.returncode))
    for l in tail:
        print("    " + l)
    if not ok:
        failures.append(name)
    return p


def variants(prog, args, timeout=300):
    """The program plain, under valgrind and under ASan + LeakSanitizer."""
    run(prog, [os.path.join(BIN, prog)] + args, timeout)
    vg = os.environ.get("NATS_VALGRIND")
    if vg:
        run(prog + " (valgrind)", shlex.split(vg) + [os.path.join(BIN, prog)] + args, timeout * 3,
            env={"LD_LIBRARY_PATH": os.environ.get("NATS_VG_LIB", ""), "NATS_TEST_QUICK": "1"}, quiet=True)
    lsan = os.environ.get("NATS_LSAN")
    if lsan:
        run(prog + " (asan)", [lsan, os.path.join(ASAN, prog)] + args, timeout * 2, quiet=True)


# ---------------------------------------------------------------------------
def case_core():
    s = Server("core").start()
    variants("test_nats_core", [s.url])
    s.stop()


CASES = {"core": case_core}


def main():
    wanted = sys.argv[1:] or list(CASES)
    try:
        for name in wanted:
            try:
                CASES[name]()
            except Exception as exc:  # a harness failure fails the suite too
                print("--- %s: harness error: %s" % (name, exc))
                failures.append(name)
    finally:
        stop_all()
    if failures:
        print("check-nats: FAILED: %s (server logs under %s)" % (", ".join(failures), TMP))
        return 1
    subprocess.run(["rm", "-rf", TMP])
    print("check-nats: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
