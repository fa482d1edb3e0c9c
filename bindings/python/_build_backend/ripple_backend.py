"""A minimal PEP 517/660 build backend for the `ripple` package.

It needs nothing beyond the standard library, so `pip install bindings/python`
works offline, with or without build isolation. The wheel holds the `ripple`
package, the metadata from pyproject.toml ([project]) and, when a C compiler
and ripple.h are found, the compiled core `ripple/_cext` (a CPython extension
built from ripple/_cext.c; the wheel is then tagged for this interpreter and
platform). Without them the wheel is pure Python and the package runs on cffi
in ABI mode, which it says with a warning at import.

ripple.h, in this order: RIPPLE_HEADER (a path to the file), the repository's
Include/ripple.h next to this directory, `pkg-config --variable=includedir
ripple`, /usr/local/include, /usr/include. The compiler: CC, else cc.
"""

import base64
import hashlib
import io
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11: the few keys we need, parsed by hand
    tomllib = None

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "ripple"


def _project():
    path = os.path.join(HERE, "pyproject.toml")
    if tomllib is not None:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    import ast
    import re
    text = open(path, encoding="utf-8").read()
    section = text.split("[project]", 1)[1].split("\n[", 1)[0]
    out = {}
    for key in ("name", "version", "description", "requires-python", "readme"):
        m = re.search(r"^%s\s*=\s*(\".*?\")\s*$" % re.escape(key), section, re.M)
        if m:
            out[key] = ast.literal_eval(m.group(1))
    m = re.search(r"^dependencies\s*=\s*(\[.*?\])", section, re.M | re.S)
    out["dependencies"] = ast.literal_eval(m.group(1)) if m else []
    return out


def _entry_points():
    """entry_points.txt from pyproject's [project.entry-points.<group>] tables."""
    import re
    text = open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8").read()
    out = []
    for group, body in re.findall(r"^\[project\.entry-points\.([\w.-]+)\]\n((?:[^\[\n].*\n|\n)*)", text, re.M):
        entries = re.findall(r'^([\w.-]+)\s*=\s*"(.*?)"\s*$', body, re.M)
        if entries:
            out.append("[%s]\n" % group + "".join("%s = %s\n" % e for e in entries))
    return "\n".join(out)


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % p["name"], "Version: %s" % p["version"]]
    if p.get("description"):
        lines.append("Summary: %s" % p["description"])
    if p.get("requires-python"):
        lines.append("Requires-Python: %s" % p["requires-python"])
    for dep in p.get("dependencies", []):
        lines.append("Requires-Dist: %s" % dep)
    body = ""
    readme = os.path.join(HERE, "README.md")
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        body = "\n" + open(readme, encoding="utf-8").read()
    return "\n".join(lines) + "\n" + body


def _header_dir():
    env = os.environ.get("RIPPLE_HEADER")
    candidates = [os.path.dirname(os.path.abspath(env))] if env else []
    candidates.append(os.path.normpath(os.path.join(HERE, "..", "..", "Include")))
    if shutil.which("pkg-config"):
        try:
            out = subprocess.run(["pkg-config", "--variable=includedir", "ripple"], capture_output=True,
                                 text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                candidates.append(out.stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    candidates += ["/usr/local/include", "/usr/include"]
    return next((d for d in candidates if os.path.isfile(os.path.join(d, "ripple.h"))), None)


def build_ext(out_dir):
    """Compiles ripple/_cext.c into out_dir; returns (path, None) or (None, why not)."""
    src = os.path.join(HERE, PACKAGE, "_cext.c")
    hdr = _header_dir()
    if hdr is None:
        return None, "ripple.h not found (set RIPPLE_HEADER)"
    cc = shlex.split(os.environ.get("CC") or "cc")
    if not shutil.which(cc[0]):
        return None, "no C compiler (%s)" % cc[0]
    os.makedirs(out_dir, exist_ok=True)
    name = "_cext" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
    out = os.path.join(out_dir, name)
    cmd = cc + ["-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-I" + sysconfig.get_paths()["include"],
                "-I" + hdr, src, "-o", out, "-ldl", "-lpthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, "compiling %s failed:\n%s%s" % (src, r.stdout, r.stderr)
    return out, None


def _wheel_tag(native):
    if not native:
        return "py3-none-any"
    interp = "cp%d%d" % sys.version_info[:2]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (interp, interp, plat)


def _dist_info(p):
    return "%s-%s.dist-info" % (p["name"].replace("-", "_"), p["version"])


def _wheel_name(p, tag):
    return "%s-%s-%s.whl" % (p["name"].replace("-", "_"), p["version"], tag)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _write_wheel(wheel_directory, files, native=False):
    p = _project()
    info = _dist_info(p)
    tag = _wheel_tag(native)
    files = list(files)
    files.append((info + "/METADATA", _metadata().encode()))
    if _entry_points():
        files.append((info + "/entry_points.txt", _entry_points().encode()))
    files.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: ripple_backend\nRoot-Is-Purelib: %s\n"
                                    "Tag: %s\n" % ("false" if native else "true", tag)).encode()))
    record = [_record_line(n, d) for n, d in files] + [info + "/RECORD,,"]
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    name = _wheel_name(p, tag)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            z.writestr(zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0)), d)
    return name


def _package_files():
    root = os.path.join(HERE, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for fn in sorted(filenames):
            if fn.endswith((".py", ".pyi", ".typed", ".c")):
                full = os.path.join(dirpath, fn)
                rel = os.path.relpath(full, HERE).replace(os.sep, "/")
                with open(full, "rb") as f:
                    yield rel, f.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = _dist_info(_project())
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = list(_package_files())
    with tempfile.TemporaryDirectory() as tmp:
        ext, why = build_ext(tmp)
        if ext is None:
            sys.stderr.write("ripple: building without the compiled core (%s); the package will run on "
                             "cffi in ABI mode, slower per event\n" % why)
        else:
            with open(ext, "rb") as f:
                files.append((PACKAGE + "/" + os.path.basename(ext), f.read()))
        return _write_wheel(wheel_directory, files, native=ext is not None)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # The compiled core of an editable install is built next to the sources
    # (ripple/_cext*.so, ignored by git).
    ext, why = build_ext(os.path.join(HERE, PACKAGE))
    if ext is None:
        sys.stderr.write("ripple: editable install without the compiled core (%s)\n" % why)
    return _write_wheel(wheel_directory, [("ripple_editable.pth", (HERE + "\n").encode())], native=ext is not None)


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = "%s-%s" % (p["name"], p["version"])
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "_build_backend/ripple_backend.py"] + \
                [n for n, _ in _package_files()]:
            full = os.path.join(HERE, rel)
            if os.path.exists(full):
                tar.add(full, arcname=base + "/" + rel)
        pkg_info = _metadata().encode()
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size = len(pkg_info)
        tar.addfile(ti, io.BytesIO(pkg_info))
    return name


if __name__ == "__main__":  # python3 ripple_backend.py OUT_DIR: build the compiled core there
    path, why = build_ext(sys.argv[1])
    if path is None:
        sys.exit("ripple: " + why)
    print(path)
