"""The ESRP qualification's results: its five tests, each with its verdict, its key figure and why it did not pass,
with the combined report, each test's own results, the suite's folder, and Resume for an unfinished suite."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.results.reasons import grouped_reasons
from ui.scans import type_words
from ui.suite import NOT_RUN, TITLE, SuiteSummary, stage_verdict
from ui.widgets.style import laid_out, read_only_table, tip_button, tipped, verdict_qcolor

COLUMNS = ("Test", "Verdict", "Key figure", "Why")


class SuiteTable(QWidget):
    """The five tests of a suite, and what can be opened from them."""

    report_requested = Signal()
    pdf_requested = Signal()
    print_requested = Signal()
    stage_requested = Signal(int)  # a test's own results, numbered from 0
    folder_requested = Signal()
    resume_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.table = tipped(read_only_table(list(COLUMNS)), "Double-click a test for its own results")
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)  # a long reason is cut short in its cell and read whole in its tooltip
        self.table.itemSelectionChanged.connect(self._on_table_item_selection_changed)
        self.table.cellDoubleClicked.connect(lambda row, _column: self._open(row))
        self.note = QLabel(wordWrap=True, textFormat=Qt.TextFormat.PlainText)
        self.report = tip_button("Open ESRP report", "The combined report of the five tests in the browser (HTML): "
                                 "the summary an ESRP submission publishes, then each test's own report",
                                 self.report_requested)
        self.pdf = tip_button("Export PDF", "The combined report as a PDF: the summary, then each test's own report",
                              self.pdf_requested)
        self.print = tip_button("Print…", "Print the combined report", self.print_requested)
        self.stage = tip_button("Show this test's results", "The verdict, criteria and tables of the test selected, "
                                "with its own report", lambda: self._open(self.table.currentRow()))
        self.folder = tip_button("Open suite folder", "The suite's record, each test's run folder and the ESRP report",
                                 self.folder_requested)
        self.resume = tip_button("Resume", "Run on from the first test without a verdict, in the same folder",
                                 self.resume_requested)
        buttons = laid_out(QHBoxLayout(), self.resume, self.report, self.pdf, self.print, self.stage, self.folder, 1)
        laid_out(QVBoxLayout(self), self.table, self.note, buttons).setContentsMargins(0, 0, 0, 0)
        self.summary: SuiteSummary | None = None
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)  # as tall as its rows
        self.hide()

    def show_summary(self, summary: SuiteSummary) -> None:
        self.summary = summary
        stages = summary.record.stages
        self.table.setRowCount(len(stages))
        for row, stage in enumerate(stages):
            verdict = stage_verdict(stage)
            result = summary.results.get(row)
            why = "" if verdict in ("pass", NOT_RUN) else "; ".join((grouped_reasons(result) if result else stage.reasons)[:2])
            cells = (f"{row + 1}. {type_words(stage.test_type)}", verdict.upper() if verdict != NOT_RUN else "Not run",
                     summary.key_figure(row) if verdict != NOT_RUN else "—", why)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column == 1:
                    item.setForeground(verdict_qcolor(verdict))
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        header = self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
        self.table.setFixedHeight(header + sum(self.table.rowHeight(r) for r in range(len(stages))))
        self.table.clearSelection()
        words = summary.resume_words()
        self.note.setText(words)
        self.note.setVisible(bool(words))
        self.resume.setVisible(bool(words))
        self.resume.setText(f"Resume the {TITLE}")
        self._on_table_item_selection_changed()
        self.show()

    def _on_table_item_selection_changed(self) -> None:
        row = self.table.currentRow() if self.table.selectedItems() else -1
        self.stage.setEnabled(self.summary is not None and self.summary.shown(row))

    def _open(self, row: int) -> None:
        if self.summary is not None and self.summary.shown(row):
            self.stage_requested.emit(row)

