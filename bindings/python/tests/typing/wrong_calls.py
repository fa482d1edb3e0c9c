"""Wrong calls the type checkers must reject: bindings/python/check.sh runs mypy
and pyright on this file and requires an error on every line whose comment says
so (tests/typing/expect_errors.py) and on no other line."""
from ripple import Signal, Subject

s = Subject()
s.mapp(lambda x: x)  # error: a misspelt operator
s.map(lambda x: x, 2)  # error: one argument too many
s.take()  # error: one argument too few
s.take("3")  # error: a str where the count is an int
Signal.range(1)  # error: range takes a start and a count
Signal.of(1).throttle_first()  # error: no interval
Signal.of(1).with_latest_from(3)  # error: not a signal
Signal.of(1).subscribe(on_nxt=print)  # error: no such keyword
Signal.of(1).map(lambda x: x).to_list()
