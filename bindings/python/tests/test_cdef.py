import re
import subprocess
from pathlib import Path

import ripple
from ripple._cdef import header_to_cdef


def test_every_declared_function_resolves():
    code = Path(ripple.HEADER_PATH).read_text()
    cdef, constants = header_to_cdef(code)
    names = sorted(set(re.findall(r"\b(rpl_[a-z0-9_]+)\s*\((?!\s*\*)", cdef)))
    funcs = [n for n in names if not n.endswith("_fn")]
    assert len(funcs) > 50
    missing = [n for n in funcs if not ripple.has(n)]
    assert not missing


def test_constants():
    c = ripple.CONSTANTS
    assert c["RPL_FOREVER"] == 2**64 - 1
    assert c["RPL_OBSERVER_VERSION"] == 1
    assert c["RPL_ERROR_DOMAIN"] == "ripple"
    assert ripple.lib.RPL_ERR_TIMEOUT == -4


def test_matches_the_c_preprocessor():
    # The prototypes our preprocessor keeps are those a C compiler sees.
    try:
        out = subprocess.run(["cpp", "-P", ripple.HEADER_PATH], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        import pytest
        pytest.skip("no cpp")
    ours, _ = header_to_cdef(Path(ripple.HEADER_PATH).read_text())
    norm = lambda s: sorted(set(re.findall(r"\b(rpl_[a-z0-9_]+)\s*\((?!\s*\*)", s)))  # noqa: E731
    assert norm(out) == norm(ours)


def test_preprocessor_subset():
    text = '''
    /* comment with rpl_fake(void); */
    #define A_NULLABLE
    #if defined(__clang__)
    int rpl_clang_only(void);
    #else
    int rpl_plain(int *A_NULLABLE p); // trailing
    #endif
    #define K (1 << 4)
    #define S "str"
    static inline int rpl_inline(void) { return 1; }
    '''
    code, consts = header_to_cdef(text)
    assert "rpl_plain(int * p)" in code
    assert "rpl_clang_only" not in code and "rpl_fake" not in code and "rpl_inline" not in code
    assert consts["K"] == 16 and consts["S"] == "str"
