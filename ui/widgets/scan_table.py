"""A Database checksum or backup's scan as a table: a row per database, its pages by what was found, what was read
and how fast (Jetstress's checksum and backup statistics), and beneath, the first damaged pages by number.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTableWidgetItem

from engine.results.scan_schema import DatabaseScan, ScanResult
from engine.results.scans import megabytes
from engine.workload.errors import PAGE, ese_error, title
from ui.widgets.style import verdict_qcolor
from ui.widgets.sweep_table import TableBox

COLUMNS = ["Instance", "Pages", "Seen", "Bad\nchecksum", "Wrong page\nnumber", "Uninitialised", "Unreadable",
           "CRC\nerror", "Lost\nflush", "MB read", "Seconds", "MB/s"]
DAMAGE = ("Bad\nchecksum", "Wrong page\nnumber", "Uninitialised", "Unreadable", "CRC\nerror", "Lost\nflush",
          "Damaged log\nsectors")
LOG_SECTORS = "Damaged log\nsectors"
BACKUP_FILE = "Backup file"
VISIBLE_ROWS = 12  # databases the table shows without scrolling
FIRST_SHOWN = 5  # damaged pages named per database here; the report and the test log name up to 20


def scan_cells(row: DatabaseScan) -> dict[str, str]:
    return {
        "Instance": row.instance, "Pages": f"{row.pages:,}", "Seen": f"{row.seen_pages:,}",
        "Bad\nchecksum": f"{row.bad_pages:,}", "Wrong page\nnumber": f"{row.wrong_page_number_pages:,}",
        "Uninitialised": f"{row.uninitialised_pages:,}", "Unreadable": f"{row.unreadable_pages:,}",
        "CRC\nerror": f"{row.crc_error_pages:,}",
        "Lost\nflush": "—" if row.flush_map else f"{row.lost_flush_pages:,}",  # none could be told: no map kept
        LOG_SECTORS: f"{row.log_sectors_damaged:,} of {row.log_sectors_seen:,}",
        "MB read": f"{megabytes(row.bytes_read):,.1f}", "Seconds": f"{row.seconds:,.1f}" if row.seconds >= 10 else f"{row.seconds:.2f}",
        "MB/s": f"{megabytes(row.bytes_per_s):,.1f}", BACKUP_FILE: row.backup_file,
    }


def first_damaged_html(rows: list[DatabaseScan]) -> str:
    """The first damaged pages of each database that has any: page number, kind with ESE's error, byte offset."""
    lines = []
    for row in rows:
        if not row.first_damaged:
            continue
        pages = [f"page {d.page:,} ({title(d.kind, PAGE)}, ESE {ese_error(d.kind, PAGE)[0]}) at byte offset {d.offset:,}"
                 for d in row.first_damaged[:FIRST_SHOWN]]
        more = row.damaged_pages - len(pages)
        tail = f"; and {more:,} more (the test log names each)" if more > 0 else ""
        lines.append(f"<li><b>{escape(row.instance)}</b> ({escape(row.database_file)}): {escape('; '.join(pages))}{tail}</li>")
    return f"<b>First damaged pages</b><ul>{''.join(lines)}</ul>" if lines else ""


class ScanTable(TableBox):
    """Each database's scan; hidden for a test that runs transactions."""

    def __init__(self) -> None:
        super().__init__("Databases read", COLUMNS, "Each database's pages by what the scan found in them, what it "
                                                    "read and how fast (MB are MiB, as Jetstress counts them)")
        self.damaged = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.box_layout.addWidget(self.damaged)
        self.columns: list[str] = list(COLUMNS)

    def show_scan(self, scan: ScanResult | None, checksum: bool) -> None:
        if scan is None:
            self.hide()
            return
        rows = scan.databases
        self.columns = list(COLUMNS)
        if checksum:
            self.columns.insert(self.columns.index("MB read"), LOG_SECTORS)
        if any(row.backup_file for row in rows):
            self.columns.append(BACKUP_FILE)
        self.setTitle("Each database's scan (MB are MiB, as Jetstress counts them)")
        seen, pages = sum(r.seen_pages for r in rows), sum(r.pages for r in rows)
        self.summary.setText(f"{seen:,} of {pages:,} pages read ({megabytes(scan.bytes_read):,.1f} MB).")
        self.summary.setVisible(seen < pages)  # the headline says the rest; a stopped scan, how far it got
        self.table.setColumnCount(len(self.columns))
        self.table.setHorizontalHeaderLabels(self.columns)
        self.table.setRowCount(len(rows))
        for index, row in enumerate(rows):
            cells = scan_cells(row)
            for column, name in enumerate(self.columns):
                item = QTableWidgetItem(cells[name])
                if name != "Instance" and name != BACKUP_FILE:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if name in DAMAGE and not cells[name].startswith("0"):
                    item.setForeground(verdict_qcolor("fail"))
                if name == "Seen" and not row.complete:
                    item.setForeground(verdict_qcolor("aborted"))
                    item.setToolTip("The scan stopped before the end of this database")
                if name == "Instance":
                    item.setToolTip(row.database_file)
                self.table.setItem(index, column, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.fit_rows(VISIBLE_ROWS)
        html = first_damaged_html(rows)
        self.damaged.setText(html)
        self.damaged.setVisible(bool(html))
        self.show()
