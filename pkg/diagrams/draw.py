#!/usr/bin/env python3
"""Draws the operator diagrams that pkg/diagrams/run_operators printed.

  draw.py OPS.txt OUTDIR

For each operator, OUTDIR gets <function>.svg (embedded next to the function
in the HTML reference by pkg/doxygen_filter.py) and <function>.txt (the text
diagram pkg/manpages.py puts in its man page). The diagrams are what the
operator did under the test scheduler, recorded through the marble API:
nothing here is drawn by hand. Fails when an operator of ripple.h (a function
returning a signal) has no diagram, so a new operator cannot go without one.
"""
import html
import os
import re
import sys

FRAME = 26        # px per frame
LANE = 44         # px per lane
LEFT = 96         # px for the lane labels
R = 10            # marble radius
# Functions returning a signal that are no operator: accessors and the marble API.
NOT_OPERATORS = {"rpl_connection_signal", "rpl_subject_as_signal", "rpl_value_signal", "rpl_marble_cold"}
# The operating system's sources refuse the test scheduler (their events come
# from the kernel, not from virtual time), so no marble run can draw them.
NOT_OPERATORS |= {"rpl_signal_" + n for n in ("fd_readable", "fd_writable", "read", "read_lines", "write",
                                              "accept", "os_signal", "child_exit", "file_changes")}


def read(path):
    ops, cur = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        key, _, rest = line.partition(" ")
        if key == "op":
            cur = {"name": rest, "note": "", "in": [], "out": "", "legend": [], "subscription": None}
        elif key == "end":
            ops.append(cur)
        elif key == "in":
            cur["in"].append(rest)
        elif key == "legend":
            cur["legend"].append((rest[0], rest[2:]))
        elif key in ("note", "out", "subscription"):
            cur[key] = rest
    return ops


def events(diagram):
    """[(frame, kind, chars)] of a diagram in the marble syntax (kind: next,
    complete, error, group), and the frame where it ends."""
    out, t, i, group = [], 0.0, 0, None
    while i < len(diagram):
        c = diagram[i]
        m = re.match(r"(\d+(?:\.\d+)?)(ms|s|m) ", diagram[i:]) if (i == 0 or diagram[i - 1] == " ") else None
        if m:
            t += float(m.group(1)) * {"ms": 1, "s": 1000, "m": 60000}[m.group(2)]
            i += len(m.group(0))
            continue
        i += 1
        if c == " ":
            continue
        if c == "(":
            group = (t, [])
        elif c == ")":
            out.append((group[0], "group", group[1]))
            group = None
        elif c != "-" and c != "^":
            kind = {"|": "complete", "#": "error"}.get(c, "next")
            if group is not None:
                group[1].append(c)
            else:
                out.append((t, kind, c))
        t += 1
    return out, t


def offsets(op):
    """Where each lane starts: a signal x, y, z of the outer lane is cold and
    plays from when the outer lane sends it; every other lane from frame 0."""
    names = labels(op)
    outer, _ = events(op["in"][0]) if op["in"] else ([], 0)
    out = []
    for name in names:
        first = [t for t, kind, c in outer if kind == "next" and c == name]
        out.append(first[0] if name in "xyz" and first else 0)
    return out + [0]


def labels(op):
    n = len(op["in"])
    if n > 2 and "x" in op["in"][0]:
        return ["outer", "x", "y", "z"][:n]
    return ["input"] + ["input %d" % (k + 1) for k in range(1, n)]


