#!/usr/bin/env bash
# Run by `make demo`: examples/demo.py against the staged library.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${STAGE:?STAGE must point at the staged install prefix}"
RIPPLE_LIBRARY="$STAGE/lib/${SONAME:-libripple.so.0}" PYTHONPATH="$HERE" PYTHONDONTWRITEBYTECODE=1 \
  "${PYTHON:-python3}" "$HERE/examples/demo.py"
