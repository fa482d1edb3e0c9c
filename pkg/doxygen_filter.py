#!/usr/bin/env python3
"""Doxygen input filter for ripple.h (make docs).

The header's comments are plain C comments written for people reading the
header; this turns them into Doxygen comments on the fly, so the header needs
no Doxygen markup: the first comment documents the file, each section banner
("/* ====") opens a group, a comment above a declaration documents it, and a
comment after a member on the same line documents that member. Line numbers
are kept, so Doxygen's source links and warnings point at the real header.

With RIPPLE_DIAGRAMS set (make docs), the comment above a function that has
a diagram there (<function>.svg, drawn by pkg/diagrams from a real run) ends
with that image, so the reference shows each operator's marble diagram next
to it; the image goes on the comment's last line, keeping the line numbers.
"""
import os
import re
import sys

RULE = re.compile(r"^/\* =+\s*$")
END = re.compile(r"^ \* =+ \*/\s*$")
SUB = re.compile(r"^ \* -+\s*$")
# In an event-loop adapter header (ripple_glib.h, ...), what follows this line
# is the private implementation of its inline functions: left out of the docs.
IMPL = re.compile(r"^/\* -+ Implementation")
FUNC = re.compile(r"\b(rpl_[a-z0-9_]+)\s*\((?!\s*\*)")


def diagrams_for(lines, end):
    """The diagrams of the functions declared right after the comment ending
    at line `end` (up to a blank line or the next comment)."""
    folder = os.environ.get("RIPPLE_DIAGRAMS")
    if not folder:
        return []
    k = end + 1
    decl = ""
    while k < len(lines) and lines[k].strip() and not lines[k].lstrip().startswith("/*"):
        decl += lines[k] + "\n"
        k += 1
    return [n + ".svg" for n in FUNC.findall(decl) if os.path.exists(os.path.join(folder, n + ".svg"))]


def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    first = True
    groups = 0
    hidden = False
    # Group names are global: the adapter headers' are prefixed with their name.
    stem = re.sub(r"\.h$", "", path.rsplit("/", 1)[-1])
    prefix = "" if stem == "ripple" else stem + "_"
    i = 0
    while i < len(lines):
        ln = lines[i]
        if IMPL.match(ln):
            out.append("/** @cond INTERNAL */")
            hidden = True
        elif first and ln.startswith("/*"):
            out.append("/** \\file " + ln[2:].lstrip("*"))
            first = False
        elif RULE.match(ln):
            title = re.sub(r"^ \* ", "", lines[i + 1]).strip()
            groups += 1
            close = "/** @} */ " if groups > 1 else ""
            out.append(close + f"/** \\defgroup {prefix}sec{groups} {title}")
            out.append("")
            i += 2
            while not END.match(lines[i]):
                out.append("" if SUB.match(lines[i]) else lines[i])
                i += 1
            out.append(" * @{ */")
        elif re.match(r"^\s*/\*(?![*/])", ln):
            end = i
            while "*/" not in lines[end]:
                end += 1
            images = diagrams_for(lines, end)
            out.append(re.sub(r"/\*", "/**", ln, count=1))
            while i < end:
                i += 1
                out.append(lines[i])
            if images:
                k = out[-1].rindex("*/")
                shown = " ".join("\\image html %s \"%s: marble diagram, recorded from a run\"" % (f, f[:-4])
                                 for f in images)
                out[-1] = out[-1][:k] + shown + " */" + out[-1][k + 2:]
        elif re.search(r"\S.*/\*(?!\*)", ln) and not ln.lstrip().startswith("#"):
            out.append(re.sub(r"/\*(?!\*)", "/**<", ln, count=1))
        else:
            out.append(ln)
        i += 1
    if hidden:
        out.append("/** @endcond */")
    if groups:
        out.append("/** @} */")
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
