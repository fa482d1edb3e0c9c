#!/usr/bin/env bash
# The C++ binding's checks, against the staged install (`make install` into
# STAGE): a consumer of the installed ripple.hpp through pkg-config and CMake,
# the compile-time rejections of compile_fail.cpp, and test_ripple.cpp under
# ASan and UBSan (C++17 and C++20). Called by `make bindings-check` (part of
# `make check`) with STAGE, OUT and CXX. RIPPLE_CHECK=unit (make test): only
# test_ripple.cpp, C++17, without the sanitizers.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${STAGE:?STAGE (the staged install prefix) is required}"
OUT="${OUT:-$here/../../build}"
CXX="${CXX:-clang++}"
mkdir -p "$OUT/cpp"
if [ "${RIPPLE_CHECK:-}" = unit ]; then
  "$CXX" -std=c++17 -O1 -g -Wall -Wextra -Werror -pedantic -I"$here" -I"$STAGE/include" "$here/test_ripple.cpp" \
    -L"$STAGE/lib" -lripple -lpthread -o "$OUT/cpp/test_ripple_unit"
  echo "--- test_ripple (c++17)"
  LD_LIBRARY_PATH="$STAGE/lib" timeout --kill-after=10 300 "$OUT/cpp/test_ripple_unit" | tail -n 1
  exit "${PIPESTATUS[0]}"
fi
# lld keeps clang's ASan runtime link quiet; fall back to the default linker.
ld=""
if "$CXX" -fuse-ld=lld -x c++ -o /dev/null - <<<'int main(){}' >/dev/null 2>&1; then ld="-fuse-ld=lld"; fi
for std in c++17 c++20; do
  "$CXX" -std=$std -O1 -g -Wall -Wextra -Werror -pedantic -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined $ld -I"$here" -I"$STAGE/include" "$here/test_ripple.cpp" \
    -L"$STAGE/lib" -lripple -lpthread -o "$OUT/cpp/test_ripple_$std"
done
# The installed header is found through pkg-config and through CMake's
# find_package(Ripple) (no -I into the source tree).
PKG_CONFIG_PATH="$STAGE/lib/pkgconfig" pkg-config --exists ripple
"$CXX" -std=c++17 -Wall -Wextra -Werror "$here/cmake/consumer.cpp" \
  $(PKG_CONFIG_PATH="$STAGE/lib/pkgconfig" pkg-config --cflags --libs ripple) -o "$OUT/cpp/consumer_pkgconfig"
LD_LIBRARY_PATH="$STAGE/lib" "$OUT/cpp/consumer_pkgconfig"
if command -v cmake >/dev/null 2>&1; then
  rm -rf "$OUT/cpp/cmake"
  CXX="$CXX" cmake -S "$here/cmake" -B "$OUT/cpp/cmake" -DCMAKE_PREFIX_PATH="$STAGE" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$OUT/cpp/cmake" >/dev/null
  "$OUT/cpp/cmake/cpp_consumer"
else
  echo "check.sh: no cmake, CMake consumer skipped"
fi
# The typed layer rejects mismatched lambdas at compile time: compile_fail.cpp
# compiles as is (CASE=0) and fails to compile with each CASE=1..CASES.
cases=$(sed -n 's/^#define CASES \([0-9]*\)$/\1/p' "$here/compile_fail.cpp")
for std in c++17 c++20; do
  "$CXX" -std=$std -fsyntax-only -Wall -Wextra -Werror -I"$here" -I"$STAGE/include" -DCASE=0 "$here/compile_fail.cpp"
  for n in $(seq 1 "$cases"); do
    if "$CXX" -std=$std -fsyntax-only -I"$here" -I"$STAGE/include" -DCASE=$n "$here/compile_fail.cpp" 2>/dev/null; then
      echo "compile_fail.cpp: CASE=$n compiles with $std, but must not"; exit 1
    fi
  done
done
echo "--- compile_fail.cpp: $cases mismatched uses rejected at compile time (c++17, c++20)"
# The test prints "N passed, M failed" and exits non-zero on any failure.
for std in c++17 c++20; do
  echo "--- test_ripple ($std, ASan+UBSan)"
  # Under a watchdog, so a hang fails the run instead of stalling it, and
  # under LeakSanitizer as the C tests are (Tests/lsan_check.sh: every leak
  # fails, but the side table of a weakly referenced object alive at exit).
  LD_LIBRARY_PATH="$STAGE/lib" timeout --kill-after=10 300 "$here/../../Tests/lsan_check.sh" "$OUT/cpp/test_ripple_$std"
done
