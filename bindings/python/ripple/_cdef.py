"""Turn ripple.h into declarations that cffi's ``cdef`` accepts.

The binding never carries a hand-copied list of declarations: it reads the
header that was installed with the library it loads, so the two cannot drift.
cffi parses plain C only, so this module is a small C preprocessor for the
subset the header uses:

- comments and line continuations are removed;
- ``#if/#ifdef/#ifndef/#elif/#else/#endif`` are evaluated as a plain C
  compiler that is neither clang nor C++ would (so the clang-only nullability
  keywords expand to nothing and ``extern "C"`` disappears);
- object-like ``#define`` macros are expanded in declarations, and the ones
  with a constant value are returned as Python constants;
- ``#include``/``#pragma`` lines and ``static inline`` function bodies are
  dropped (ABI mode can only call exported functions).

Two rewrites make ``rpl_value`` usable from Python, neither changing the ABI:

- its ``as`` member (a Python keyword) becomes ``as_``; member names are not
  part of the ABI;
- libffi cannot pass a struct holding a union by value, so in ``rpl_value``
  the 8-byte union becomes ``int64_t as_`` (same size, alignment, and calling
  convention class: on x86-64 SysV and AArch64 both are one INTEGER eightbyte),
  and the original layout is declared as ``rpl_value_view_`` for reading and
  writing the payload through a pointer cast.
"""

import re

__all__ = ["header_to_cdef"]

_BUILTIN_CONSTANTS = {
    "UINT64_MAX": str(2**64 - 1),
    "INT64_MAX": str(2**63 - 1),
    "INT64_MIN": str(-(2**63)),
    "UINT32_MAX": str(2**32 - 1),
    "INT32_MAX": str(2**31 - 1),
    "SIZE_MAX": str(2**64 - 1),
    "NULL": "0",
}

_TOKEN = re.compile(
    r'"(?:\\.|[^"\\])*"'        # string literal
    r"|'(?:\\.|[^'\\])*'"       # character literal
    r"|/\*.*?\*/"               # block comment
    r"|//[^\n]*"                # line comment
    r"|.",
    re.S,
)


def _strip_comments(text):
    out = []
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith("/*"):
            out.append(" " if "\n" not in tok else "\n" * tok.count("\n"))
        elif tok.startswith("//"):
            out.append(" ")
        else:
            out.append(tok)
    return "".join(out)


_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*\b")


def _expand(text, macros, depth=0):
    """Expands object-like macros (recursively, at most 20 levels)."""
    if depth > 20:
        return text

    def sub(m):
        name = m.group(0)
        if name in macros:
            return _expand(macros[name], macros, depth + 1)
        return name

    return _IDENT.sub(sub, text)


def _c_int_expr(expr):
    """Evaluates a C integer constant expression, or returns None."""
    e = expr.strip()
    if not e:
        return None
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = re.sub(r"\(\s*(?:u?int\d+_t|size_t|unsigned|int|long)\s*\)", "", e)
    if _IDENT.search(re.sub(r"\b(and|or|not)\b", "", e)):
        return None  # an identifier nobody defined
    if not re.fullmatch(r"[\s0-9a-fA-FxX()+\-*/%<>=!&|~^andort]*", e):
        return None
    try:
        value = eval(e.replace("/", "//"), {"__builtins__": {}}, {})  # noqa: S307
    except Exception:
        return None
    if isinstance(value, bool):
        return int(value)
    return value if isinstance(value, int) else None


def _condition(expr, macros):
    expr = re.sub(r"\bdefined\s*\(\s*(\w+)\s*\)", lambda m: "1" if m.group(1) in macros else "0", expr)
    expr = re.sub(r"\bdefined\s+(\w+)", lambda m: "1" if m.group(1) in macros else "0", expr)
    expr = _expand(expr, macros)
    expr = _IDENT.sub("0", expr)  # undefined identifiers are 0 in #if
    return bool(_c_int_expr(expr) or 0)


def _drop_function_bodies(text):
    """Removes `static inline` definitions: ABI mode cannot use them."""
    out, i = [], 0
    pattern = re.compile(r"\bstatic\s+(?:inline\s+)?[^;{}]*\([^;{}]*\)\s*\{")
    while True:
        m = pattern.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j


def _by_value_unions(code):
    m = re.search(r"typedef\s+struct\s+rpl_value\s*\{(.*?)\}\s*rpl_value\s*;", code, re.S)
    if not m:
        return code
    body = m.group(1)
    flat = re.sub(r"union\s*\{[^{}]*\}\s*as_\s*;", "int64_t as_;", body)
    view = "typedef struct rpl_value_view_ {%s} rpl_value_view_;" % body
    return code[:m.start()] + "typedef struct rpl_value {%s} rpl_value;\n%s" % (flat, view) + code[m.end():]


def header_to_cdef(text):
    """Returns (cdef_source, constants) for the text of ripple.h.

    constants maps each object-like macro with an integer or string value
    (RPL_FOREVER, RPL_OBSERVER_VERSION, RPL_ERROR_DOMAIN, ...) to that value.
    """
    text = _strip_comments(text.replace("\\\r\n", "").replace("\\\n", ""))
    macros = dict(_BUILTIN_CONSTANTS)
    own = []
    body = []
    stack = []  # (active, taken) for each open #if
    active = True
    for line in text.split("\n"):
        s = line.strip()
        if not s.startswith("#"):
            if active:
                body.append(line)
            continue
        m = re.match(r"#\s*(\w+)\s*(.*)", s)
        if not m:
            continue
        directive, rest = m.group(1), m.group(2).strip()
        if directive in ("if", "ifdef", "ifndef"):
            if directive == "ifdef":
                cond = rest.split()[0] in macros
            elif directive == "ifndef":
                cond = rest.split()[0] not in macros
            else:
                cond = _condition(rest, macros)
            stack.append((active, active and cond))
            active = active and cond
        elif directive == "elif":
            outer, taken = stack[-1]
            cond = outer and not taken and _condition(rest, macros)
            stack[-1] = (outer, taken or cond)
            active = cond
        elif directive == "else":
            outer, taken = stack[-1]
            active = outer and not taken
            stack[-1] = (outer, True)
        elif directive == "endif":
            active = stack.pop()[0]
        elif directive == "define" and active:
            dm = re.match(r"(\w+)(\([^)]*\))?\s*(.*)", rest)
            if dm and not dm.group(2):
                macros[dm.group(1)] = dm.group(3)
                own.append(dm.group(1))
        elif directive == "undef" and active:
            macros.pop(rest.split()[0], None)
        # include, pragma, error, line: nothing to do for cffi
    code = _expand("\n".join(body), {k: v for k, v in macros.items() if k not in _BUILTIN_CONSTANTS})
    code = _drop_function_bodies(code)
    code = re.sub(r"\b_Nullable\b|\b_Nonnull\b|\b_Null_unspecified\b", "", code)
    code = re.sub(r"\bas\s*;", "as_;", code)
    code = _by_value_unions(code)
    code = re.sub(r"\n\s*\n+", "\n", code).strip() + "\n"

    constants = {}
    for name in own:
        value = _expand(macros[name], macros).strip()
        sm = re.fullmatch(r'"((?:\\.|[^"\\])*)"', value)
        if sm:
            constants[name] = sm.group(1)
            continue
        n = _c_int_expr(value)
        if n is not None:
            constants[name] = n
    return code, constants
