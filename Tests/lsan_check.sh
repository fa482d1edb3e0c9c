#!/bin/bash
# Runs a program built with -fsanitize=address under LeakSanitizer and fails
# on every leak except the side table of a weakly referenced Swift object
# that is still alive at exit.
#
# Why not a suppression: Swift keeps a weakly referenced object's side table
# in the object's refcount word as a shifted pointer with flag bits, which no
# leak checker can recognise, so the side table of an object still alive at
# exit looks leaked. LeakSanitizer treats a suppressed block as live and
# ignores every block it reaches (since LLVM 13), and a side table points to
# its object: `leak:formWeakReference` hid every leaked object that had ever
# been weakly referenced, and with it every reference cycle through one
# (issue 10, D4). Here a leak record whose allocation stack is a side table's
# is allowed and nothing else is: the objects a leaked side table reaches
# are reported as indirect leaks of their own, with their own stacks, and
# fail the run. (Valgrind needs no script: its narrow suppression in
# Tests/valgrind.supp matches only the side table's own loss record, and
# make valgrind counts indirect leaks as errors.)
#
# Every process the program forks is checked too: the sanitizer reports go
# to files (log_path, one per process) and leaks do not change exit
# statuses (exitcode=0); this script decides.
#
#   Tests/lsan_check.sh program [args...]
# Exit status: the program's, or 1 for a leak that is not a side table.
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/lsan.XXXXXX")
trap 'rm -rf "$dir"' EXIT
ASAN_OPTIONS="detect_leaks=1:log_path=$dir/report${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
LSAN_OPTIONS="exitcode=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}" "$@"
rc=$?
shopt -s nullglob
reports=("$dir"/report.*)
if [ "$rc" -ne 0 ]; then
    for f in "${reports[@]}"; do cat "$f" >&2; done
    exit "$rc"
fi
# One record per "Direct/Indirect leak of" paragraph; keep those without a
# side-table frame. Anything else a report holds (a UBSan warning) is shown.
real=""
allowed=0
for f in "${reports[@]}"; do
    awk '/ERROR: LeakSanitizer/ { exit } { print }' "$f" | grep -v '^=*$' >&2
    r=$(awk '
        /^(Direct|Indirect) leak of/ { rec = $0; inrec = 1; next }
        inrec && /^$/ { if (rec !~ /formWeakReference|allocateSideTable/) print rec "\n"; inrec = 0; next }
        inrec { rec = rec "\n" $0 }
        END { if (inrec && rec !~ /formWeakReference|allocateSideTable/) print rec }
    ' "$f")
    [ -n "$r" ] && real="$real$r"$'\n'
    allowed=$((allowed + $(grep -c '^Direct leak of.*' "$f")))
done
if [ -n "$real" ]; then
    n=$(printf '%s\n' "$real" | grep -cE '^(Direct|Indirect) leak of')
    echo "lsan_check: $n leak record(s) other than side tables of live Swift objects; the first:" >&2
    printf '%s\n' "$real" | awk '/^(Direct|Indirect) leak of/ { k++ } k <= 3' >&2
    exit 1
fi
[ "$allowed" -gt 0 ] && echo "lsan_check: only side tables of objects alive at exit were left: allowed" >&2
exit 0
