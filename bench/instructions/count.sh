#!/usr/bin/env bash
# Instructions per unit of each workload (bench/instructions/workloads.c),
# counted by callgrind: (count at N2 units - count at N1 units) / (N2 - N1).
# Beside them, the locked instructions per unit, counted the same way from
# the same runs (atomics.py): each costs about a CAS (make bench's row),
# which the instruction count does not show.
# usage: count.sh PROGRAM [WORKLOAD...]
set -euo pipefail
prog=$1; shift
here=$(dirname "$0")
works=${*:-floor handle w1 ref1 w2 w3 ref3 w4 ref4 w5 w5c w6 w6l w7 d1 d100 db100 ds zip delay rl imm}
N1=${N1:-20000}; N2=${N2:-120000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
count() {  # "instructions atomics" of one run
    local instr
    instr=$(valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
                --callgrind-out-file="$tmp/profile" "$prog" "$1" "$2" 2>&1 >/dev/null |
            sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p')
    [ -n "$instr" ] || return 0
    echo "$instr $(python3 "$here/atomics.py" "$tmp/profile")"
}
printf '%-6s %14s %14s   %s\n' workload instr/unit atomics/unit unit
for w in $works; do
    a=$(count "$w" "$N1"); b=$(count "$w" "$N2")
    [ -n "$a" ] && [ -n "$b" ] || { echo "count.sh: callgrind gave no count for $w" >&2; exit 1; }
    case $w in w2) unit=delivery;; w4|ref4) unit="subscribe+dispose";; w5|w5c) unit="outer value";; w6|w6l) unit="inner subject";; w7) unit=pipeline;; zip) unit=pair;; rl|imm) unit=job;; floor) unit=call;; handle) unit=handle;; *) unit=event;; esac
    awk -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" -v w="$w" -v u="$unit" \
        'BEGIN { split(a, x, " "); split(b, y, " ")
                 printf "%-6s %14.1f %14.2f   %s\n", w, (y[1] - x[1]) / (n2 - n1), (y[2] - x[2]) / (n2 - n1), u }'
done
