#!/usr/bin/env bash
# Builds bindings/cpp/test_ripple.cpp against the staged install with ASan and
# UBSan, and runs it. Called by `make bindings-check` with STAGE, OUT and CXX.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${STAGE:?STAGE (the staged install prefix) is required}"
OUT="${OUT:-$here/../../build}"
CXX="${CXX:-clang++}"
mkdir -p "$OUT/cpp"
# lld keeps clang's ASan runtime link quiet; fall back to the default linker.
ld=""
if "$CXX" -fuse-ld=lld -x c++ -o /dev/null - <<<'int main(){}' >/dev/null 2>&1; then ld="-fuse-ld=lld"; fi
for std in c++17 c++20; do
  "$CXX" -std=$std -O1 -g -Wall -Wextra -Werror -pedantic -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined $ld -I"$here" -I"$STAGE/include" "$here/test_ripple.cpp" \
    -L"$STAGE/lib" -lripple -lpthread -o "$OUT/cpp/test_ripple_$std"
done
# The test prints "N passed, M failed" and exits non-zero on any failure.
for std in c++17 c++20; do
  echo "--- test_ripple ($std, ASan+UBSan)"
  LD_LIBRARY_PATH="$STAGE/lib" ASAN_OPTIONS=detect_leaks=1 "$OUT/cpp/test_ripple_$std"
done
