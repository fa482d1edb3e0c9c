"""Names, the trace hook, logging and the live-object count."""
import threading
import time

import pytest

import ripple
from conftest import collect, needs

pytestmark = needs("rpl_trace_set", "rpl_signal_name", "rpl_live_objects", "rpl_signal_log")


def test_names():
    s = ripple.Subject()
    assert s.name == "+subject"
    m = s.set_name("clicks").take(3)  # an operator of the C library
    assert s.name == "clicks"
    assert m.name == "[clicks] -take: 3"
    m.name = "first three"
    assert m.skip(1).name == "[first three] -skip: 1"
    assert ripple.Signal.merge([ripple.Signal.empty(), ripple.Signal.never()]).name == "+merge: ([+empty], [+never])"


def test_trace_order_and_off():
    collect()  # earlier tests' subscriptions that end when collected would report here too
    s = ripple.Subject()
    s.name = "src"
    seen = []
    with ripple.trace(seen.append):
        d = s.take(5).subscribe(lambda v: None)
        s.send_next(1)
        s.send_next("two")
        s.send_completed()
    assert [e.kind for e in seen] == ["subscribe", "next", "next", "completed", "dispose"]
    # map is the C operator (its callback is Python): traced under its name.
    seen2 = []
    with ripple.trace(seen2.append):
        s3 = ripple.Subject().set_name("py")
        s3.map(lambda x: x + 1).subscribe(lambda v: None)
        s3.send_next(1)
    assert [e.signal_name for e in seen2] == ["[py] -map:", "[py] -map:"] and seen2[1].value == 2
    assert {e.signal_name for e in seen} == {"[src] -take: 5"}
    assert len({e.subscription for e in seen}) == 1
    assert seen[1].value == 1 and seen[2].value == "two"
    n = len(seen)
    s2 = ripple.Subject()
    s2.subscribe(lambda v: None)
    s2.send_next(1)
    assert len(seen) == n  # off after the block
    d.dispose()


def test_trace_error_and_threads():
    s = ripple.Subject()
    seen = []
    lock = threading.Lock()

    def hook(e):
        with lock:
            seen.append(e)

    with ripple.trace(hook):
        s.subscribe(lambda v: None, on_error=lambda e: None)
        threads = [threading.Thread(target=lambda: [s.send_next(i) for i in range(200)]) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        s.send_error(ripple.RippleError("bad", "test", 7))
    kinds = [e.kind for e in seen]
    assert kinds[0] == "subscribe" and kinds[-2:] == ["error", "dispose"]
    assert kinds.count("next") == 600
    assert seen[-2].error.message == "bad" and seen[-2].error.code == 7


def _settled():
    """The live count once it has not changed for 200 ms (waiting up to 10 s):
    earlier tests' objects may still be going away (work on other threads,
    Python handles collected late, a loaded machine running them late)."""
    collect()
    last, same = ripple.live_objects(), 0
    for _ in range(1000):
        if same == 20:
            break
        time.sleep(0.01)
        collect()
        now = ripple.live_objects()
        same = same + 1 if now == last else 0
        last = now
    return last


def _back_to(base):
    """The live count once it is back to base (waiting up to 10 s, for
    releases on other threads), or the last count seen."""
    collect()
    now = ripple.live_objects()
    for _ in range(1000):
        if now == base:
            break
        time.sleep(0.01)
        collect()
        now = ripple.live_objects()
    return now


def test_live_objects_back_to_baseline():
    base = _settled()
    s = ripple.Subject()
    d = s.map(lambda x: x).subscribe(lambda v: None)
    assert ripple.live_objects() > base
    d.dispose()
    del d, s
    assert _back_to(base) == base


def test_log(capfd):
    s = ripple.Subject()
    s.log("lbl").subscribe(lambda v: None)
    s.send_next(3)
    s.send_completed()
    err = capfd.readouterr().err
    assert "lbl: next 3\n" in err and "lbl: completed\n" in err


@needs("rpl_trace_write")
def test_trace_write_json_lines(tmp_path):
    import json
    collect()
    path = tmp_path / "t.jsonl"
    s = ripple.Subject()
    s.name = "py"
    with open(path, "w") as f:
        ripple.trace_write(f)  # its own duplicate: f may close now
    d = s.subscribe(lambda v: None)
    s.send_next(41)
    s.send_next("x")
    s.send_completed()
    ripple.trace_write(None)
    d.dispose()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["ripple_trace"] == 1
    events = [(e["kind"], e.get("value")) for e in lines[1:] if e["signal"] == "py"]
    assert events == [("subscribe", None), ("next", "41"), ("next", '"x"'), ("completed", None), ("dispose", None)]
    assert all(e["t"] >= 0 and e["thread"] > 0 for e in lines[1:])


@needs("rpl_trace_write")
def test_trace_write_errors():
    import os
    r, w = os.pipe()
    with pytest.raises(ripple.RippleError, match="not open for writing"):
        ripple.trace_write(r)
    ripple.trace_write(w)
    os.close(w)
    os.close(r)  # the reader goes away: writes fail, the program goes on
    s = ripple.Subject()
    d = s.subscribe(lambda v: None)
    for i in range(3000):
        s.send_next(i)
    with pytest.raises(ripple.RippleError, match="Broken pipe"):
        ripple.trace_write(-1)
    d.dispose()
    with pytest.raises(ripple.RippleError):
        ripple.trace_write(-5)
