#!/usr/bin/env python3
"""The ripple-trace command's own cases, run as a user runs it:
--from/--to, times with units, a cut line, standard input, bad input, a
value that would end the page's script. Usage: tool_check.py tools/ripple-trace"""
import json
import os
import re
import subprocess
import sys
import tempfile

TOOL = os.path.abspath(sys.argv[1])
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("tool_check: FAIL " + what, file=sys.stderr)


def run(*args, stdin=None):
    p = subprocess.run([sys.executable, TOOL, *args], input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def page_data(path):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1)), html


def line(t, kind, sub, signal="s", **extra):
    return json.dumps({"t": t, "thread": 7, "kind": kind, "sub": sub, "signal": signal, **extra}) + "\n"


with tempfile.TemporaryDirectory() as d:
    trace = os.path.join(d, "t.jsonl")
    with open(trace, "w") as f:
        f.write('{"ripple_trace":1,"pid":1,"clock":"monotonic","start_unix_ns":0}\n')
        f.write(line(1000, "subscribe", 1))
        for i in range(10):  # one value per millisecond, 1 ms .. 10 ms
            f.write(line((i + 1) * 1000000, "next", 1, value=str(i)))
        f.write('{"t":10500000,"thread":7,"kind":"ne')  # a line cut by a failed write
        f.write("\n")
        f.write(line(11000000, "next", 1, value='"</script><b>x</b>"'))
        f.write(line(12000000, "error", 1, error={"domain": "d", "code": 3, "message": "m"}))
        f.write(line(12000001, "dispose", 1))
        f.write(line(5000000, "next", 2, signal="<late>", value="x"))  # subscribed before tracing

    rc, out, err = run(trace)
    check(rc == 0, f"a trace: exit {rc} {err}")
    data, html = page_data(os.path.join(d, "t.html"))  # the default name
    check(len(data["k"]) == 15 and data["total"] == 15, f"all events kept: {data['total']}")
    check(data["skipped"] == 1 and "skipped 1 lines" in err, f"the cut line is skipped and said: {err}")
    check("</script><b>" not in html, "a value cannot end the script")
    check('"\\"<\\/script><b>x<\\/b>\\""' in html, "the value is kept, escaped")
    check(sorted(data["signals"]) == ["<late>", "s"], f"signals {data['signals']}")
    check(data["subs"][0][2] == 1000 and data["subs"][0][3] == 12000001 and data["subs"][0][4] == 2,
          f"subscription 1 spans subscribe to dispose, ended by an error: {data['subs'][0]}")
    check(data["subs"][1][2] is None, "subscription 2 has no subscribe (before tracing)")
    check("<title>t.jsonl - ripple-trace</title>" in html, "title")

    # A window: 3 ms to 6.5 ms in different units keeps next 2..5 and sub 2's value.
    out_html = os.path.join(d, "w.html")
    rc, out, err = run(trace, "-o", out_html, "--from", "3ms", "--to", "6500us", "--title", "a <b>")
    check(rc == 0, f"window: exit {rc} {err}")
    data, html = page_data(out_html)
    check(data["k"] == "11111", f"window kinds {data['k']}")
    check(data["window"] == [3000000, 6500000], f"window {data['window']}")
    check("5 of 15 events" in err, err)
    check("<title>a &lt;b&gt; - ripple-trace</title>" in html, "the title is escaped")
    rc, _, err = run(trace, "-o", out_html, "--from", "0.003s", "--to", "6500000")
    check(rc == 0 and page_data(out_html)[0]["k"] == "11111", "the same window in seconds and nanoseconds")

    # Standard input, with -o; without it, an error.
    rc, _, err = run("-", "-o", os.path.join(d, "in.html"), stdin=open(trace).read())
    check(rc == 0 and os.path.exists(os.path.join(d, "in.html")), f"stdin: {rc} {err}")
    rc, _, err = run("-", stdin="")
    check(rc == 2 and "-o" in err, f"stdin without -o: {rc} {err}")

    # Bad input: clear errors, no page.
    rc, _, err = run(os.path.join(d, "missing.jsonl"))
    check(rc == 1 and "No such file" in err, f"missing file: {rc} {err}")
    junk = os.path.join(d, "junk.txt")
    open(junk, "w").write("hello\nworld\n")
    rc, _, err = run(junk, "-o", os.path.join(d, "junk.html"))
    check(rc == 1 and "not a Ripple trace" in err and not os.path.exists(os.path.join(d, "junk.html")),
          f"not a trace: {rc} {err}")
    rc, _, err = run(trace, "--from", "soon")
    check(rc == 2 and "not a time" in err, f"bad time: {rc} {err}")
    rc, _, err = run(trace, "--from", "5ms", "--to", "1ms")
    check(rc == 2 and "before --from" in err, f"reversed window: {rc} {err}")

print(f"tool_check: {'FAILED' if failed else 'OK'}")
sys.exit(1 if failed else 0)
