"""A Soft Recovery's replay as a table: a row per instance, its log files generated and replayed, how long one took
against the limit, what the replay did to the database, and how it ended (Jetstress's Soft Recovery statistics).

Above the table, the test's own measure: the average time to play one log file against the limit.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem

from engine.results.recovery_schema import InstanceRecovery, RecoveryResult
from engine.results.schema import Outcome
from ui.recovery import files_words, over_limit, row_state
from ui.widgets.style import FAIL_STYLE, PASS_STYLE, verdict_qcolor
from ui.widgets.sweep_table import TableBox

COLUMNS = ["Instance", "Log files\ngenerated", "Log files\nreplayed", "Replay\nseconds", "Seconds per\nlog file",
           "Records", "Pages\nredone", "Page\nreads", "Pages\nwritten", "Pages\nread back", "Errors", "Ended"]
SECONDS_PER_FILE = "Seconds per\nlog file"
ENDED = "Ended"
VISIBLE_ROWS = 12  # instances the table shows without scrolling


def recovery_cells(row: InstanceRecovery) -> dict[str, str]:
    return {
        "Instance": row.instance,
        "Log files\ngenerated": f"{row.log_files_generated:,} of {row.log_files:,}",
        "Log files\nreplayed": f"{row.log_files_replayed:,}",
        "Replay\nseconds": f"{row.replay_seconds:,.1f}" if row.replay_seconds >= 10 else f"{row.replay_seconds:.2f}",
        SECONDS_PER_FILE: f"{row.seconds_per_log_file:.3f}" if row.log_files_replayed else "—",
        "Records": f"{row.records:,}", "Pages\nredone": f"{row.pages_redone:,}", "Page\nreads": f"{row.page_reads:,}",
        "Pages\nwritten": f"{row.pages_written:,}", "Pages\nread back": f"{row.pages_verified:,}",
        "Errors": f"{row.errors:,}",
    }


def _tips(row: InstanceRecovery, limit_s: float) -> dict[str, str]:
    return {
        "Instance": f"Log files in {row.log_path}",
        "Log files\ngenerated": f"Written under the load in {row.generation_seconds:.1f} s",
        SECONDS_PER_FILE: f"The replay's time over the log files it played; at most {limit_s:g} s passes",
        "Records": f"{row.pages_current:,} of them found their page already written before the crash",
        "Page\nreads": f"Database pages read to apply the records, {row.page_read_avg_ms:.2f} ms on average",
        "Pages\nwritten": f"Redone pages written back, {row.page_write_avg_ms:.2f} ms per write on average",
        "Pages\nread back": "Every page the replay wrote, read back after it (not timed in the replay)",
        "Errors": f"{row.damaged:,} damaged log sector(s) or page(s), {row.lost_flushes:,} lost flush(es) (ESE -1119)",
    }


class RecoveryTable(TableBox):
    """Each instance's soft recovery; hidden for every other test."""

    def __init__(self) -> None:
        super().__init__("Soft recovery of each instance", COLUMNS,
                         "Each instance's log files, generated under the load and then replayed into its database")

    def show_recovery(self, recovery: RecoveryResult | None, outcome: Outcome) -> None:
        if recovery is None:
            self.hide()
            return
        rows = recovery.instances
        average = f"{recovery.seconds_per_log_file:.3f} s" if recovery.log_files_replayed else "none played"
        self.summary.setText(f"<b>Average time to play one log file: {average} (limit {recovery.limit_s:g} s).</b> "
                             f"{files_words(recovery)}.")
        complete = all(r.complete for r in rows)
        failed = over_limit(recovery) or any(r.errors or r.failure for r in rows)
        self.summary.setStyleSheet(FAIL_STYLE if failed else PASS_STYLE if complete else "")
        self.table.setRowCount(len(rows))
        for index, row in enumerate(rows):
            cells = recovery_cells(row)
            cells[ENDED] = row_state(row, outcome)
            tips = _tips(row, recovery.limit_s)
            for column, name in enumerate(COLUMNS):
                item = QTableWidgetItem(cells[name])
                if name not in ("Instance", ENDED):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if name in tips:
                    item.setToolTip(tips[name])
                if name == ENDED:
                    item.setToolTip(cells[name])
                self._colour(item, name, row, recovery.limit_s, outcome)
                self.table.setItem(index, column, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.show()  # shown first: a hidden box's layout keeps the height it had
        self.fit_rows(VISIBLE_ROWS)

    @staticmethod
    def _colour(item: QTableWidgetItem, name: str, row: InstanceRecovery, limit_s: float, outcome: Outcome) -> None:
        if name == SECONDS_PER_FILE and row.log_files_replayed:
            item.setForeground(verdict_qcolor("fail" if row.seconds_per_log_file > limit_s else "pass"))
        elif name == "Errors" and row.errors:
            item.setForeground(verdict_qcolor("fail"))
        elif name == ENDED:
            state = "pass" if row.complete else "fail" if row.failure or outcome != Outcome.ABORTED else "aborted"
            item.setForeground(verdict_qcolor(state))
        elif {"Log files\ngenerated": row.log_files_generated, "Log files\nreplayed": row.log_files_replayed}.get(
                name, row.log_files) < row.log_files:  # short of the files the instance was to generate or replay
            item.setForeground(verdict_qcolor("aborted" if outcome == Outcome.ABORTED else "fail"))
