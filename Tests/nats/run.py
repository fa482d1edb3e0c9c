#!/usr/bin/env python3
"""The NATS suite of make check: starts every nats-server it needs on free
loopback ports (each with its own config and store in a temporary
directory), runs the test programs against them, kills and restarts servers
where a test says so, and stops them all at the end.

    NATS_OUT=build ... python3 Tests/nats/run.py [case ...]

Environment (set by mk/nats.mk): NATS_OUT (the build directory),
NATS_STAGE_LIB (the staged install's lib, for the examples), NATS_VALGRIND (the
valgrind command line), NATS_VG_LIB (libripple without debug sections, for
valgrind), NATS_LSAN (Tests/lsan_check.sh), NATS_TSAN (the directory of the
TSan builds, when there is one)."""
import os
import random
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


_ports_handed_out = set()


def free_port():
    """A loopback port nothing listens on now, not handed out before, and
    below the kernel's ephemeral range: outgoing connections (other tests'
    clients) take their local ports from that range, so one of them could
    take a port from it between this check and the server's bind."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            top = int(f.read().split()[0]) - 1
    except (OSError, ValueError, IndexError):
        top = 32767
    rng = random.Random()
    for _ in range(2000):
        p = rng.randint(10000, top) if top > 11000 else 0
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                continue
            p = s.getsockname()[1]
        if p not in _ports_handed_out:
            _ports_handed_out.add(p)
            return p
    raise RuntimeError("no free loopback port")


class Server:
    """One nats-server on loopback, configured through a file."""

    def __init__(self, name, extra="", port=None, jetstream=True, cluster=None):
        self.name = name
        self.fixed_port = port is not None
        self.port = port or free_port()
        self.http = free_port()  # monitoring (/jsz), for the cluster test
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir, exist_ok=True)
        self.conf = os.path.join(self.dir, "server.conf")
        js = 'jetstream { store_dir: "%s" }' % os.path.join(self.dir, "js") if jetstream else ""
        self.rest = "%s\n%s\n%s\n" % (js, cluster or "", extra)
        self.write_conf()
        self.proc = None
        self.started = False
        servers.append(self)

    def write_conf(self):
        with open(self.conf, "w") as f:
            f.write('server_name: "%s"\nlisten: "127.0.0.1:%d"\nhttp: "127.0.0.1:%d"\nmax_payload: 65536\n%s'
                    % (self.name, self.port, self.http, self.rest))

    @property
    def url(self):
        return "nats://127.0.0.1:%d" % self.port

    def start(self):
        """Starts the server and waits until it accepts connections. A first
        start whose port was taken meanwhile (by a process outside this
        suite) moves to new ports; a restart keeps its port, which the
        clients reconnect to."""
        for attempt in range(5):
            self.log = open(os.path.join(self.dir, "server.log"), "a")
            self.proc = subprocess.Popen(["nats-server", "-c", self.conf], stdout=self.log, stderr=subprocess.STDOUT)
            if self.wait_ready():
                self.started = True
                return self
            with open(self.log.name) as f:
                taken = "address already in use" in f.read()
            if self.started or not taken or attempt == 4:
                raise RuntimeError("nats-server %s exited: see %s" % (self.name, self.log.name))
            print("--- nats-server %s: a port was taken before it bound; new ports" % self.name)
            self.http = free_port()
            if not self.fixed_port:
                self.port = free_port()
            self.write_conf()

    def wait_ready(self):
        """True once the server accepts connections, False if it exited."""
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return True
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
    tsan = os.environ.get("NATS_TSAN")
    if tsan:
        run(prog + " (tsan)", [os.path.join(tsan, prog)] + args, timeout * 3, quiet=True,
            env={"NATS_TEST_QUICK": "1", "TSAN_OPTIONS": "halt_on_error=1 second_deadlock_stack=1"})


# ---------------------------------------------------------------------------
def case_core():
    s = Server("core").start()
    variants("test_nats_core", [s.url])
    s.stop()


TOOL = os.path.join(BIN, "test_nats_tool")


class Proc:
    """A test program running beside the harness, read line by line."""

    def __init__(self, name, argv, env=None):
        self.name = name
        self.lines = []
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                                  env=dict(os.environ, **(env or {})))

    def expect(self, want, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.p.stdout.readline()
            if not line:
                break
            self.lines.append(line.rstrip())
            if line.strip() == want:
                return
        raise RuntimeError("%s did not say %s: %s" % (self.name, want, self.lines[-5:]))

    def finish(self, timeout=120):
        try:
            out, _ = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, _ = self.p.communicate()
        self.lines += out.strip().splitlines()
        ok = self.p.returncode == 0
        print("--- %s%s" % (self.name, "" if ok else " FAILED (exit %d)" % self.p.returncode))
        for l in self.lines:
            print("    " + l)
        if not ok:
            failures.append(self.name)
        return ok

    def kill9(self):
        self.p.send_signal(signal.SIGKILL)
        self.p.wait()


def case_status():
    """DISCONNECTED and RECONNECTED across a server restart; the
    subscription resumes."""
    s = Server("status", jetstream=False).start()
    p = Proc("status across a server restart", [TOOL, "status", s.url])
    p.expect("READY")
    s.stop()
    time.sleep(0.5)
    s.start()
    p.finish()
    s.stop()


def case_examples():
    """Two processes: examples-c/nats_consumer reads what nats_producer
    publishes, through the server."""
    s = Server("examples", jetstream=False).start()
    env = {"LD_LIBRARY_PATH": os.environ.get("NATS_STAGE_LIB", "")}  # built against the staged install
    c = Proc("examples-c/nats_consumer + nats_producer", [os.path.join(EXAMPLES, "nats_consumer"), s.url, "5"], env)
    c.expect("consumer: waiting for 5 readings")
    run("examples-c/nats_producer", [os.path.join(EXAMPLES, "nats_producer"), s.url, "5"], env=env)
    c.finish()
    if not any("reading 5" in l for l in c.lines):
        failures.append("examples: the consumer did not read 5 readings")
    s.stop()


def case_security():
    """Token and user/password: the right ones connect, wrong ones are
    refused with the server's reason; TLS with a test CA connects, a client
    without the CA is refused."""
    s = Server("token", 'authorization { token: "s3cret" }', jetstream=False).start()
    run("token: right", [TOOL, "connect", s.url, "--token", "s3cret"])
    run("token: wrong", [TOOL, "connect", s.url, "--token", "guess", "--fail", "Authorization Violation"])
    run("token: none", [TOOL, "connect", s.url, "--fail", "Authorization Violation"])
    s.stop()
    s = Server("userpass", 'authorization { user: "alice", password: "pw1" }', jetstream=False).start()
    run("user/password: right", [TOOL, "connect", s.url, "--user", "alice", "--password", "pw1"])
    run("user/password: wrong", [TOOL, "connect", s.url, "--user", "alice", "--password", "nope",
                                 "--fail", "Authorization Violation"])
    s.stop()
    d = os.path.join(TMP, "tls")
    os.makedirs(d, exist_ok=True)
    ssl = lambda *a: subprocess.run(["openssl"] + list(a), cwd=d, check=True, capture_output=True)
    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=Ripple test CA")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
        "server.pem", "-days", "2", "-extfile", "ext.cnf")
    s = Server("tls", 'tls { cert_file: "%s/server.pem", key_file: "%s/server.key", timeout: 10 }' % (d, d), jetstream=False).start()
    tls_url = "tls://127.0.0.1:%d" % s.port
    variants("test_nats_tool", ["connect", tls_url, "--ca", os.path.join(d, "ca.pem")])
    run("tls: without the CA", [TOOL, "connect", tls_url, "--fail", "certificate"])
    run("tls: plain client", [TOOL, "connect", s.url, "--fail", "rpl_nats_connect"])
    s.stop()


def creds_server(name):
    """A server in operator (JWT) mode trusting an operator and account made
    for it (Tests/nats/creds.py), and its identities: .creds files of a user
    it accepts, of one signed by an account it does not know, and of the
    right user with another user's seed."""
    from creds import Identities  # nkeys, which make deps installs
    ids = Identities(os.path.join(TMP, name + "-ids"))
    return Server(name, ids.server_conf(), jetstream=False).start(), ids


