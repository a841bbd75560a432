"""A test across servers' servers as a table: each server's share (its verdict on its own databases, its share of the
target, what it achieved and its latencies), then the servers together twice: as the ESRP paper makes the aggregate
(I/O summed, latency averaged across the servers) and the exact figure the verdict judges (every I/O of the test).

A checksum, a backup or a Soft Recovery across servers shows each server's verdict with what it read or replayed;
its figures per instance are in the scan's or the replay's table beneath.
"""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHeaderView, QTableWidgetItem

from engine.results.schema import RunResult, Summary
from engine.results.servers import FIGURES, paper_aggregate, recovery_shares, scan_shares
from ui.widgets.style import verdict_qcolor
from ui.widgets.sweep_table import TableBox

COLUMNS = ["Server", "Result", "Target\nIOPS", "Achieved\nIOPS", "DB reads/s", "DB writes/s", "Log writes/s",
           "DB read\navg ms", "DB write\navg ms", "Log write\navg ms"]  # the figures in `FIGURES`' order
PAPER_ROW = "All servers (ESRP paper)"
EXACT_ROW = "All servers (exact)"
VISIBLE_ROWS = 10


def _figure(name: str, value: float) -> str:
    """As the report gives it: latencies to the hundredth, IOPS achieved (and a target under 100) to the tenth."""
    if name.endswith("latency_ms"):
        return f"{value:.2f}"
    tenths = name == "achieved_transactional_iops" or (name == "target_transactional_iops" and value < 100)
    return f"{value:,.1f}" if tenths else f"{value:,.0f}"


def summary_cells(summary: Summary) -> list[str]:
    return [_figure(name, float(getattr(summary, name))) for name in FIGURES]


def load_rows(result: RunResult) -> list[list[str]]:
    """Each server's row, then the paper's aggregate and the exact figure (the run's own summary)."""
    rows = []
    for share in result.servers:
        if share.summary is None:
            rows.append([share.host, "NONE", f"nothing measured{f': {share.how_it_ended}' if share.end else ''}",
                         *[""] * (len(FIGURES) - 1)])
        else:
            rows.append([share.host, share.summary.verdict.value.upper(), *summary_cells(share.summary)])
    paper = paper_aggregate(result)
    rows.append([PAPER_ROW, "", *[_figure(name, paper.figures[name]) for name in FIGURES]])
    rows.append([EXACT_ROW, result.summary.verdict.value.upper(), *summary_cells(result.summary)])
    return rows


def work_rows(result: RunResult) -> tuple[list[str], list[list[str]]]:
    """A scan's or a Soft Recovery's servers: what each read or replayed."""
    if result.scan is not None:
        return (["Server", "Result", "Databases", "Pages read", "Damaged\npages", "Read (MB)", "Seconds", "MB/s"],
                [[s.host, s.outcome.value.upper() if s.outcome else result.summary.verdict.value.upper(), str(s.databases),
                  f"{s.pages:,}", f"{s.damaged:,}", f"{s.mb:,.1f}", f"{s.seconds:,.1f}", f"{s.mb_per_s:,.1f}"]
                 for s in scan_shares(result)])
    return (["Server", "Result", "Log files\nto replay", "Log files\nreplayed", "Seconds per\nlog file", "Limit (s)"],
            [[r.host, r.outcome.value.upper() if r.outcome else "NONE", str(r.asked), str(r.replayed), f"{r.seconds:.3f}",
              f"{r.limit:g}"] for r in recovery_shares(result)])


class ServersTable(TableBox):
    """The servers of a test across servers; hidden for a test on one server."""

    def __init__(self) -> None:
        super().__init__("Servers", COLUMNS, "Each server's share of the test, judged on its own databases, then the "
                                             "servers together")

    def show_servers(self, result: RunResult) -> None:
        if not result.servers:
            self.hide()
            return
        open_ended = result.scan is not None or result.recovery is not None
        columns, rows = work_rows(result) if open_ended else (COLUMNS, load_rows(result))
        self.setTitle(f"Individual server metrics: {len(result.servers)} servers")
        self.summary.setText(
            "Each server's share, judged on its own databases as a test on it alone is, every server started at one "
            "instant." + ("" if open_ended else " The last two rows are the servers together: as the ESRP paper makes "
                          "the aggregate (I/O summed, latency averaged across the servers), and the exact figure over "
                          "every I/O of the test, which the verdict judges."))
        table = self.table
        table.clear()
        table.setColumnCount(len(columns))
        table.setHorizontalHeaderLabels(columns)
        table.setRowCount(len(rows))
        bold = QFont()
        bold.setBold(True)
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 1 and text:
                    item.setForeground(verdict_qcolor(text.lower() if text != "NONE" else "aborted"))
                if cells[0] in (PAPER_ROW, EXACT_ROW, "All servers"):
                    item.setFont(bold)
                table.setItem(row, column, item)
        table.resizeColumnsToContents()
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.show()  # shown first: a hidden box's layout keeps the height it had
        self.fit_rows(VISIBLE_ROWS)
