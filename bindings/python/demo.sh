#!/usr/bin/env bash
# Run by `make demo`: examples/demo.py against the staged library, on the
# compiled core built into $OUT/python-ext (the cffi mode if that fails).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${STAGE:?STAGE must point at the staged install prefix}"
OUT="${OUT:-$HERE/build}"
EXT="$OUT/python-ext"
RIPPLE_HEADER="$STAGE/include/ripple.h" "${PYTHON:-python3}" "$HERE/_build_backend/ripple_backend.py" "$EXT" \
  >/dev/null || EXT=
RIPPLE_LIBRARY="$STAGE/lib/${SONAME:-libripple.so.0}" RIPPLE_CEXT_DIR="$EXT" PYTHONPATH="$HERE" \
  PYTHONDONTWRITEBYTECODE=1 "${PYTHON:-python3}" "$HERE/examples/demo.py"
