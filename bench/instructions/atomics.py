#!/usr/bin/env python3
"""Locked instructions one run executed, from its callgrind profile.

usage: atomics.py PROFILE

PROFILE is written by callgrind with --dump-instr=yes --compress-pos=no
--compress-strings=no (count.sh does). Prints one number: how many times an
instruction with a lock prefix, or an xchg with a memory operand (locked
without the prefix), ran, in every object of the process. On x86 each is a
full barrier that costs what `make bench` prints as its CAS row, whatever
else it does, so their count is the part of a workload's time that the
instruction count does not show.
"""
import collections
import re
import subprocess
import sys


def executed(profile):
    """{object: {address: times}}, counting each cost line once (the line
    after a calls= line is the call's inclusive cost, not an instruction's)."""
    counts = collections.defaultdict(collections.Counter)
    ob, after_call = None, False
    with open(profile) as f:
        for line in f:
            if line.startswith('ob='):
                ob = line[3:].strip()
            elif line.startswith('calls='):
                after_call = True
            elif line.startswith('0x'):
                if after_call:
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) >= 3:
                    counts[ob][int(fields[0], 16)] += int(fields[2])
    return counts


def locked_addresses(path):
    """Addresses of the locked instructions in an object file."""
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', path],
                         capture_output=True, text=True, check=False).stdout
    found = set()
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\s+(\S+)(.*)', line)
        if m and (m.group(2) == 'lock' or (m.group(2).startswith('xchg') and '(' in m.group(3))):
            found.add(int(m.group(1), 16))
    return found


def main():
    total = 0
    for ob, at in executed(sys.argv[1]).items():
        if not ob or not ob.startswith('/'):
            continue
        locked = locked_addresses(ob)
        total += sum(n for a, n in at.items() if a in locked)
    print(total)


if __name__ == '__main__':
    main()
