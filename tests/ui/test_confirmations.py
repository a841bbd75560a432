"""The questions before Stop and before quitting during a run: the safe answer is the default, and Escape."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from ui import confirm


def _answer(qtbot, act) -> list[str]:
    """Once the question shows: its default button's words, then `act(box)` answers it."""
    seen: list[str] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, answer)
            return
        seen.append(box.defaultButton().text())
        act(box)

    QTimer.singleShot(0, answer)
    return seen


def test_enter_and_escape_keep_the_run_going_and_only_the_named_button_stops_it(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    for key in (Qt.Key.Key_Escape, Qt.Key.Key_Return):
        seen = _answer(qtbot, lambda box, key=key: qtbot.keyClick(box, key))
        assert confirm.ask(parent, "Stop the test?", "Stop?", yes="Stop the test", no="Keep running") is False
        assert seen == ["Keep running"]
    seen = _answer(qtbot, lambda box: next(b for b in box.buttons() if b.text() == "Stop the test").click())
    assert confirm.ask(parent, "Stop the test?", "Stop?", yes="Stop the test", no="Keep running") is True
    assert seen == ["Keep running"]
