"""A question before what cannot be undone (Stop, quit during a run): the safe answer is the default, and Escape."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def ask(parent: QWidget, title: str, text: str, *, yes: str, no: str) -> bool:
    """Whether the engineer chose `yes`; Enter and Escape choose `no`."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, parent)
    act = box.addButton(yes, QMessageBox.ButtonRole.AcceptRole)
    keep = box.addButton(no, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.exec()
    return box.clickedButton() is act
