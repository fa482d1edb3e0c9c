"""A correct user program: `mypy --strict` and pyright accept it as it is
(bindings/python/check.sh; the package's own types are what make it pass)."""
from typing import List

from ripple import BehaviorSubject, Disposable, Scheduler, Signal, Subject

seen: List[int] = []
subject = Subject()
doubled: Signal = subject.map(lambda x: x * 2).filter(lambda x: x > 2)
subscription: Disposable = doubled.subscribe(seen.append)
subject.send(1)
subject.send(2)
subscription.dispose()

# The 0.2 operators are methods like the others.
pairs = Signal.range(1, 4).combine_previous(0, lambda a, b: (a, b)).buffer(2).to_list()
merged = Signal.merge(Signal.of(1), Signal.of(2)).take(2).to_list()
first = Signal.from_array([1, 2, 3]).not_().ignore_values().first(timeout=1.0, default=None)
shared = Signal.timer(0.01, Scheduler.background()).share(replay=1)
state = BehaviorSubject(0)
state.send(1)
print(seen, pairs, merged, first, shared, state.first())
