"""The database and log folder patterns and Fill down, where a test's folders are typed row by row: the Databases page
(this server's folders) and Folders on the chosen server… (a server's own). {n} becomes the row's number (`filled`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from ui.wizard.rows import filled


class FolderPatterns(QWidget):
    """"Database folders: F:\\DB{n}  Log folders: L:\\Log{n}  [Fill down]"; Fill down waits for a pattern."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.db_pattern = QLineEdit()
        self.db_pattern.setPlaceholderText("F:\\DB{n}")
        self.db_pattern.setToolTip("A folder pattern; {n} becomes the database number")
        self.log_pattern = QLineEdit()
        self.log_pattern.setPlaceholderText("L:\\Log{n}")
        self.log_pattern.setToolTip("A folder pattern; {n} becomes the database number")
        self.fill_button = QPushButton("Fill down")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget, stretch in ((QLabel("Database folders:"), 0), (self.db_pattern, 2), (QLabel("Log folders:"), 0),
                                (self.log_pattern, 2), (self.fill_button, 0)):
            layout.addWidget(widget, stretch)
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
