#!/usr/bin/env python3
"""Doxygen input filter for ripple.h (make docs).

The header's comments are plain C comments written for people reading the
header; this turns them into Doxygen comments on the fly, so the header needs
no Doxygen markup: the first comment documents the file, each section banner
("/* ====") opens a group, a comment above a declaration documents it, and a
comment after a member on the same line documents that member. Line numbers
are kept, so Doxygen's source links and warnings point at the real header.
"""
import re
import sys

RULE = re.compile(r"^/\* =+\s*$")
END = re.compile(r"^ \* =+ \*/\s*$")
SUB = re.compile(r"^ \* -+\s*$")
# In an event-loop adapter header (ripple_glib.h, ...), what follows this line
# is the private implementation of its inline functions: left out of the docs.
IMPL = re.compile(r"^/\* -+ Implementation")


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
            out.append(re.sub(r"/\*", "/**", ln, count=1))
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
