"""Ctrl-C, termination and hang-up signals during a run, handled once for every sub-command that runs tests.

The first signal asks the run to stop: it still judges what it measured and writes its
result, marked aborted with the reason. A second Ctrl-C ends the command at once. A hang-up
(the terminal or remote session that started the run closed) stops the run the same way; on
Windows so do Ctrl-Break, the console window closing, a logoff and a shutdown
(`engine.io.platform.lifetime.on_console_end`), which wait for the result to be written.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar

from engine.io.platform.lifetime import ConsoleEndHandler, on_console_end
from engine.model.validation import Problem
from engine.run.runner import InvalidConfigError

T = TypeVar("T")

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
if hasattr(signal, "SIGHUP"):  # POSIX; Windows's console close is a console control event (below)
    REASONS[signal.SIGHUP] = "stopped because the terminal or remote session that started it closed (SIGHUP)"
if hasattr(signal, "SIGBREAK"):  # Windows
    REASONS[signal.SIGBREAK] = "stopped by the user (Ctrl-Break)"


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
    ended = threading.Event()
    remove_console_handler = on_console_end(ConsoleEndHandler(stop, ended))
    try:
        yield
    finally:
        ended.set()
        remove_console_handler()
        for number, old in previous.items():
            signal.signal(number, old)


def run_or_refuse(stop: Stop, work: Callable[[], T], refuse: Callable[[list[Problem]], None]) -> T | None:
    """`work`'s answer (a run's or a suite's), a signal calling `stop` meanwhile; None once `refuse` has been given the
    problems that refused it before it began. Every sub-command that runs tests goes through here."""
    try:
        with stop_on_signals(stop):
            return work()
    except InvalidConfigError as exc:
        refuse(exc.problems)
        return None
