"""The end of a test across servers: its verdict and why, and the ESRP paper's two tables in one — a row per server
(Individual Server Metrics) and the aggregate across all of them (I/O summed, latency averaged) — with the combined
report, its PDF and the test's folder a click away. After a test at a setting typed, the advisor reads the servers as
one run of their summed design and the tests across them before it, and offers the next test across them."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from engine.model.config import TIMED_TEST_TYPES, TestType
from engine.results.across_rows import recovery_rows, scan_rows
from engine.results.across_schema import HOSTS_FOLDER, AcrossResult, ServerFigures
from engine.results.document import read_result
from engine.results.schema import RunResult
from engine.tuning.advisor import Advice
from engine.tuning.offers import can_apply
from ui.advice_words import advice_html
from ui.scans import type_words
from ui.widgets.advice_box import AdviceBox
from ui.widgets.fitting import scrolled_body
from ui.widgets.style import verdict_colour

COLUMNS = ["Server", "Result", "Target IOPS", "Achieved IOPS", "DB reads/s", "DB writes/s", "Log writes/s",
           "DB read avg (ms)", "DB write avg (ms)", "Log write avg (ms)", "Clock offset (ms)"]
SCAN_COLUMNS = ["Server", "Result", "Databases", "Pages read", "Damaged pages", "Read (MB)", "Seconds", "MB/s",
                "Clock offset (ms)"]
RECOVERY_COLUMNS = ["Server", "Result", "Log files to replay", "Log files replayed", "Seconds per log file", "Limit (s)",
                    "Clock offset (ms)"]
TIMED_NOTE = ("The last row is the aggregate across all servers, as the ESRP paper makes it: the servers' I/O summed, "
              "their latencies averaged. Each server's own report is in the combined report.")
OPEN_ENDED_NOTE = ("Every server started at one instant and ended when its own work was done: what each read or "
                   "replayed, how long it took and how fast (a checksum's or backup's last row is the servers "
                   "together, their rates summed). Each server's own report is in the combined report.")


def _figures(row: ServerFigures) -> list[str]:
    return [f"{row.target_transactional_iops:,.0f}", f"{row.achieved_transactional_iops:,.1f}",
            f"{row.db_reads_per_s:,.0f}", f"{row.db_writes_per_s:,.0f}", f"{row.log_writes_per_s:,.0f}",
            f"{row.db_read_avg_latency_ms:.2f}", f"{row.db_write_avg_latency_ms:.2f}", f"{row.log_write_avg_latency_ms:.2f}"]


class AcrossView(QWidget):
    """A test across servers, as it ended."""

    report_requested = Signal(object)  # the test's folder
    pdf_requested = Signal(object)
    folder_requested = Signal(object)
    new_test_requested = Signal()
    back_requested = Signal()  # back to the suite whose test this is
    apply_requested = Signal()  # the next test across the same servers, at the advisor's setting

    def __init__(self) -> None:
        super().__init__()
        self.result: AcrossResult | None = None
        self.folder: Path | None = None
        self.verdict = QLabel()
        font = QFont()
        font.setPointSize(font.pointSize() * 3)
        font.setBold(True)
        self.verdict.setFont(font)
        self.verdict.setWordWrap(True)
        self.about = QLabel()
        self.about.setWordWrap(True)  # the test's folder is a long path
        self.tuning = QLabel()  # how auto-tune across the servers ended, when it ran them
        self.tuning.setWordWrap(True)
        self.reasons = QLabel()
        self.reasons.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.note = QLabel(TIMED_NOTE)
        self.note.setWordWrap(True)
        buttons = QHBoxLayout()
        self.report_button = QPushButton("Open report")
        self.pdf_button = QPushButton("Export PDF…")
        self.folder_button = QPushButton("Open folder")
        self.new_button = QPushButton("New test")
        self.back = QPushButton()  # shown for a test of a suite across servers
        self.back.hide()
        for button in (self.report_button, self.pdf_button, self.folder_button, self.back):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.new_button)
        self.report_button.clicked.connect(lambda: self.report_requested.emit(self.folder))
        self.pdf_button.clicked.connect(lambda: self.pdf_requested.emit(self.folder))
        self.folder_button.clicked.connect(lambda: self.folder_requested.emit(self.folder))
        self.new_button.clicked.connect(self.new_test_requested.emit)
        self.back.clicked.connect(self.back_requested.emit)
        self.apply = QPushButton("Apply and run again across these servers")
        self.apply.setToolTip("The next test across the same servers, every server at the suggested setting")
        self.apply.clicked.connect(self.apply_requested.emit)
        self.advice_box = AdviceBox("Advisor (the servers read together)", [self.apply])
        self.advice = self.advice_box.words
        self.suggestion: Advice | None = None  # what Apply runs
        layout, outer = scrolled_body(self)  # a small screen scrolls the table; the buttons stay in sight
        for widget in (self.verdict, self.about, self.tuning, self.reasons, self.table, self.note, self.advice_box):
            layout.addWidget(widget)
        outer.addLayout(buttons)

    def show_test(self, result: AcrossResult, folder: Path, tuning: str = "", *, back: str = "",
                  advice: tuple[Advice, RunResult] | None = None) -> None:
        """The test's end; `tuning`, how auto-tune across the servers ended (this test its last run) or which test of a
        suite it is, with `back` the words of the way back to the suite; `advice`, the advisor's after this test (read
        as one run of the servers' summed design)."""
        self.result, self.folder = result, folder
        self.suggestion = advice[0] if advice is not None else None
        self.advice_box.setVisible(advice is not None)
        if advice is not None:
            self.advice.setText(advice_html(*advice))
            self.apply.setEnabled(can_apply(*advice))
        self.back.setText(back)
        self.back.setVisible(bool(back))
        self.tuning.setText(escape(tuning))
        self.tuning.setVisible(bool(tuning))
        outcome = result.outcome.value
        simulated = " (simulated device)" if result.simulated else ""
        self.verdict.setText(f"<span style='color:{verdict_colour(outcome)}'>{outcome.upper()}</span>{simulated} — "
                             f"test across {len(result.servers)} servers")
        self.about.setText(f"{type_words(result.test_type)} test {escape(result.test_id)} · {escape(str(folder))}")
        kind = TestType(result.test_type)
        timed = kind in TIMED_TEST_TYPES
        self.note.setText(TIMED_NOTE if timed else OPEN_ENDED_NOTE)
        said = result.reasons
        passed = "Every server passed, measured over the same time as the others." if timed else "Every server passed."
        self.reasons.setText(passed if not said else "<br>".join(escape(words) for words in said))
        header, rows = _timed_rows(result) if timed else _open_ended_rows(result, kind, folder)
        self.table.clear()
        self.table.setColumnCount(len(header))
        self.table.setHorizontalHeaderLabels(header)
        self.table.setRowCount(len(rows))
        for number, cells in enumerate(rows):
            for column, text in enumerate(cells):
                self.table.setItem(number, column, QTableWidgetItem(text))


