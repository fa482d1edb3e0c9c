import gc
import weakref

import pytest

import ripple
from ripple import Signal
from conftest import collect


class Thing:
    pass


@pytest.mark.parametrize("value", [
    None, True, False, 0, 1, -1, 2**63 - 1, -(2**63), 0.0, -2.5, float("inf"),
    "", "hello", "caf\u00e9 \u2603", "nul\x00inside", b"", b"\x00\x01\xff", (), (1, "a", None),
    ((1, 2), (b"x", (3.5, True))),
])
def test_round_trip(value):
    assert Signal.return_(value).first() == value
    assert type(Signal.return_(value).first()) is type(value)
    assert Signal.of(value, value).to_list() == [value, value]


def test_nan_round_trips():
    x = Signal.return_(float("nan")).first()
    assert x != x


def test_other_objects_travel_by_reference():
    t = Thing()
    assert Signal.return_(t).first() is t
    assert Signal.of((t, 1)).first()[0] is t
    big = 2**80
    assert Signal.return_(big).first() == big


def test_subclasses_keep_their_type():
    import collections
    P = collections.namedtuple("P", "x y")
    p = P(1, 2)
    got = Signal.return_(p).first()
    assert got is p and isinstance(got, P)


def test_pointer_value_keeps_object_alive_until_runtime_drops_it():
    t = Thing()
    w = weakref.ref(t)
    s = Signal.return_(t)
    del t
    collect()
    assert w() is not None  # the signal holds the value
    assert isinstance(s.first(), Thing)
    del s
    collect()
    assert w() is None
    assert not ripple._core._objects


def test_signal_values_and_flatten():
    inner = Signal.of(1, 2)
    got = Signal.return_(inner).first()
    assert isinstance(got, Signal)
    assert got.to_list() == [1, 2]


def test_foreign_pointer_is_a_pointer():
    lib, ffi = ripple.lib, ripple.ffi
    v = lib.rpl_pointer(ffi.cast("void *", 0x1234), ffi.NULL)
    assert Signal._own(lib.rpl_signal_return(v)).first() == ripple.Pointer(0x1234)


def test_version():
    assert ripple.version() >= (0, 1, 0)
    assert ripple.lib.rpl_version() == ripple.CONSTANTS["RPL_VERSION_NUMBER"]


def test_status_strings():
    assert ripple.status_string(0)
    assert ripple.status_string(ripple.lib.RPL_ERR_TIMEOUT) != ripple.status_string(0)
    assert ripple.version_number() == ripple.CONSTANTS["RPL_VERSION_NUMBER"]
