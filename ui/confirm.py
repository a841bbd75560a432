"""A question before what cannot be undone (Stop, quit during a run): the safe answer is the default, and Escape."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

MOST_LINES = 20  # a question no taller than a 1024×768 screen; a longer list is read whole under Show Details…


def ask(parent: QWidget, title: str, text: str, *, yes: str, no: str) -> bool:
    """Whether the engineer chose `yes`; Enter and Escape choose `no`."""
    shown, whole = shortened(text)
    box = QMessageBox(QMessageBox.Icon.Question, title, shown, QMessageBox.StandardButton.NoButton, parent)
    if whole:
        box.setDetailedText(whole)
    act = box.addButton(yes, QMessageBox.ButtonRole.AcceptRole)
    keep = box.addButton(no, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.exec()
    return box.clickedButton() is act


def shortened(text: str) -> tuple[str, str]:
    """`text` as a question shows it, and, when it is too long to show whole (a list of many folders), the whole of it:
    the first lines and the last paragraph are shown, with how many lines are left out between them."""
    lines = text.splitlines()
    if len(lines) <= MOST_LINES:
        return text, ""
    last = lines[len(lines) - lines[::-1].index(""):] if "" in lines else []
    last = last if len(last) <= MOST_LINES // 4 else []
    kept = MOST_LINES - len(last) - 2
    left_out = len(lines) - kept - len(last) - (1 if last else 0)
    shown = [*lines[:kept], f"… and {left_out:,} more lines: Show Details… lists them all"]
    return "\n".join([*shown, "", *last] if last else shown), text
