"""ripple.nats against real nats-servers, which Tests/nats/run.py (case
"python", run by make check-nats) starts and stops: NATS_URL (with
JetStream), NATS_TOKEN_URL (token "s3cret") and NATS_CREDS_URL (operator
mode) with NATS_CREDS_FILE (a user it accepts), NATS_FOREIGN_CREDS_FILE (a
user of an account it does not trust) and NATS_MISSING_CREDS_FILE (a path
with no file). Without them the suite fails rather than skipping."""
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
def creds():
    """(url, good creds file, foreign creds file, missing path)"""
    return tuple(_env(n) for n in ("NATS_CREDS_URL", "NATS_CREDS_FILE", "NATS_FOREIGN_CREDS_FILE",
                                   "NATS_MISSING_CREDS_FILE"))


@pytest.fixture
def nc(url):
    from ripple import nats
    with nats.connect(url, name="ripple-python-test") as c:
        yield c
