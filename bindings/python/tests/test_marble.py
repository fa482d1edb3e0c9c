"""ripple.testing: marble tests from pytest and unittest."""
import unittest

import pytest

import ripple
from ripple.testing import MarbleMismatch, Marbles, MarbleTestCase, marbles  # noqa: F401 (the fixture)


def test_expect_and_record(marbles):
    clicks = marbles.hot("-a--b-c---d|")
    quiet = clicks.throttle(0.002, marbles.scheduler)
    marbles.expect(quiet, "---a----c--(d|)")
    assert marbles.subscriptions(clicks) == ["^----------!"]
    assert marbles.record(marbles.cold("--1-(23)|").map(lambda x: x * 10), values={"a": 10, "b": 20}) == "--a-(b?)|"


def test_values_table(marbles):
    source = marbles.cold("-x-y|", {"x": (1, "one"), "y": None})
    marbles.expect(source, "-p-q|", {"p": (1, "one"), "q": None})
    marbles.expect(source.take(1), "-(x|)", {"x": (1, "one")})


def test_mismatch_is_an_assertion(marbles):
    with pytest.raises(AssertionError) as e:
        marbles.expect(marbles.cold("--a-c-|"), "--a-b-|")
    assert str(e.value) == ("at frame 4 expected value 'b', got value 'c'\n"
                            "expected: --a-b-|\n"
                            "actual:   --a-c-|\n"
                            "              ^")
    assert isinstance(e.value, MarbleMismatch)


def test_subscription_diagram(marbles):
    source = marbles.hot("a-b-c-d-|")
    marbles.expect(source, "--b-c-", subscription="--^---!")
    assert marbles.subscriptions(source) == ["--^---!"]


def test_bad_diagram(marbles):
    with pytest.raises(ripple.StatusError) as e:
        marbles.cold("a|b")
    assert e.value.status == ripple.lib.RPL_ERR_INVALID
    assert "column 3" in str(e.value)
    with pytest.raises(ValueError):
        marbles.cold("a", {"ab": 1})
    with pytest.raises(ripple.StatusError):
        marbles.expect(marbles.cold("a"), "((a))")


def test_shared_scheduler():
    m = Marbles(ripple.TestScheduler())
    tick = ripple.Signal.interval(0.001, m.scheduler).take(3) if hasattr(ripple.Signal, "interval") else None
    if tick is not None:
        m.expect(tick, "-01(2|)")


class MarblesWithUnittest(MarbleTestCase):
    def test_assert_marbles(self):
        source = self.marbles.cold("-a-b-|")
        self.assertMarbles(source.skip(1), "---b-|")

    def test_failure_is_a_test_failure(self):
        with self.assertRaises(self.failureException) as e:
            self.assertMarbles(self.marbles.cold("-a|"), "-b|")
        self.assertIn("expected: -b|", str(e.exception))


if __name__ == "__main__":
    unittest.main()
