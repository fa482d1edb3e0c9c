#!/usr/bin/env python3
"""Generate the man3 pages of Ripple from the comments of Include/ripple.h.

The header is the one place the API is documented, so the pages are derived
from it, never written by hand:
  - ripple.3: the conventions comment at the top of the header, and an index;
  - ripple-<section>.3: one page per "/* ====" section of the header, each
    declaration with the comment written above it;
  - rpl_<function>.3: one name per declared function, a link to its section's
    page (Debian policy prefers symlinks to .so requests for aliases);
  - ripple_<host>.3 (for ripple.h): one page per event-loop adapter header
    beside it (ripple_glib.h, ...: the ripple_*.h with an "---- Implementation"
    line; header-only, so their functions are not exported), made the same
    way from its first comment and its one section, which ends at that line;
    its functions link to it too.

  manpages.py HEADER OUTDIR --version V [--diagrams DIR]
                                          write the pages (and the links); an
                                          operator with DIR/<function>.txt
                                          (pkg/diagrams, from a real run) shows
                                          that marble diagram under its comment
  --name N --summary S                    the library: N.3 is the overview and
                                          N-<section>.3 the sections (default
                                          ripple; ripple-nats for ripple_nats.h)
  manpages.py HEADER --list               every file name the pages install
  manpages.py HEADER --functions          every function HEADER declares (the
                                          exported ones; not the adapters'), sorted
"""
import argparse
import os
import re
import sys

SECTION_RULE = re.compile(r"^/\* =+\s*$")
SECTION_END = re.compile(r"^ \* =+ \*/\s*$")
SUB_RULE = re.compile(r"^ \* -+\s*$")
# A function declaration: rpl_name( not followed by '*' (that would be a
# function-pointer typedef such as `rpl_value (*rpl_map_fn)(...)`).
FUNC = re.compile(r"\b(rpl_[a-z0-9_]+)\s*\((?!\s*\*)")
PREPROC_SKIP = re.compile(r"^#\s*(if|ifdef|ifndef|endif|else|elif|pragma|include)\b")
# Where an event-loop adapter header's documented part ends.
IMPL_MARK = re.compile(r"^/\* -+ Implementation")
# The build line in an adapter header's first comment.
BUILD_LINE = re.compile(r"^\s*cc app\.c \$\(pkg-config --cflags --libs ([^)]*)\)\s*$")


