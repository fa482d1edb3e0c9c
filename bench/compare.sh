#!/usr/bin/env bash
# The benchmark table of one bench program against two libraries, in one run:
# each section (bench/main.c) runs against the base library, then against the
# new one, so both see the same machine load; rows are joined by name.
# usage: compare.sh PROGRAM BASE_LIBDIR NEW_LIBDIR [section...]
# (make bench-compare BENCH_BASE=dir). A section the base library cannot run
# (a function it lacks) is reported and left out. Times are noisy: for a
# figure that does not move with the load, count instructions
# (make bench-instructions).
set -euo pipefail
prog=$1 base=$2 new=$3; shift 3
sections=${*:-core subjects operators combining schedulers costs trace pipeline os}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# One table row -> "name<TAB>ns" (the name may hold spaces and digits; the
# unit may hold a space; the last two fields are the ratio and allocations).
rows() { sed -nE 's/^(.*[^ ]) +([0-9]+\.[0-9]+) +([^0-9 ][^0-9]*[^ ]) +([-0-9.]+) +([-0-9.]+)$/\1\t\2\t\3/p' "$1"; }
echo "base: $base"; echo "new:  $new"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-56s %12s %12s %9s  %s\n' benchmark "base ns" "new ns" new/base per
for s in $sections; do
    if ! LD_LIBRARY_PATH=$base "$prog" "$s" >"$tmp/base" 2>"$tmp/base.err"; then
        echo "($s: not run, the base library cannot: $(grep -m1 . "$tmp/base.err" || echo "exit status $?"))"
        continue
    fi
    LD_LIBRARY_PATH=$new "$prog" "$s" >"$tmp/new"
    rows "$tmp/base" >"$tmp/base.rows"; rows "$tmp/new" >"$tmp/new.rows"
    awk -F'\t' 'NR == FNR { base[$1] = $2; next }
        { b = ($1 in base) ? base[$1] : ""
          r = (b != "" && b > 0) ? sprintf("%9.3f", $2 / b) : sprintf("%9s", "-")
          printf "%-56s %12s %12s %s  %s\n", $1, (b == "" ? "-" : b), $2, r, $3 }' "$tmp/base.rows" "$tmp/new.rows"
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
