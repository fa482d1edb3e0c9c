#!/usr/bin/env bash
# Runs every Rust test binary under valgrind (leaks and memory errors), like `make
# valgrind` does for the C tests. Not part of `make check` (it takes a minute):
#   STAGE=$PWD/build/stage bash bindings/rust/valgrind.sh
# Valgrind 3.19 cannot read the DWARF of the statically linked Swift runtime or rustc's
# DWARF 5, so both the library and the test binaries run from copies without debug info.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${STAGE:?STAGE must point at the staged install prefix}"
STAGE="$(cd "$STAGE" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export RIPPLE_LIB_DIR="$STAGE/lib" RIPPLE_INCLUDE_DIR="$STAGE/include" CARGO_TARGET_DIR="$HERE/target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
objcopy --strip-debug "$STAGE/lib/libripple.so.0" "$work/libripple.so.0"
# The test binaries cargo built, as JSON messages: one "executable" per test target.
(cd "$HERE" && cargo test --offline --no-run --message-format=json 2>/dev/null) |
  grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | grep -v '/examples/' | sort -u > "$work/tests"
status=0
while read -r bin; do
  name="$(basename "$bin")"
  cp "$bin" "$work/$name" && objcopy --strip-debug "$work/$name"
  printf '%s: ' "$name"
  if LD_LIBRARY_PATH="$work" valgrind -q --error-exitcode=99 --leak-check=full \
      --errors-for-leak-kinds=definite --show-leak-kinds=definite \
      --suppressions="$ROOT/Tests/valgrind.supp" "$work/$name" --test-threads=1 -q \
      >"$work/log" 2>&1; then
    grep '^test result' "$work/log" || echo ok
  else
    status=1
    echo "FAILED"
    grep -vE 'boom|panicked at|^note: run with|caught and swallowed' "$work/log" | tail -40
  fi
done < "$work/tests"
exit "$status"
