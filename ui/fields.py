"""Form fields that show the engine's own message for a bad value, right under the field."""

from __future__ import annotations

import re

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

ERROR_STYLE = "color: #b00020;"
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d*)?")
WARNING_STYLE = "color: #8a5a00;"  # dark amber: readable on white, distinct from an error's red


class FieldEdit(QWidget):
    """A typed value with its unit and, when it is wrong, the reason in red beneath."""

    changed = Signal()

    def __init__(self, kind: type, unit: str = "", tooltip: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.kind = kind
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(placeholder)
        self.edit.setToolTip(tooltip)
        self.edit.textChanged.connect(self.changed)
        self.unit = QLabel(unit)
        self.unit.setMinimumWidth(60)
        self.error = QLabel()
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self.edit.setMaximumWidth(240)
        row.addWidget(self.edit)
        row.addWidget(self.unit)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.error)
        self.setFocusProxy(self.edit)

    def text(self) -> str:
        return self.edit.text().strip()

    def set_value(self, value: object, quiet: bool = False) -> None:
        """Show `value`; `quiet` shows it without announcing an edit (a value the field only displays)."""
        text = f"{value:g}" if isinstance(value, float) else str(value)
        if text == self.edit.text():
            return
        if quiet:
            with QSignalBlocker(self.edit):
                self.edit.setText(text)
        else:
            self.edit.setText(text)

    def parsed(self) -> tuple[bool, object]:
        """(True, value) or (False, what is wrong with the text)."""
        raw = self.text().strip()
        if "," in raw and not _THOUSANDS.fullmatch(raw):
            # "0,5" is a decimal comma, not a thousands separator: reading it as 5 would change the target tenfold
            return False, f"'{raw}': use a point for decimals (0.5); commas only group thousands (12,000)"
        text = raw.replace(",", "")
        if not text:
            return False, "enter a value"
        try:
            if self.kind is int:
                return True, int(text)
            if self.kind is float:
                return True, float(text)
        except ValueError:
            return False, "enter a whole number" if self.kind is int else "enter a number"
        return True, self.text()

    def set_error(self, message: str | None) -> None:
        self.error.setText(message or "")
        self.error.setVisible(bool(message))
        self.edit.setStyleSheet("border: 1px solid #b00020;" if message else "")
