"""A minimal PEP 517/660 build backend for the pure-Python `ripple` package.

It needs nothing beyond the standard library, so `pip install bindings/python`
works offline, with or without build isolation. The wheel holds the `ripple`
package and the metadata from pyproject.toml ([project]).
"""

import base64
import hashlib
import io
import os
import tarfile
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


def _dist_info(p):
    return "%s-%s.dist-info" % (p["name"].replace("-", "_"), p["version"])


def _wheel_name(p):
    return "%s-%s-py3-none-any.whl" % (p["name"].replace("-", "_"), p["version"])


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _write_wheel(wheel_directory, files):
    p = _project()
    info = _dist_info(p)
    files = list(files)
    files.append((info + "/METADATA", _metadata().encode()))
    files.append((info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: ripple_backend\nRoot-Is-Purelib: true\n"
                  b"Tag: py3-none-any\n"))
    record = [_record_line(n, d) for n, d in files] + [info + "/RECORD,,"]
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    name = _wheel_name(p)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            z.writestr(zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0)), d)
    return name


def _package_files():
    root = os.path.join(HERE, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for fn in sorted(filenames):
            if fn.endswith((".py", ".typed")):
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
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [("ripple_editable.pth", (HERE + "\n").encode())])


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
