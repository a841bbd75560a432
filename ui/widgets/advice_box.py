"""The advisor's box under a result: its words (`advice_words`), and the buttons that act on them in a row."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout


class AdviceBox(QGroupBox):
    """Hidden until there is advice to show."""

    def __init__(self, title: str, buttons: list[QPushButton]) -> None:
        super().__init__(title)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.addWidget(self.words)
        row = QHBoxLayout()
        for button in buttons:
            row.addWidget(button)
        row.addStretch(1)
        layout.addLayout(row)
        self.hide()
