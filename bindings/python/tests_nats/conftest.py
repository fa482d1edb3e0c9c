"""ripple.nats against real nats-servers, which Tests/nats/run.py (case
"python", run by make check-nats) starts and stops: NATS_URL (with
JetStream) and NATS_TOKEN_URL (token "s3cret"). Without them the suite fails
rather than skipping."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _env(name):
    v = os.environ.get(name)
    if not v:
        pytest.fail("%s is not set: run this suite through Tests/nats/run.py python (make check-nats)" % name)
    return v


@pytest.fixture
def url():
    return _env("NATS_URL")


@pytest.fixture
def token_url():
    return _env("NATS_TOKEN_URL")


@pytest.fixture
def nc(url):
    from ripple import nats
    with nats.connect(url, name="ripple-python-test") as c:
        yield c
