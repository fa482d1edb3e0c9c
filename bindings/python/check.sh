#!/usr/bin/env bash
# Run by `make bindings-check` (and so `make check`): the compiled core built
# against the staged header, the pytest suite against the freshly staged
# library twice (compiled core, then cffi ABI mode with RIPPLE_PURE=1), mypy on
# the package (it ships py.typed), mypy --strict and pyright on a typed user
# program and on wrong calls they must reject, then `pip install` into a fresh
# virtualenv, which must build the
# compiled core, and an `import ripple` there, with the library found three ways.
# Env: STAGE (staged prefix with lib/$SONAME and include/ripple.h), SONAME,
# OUT (build dir), PYTHON, CC; RIPPLE_CHECK=unit (make test) stops after the
# pytest run on the compiled core.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${STAGE:?STAGE must point at the staged install prefix}"
SONAME="${SONAME:-libripple.so.0}"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$HERE/build}"
LIBPATH="$STAGE/lib/$SONAME"
test -f "$LIBPATH" || { echo "check.sh: no $LIBPATH" >&2; exit 1; }
export CC="${CC:-cc}"
export RIPPLE_HEADER="$STAGE/include/ripple.h"   # what the compiled core is built against

# Keep pip and pytest offline and quiet.
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

EXT="$OUT/python-ext"
rm -rf "$EXT"
echo "python: the compiled core (ripple/_cext.c) into $EXT"
native=1
if ! "$PYTHON" "$HERE/_build_backend/ripple_backend.py" "$EXT"; then
  if command -v "${CC%% *}" >/dev/null; then echo "python: the compiled core does not build" >&2; exit 1; fi
  echo "python: no C compiler ($CC): testing the cffi ABI mode only"
  native=0
fi

run_pytest() {  # $1: what; then VAR=value settings for the run
  local what=$1 rc
  shift
  echo "python: pytest against $LIBPATH ($what)"
  set +e
  env RIPPLE_LIBRARY="$LIBPATH" "$@" "$PYTHON" -m pytest -q -p no:cacheprovider "$HERE/tests"
  rc=$?
  set -e
  if [ "$rc" -eq 5 ]; then echo "python: pytest collected no tests" >&2; exit 1; fi
  if [ "$rc" -ne 0 ]; then echo "python: pytest failed ($rc, $what)" >&2; exit "$rc"; fi
}
if [ "$native" = 1 ]; then run_pytest "compiled core" RIPPLE_CEXT_DIR="$EXT" RIPPLE_EXPECT_NATIVE=1; fi
if [ "${RIPPLE_CHECK:-}" = unit ]; then echo "python: unit tests OK"; exit 0; fi
run_pytest "cffi ABI mode" RIPPLE_PURE=1 PYTHONWARNINGS=ignore::RuntimeWarning

# The types (make deps installs mypy and pyright): the package itself, a correct
# user program under mypy --strict and pyright, and the wrong calls of
# tests/typing/wrong_calls.py, each of which both must reject.
for tool in mypy pyright; do
  "$PYTHON" -m "$tool" --version >/dev/null 2>&1 || { echo "python: $tool is not installed (make deps)" >&2; exit 1; }
done
echo "python: mypy and pyright"
(
  cd "$HERE"
  "$PYTHON" -m mypy --config-file pyproject.toml --cache-dir "$OUT/python-mypy-cache" ripple
  "$PYTHON" -m mypy --strict --follow-imports=silent --cache-dir "$OUT/python-mypy-cache" tests/typing/user_program.py
  "$PYTHON" -m pyright tests/typing/user_program.py >/dev/null || "$PYTHON" -m pyright tests/typing/user_program.py
  "$PYTHON" tests/typing/expect_errors.py tests/typing/wrong_calls.py -- \
    "$PYTHON" -m mypy --strict --follow-imports=silent --no-error-summary --cache-dir "$OUT/python-mypy-cache"
  "$PYTHON" tests/typing/expect_errors.py tests/typing/wrong_calls.py -- "$PYTHON" -m pyright
)

echo "python: pip install into a fresh virtualenv"
VENV="$OUT/python-venv"
rm -rf "$VENV"
"$PYTHON" -m venv --system-site-packages "$VENV"   # cffi comes from the system
# Build from a copy so that the source tree gets no build artefacts.
SRC="$OUT/python-src"
rm -rf "$SRC" && mkdir -p "$SRC"
cp -r "$HERE/pyproject.toml" "$HERE/README.md" "$HERE/ripple" "$HERE/_build_backend" "$SRC/"
"$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation "$SRC"

probe='import os, sys, ripple
assert ripple.__file__.startswith(sys.prefix), ripple.__file__
assert ripple.NATIVE or os.environ["NATIVE"] == "0", "pip install did not build the compiled core"
assert ripple.Signal.of(1, 2).map(lambda x: x * 10).to_list() == [10, 20]
print("  import ripple OK (%s):" % ("compiled core" if ripple.NATIVE else "cffi ABI mode"), ripple.LIBRARY_PATH)'
cd "$OUT"   # not the source dir, so the installed package is the one imported
export NATIVE="$native"
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
rm -rf "$VENV" "$SRC" "$EXT"
echo "python: OK"
