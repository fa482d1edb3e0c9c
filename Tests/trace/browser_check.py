#!/usr/bin/env python3
"""Opens a ripple-trace page in headless Chromium, as a user would, and
checks it: the lanes and marks the trace calls for are in the DOM, hovering
a marble shows its details, the wheel zooms, nothing is logged as an error.
Keeps a screenshot. Talks to Chromium over the DevTools protocol with a
small WebSocket client (standard library only).

    browser_check.py PAGE.html TRACE.jsonl --screenshot OUT.png
        [--expect-signal NAME]... [--large]
"""
import argparse
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

KINDS = ["subscribe", "next", "error", "completed", "dispose"]


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: text frames."""

    def __init__(self, url):
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("websocket handshake: connection closed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise OSError("websocket handshake refused: " + head.split(b"\r\n")[0].decode())
        self.buf = head.split(b"\r\n\r\n", 1)[1]

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            hdr = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            hdr = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            hdr = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        self.sock.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise OSError("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            op = b0 & 0x0F
            if op == 8:
                raise OSError("websocket closed by the browser")
            if op in (9, 10):
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()


class Page:
    def __init__(self, ws):
        self.ws, self.next_id, self.events = ws, 0, []

    def call(self, method, **params):
        self.next_id += 1
        my = self.next_id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for e in self.events:
                if e.get("method") == method:
                    return e
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(method)

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {r['exceptionDetails']}")
        return r["result"].get("value")


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("browser_check: no chromium (make trace-deps installs Debian's)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("trace")
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--expect-signal", action="append", default=[])
    ap.add_argument("--large", action="store_true", help="a big trace: check it loads and draws, not each mark")
    args = ap.parse_args()

    # What the page must show, from the trace itself.
    counts = dict.fromkeys(KINDS, 0)
    signals, subs = set(), set()
    with open(args.trace, encoding="utf-8") as f:
        for line in f:
            e = json.loads(line)
            if "kind" in e:
                counts[e["kind"]] += 1
                signals.add(e["signal"])
                subs.add(e["sub"])

    profile = tempfile.mkdtemp(prefix="ripple-chromium-")
    proc = subprocess.Popen([chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--disable-extensions", "--remote-debugging-port=0", f"--user-data-dir={profile}",
                             "--window-size=1400,900", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    failures = []
    try:
        port = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and port is None:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                sys.exit("browser_check: chromium exited at start")
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            sys.exit("browser_check: chromium did not start its DevTools endpoint")
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30))
        page_ws = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
        page = Page(WebSocket(page_ws))
        page.call("Runtime.enable")
        page.call("Log.enable")
        page.call("Page.enable")
        page.call("Emulation.setDeviceMetricsOverride", width=1400, height=900, deviceScaleFactor=1, mobile=False)
        started = time.monotonic()
        page.call("Page.navigate", url="file://" + os.path.abspath(args.page))
        page.wait_for("Page.loadEventFired", 120)
        ready = page.js("document.body.getAttribute('data-ready')")
        load_s = time.monotonic() - started
        if ready != "1":
            failures.append("the page's script did not finish (no data-ready)")

        dom = page.js("""(() => {
            const q = s => Array.from(document.querySelectorAll(s));
            return {
              signalLanes: q('.lane.signal').map(g => g.getAttribute('data-name')),
              subLanes: q('.lane.sub').map(g => g.getAttribute('data-sub')),
              marbles: q('circle.marble[data-i]').length,
              completed: q('.mark.completed[data-i]').length,
              errors: q('.mark.error[data-i]').length,
              spans: q('#chart rect.span').length,
              density: q('rect.density').length,
              info: document.getElementById('info').textContent,
              range: document.getElementById('range').textContent,
            };
        })()""")
        print(f"browser_check: loaded in {load_s:.1f} s: {len(dom['signalLanes'])} signal lanes, "
              f"{len(dom['subLanes'])} subscription lanes, {dom['marbles']} marbles, {dom['completed']} completion "
              f"and {dom['errors']} error marks, {dom['spans']} spans, {dom['density']} density bars ({dom['info']})")
        if sorted(dom["signalLanes"]) != sorted(signals):
            failures.append(f"signal lanes {sorted(dom['signalLanes'])} != signals in the trace {sorted(signals)}")
        for name in args.expect_signal:
            if name not in dom["signalLanes"]:
                failures.append(f"no lane for {name!r}")
        if args.large:
            if not dom["density"] and not dom["marbles"]:
                failures.append("a large trace drew nothing")
        else:
            if sorted(map(int, dom["subLanes"])) != sorted(subs):
                failures.append(f"subscription lanes {dom['subLanes']} != subscriptions {sorted(subs)}")
            # Each event is drawn twice: in its signal's lane and its subscription's.
            for what, kind in (("marbles", "next"), ("completed", "completed"), ("errors", "error")):
                if dom[what] != 2 * counts[kind]:
                    failures.append(f"{dom[what]} {what} drawn, the trace has {counts[kind]} {kind} events (x2 lanes)")
            if dom["spans"] != len(subs):
                failures.append(f"{dom['spans']} subscription spans for {len(subs)} subscriptions")

            # Hover a marble with the mouse: its details appear.
            box = page.js("""(() => { const r = document.querySelector('.lane.sub circle.marble').getBoundingClientRect();
                                      return [r.x + r.width / 2, r.y + r.height / 2]; })()""")
            page.call("Input.dispatchMouseEvent", type="mouseMoved", x=box[0], y=box[1])
            tip = page.js("[getComputedStyle(document.getElementById('tip')).display, document.getElementById('tip').textContent]")
            if tip[0] != "block" or "next" not in tip[1] or "value:" not in tip[1]:
                failures.append(f"hovering a marble shows no details: {tip}")
            page.call("Input.dispatchMouseEvent", type="mouseMoved", x=5, y=5)

        # The wheel zooms in (around the pointer), a double click fits again.
        page.call("Input.dispatchMouseEvent", type="mouseWheel", x=800, y=80, deltaX=0, deltaY=-300)
        zoomed = page.js("document.getElementById('range').textContent")
        if zoomed == dom["range"]:
            failures.append("the wheel did not zoom")
        page.call("Input.dispatchMouseEvent", type="mousePressed", x=800, y=80, button="left", clickCount=1)
        page.call("Input.dispatchMouseEvent", type="mouseMoved", x=700, y=80, button="left")
        page.call("Input.dispatchMouseEvent", type="mouseReleased", x=700, y=80, button="left", clickCount=1)
        panned = page.js("document.getElementById('range').textContent")
        if panned == zoomed:
            failures.append("dragging did not pan")
        page.js("document.getElementById('fit').click()")
        if page.js("document.getElementById('range').textContent") != dom["range"]:
            failures.append("Fit did not come back to the whole trace")

        page.call("Input.dispatchMouseEvent", type="mouseMoved", x=5, y=5)  # no tooltip in the picture
        # The page down to the end of its lanes (no empty window below).
        height = page.js("Math.min(900, Math.ceil(document.getElementById('chart').getBoundingClientRect().bottom) + 6)")
        shot = page.call("Page.captureScreenshot", format="png",
                         clip={"x": 0, "y": 0, "width": 1400, "height": height, "scale": 1})
        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        with open(args.screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print(f"browser_check: screenshot {args.screenshot}")

        # Anything the page logged as an error, or threw.
        for e in page.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                failures.append(f"exception: {p['exceptionDetails'].get('exception', {}).get('description') or p['exceptionDetails']}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                failures.append(f"console.{p['type']}: {[a.get('value') for a in p.get('args', [])]}")
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                failures.append(f"log error: {p['entry'].get('text')}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    for f in failures:
        print("browser_check: FAIL " + f, file=sys.stderr)
    if failures:
        return 1
    print("browser_check: OK (no console errors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
