"""The database and log folder patterns and Fill down, where a test's folders are typed row by row: the Databases page
(this server's folders) and Folders on the chosen server… (a server's own). {n} becomes the row's number (`filled`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from ui.widgets.style import laid_out, tipped
from ui.wizard.rows import filled


class FolderPatterns(QWidget):
    """"Database folders: F:\\DB{n}  Log folders: L:\\Log{n}  [Fill down]"; Fill down waits for a pattern."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        tip = "A folder pattern; {n} becomes the database number"
        self.db_pattern = tipped(QLineEdit(placeholderText="F:\\DB{n}"), tip)
        self.log_pattern = tipped(QLineEdit(placeholderText="L:\\Log{n}"), tip)
        self.fill_button = QPushButton("Fill down")
        laid_out(QHBoxLayout(self), QLabel("Database folders:"), (self.db_pattern, 2), QLabel("Log folders:"),
                 (self.log_pattern, 2), self.fill_button).setContentsMargins(0, 0, 0, 0)
        self.db_pattern.textChanged.connect(self._on_pattern_changed)
        self.log_pattern.textChanged.connect(self._on_pattern_changed)
        self._on_pattern_changed()

    def filled(self, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`specs` with their folders from the patterns typed (a pattern left empty leaves its column)."""
        return filled(specs, self.db_pattern.text(), self.log_pattern.text())

    def _on_pattern_changed(self) -> None:
        typed = bool(self.db_pattern.text().strip() or self.log_pattern.text().strip())
        self.fill_button.setEnabled(typed)
        self.fill_button.setToolTip("Fill every row from the patterns" if typed
                                    else "Type a database or log folder pattern first, e.g. F:\\DB{n}")
