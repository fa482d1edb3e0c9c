#!/usr/bin/env python3
"""The docs stand alone (make check-docs, part of make check).

1. Every rule cited anywhere in the repository ("rule 6a", "rules 7-11",
   "rules 1, 2, 5 and 6a") has its anchor in docs/behaviour.md
   (<a id="rule-6a"></a>), and no anchor is defined twice.
2. No file points at a document that is not in the repository (the design
   files the project was written from are not shipped).

Run from the top of the source tree; lists every offending line and exits 1.
"""
import os
import re
import subprocess
import sys

DOC = "docs/behaviour.md"
# Written so that this file does not match itself.
OUTSIDE = re.compile(r"semantics\.md|notes-[a-z0-9-]*\.md|rac-reference|shared/design|c-api\.md", re.I)
NUM = r"\d+[a-z]?\b"
CITE = re.compile(r"\brules?[ \t]+(" + NUM + r"(?:[ \t]*(?:,|/|-|–|and|or)[ \t]*" + NUM + r")*)", re.I)
ANCHOR = re.compile(r'<a id="rule-(\d+[a-z]?)"></a>')
SKIP_EXT = (".abi", ".bin", ".png", ".jpg", ".typed")


def files():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], check=True, capture_output=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for root, dirs, names in os.walk("."):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "build"]
            found += [os.path.relpath(os.path.join(root, n)) for n in names]
        return found


def cited(group):
    """The rule numbers a citation names; a-b between plain numbers is a range."""
    out = []
    for m in re.finditer(r"(\d+)([a-z]?)\b(?:[ \t]*[-–][ \t]*(\d+)\b)?", group):
        lo, letter, hi = m.group(1), m.group(2), m.group(3)
        if hi and not letter:
            out += [str(n) for n in range(int(lo), int(hi) + 1)]
        else:
            out.append(lo + letter)
            if hi:
                out.append(hi)
    return out


def main():
    with open(DOC, encoding="utf-8") as f:
        anchors = ANCHOR.findall(f.read())
    bad = [f"{DOC}: anchor rule-{a} defined {anchors.count(a)} times"
           for a in sorted(set(anchors)) if anchors.count(a) > 1]
    defined = set(anchors)
    me = os.path.relpath(__file__)
    citations = 0
    for path in files():
        if path.endswith(SKIP_EXT) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue
        text = data.decode("utf-8", "replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            if path != me and OUTSIDE.search(line):
                bad.append(f"{path}:{lineno}: points outside the repository: {line.strip()}")
            for m in CITE.finditer(line):
                for rule in cited(m.group(1)):
                    citations += 1
                    if rule not in defined:
                        bad.append(f"{path}:{lineno}: rule {rule} has no anchor in {DOC}: {line.strip()}")
    if bad:
        print("\n".join(bad))
        print(f"check-docs: {len(bad)} problem(s)")
        return 1
    print(f"check-docs: {citations} rule citations, all anchored in {DOC} ({len(defined)} rules); "
          "nothing points outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
