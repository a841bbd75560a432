"""Blocking checks off the GUI thread: a function run on Qt's thread pool, its answer handed back to the GUI thread.

napari's thread_worker, cut to what the wizard needs. A check of a folder on a slow SAN or
SMB share can take seconds; run here, the window keeps painting and the fields stay
editable. Only the answer for the values shown now counts: an answer for values that
changed meanwhile is dropped, and the check runs again for the new ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, SignalInstance


class _Relay(QObject):
    """Lives in the GUI thread; a signal emitted on it from a pool thread is delivered there."""

    answered = Signal(int, object)  # ticket, answer
    failed = Signal(int, object)  # ticket, the exception


class _Task(QRunnable):
    def __init__(self, ticket: int, function: Callable[[], object], relay: _Relay) -> None:
        super().__init__()
        self._ticket = ticket
        self._function = function
        self._relay = relay

    def run(self) -> None:
        try:
            answer = self._function()
        except Exception as exc:  # handed to the GUI thread, which says what went wrong
            self._deliver(self._relay.failed, exc)
        else:
            self._deliver(self._relay.answered, answer)

    def _deliver(self, signal: SignalInstance, value: object) -> None:
        try:
            signal.emit(self._ticket, value)
        except RuntimeError:
            pass  # the page that asked has been closed: nobody is waiting for this answer


class BackgroundCheck(QObject):
    """Checks a value on a pool thread, a short pause after it last changed; keeps the answer for the current value only.

    `want(key, value)` names the value to check (its `key` says when two values are the same);
    `pending` is True until the answer for the wanted key is in, then `finished` is emitted
    and `answer` (or `error`) holds it, and `value` the value it is about.
    """

    finished = Signal()

    def __init__(self, check: Callable[[Any], object], parent: QObject | None = None, *, delay_ms: int = 300,
                 pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._check = check
        self._pool = pool or QThreadPool.globalInstance()
        self._relay = _Relay(self)
        self._relay.answered.connect(self._on_relay_answered)
        self._relay.failed.connect(self._on_relay_failed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._start)
        self._ticket = 0
        self._wanted: tuple[str, object] | None = None
        self._asked: str | None = None  # the key of the check under way
        self._held: str | None = None  # the key `answer` is for
        self.answer: object | None = None
        self.error: Exception | None = None
        self.value: object | None = None  # what `answer` is about

    @property
    def pending(self) -> bool:
        """A value is wanted and its answer is not in yet."""
        return self._wanted is not None and self._wanted[0] != self._held

    def holds(self, key: str | None) -> bool:
        """The answer in is about the value of `key`."""
        return key is not None and self._held == key and not self.pending

    def want(self, key: str | None, value: object = None, *, again: bool = False) -> None:
        """Check `value` unless its answer is in or on its way; `again` checks it anew (the disk may have changed).

        A None key wants nothing: any check under way is forgotten.
        """
        if key is None:
            self._wanted = None
            self._timer.stop()
            self._ticket += 1  # whatever is under way answers nobody
            self._asked = None
            return
        if again:
            self._held = None
            self._asked = None
        elif self._wanted is not None and self._wanted[0] == key and (key == self._held or key == self._asked):
            return
        self._wanted = (key, value)
        self._timer.start()

    def _start(self) -> None:
        if self._wanted is None:
            return
        key, value = self._wanted
        self._ticket += 1
        self._asked = key
        check = self._check
        self._pool.start(_Task(self._ticket, lambda: check(value), self._relay))

    def _on_relay_answered(self, ticket: int, answer: object) -> None:
        if self._keep(ticket):
            self.answer, self.error = answer, None
            self.finished.emit()

    def _on_relay_failed(self, ticket: int, error: Exception) -> None:
        if self._keep(ticket):
            self.answer, self.error = None, error
            self.finished.emit()

    def _keep(self, ticket: int) -> bool:
        """The answer of the latest check, and for the value still wanted: anything else is dropped."""
        if ticket != self._ticket or self._wanted is None or self._asked != self._wanted[0]:
            return False
        self._held = self._asked
        self.value = self._wanted[1]
        self._asked = None
        return True
