"""Whole-process behaviour: exiting with the runtime's threads still alive."""
import os
import subprocess
import sys

import ripple
from conftest import needs

SCRIPT = r'''
import threading, ripple
from ripple import Scheduler, Signal
done = threading.Event()
Signal.of(1, 2).deliver_on(Scheduler.serial("exit-test")).subscribe(lambda v: None, on_completed=done.set)
assert done.wait(5)
Scheduler.background().after(0.001, lambda: None)
print("exiting")
'''


@needs("rpl_scheduler_create_serial", "rpl_signal_deliver_on")
def test_exit_with_scheduler_threads_alive():
    env = dict(os.environ, RIPPLE_LIBRARY=ripple.LIBRARY_PATH,
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(ripple.__file__))))
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "exiting"