def creds_env(server, ids):
    """What the bindings' NATS tests read for their creds_file test."""
    return {"NATS_CREDS_URL": server.url, "NATS_CREDS_FILE": ids.good_creds,
            "NATS_FOREIGN_CREDS_FILE": ids.foreign_creds, "NATS_MISSING_CREDS_FILE": ids.missing_creds}


def case_creds():
    """creds_file against a server in operator mode: the right user connects,
    answers a request and gets what it publishes; a user signed by an
    account the server does not trust, one whose seed is not its JWT's, and
    none at all are refused (RPL_NATS_ERR_AUTH_FAILED); a missing file is
    refused before connecting, with the path and the reason; 1000 connects
    of the right user in a row are all accepted."""
    s, ids = creds_server("creds")
    variants("test_nats_tool", ["connect", s.url, "--creds", ids.good_creds])
    # libnats before 3.8.0 leaves the signature out of one connect in 256:
    # 1000 in a row all pass only because rpl_nats_connect tries again.
    run("creds: 1000 connects in a row", [TOOL, "connect", s.url, "--creds", ids.good_creds, "--repeat", "1000"])
    auth = ["--fail", "Authorization Violation", "--code", "11"]  # RPL_NATS_ERR_AUTH_FAILED
    variants("test_nats_tool", ["connect", s.url, "--creds", ids.foreign_creds] + auth)
    run("creds: seed not the JWT's", [TOOL, "connect", s.url, "--creds", ids.wrong_seed_creds] + auth)
    run("creds: no creds_file", [TOOL, "connect", s.url] + auth)
    run("creds: missing file", [TOOL, "connect", s.url, "--creds", ids.missing_creds, "--fail",
                                '"%s" cannot be read: No such file or directory' % ids.missing_creds, "--code", "1"])
    s.stop()


