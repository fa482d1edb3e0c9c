"""A child made by os.fork() (no exec) uses Ripple from several threads (issue 10, D3)."""
import os
import subprocess
import sys

import ripple
from conftest import needs

# Runs in its own interpreter: the parent uses Ripple (worker threads exist),
# forks, and the child uses it from two threads. A child that hangs is killed
# after 30 s and reported, so no stray process is left behind.
SCRIPT = r'''
import os, signal, threading, time
from ripple import Scheduler, Signal, Subject

def hop(k):
    fin = threading.Event()
    Signal.of(k).deliver_on(Scheduler.background()).subscribe(lambda v: None, on_completed=fin.set)
    return fin.wait(10)

assert hop(0)
results = []
for n in range(3):
    pid = os.fork()
    if pid == 0:
        ok = []
        def work(k):
            s = Subject()
            got = []
            s.map(lambda v: v * 2).subscribe(got.append)
            for i in range(100):
                s.send_next(i)
            ok.append(got == [2 * i for i in range(100)] and hop(k))
        ts = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        os._exit(0 if ok == [True, True] else 1)
    deadline = time.monotonic() + 30
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            results.append(os.waitstatus_to_exitcode(status))
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            results.append("hung")
            break
        time.sleep(0.01)
print(results)
'''


@needs("rpl_signal_deliver_on", "rpl_subject_create")
def test_forked_child_uses_ripple_from_two_threads():
    env = dict(os.environ, RIPPLE_LIBRARY=ripple.LIBRARY_PATH,
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(ripple.__file__))))
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=150)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[0, 0, 0]", r.stdout + r.stderr
