"""Runs a type checker on a file and compares the lines it reports errors on
with the lines the file marks `# error`: every marked line must be reported
and no other. Used by bindings/python/check.sh for mypy and pyright:

    python3 tests/typing/expect_errors.py FILE -- CHECKER ARGS...
"""
import re
import subprocess
import sys


def main() -> int:
    path, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    with open(path) as f:
        marked = {i for i, line in enumerate(f, 1) if re.search(r"#\s*error\b", line)}
    out = subprocess.run(cmd + [path], capture_output=True, text=True).stdout
    name = path.rsplit("/", 1)[-1]
    tool = cmd[cmd.index("-m") + 1] if "-m" in cmd else cmd[0]
    # mypy: "file:12: error: ..."; pyright: "  /abs/file:12:3 - error: ..."
    reported = {int(m.group(1)) for m in re.finditer(r"%s:(\d+)(?::\d+)?:? -? ?error" % re.escape(name), out)}
    missed, extra = sorted(marked - reported), sorted(reported - marked)
    if missed or extra:
        print(out)
        print("%s on %s: no error on marked lines %s; errors on unmarked lines %s" % (tool, path, missed, extra))
        return 1
    print("  %s rejects each of the %d wrong calls in %s, and nothing else" % (tool, len(marked), name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