def case_jetstream():
    """start_sequence, durables, stream_ensure; then kill -9 the consumer
    mid-stream and restart it: every message at least once, none lost."""
    s = Server("js").start()
    variants("test_nats_tool", ["js_replay", s.url])
    n = 3000
    out = os.path.join(TMP, "js-consumed.txt")
    prod = Proc("js_produce (%d)" % n, [TOOL, "js_produce", s.url, "KILL", "kill.x", str(n), "1", "300"])
    cons = Proc("js_consume (killed)", [TOOL, "js_consume", s.url, "KILL", "worker", str(n), out])
    cons.expect("CONSUMING")
    deadline = time.time() + 60
    while time.time() < deadline and (not os.path.exists(out) or sum(1 for _ in open(out)) < n // 4):
        time.sleep(0.02)
    before = sum(1 for _ in open(out))
    cons.kill9()
    print("--- js: kill -9 of the consumer after %d of %d messages" % (before, n))
    cons = Proc("js_consume (restarted, same durable)", [TOOL, "js_consume", s.url, "KILL", "worker", str(n), out])
    prod.finish()
    cons.finish(180)
    verify_all(out, n, "kill -9")
    s.stop()


def verify_all(path, n, what):
    vals = [int(l) for l in open(path) if l.strip()]
    missing = set(range(1, n + 1)) - set(vals)
    print("--- %s: %d deliveries of %d messages, %d redelivered, %d missing"
          % (what, len(vals), n, len(vals) - len(set(vals)), len(missing)))
    if missing:
        failures.append("%s: %d messages lost" % (what, len(missing)))


def case_cluster():
    """Three servers routed on loopback, a stream with 3 replicas; one server
    is killed in the middle of a publish run: the publisher and the consumer
    go on and nothing is lost."""
    ports = [free_port() for _ in range(3)]
    routes = ", ".join('"nats-route://127.0.0.1:%d"' % p for p in ports)
    nodes = []
    for i in range(3):
        cl = 'cluster { name: "ripple", listen: "127.0.0.1:%d", routes: [%s] }' % (ports[i], routes)
        nodes.append(Server("node%d" % (i + 1), cluster=cl).start())
    urls = ",".join(x.url for x in nodes)
    n = 2000
    out = os.path.join(TMP, "cluster-consumed.txt")
    cons = Proc("cluster: js_consume", [TOOL, "js_consume", urls, "REPL3", "reader", str(n), out])
    prod = Proc("cluster: js_produce replicas 3", [TOOL, "js_produce", urls, "REPL3", "repl3.x", str(n), "3", "1500"])
    prod.expect("PUBLISHING", 90)
    cons.expect("CONSUMING", 90)
    time.sleep(1.0)
    leader = stream_leader(nodes[0], "REPL3")
    victim = next((x for x in nodes if x.name == leader), nodes[1])
    victim.stop(signal.SIGKILL)
    print("--- cluster: %s, the stream's leader%s, killed (SIGKILL) in the middle of the publish run"
          % (victim.name, "" if leader == victim.name else " (not found; another node)"))
    prod.finish(240)
    cons.finish(240)
    verify_all(out, n, "cluster")
    for x in nodes:
        x.stop()


def stream_leader(server, stream):
    """The name of the server leading stream, from the monitoring port."""
    import json
    import urllib.request
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/jsz?streams=true" % server.http, timeout=5) as r:
            jsz = json.load(r)
        for acc in jsz.get("account_details", []):
            for st in acc.get("stream_detail", []):
                if st.get("name") == stream:
                    return st.get("cluster", {}).get("leader")
    except (OSError, ValueError):
        pass
    return None


def case_interop():
    """nats-py and msgpack read what C published and publish what C reads."""
    py = sys.executable  # make deps installed nats-py and msgpack for it
    s = Server("interop", jetstream=False).start()
    run("python interop (nats-py + msgpack)", [py, os.path.join(HERE, "interop.py"), s.url, TOOL, "interop", s.url])
    s.stop()


def case_python():
    """The Python binding's ripple.nats (bindings/python/tests_nats) against
    the staged install: a JetStream server and a token server."""
    stage = os.environ.get("NATS_STAGE_LIB")
    if not stage:
        raise RuntimeError("NATS_STAGE_LIB is not set (make check-nats sets it)")
    s = Server("python").start()
    t = Server("python-token", 'authorization { token: "s3cret" }', jetstream=False).start()
    c, ids = creds_server("python-creds")
    tests = os.path.join(HERE, "..", "..", "bindings", "python", "tests_nats")
    run("python binding: ripple.nats (pytest)",
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", tests], timeout=600,
        env=dict(creds_env(c, ids), NATS_URL=s.url, NATS_TOKEN_URL=t.url, RIPPLE_PURE="1", PYTHONDONTWRITEBYTECODE="1",
                 PYTHONWARNINGS="ignore::RuntimeWarning",
                 RIPPLE_LIBRARY=os.path.join(stage, "libripple.so.0"),
                 RIPPLE_NATS_LIBRARY=os.path.join(stage, "libripple-nats.so.0")))
    c.stop()
    t.stop()
    s.stop()


def case_cpp():
    """The C++ binding's ripple_nats.hpp (bindings/cpp/test_nats.cpp, built
    against the staged install under ASan and UBSan, C++17 and C++20; under
    LeakSanitizer through Tests/lsan_check.sh, as the C programs are)."""
    s = Server("cpp").start()
    t = Server("cpp-token", 'authorization { token: "s3cret" }', jetstream=False).start()
    c, ids = creds_server("cpp-creds")
    lsan = os.environ.get("NATS_LSAN") or os.path.join(HERE, "..", "lsan_check.sh")
    for std in ("c++17", "c++20"):
        run("C++ binding: ripple_nats.hpp (%s, ASan+UBSan)" % std,
            [lsan, os.path.join(BIN, "test_nats_" + std), s.url, t.url, c.url, ids.good_creds, ids.foreign_creds,
             ids.missing_creds],
            env={"LD_LIBRARY_PATH": os.environ.get("NATS_STAGE_LIB", "")})
    c.stop()
    t.stop()
    s.stop()


def case_rust():
    """The Rust binding's ripple::nats (feature nats; bindings/rust/ripple/tests/nats.rs)
    against the staged install, offline."""
    stage = os.environ.get("NATS_STAGE_LIB")
    if not stage:
        raise RuntimeError("NATS_STAGE_LIB is not set (make check-nats sets it)")
    s = Server("rust").start()
    t = Server("rust-token", 'authorization { token: "s3cret" }', jetstream=False).start()
    c, ids = creds_server("rust-creds")
    crate = os.path.join(HERE, "..", "..", "bindings", "rust")
    run("Rust binding: ripple::nats (cargo test --features nats)",
        ["cargo", "test", "--offline", "--quiet", "--manifest-path", os.path.join(crate, "Cargo.toml"), "-p", "ripple",
         "--features", "nats", "--test", "nats"], timeout=900,
        env=dict(creds_env(c, ids), NATS_URL=s.url, NATS_TOKEN_URL=t.url, RIPPLE_LIB_DIR=stage, LD_LIBRARY_PATH=stage,
                 CARGO_TARGET_DIR=os.path.join(OUT, "nats", "rust-target")))
    c.stop()
    t.stop()
    s.stop()


def case_fuzz():
    """The API-sequence fuzzer of libripple-nats (Tests/fuzz/fuzz_nats.c) for
    NATS_FUZZ_SECONDS (make check-nats: 60; make fuzz-nats: FUZZ_SECONDS)
    against a JetStream server and a token server started here, and a port
    nothing listens on. No -timeout: libFuzzer's SIGALRM would interrupt the
    NATS client's reads; the fuzzer has a watchdog of its own. The committed
    inputs of Tests/fuzz/nats run first; the corpus grows in NATS_FUZZ_CORPUS
    (make fuzz-nats: build/fuzz-nats/corpus; else a fresh one, so that the
    run in make check-nats lasts what it says), findings land in
    build/fuzz-nats/artifacts."""
    seconds = int(os.environ.get("NATS_FUZZ_SECONDS", "60"))
    s = Server("fuzz").start()
    t = Server("fuzz-token", 'authorization { token: "s3cret" }', jetstream=False).start()
    work = os.path.join(OUT, "fuzz-nats")
    corpus = os.environ.get("NATS_FUZZ_CORPUS") or os.path.join(TMP, "fuzz-corpus")
    for d in (corpus, os.path.join(work, "artifacts")):
        os.makedirs(d, exist_ok=True)
    scratch = os.path.join(TMP, "fuzz-scratch")
    os.makedirs(scratch, exist_ok=True)
    argv = [os.path.join(OUT, "fuzz", "fuzz_nats"), "-max_total_time=%d" % seconds, "-timeout=0", "-max_len=512", "-len_control=0",
            "-rss_limit_mb=4096", "-print_final_stats=1", "-artifact_prefix=" + os.path.join(work, "artifacts") + "/",
            corpus, os.path.join(HERE, "..", "fuzz", "nats")]
    env = dict(os.environ, NATS_FUZZ_URL=s.url, NATS_FUZZ_TOKEN_URL=t.url, NATS_FUZZ_DIR=scratch,
               NATS_FUZZ_DEAD_URL="nats://127.0.0.1:%d" % free_port(), SWIFT_BACKTRACE="enable=no",
               ASAN_OPTIONS="detect_leaks=1:quarantine_size_mb=64")
    log = os.path.join(work, "fuzz.log")
    t0 = time.time()
    with open(log, "w") as f:
        p = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=seconds + 600)
    with open(log, errors="replace") as f:
        lines = f.read().splitlines()
    ok = p.returncode == 0
    print("--- fuzz_nats, %d s (%.1f s)%s" % (seconds, time.time() - t0, "" if ok else " FAILED (exit %d)" % p.returncode))
    keep = ("INFO: Loaded", "Done ", "stat::number_of_executed_units", "stat::peak_rss_mb")
    shown = [l for l in lines if l.startswith(keep) or "DONE" in l] if ok else lines[-80:]
    for l in shown:
        print("    " + l)
    if not ok:
        print("    (the whole output: %s; replay an artifact with FUZZ_TRACE=1 and the NATS_FUZZ_* variables)" % log)
        failures.append("fuzz")
    t.stop()
    s.stop()


def case_bench():
    """make bench-nats (not in make check): the bench rows."""
    s = Server("bench").start()
    p = subprocess.run([os.path.join(BIN, "bench_nats"), s.url], timeout=600)
    if p.returncode:
        failures.append("bench")
    s.stop()


CASES = {"core": case_core, "status": case_status, "security": case_security, "creds": case_creds,
         "jetstream": case_jetstream,
         "cluster": case_cluster, "interop": case_interop, "examples": case_examples,
         "python": case_python, "cpp": case_cpp, "rust": case_rust, "fuzz": case_fuzz}


def main():
    wanted = sys.argv[1:] or list(CASES)
    everything = dict(CASES, bench=case_bench)
    try:
        for name in wanted:
            try:
                everything[name]()
            except Exception as exc:  # a harness failure fails the suite too
                print("--- %s: harness error: %s" % (name, exc))
                failures.append(name)
    finally:
        stop_all()
    if failures:
        print("Tests/nats/run.py %s: FAILED: %s (server logs under %s)" % (" ".join(wanted), ", ".join(failures), TMP))
        return 1
    subprocess.run(["rm", "-rf", TMP])
    print("Tests/nats/run.py %s: all passed" % " ".join(wanted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
