"""The advisor's box under a result: its words (`advice_words`), and the buttons that act on them in a row."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from ui.widgets.style import laid_out


class AdviceBox(QGroupBox):
    """Hidden until there is advice to show."""

    def __init__(self, title: str, buttons: list[QPushButton]) -> None:
        super().__init__(title)
        self.words = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        laid_out(QVBoxLayout(self), self.words, laid_out(QHBoxLayout(), *buttons, 1))
        self.hide()
