"""The load an instance puts on the storage, changeable while a run goes: a load sweep steps through it.

An instance starts as many transaction threads as its run can use at most; `active` of them
run and the rest wait, and every running thread paces itself with `sluggish`
(SluggishSessions). Both are read once per transaction, so a new load applies from each
thread's next transaction.
"""

from __future__ import annotations

import threading

IDLE_CHECK_S = 0.1  # how often a waiting thread looks at the run's stop


class LoadControl:
    def __init__(self, active: int, sluggish: int) -> None:
        self.active = active
        self.sluggish = sluggish
        self._changed = threading.Condition()

    def set(self, active: int, sluggish: int) -> None:
        with self._changed:
            self.active, self.sluggish = active, sluggish
            self._changed.notify_all()

    def wait_turn(self, thread: int, stop: threading.Event) -> None:
        """Hold transaction thread `thread` (0-based) while it is beyond the active count, until the load or the run's stop changes."""
        with self._changed:
            while thread >= self.active and not stop.is_set():
                self._changed.wait(IDLE_CHECK_S)


def share(total_threads: int, databases: int, index: int) -> int:
    """Database `index`'s share of a thread count spread over `databases`, as the configuration spreads it."""
    base, extra = divmod(total_threads, databases)
    return base + (1 if index < extra else 0)
