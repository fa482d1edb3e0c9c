"""Finds and loads libripple.so with the cffi declarations of ripple.h.

Library, in this order:
1. ``RIPPLE_LIBRARY``: a path to the shared library;
2. ``pkg-config --variable=libdir ripple``, then ``<libdir>/libripple.so.0``;
3. the default loader path: ``libripple.so.0``.

The declarations (``_capi.CDEF``) are generated from ripple.h by
scripts/gen_api.py, as are the constants; a library whose major version
differs from theirs is refused, and a function an older library lacks is
reported by ``has()``.
"""

import os
import shutil
import subprocess

from cffi import FFI  # type: ignore[import-untyped]

from ._capi import CDEF, CONSTANTS, HEADER_VERSION

SONAME = "libripple.so.0"


def _pkg_config(variable):
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=" + variable, "ripple"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    value = out.stdout.strip()
    return value if out.returncode == 0 and value else None


def _library_candidates():
    env = os.environ.get("RIPPLE_LIBRARY")
    if env:
        return [env], "RIPPLE_LIBRARY"
    libdir = _pkg_config("libdir")
    if libdir and os.path.exists(os.path.join(libdir, SONAME)):
        return [os.path.join(libdir, SONAME)], "pkg-config"
    return [SONAME], "loader path"


def _loaded_path(name):
    """The file the dynamic loader picked for `name` (Linux: /proc/self/maps)."""
    if os.path.sep in name:
        return os.path.realpath(name)
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and os.path.basename(parts[5].strip()).startswith("libripple.so"):
                    return parts[5].strip()
    except OSError:
        pass
    return None


def load():
    """Returns (ffi, lib, constants, library_path)."""
    candidates, how = _library_candidates()
    ffi = FFI()
    lib = None
    errors = []
    for name in candidates:
        try:
            # Declarations are added below; cffi resolves symbols lazily.
            # RTLD_NODELETE: the runtime's threads (serial schedulers, the
            # background pool) outlive the interpreter's teardown, so the
            # library must stay mapped when cffi closes its handle at exit.
            lib = ffi.dlopen(name, ffi.RTLD_NOW | ffi.RTLD_LOCAL | getattr(ffi, "RTLD_NODELETE", 0))
            path = name if os.path.sep in name else (_loaded_path(name) or name)
            break
        except OSError as e:
            errors.append("%s: %s" % (name, e))
    if lib is None:
        raise ImportError("ripple: cannot load the library (found via %s): %s. Set RIPPLE_LIBRARY to the "
                          "path of libripple.so.0, or install Ripple (make install)." % (how, "; ".join(errors)))
    ffi.cdef(CDEF)
    # The binding has every function of its header: the library must be of
    # the same major version and at least its minor one.
    loaded = lib.rpl_version()
    if loaded // 10000 != HEADER_VERSION // 10000 or loaded // 100 < HEADER_VERSION // 100:
        raise ImportError("ripple: the library at %s is version %d.%d.%d; this binding needs %d.%d or a later %d.x"
                          % (path, loaded // 10000, loaded // 100 % 100, loaded % 100, HEADER_VERSION // 10000,
                             HEADER_VERSION // 100 % 100, HEADER_VERSION // 10000))
    return ffi, lib, dict(CONSTANTS), path
