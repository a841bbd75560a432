"""The import report of a JetstressConfig.xml: each value Jetwise could not use and what it used instead, each element
it does not model, and how a Jetstress setting was carried over.

A window of its own beside the wizard, not a modal message: the engineer reads it while checking the fields it names,
and closes it when done. The Welcome page shows it again on request.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from engine.model.validation import Problem, Severity
from ui.widgets.style import ERROR_STYLE, WARNING_STYLE, laid_out

_LABELS = {Severity.ERROR: ("Error", ERROR_STYLE), Severity.WARNING: ("Warning", WARNING_STYLE), Severity.NOTE: ("Note", "")}


class ImportReport(QDialog):
    """What the import of a JetstressConfig.xml said, listed; it never blocks the window."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setModal(False)
        self.headline = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.text = QTextBrowser(openLinks=False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        laid_out(QVBoxLayout(self), self.headline, (self.text, 1), buttons)
        self.resize(720, 440)

    def show_report(self, title: str, headline: str, said: list[Problem]) -> None:
        """Show what was said (`headline` is HTML), in front, without holding up the window."""
        self.setWindowTitle(title)
        self.headline.setText(headline)
        self.text.setHtml(report_html(said))
        self.show()
        self.raise_()
        self.activateWindow()


def report_html(said: list[Problem]) -> str:
    """Each thing said as a list item: its kind (warnings in amber), the element it is about, and the words."""
    items = []
    for problem in said:
        label, style = _LABELS[problem.severity]
        where = f"{html.escape(problem.field)}: " if problem.field else ""
        items.append(f"<li><span style='{style}'><b>{label}</b></span> — {where}{html.escape(problem.message)}</li>")
    return f"<ul>{''.join(items)}</ul>"


def said_words(said: list[Problem]) -> str:
    """How much was said, in a few words: "2 warnings, 1 note"; "" when nothing was."""
    counts = [(sum(p.severity == kind for p in said), word) for kind, word in
              ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.NOTE, "note"))]
    return ", ".join(f"{count} {word}{'s' if count > 1 else ''}" for count, word in counts if count)
