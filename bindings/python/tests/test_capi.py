"""The generated declarations (ripple/_capi.py) against the manifest both were
generated with (abi/api.json, clang's reading of ripple.h) and against the
loaded library: every function resolves, with the parameter and result types
the header gives it, every constant has its value, and every struct its C
layout."""
import json
import re
from pathlib import Path

import ripple
from ripple import ffi, lib

MANIFEST = json.loads((Path(__file__).resolve().parents[3] / "abi" / "api.json").read_text())


def _normal(c_type: str) -> str:
    """A manifest type as cffi spells it: no nullability, no spaces before '*'."""
    t = re.sub(r"\b_Nullable\b|\b_Nonnull\b", "", c_type)
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"\s*\*\s*", " *", t).replace("* ", "*").strip()
    return t


def test_every_function_resolves_with_the_headers_types() -> None:
    problems = []
    for f in MANIFEST["functions"]:
        name = f["name"]
        if not ripple.has(name):
            problems.append("%s: not exported by %s" % (name, ripple.LIBRARY_PATH))
            continue
        t = ffi.typeof(getattr(lib, name))
        want = [_normal(p["type"]) for p in f["params"]]
        if len(t.args) != len(want):
            problems.append("%s: %d parameters, the header has %d" % (name, len(t.args), len(want)))
        for i, (got, w) in enumerate(zip(t.args, want)):
            if ffi.typeof(w) is not got:  # cffi has one type object per C type
                problems.append("%s parameter %d: %s, the header has %s" % (name, i, got.cname, w))
        if ffi.typeof(_normal(f["returns"])) is not t.result:
            problems.append("%s returns %s, the header %s" % (name, t.result.cname, f["returns"]))
    assert len(MANIFEST["functions"]) > 100
    assert not problems, "\n".join(problems)


def test_every_constant_has_the_headers_value() -> None:
    for c in MANIFEST["constants"]:
        assert ripple.CONSTANTS[c["name"]] == c["value"], c
        if isinstance(c["value"], int) and "enum" in c:
            assert getattr(lib, c["name"]) == c["value"], c
    assert ripple.CONSTANTS["RPL_FOREVER"] == 2**64 - 1
    assert ripple.lib.RPL_ERR_TIMEOUT == -4


def test_every_struct_has_the_c_layout() -> None:
    for s in MANIFEST["structs"]:
        assert ffi.sizeof(s["name"]) == s["size"], s["name"]
        assert ffi.alignof(s["name"]) == s["align"], s["name"]
        for f in s["fields"]:
            field = f["name"] + ("_" if f["name"] == "as" else "")
            assert ffi.offsetof(s["name"], field) == f["offset"], (s["name"], f["name"])


def test_the_library_is_the_headers_version() -> None:
    assert ripple.version_number() // 100 == ripple.CONSTANTS["RPL_VERSION_NUMBER"] // 100