def svg(op):
    lanes = list(zip(labels(op), op["in"])) + [("output", op["out"])]
    starts = offsets(op)
    parsed = []
    for (_, d), start in zip(lanes, starts):
        evs, end = events(d)
        parsed.append(([(t + start, k, c) for t, k, c in evs], end + start))
    frames = max([end for _, end in parsed] + [8]) + 2
    width = LEFT + int(frames * FRAME) + 20
    box = 34
    height = 16 + LANE * len(lanes) + box + 10 + (18 if op["legend"] else 0)
    title = op["name"] + ("(" + op["note"] + ")" if op["note"] else "")
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="13" role="img" xml:space="preserve">' % (width, height, width, height),
           "<title>%s: marble diagram, recorded from a run</title>" % html.escape(op["name"])]
    y = 16
    for n, ((label, _), (evs, end)) in enumerate(zip(lanes, parsed)):
        if n == len(lanes) - 1:  # the operator box
            out.append('<rect x="%d" y="%d" width="%d" height="%d" rx="4" fill="#f3f3f3" stroke="#888"/>'
                       % (LEFT, y, width - LEFT - 20, box - 8))
            out.append('<text x="%d" y="%d" font-family="monospace">%s</text>'
                       % (LEFT + 8, y + 17, html.escape(title)))
            y += box
        mid = y + LANE // 2
        out.append('<text x="8" y="%d" fill="#555">%s</text>' % (mid + 4, html.escape(label)))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333" stroke-width="1.5"/>'
                   % (LEFT, mid, width - 14, mid))
        out.append('<path d="M%d %d l-8 -4 v8 z" fill="#333"/>' % (width - 10, mid))
        for t, kind, chars in evs:
            x = LEFT + R + t * FRAME
            if kind == "complete":
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-width="3"/>'
                           % (x, mid - 12, x, mid + 12))
            elif kind == "error":
                out.append('<path d="M%.1f %d l12 12 M%.1f %d l-12 12" stroke="#c00" stroke-width="3"/>'
                           % (x - 6, mid - 6, x + 6, mid - 6))
            else:
                shown = [c for c in chars if c not in "|#"]
                w = max(2 * R, 14 * len(shown) + 6)
                out.append('<rect x="%.1f" y="%d" width="%d" height="%d" rx="%d" fill="#fff7d6" stroke="#333"/>'
                           % (x - R, mid - R, w, 2 * R, R))
                out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                           % (x - R + w / 2, mid + 4, html.escape(" ".join(shown))))
                tail = x - R + w + 6
                if "|" in chars:
                    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-width="3"/>'
                               % (tail, mid - 12, tail, mid + 12))
                if "#" in chars:
                    out.append('<path d="M%.1f %d l12 12 M%.1f %d l-12 12" stroke="#c00" stroke-width="3"/>'
                               % (tail - 6, mid - 6, tail + 6, mid - 6))
        y += LANE
    if op["legend"]:
        text = ";  ".join("%s = %s" % kv for kv in op["legend"])
        out.append('<text x="%d" y="%d" fill="#333">%s</text>' % (LEFT, y + 12, html.escape(text)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def text(op):
    lanes = list(zip(labels(op), op["in"])) + [("output", op["out"])]
    # Spaces align a cold x, y, z under the frame the outer lane sends it in
    # (a diagram ignores spaces).
    lines = ["%-8s  %s%s" % (label, " " * int(start), d) for (label, d), start in zip(lanes[:-1], offsets(op))]
    lines.append("          " + op["name"] + ("(" + op["note"] + ")" if op["note"] else ""))
    lines.append("%-8s  %s" % lanes[-1])
    if op["subscription"]:
        lines.append("%-8s  %s" % ("subscribed", op["subscription"]))
    if op["legend"]:
        lines.append("          " + "   ".join("%s = %s" % kv for kv in op["legend"]))
    return "\n".join(lines) + "\n"


def main(ops_path, outdir, header=None):
    ops = read(ops_path)
    os.makedirs(outdir, exist_ok=True)
    for op in ops:
        with open(os.path.join(outdir, op["name"] + ".svg"), "w", encoding="utf-8") as f:
            f.write(svg(op))
        with open(os.path.join(outdir, op["name"] + ".txt"), "w", encoding="utf-8") as f:
            f.write(text(op))
    if header:
        declared = set(re.findall(r"^rpl_signal_t \*RPL_NULLABLE (rpl_[a-z0-9_]+)\(",
                                  open(header, encoding="utf-8").read(), re.M))
        missing = sorted(declared - NOT_OPERATORS - {op["name"] for op in ops})
        if missing:
            sys.exit("draw.py: no diagram for " + ", ".join(missing) + " (add it to pkg/diagrams/run_operators.c)")
    print("diagrams: %d operators drawn in %s" % (len(ops), outdir))


if __name__ == "__main__":
    main(*sys.argv[1:])
