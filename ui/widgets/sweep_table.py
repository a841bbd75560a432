"""A load sweep's steps as a table: each step's setting, what it measured, and how it was judged.

The step the run's verdict judges is in bold and named above the table, with why the sweep ended.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QGroupBox, QHeaderView, QTableWidgetItem, QVBoxLayout

from engine.results.sweep_schema import Sweep, SweepStep
from ui.widgets.style import NEUTRAL, read_only_table, tipped, verdict_qcolor, wrapped

COLUMNS = ["Step", "Threads", "Sluggish-\nSessions", "Effective\nload", "Transactional\nIOPS", "DB read\navg ms",
           "DB read\nmax ms", "Log write\navg ms", "Log write\nmax ms", "Page-fault\nstalls/s", "CPU %", "Outcome"]
OUTCOME = COLUMNS.index("Outcome")


def step_outcome(step: SweepStep) -> str:
    """How a step was judged, in the test log's words."""
    if step.no_reads:
        return "No database reads (the cache held the database): not read as a storage limit"
    words = "Kept every latency threshold" if step.latency_ok else f"Broke: {step.broke_words}"
    if step.host_bound:
        words += ("; host-bound (the CPU set the pace): the storage carried at least this" if step.latency_ok
                  else "; host-bound (the CPU set the pace): not read as a storage limit")
    if not step.settled:
        words += "; latency did not settle before the judged samples"
    return words


def step_cells(step: SweepStep) -> list[str]:
    return [str(step.step + 1), str(step.threads), str(step.sluggish_sessions), f"{step.effective_load:.2f}",
            f"{step.transactional_iops:,.1f}", f"{step.db_read_avg_latency_ms:.2f}", f"{step.db_read_max_latency_ms:.2f}",
            f"{step.log_write_avg_latency_ms:.2f}", f"{step.log_write_max_latency_ms:.2f}",
            f"{step.page_fault_stalls_per_s:.2f}", f"{step.cpu_percent:.0f}", step_outcome(step)]


class TableBox(QGroupBox):
    """A titled table of figures with a line or two above it; hidden until there is something to show."""

    def __init__(self, title: str, columns: list[str], tooltip: str) -> None:
        super().__init__(title)
        self.summary = wrapped()
        self.table = tipped(read_only_table(columns), tooltip)
        self.box_layout = QVBoxLayout(self)
        self.box_layout.addWidget(self.summary)
        self.box_layout.addWidget(self.table, 1)
        self.hide()

    def fit_rows(self, visible: int) -> None:
        """As tall as its rows, up to `visible` of them: a few rows leave no empty table below them."""
        table = self.table
        table.ensurePolished()  # the style's row and header heights, not the defaults before it is shown
        table.resizeRowsToContents()
        rows = sum(table.rowHeight(r) for r in range(min(table.rowCount(), visible)))
        scroll = table.horizontalScrollBar().sizeHint().height()
        table.setFixedHeight(table.horizontalHeader().sizeHint().height() + rows + 2 * table.frameWidth() + scroll)


class SweepTable(TableBox):
    """The steps of a sweep run, in the order they ran; hidden for a run at one setting."""

    def __init__(self) -> None:
        super().__init__("Load sweep", COLUMNS, "Each step of the load sweep: its setting, what its judged samples "
                                                "measured, and the first threshold it broke")

    def show_sweep(self, sweep: Sweep | None) -> None:
        if sweep is None:
            self.hide()
            return
        steps = sweep.steps
        judged = next((step for step in steps if step.step == sweep.judged_step), None)
        self.setTitle(f"Load sweep: {len(steps)} step{'s' if len(steps) != 1 else ''}")
        said = []
        if judged is not None:
            said.append(f"The verdict judges step {judged.step + 1} ({judged.threads} threads, SluggishSessions "
                        f"{judged.sluggish_sessions}), in bold.")
        elif sweep.judged_step is not None:
            said.append(f"The verdict judges step {sweep.judged_step + 1}, which did not finish.")
        if sweep.ended_words:
            said.append(f"The sweep ended: {sweep.ended_words}.")
        self.summary.setText(" ".join(said))
        self.summary.setVisible(bool(said))
        self.table.setRowCount(len(steps))
        bold = QFont()
        bold.setBold(True)
        for row, step in enumerate(steps):
            for column, text in enumerate(step_cells(step)):
                item = QTableWidgetItem(text)
                if column == OUTCOME:
                    item.setForeground(verdict_qcolor("pass" if step.latency_ok else "fail") if step.tells else QColor(NEUTRAL))
                    item.setToolTip(text)
                if judged is not None and step.step == judged.step:
                    item.setFont(bold)
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(OUTCOME, QHeaderView.ResizeMode.Stretch)
        self.show()
