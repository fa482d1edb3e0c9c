#!/usr/bin/env bash
# Instructions per unit of each workload (bench/instructions/workloads.c),
# counted by callgrind: (count at N2 units - count at N1 units) / (N2 - N1).
# usage: count.sh PROGRAM [WORKLOAD...]
set -euo pipefail
prog=$1; shift
works=${*:-floor w1 w2 w3 w4 w5 w5c w6 w6l w7 d1 d100 db100 ds zip delay rl imm}
N1=${N1:-20000}; N2=${N2:-120000}
count() {  # total instructions of one run
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$prog" "$1" "$2" 2>&1 >/dev/null |
        sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p'
}
printf '%-6s %14s   %s\n' workload instr/unit unit
for w in $works; do
    a=$(count "$w" "$N1"); b=$(count "$w" "$N2")
    [ -n "$a" ] && [ -n "$b" ] || { echo "count.sh: callgrind gave no count for $w" >&2; exit 1; }
    case $w in w2) unit=delivery;; w4) unit="subscribe+dispose";; w5|w5c) unit="outer value";; w6|w6l) unit="inner subject";; w7) unit=pipeline;; zip) unit=pair;; rl|imm) unit=job;; floor) unit=call;; *) unit=event;; esac
    awk -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" -v w="$w" -v u="$unit" \
        'BEGIN { printf "%-6s %14.1f   %s\n", w, (b - a) / (n2 - n1), u }'
done