def _timed_rows(result: AcrossResult) -> tuple[list[str], list[list[str]]]:
    """A Performance or Stress test: the paper's figures per server, then the aggregate."""
    rows = []
    for row in result.servers:
        if row.outcome is None:
            rows.append([row.host, "NO RESULT", *[""] * 8, _offset(row.clock_offset_s)])
        else:
            rows.append([row.host, row.outcome.value.upper(), *_figures(row), _offset(row.clock_offset_s)])
    rows.append(["All servers", result.outcome.value.upper(), *_figures(result.aggregate), ""])
    return COLUMNS, rows


def _open_ended_rows(result: AcrossResult, kind: TestType, folder: Path) -> tuple[list[str], list[list[str]]]:
    """A checksum, a backup or a Soft Recovery: what each server read or replayed, from its result in the test's
    folder (a server with none, or whose result cannot be read, shows its verdict alone)."""
    runs: list[tuple[str, RunResult | None]] = []
    for row in result.servers:
        try:
            runs.append((row.host, read_result(folder / HOSTS_FOLDER / row.host)))
        except (OSError, ValueError):
            runs.append((row.host, None))
    offsets = {row.host: _offset(row.clock_offset_s) for row in result.servers}
    if scans := scan_rows(kind, runs):
        return SCAN_COLUMNS, [[r.host, (r.outcome or result.outcome).value.upper(), str(r.databases), f"{r.pages:,}", f"{r.damaged:,}",
                               f"{r.mb:,.1f}", f"{r.seconds:,.1f}", f"{r.mb_per_s:,.1f}", offsets.get(r.host, "")]
                              for r in scans]
    if replays := recovery_rows(kind, runs):
        return RECOVERY_COLUMNS, [[r.host, r.outcome.value.upper(), str(r.asked), str(r.replayed), f"{r.seconds:.3f}",
                                   f"{r.limit:g}", offsets[r.host]] for r in replays]
    return ["Server", "Result", "Clock offset (ms)"], [
        [row.host, row.outcome.value.upper() if row.outcome else "NO RESULT", offsets[row.host]] for row in result.servers]


def _offset(seconds: float | None) -> str:
    return f"{seconds * 1000:+.1f}" if seconds is not None else ""