def esc(text):
    """Escape text for roff: backslashes, and a leading . or ' on a line."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text)


def comment_text(lines):
    """The text of a block comment, without /*, */ and the leading ' * '."""
    out = []
    for ln in lines:
        ln = ln.rstrip()
        ln = re.sub(r"^\s*/\*+ ?", "", ln)
        ln = re.sub(r"\s*\*/\s*$", "", ln)
        if re.match(r"^\s*\*( |$)", ln):
            ln = re.sub(r"^\s*\* ?", "", ln)  # " * text" style
        elif ln.startswith("   "):
            ln = ln[3:]  # "/* text\n   more */" style
        out.append(ln)
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def prose(lines):
    """Render comment lines as filled roff text: paragraphs, '- ' bullets and
    'Word   text' tagged paragraphs (the conventions block) keep their shape."""
    out = []
    mode = None  # None, "p", "ip", "tp"
    for n, ln in enumerate(lines):
        if re.match(r"^-{5,}$", ln.strip()):
            continue
        if 0 < n < len(lines) - 1 and re.match(r"^-{5,}$", lines[n - 1].strip()) \
                and re.match(r"^-{5,}$", lines[n + 1].strip()):
            out.append(".SS " + esc(ln.strip()))  # a heading between two rules
            mode = None
            continue
        if not ln.strip():
            mode = None
            continue
        bullet = re.match(r"^\s*- (.*)", ln)
        tag = re.match(r"^([A-Z][A-Za-z]+)\s{2,}(\S.*)", ln)
        if bullet:
            out += [".IP \\(bu 2", esc(bullet.group(1))]
            mode = "ip"
        elif tag:
            out += [".TP", ".B " + tag.group(1), esc(tag.group(2))]
            mode = "tp"
        else:
            if mode is None:
                out.append(".PP")
                mode = "p"
            out.append(esc(ln.strip()))
    return out


def code(lines):
    return [".PP", ".EX"] + [esc(re.sub(r"\s*RPL_(NULLABLE|NONNULL)\b", "", ln.rstrip())) for ln in lines] + [".EE"]


def parse(path):
    """Returns (intro comment lines, [(title, intro lines, body lines)])."""
    with open(path, encoding="utf-8") as f:
        return parse_lines(f.read().splitlines())


def parse_lines(src):
    # The first comment of the file is the overview.
    i = 0
    while not src[i].startswith("/*"):
        i += 1
    j = i
    while "*/" not in src[j]:
        j += 1
    overview = comment_text(src[i:j + 1])
    sections = []
    k = j + 1
    while k < len(src):
        if SECTION_RULE.match(src[k]):
            title = re.sub(r"^ \* ", "", src[k + 1]).strip()
            m = k + 2
            intro = []
            while not SECTION_END.match(src[m]):
                if not SUB_RULE.match(src[m]):
                    intro.append(src[m])
                m += 1
            body = []
            m += 1
            while m < len(src) and not SECTION_RULE.match(src[m]):
                body.append(src[m])
                m += 1
            sections.append((title, comment_text(intro), body))
            k = m
        else:
            k += 1
    # The end of the file (closing guards and pragmas) is not part of the last section.
    return overview, sections


def blocks(body):
    """Split a section body into ('comment'|'code', lines) blocks."""
    out = []
    k = 0
    while k < len(body):
        ln = body[k]
        if not ln.strip() or PREPROC_SKIP.match(ln) or ln.strip() in ("}", "extern \"C\" {"):
            k += 1
            continue
        if ln.startswith("/*"):
            m = k
            while "*/" not in body[m]:
                m += 1
            out.append(("comment", comment_text(body[k:m + 1])))
            k = m + 1
            continue
        m = k
        cur = []
        while m < len(body) and body[m].strip() and not body[m].startswith("/*") and not PREPROC_SKIP.match(body[m]):
            cur.append(body[m])
            m += 1
        if cur and not (len(cur) == 1 and cur[0].strip() == "}"):
            out.append(("code", cur))
        k = m
    return out


def functions_of(body):
    names = []
    for kind, lines in blocks(body):
        if kind != "code":
            continue
        text = "\n".join(ln for ln in lines if not ln.lstrip().startswith("#"))
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        names += [n for n in FUNC.findall(text) if n not in names]
    return names


# The library the header belongs to (--name, --summary): ripple by default.
LIB = {"name": "ripple", "summary": "reactive signals, subjects and operators (ReactiveCocoa semantics) with a C API",
       "header": "ripple.h"}


def slug(title):
    words = re.sub(r"[^a-z0-9]+", "-", title.split(":")[0].lower()).strip("-")
    return LIB["name"] + "-" + words


def th(name, version, source=None):
    date = ""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        import time
        date = time.strftime("%Y-%m-%d", time.gmtime(int(os.environ["SOURCE_DATE_EPOCH"])))
    return ['.\\" Generated by pkg/manpages.py from %s; do not edit.' % (source or LIB["header"]),
            f'.TH {name.upper()} 3 "{date}" "ripple {version}" "Ripple Library Functions"',
            ".nh", ".ad l"]  # identifiers read badly when hyphenated or stretched


def diagram(lines, folder):
    """The marble diagrams of the functions declared in lines, as roff."""
    out = []
    if not folder:
        return out
    for name in FUNC.findall("\n".join(lines)):
        path = os.path.join(folder, name + ".txt")
        if os.path.exists(path):
            text = open(path, encoding="utf-8").read().rstrip("\n").split("\n")
            out += [".PP", "Marble diagram of " + esc(name) + ", recorded from a run (one character per 1 ms frame):",
                    ".EX"] + [esc(ln) for ln in text] + [".EE"]
    return out


def page_for_section(title, intro, body, version, diagrams=None, name=None, header=None, packages=None,
                     overview=(), see_also=()):
    """A section's page; an adapter's (name, header, packages, its overview,
    see_also) when given."""
    name = name or slug(title)
    header = header or LIB["header"]
    funcs = functions_of(body)
    out = th(name, version, header)
    out += [".SH NAME", esc(", ".join([name] + funcs)) + " \\- " + esc(title)]
    lib = esc(LIB["name"])
    out += [".SH SYNOPSIS", ".nf", ".B #include <%s>" % header, ".PP", "Link with \\fI\\-l%s\\fP "
            "(\\fBpkg\\-config \\-\\-cflags \\-\\-libs %s\\fP)." % (lib, esc(packages or lib)), ".fi"]
    out += [".SH DESCRIPTION"] + prose(list(overview)) + prose(intro)
    pending = None
    for kind, lines in blocks(body):
        if kind == "comment":
            if pending is not None:
                out += prose(pending)
            pending = lines
        else:
            out += code(lines)
            if pending is not None:
                out += [".RS"] + prose(pending) + diagram(lines, diagrams) + [".RE"]
                pending = None
    if pending is not None:
        out += prose(pending)
    out += [".SH SEE ALSO", ".BR %s (3)" % LIB["name"] + ("," if see_also else "")] + \
        [f".BR {n} (3)" + ("," if k < len(see_also) - 1 else "") for k, n in enumerate(see_also)]
    return name, funcs, "\n".join(out) + "\n"


def adapters(header):
    """The event-loop adapter headers beside HEADER (the ripple_*.h with an
    Implementation line), as pages:
    [(page name, title, intro, body, header file, pkg-config packages, overview)]."""
    out = []
    folder = os.path.dirname(os.path.abspath(header))
    for fn in sorted(os.listdir(folder)):
        if not re.match(r"^ripple_[a-z0-9]+\.h$", fn):
            continue
        with open(os.path.join(folder, fn), encoding="utf-8") as f:
            src = f.read().splitlines()
        cut = next((i for i, ln in enumerate(src) if IMPL_MARK.match(ln)), None)
        if cut is None:
            continue  # a library's header of its own (ripple_nats.h)
        overview, sections = parse_lines(src[:cut])
        if len(sections) != 1:
            sys.exit(f"{fn}: an adapter header has exactly one section (found {len(sections)})")
        packages = next((m.group(1) for m in map(BUILD_LINE.match, overview) if m), None)
        if packages is None:
            sys.exit(f"{fn}: its first comment has no 'cc app.c $(pkg-config --cflags --libs ...)' line")
        # The overview without its title line and the build example (the SYNOPSIS says both).
        text = [ln for ln in overview[1:] if not BUILD_LINE.match(ln) and not ln.strip().startswith("#include")]
        title, intro, body = sections[0]
        out.append((fn[:-2], title, intro, body, fn, packages, text))
    return out


def overview_page(overview, sections, version, extra=()):
    out = th(LIB["name"], version)
    out += [".SH NAME", esc(LIB["name"]) + " \\- " + esc(LIB["summary"])]
    out += [".SH SYNOPSIS", ".nf", ".B #include <%s>" % LIB["header"], ".PP",
            "cc app.c $(pkg\\-config \\-\\-cflags \\-\\-libs %s)" % esc(LIB["name"]), ".fi"]
    out += [".SH DESCRIPTION"] + prose(overview)
    out += [".SH SECTIONS", "One page per part of the API; each function name is also a page of its own."]
    for title, _, _ in sections:
        out += [".TP", f".BR {slug(title)} (3)", esc(title)]
    if extra:
        out += [".SH EVENT LOOPS", "Header-only adapters that drive a run loop from the program's own event loop."]
        for name, title, *_ in extra:
            out += [".TP", f".BR {name} (3)", esc(title)]
    out += [".SH SEE ALSO", "The behaviour rules (ownership, threading, delivery, termination, subjects, "
            "multicast, errors) are in \\fIdocs/behaviour.md\\fP of the source tree, installed as "
            "\\fIbehaviour.md\\fP in the package's documentation directory."]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("header")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--version", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--functions", action="store_true")
    ap.add_argument("--diagrams")
    ap.add_argument("--name", default=LIB["name"])
    ap.add_argument("--summary", default=LIB["summary"])
    args = ap.parse_args()
    LIB.update(name=args.name, summary=args.summary, header=os.path.basename(args.header))
    overview, sections = parse(args.header)
    pages = [page_for_section(t, i, b, args.version, args.diagrams) for t, i, b in sections]
    if args.functions:
        print("\n".join(sorted({f for _, funcs, _ in pages for f in funcs})))
        return 0
    extra = adapters(args.header) if LIB["name"] == "ripple" else []
    pages += [page_for_section(t, i, b, args.version, name=n, header=h, packages=p, overview=o,
                               see_also=["rpl_run_loop_create"]) for n, t, i, b, h, p, o in extra]
    names = [LIB["name"] + ".3"] + [n + ".3" for n, _, _ in pages] + [f + ".3" for _, funcs, _ in pages for f in funcs]
    if args.list:
        print("\n".join(names))
        return 0
    if not args.outdir:
        ap.error("OUTDIR is required")
    os.makedirs(args.outdir, exist_ok=True)
    for old in os.listdir(args.outdir):
        os.remove(os.path.join(args.outdir, old))
    with open(os.path.join(args.outdir, LIB["name"] + ".3"), "w", encoding="utf-8") as f:
        f.write(overview_page(overview, sections, args.version, extra))
    for name, funcs, text in pages:
        with open(os.path.join(args.outdir, name + ".3"), "w", encoding="utf-8") as f:
            f.write(text)
        for fn in funcs:
            os.symlink(name + ".3", os.path.join(args.outdir, fn + ".3"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
