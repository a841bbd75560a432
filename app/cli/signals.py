"""Ctrl-C, termination and hang-up signals during a run, handled once for every sub-command that runs tests.

The first signal asks the run to stop: it still judges what it measured and writes its
result, marked aborted with the reason. A second Ctrl-C ends the command at once. A hang-up
(the terminal or remote session that started the run closed) stops the run the same way.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

Stop = Callable[[str], None]  # asked to stop, with the reason for the test log


class _StopOnSignal:
    def __init__(self, stop: Stop) -> None:
        self.stop = stop
        self.count = 0

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        self.count += 1
        if self.count > 1 and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.stop(REASONS.get(signum, f"stopped by signal {signum}"))


REASONS: dict[int, str] = {
    signal.SIGINT: "stopped by the user (Ctrl-C)",
    signal.SIGTERM: "stopped by a termination signal (SIGTERM)",
}
if hasattr(signal, "SIGHUP"):  # POSIX only; Windows's console close is the window's and the job object's matter
    REASONS[signal.SIGHUP] = "stopped: the terminal or remote session that started it closed (SIGHUP)"


def _signals() -> list[int]:
    return list(REASONS)


@contextmanager
def stop_on_signals(stop: Stop) -> Iterator[None]:
    """While inside, Ctrl-C and SIGTERM call `stop`; the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = _StopOnSignal(stop)
    previous = {number: signal.signal(number, handler) for number in _signals()}
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
