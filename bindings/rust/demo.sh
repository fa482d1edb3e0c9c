#!/usr/bin/env bash
# Run by `make demo`: examples/demo.rs against the staged library.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${STAGE:?STAGE must point at the staged install prefix}"
STAGE="$(cd "$STAGE" && pwd)"   # cargo runs in other directories
if ! command -v cargo >/dev/null; then echo "rust: SKIPPED, cargo is not installed"; exit 0; fi
cd "$HERE"
RIPPLE_LIB_DIR="$STAGE/lib" LD_LIBRARY_PATH="$STAGE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  CARGO_TARGET_DIR="$HERE/target" cargo run --offline --quiet --example demo
