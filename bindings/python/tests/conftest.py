import gc
import os
import sys

import pytest

# Run against the source tree even when the package is not installed.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ripple  # noqa: E402


@pytest.fixture
def reported():
    """Collects what reaches the exception handler during the test."""
    got = []
    old = ripple.set_exception_handler(got.append)
    yield got
    ripple.set_exception_handler(old)


def collect():
    """Drops everything unreachable, including remembered exceptions."""
    ripple.clear_error_cache()
    for _ in range(3):
        gc.collect()


def needs(*names):
    missing = [n for n in names if not ripple.has(n)]
    return pytest.mark.skipif(bool(missing), reason="libripple lacks %s" % ", ".join(missing))

