#!/usr/bin/env bash
# Run by `make bindings-check` (and so `make check`): the pytest suite against
# the freshly staged library, then `pip install` into a fresh virtualenv and an
# `import ripple` there, with the library found three ways.
# Env: STAGE (staged prefix with lib/$SONAME and include/ripple.h), SONAME,
# OUT (build dir), PYTHON.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${STAGE:?STAGE must point at the staged install prefix}"
SONAME="${SONAME:-libripple.so.0}"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$HERE/build}"
LIBPATH="$STAGE/lib/$SONAME"
test -f "$LIBPATH" || { echo "check.sh: no $LIBPATH" >&2; exit 1; }

# Keep pip and pytest offline and quiet.
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

echo "python: pytest against $LIBPATH"
set +e
RIPPLE_LIBRARY="$LIBPATH" "$PYTHON" -m pytest -q -p no:cacheprovider "$HERE/tests"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then echo "python: pytest collected no tests" >&2; exit 1; fi
if [ "$rc" -ne 0 ]; then echo "python: pytest failed ($rc)" >&2; exit "$rc"; fi

echo "python: pip install into a fresh virtualenv"
VENV="$OUT/python-venv"
rm -rf "$VENV"
"$PYTHON" -m venv --system-site-packages "$VENV"   # cffi comes from the system
# Build from a copy so that the source tree gets no build artefacts.
SRC="$OUT/python-src"
rm -rf "$SRC" && mkdir -p "$SRC"
cp -r "$HERE/pyproject.toml" "$HERE/README.md" "$HERE/ripple" "$HERE/_build_backend" "$SRC/"
"$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation "$SRC"

probe='import ripple, sys
assert ripple.__file__.startswith(sys.prefix), ripple.__file__
assert ripple.Signal.of(1, 2).map(lambda x: x * 10).to_list() == [10, 20]
print("  import ripple OK:", ripple.LIBRARY_PATH)'
cd "$OUT"   # not the source dir, so the installed package is the one imported
echo " via RIPPLE_LIBRARY"
env -u PKG_CONFIG_PATH RIPPLE_LIBRARY="$LIBPATH" "$VENV/bin/python" -c "$probe"
if command -v pkg-config >/dev/null; then
  echo " via pkg-config"
  out=$(env -u RIPPLE_LIBRARY PKG_CONFIG_PATH="$STAGE/lib/pkgconfig" "$VENV/bin/python" -c "$probe")
  echo "$out"
  case "$out" in *"$STAGE"*) ;; *) echo "python: pkg-config lookup did not find $STAGE" >&2; exit 1 ;; esac
fi
echo " via the loader path"
out=$(env -u RIPPLE_LIBRARY -u PKG_CONFIG_PATH LD_LIBRARY_PATH="$STAGE/lib" "$VENV/bin/python" -c "$probe")
echo "$out"
case "$out" in *"$STAGE"*) ;; *) echo "python: loader lookup did not find $STAGE" >&2; exit 1 ;; esac
rm -rf "$VENV" "$SRC"
echo "python: OK"
