"""Two runs side by side: their setting, what they achieved against their targets, their latencies and verdicts, each
row that differs marked."""

from __future__ import annotations

from datetime import UTC

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTableWidgetItem, QVBoxLayout, QWidget

from engine.model.units import seconds_words
from engine.results.reasons import grouped_reasons
from engine.results.schema import RunResult
from ui.scans import type_words
from ui.widgets.style import laid_out, read_only_table

DIFFERS = QColor(255, 244, 214)


def comparison_rows(first: RunResult, second: RunResult) -> list[tuple[str, str, str]]:
    """(what, the first run's, the second run's), in the order an engineer reads a run."""
    def figures(result: RunResult) -> dict[str, str]:
        s = result.summary
        return {
            "Run": result.run_id,
            "Started (UTC)": f"{start.astimezone(UTC):%Y-%m-%d %H:%M:%S}" if (start := result.times.test_start_utc) else "—",
            "Test": type_words(s.test_type),
            "Measured": seconds_words(s.measured_s),
            "Threads": f"{s.threads}",
            "SluggishSessions": f"{s.sluggish_sessions}",
            "Target transactional IOPS": f"{s.target_transactional_iops:,.1f}",
            "Achieved transactional IOPS": f"{s.achieved_transactional_iops:,.1f}",
            "Database reads: average ms": f"{s.db_read_avg_latency_ms:,.2f}",
            "Database reads: slowest ms": f"{s.db_read_max_latency_ms:,.2f}",
            "Log writes: average ms": f"{s.log_write_avg_latency_ms:,.2f}",
            "Log writes: slowest ms": f"{s.log_write_max_latency_ms:,.2f}",
            "Host CPU %": "—" if (cpu := result.host_performance.cpu_percent.average) is None else f"{cpu:.0f}",
            "Verdict": s.verdict.value.upper(),
            "Why": "; ".join(grouped_reasons(result)) or "—",
        }
    one, two = figures(first), figures(second)
    return [(name, one[name], two[name]) for name in one]


class CompareDialog(QDialog):
    def __init__(self, first: RunResult, second: RunResult, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Runs compared: {first.run_id} and {second.run_id}")
        rows = comparison_rows(first, second)
        self.table = read_only_table(["", "First run", "Second run"], len(rows))
        for row, (name, one, two) in enumerate(rows):
            for column, text in enumerate((name, one, two)):
                item = QTableWidgetItem(text)
                if column and one != two and name != "Run":
                    item.setBackground(DIFFERS)
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        for column in (1, 2):  # a long reason wraps in its cell rather than pushing the other run out of view
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), 340))
        self.table.resizeRowsToContents()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        laid_out(QVBoxLayout(self), self.table, buttons)
        self.resize(900, 520)
