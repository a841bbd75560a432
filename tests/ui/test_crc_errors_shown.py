"""A CRC error (ESE -1021) is named wherever an I/O error is: the verdict's reasons and criteria, the report's I/O
Errors table, the Jetstress-layout result files, the window's results view and its scan table, each with its ESE
error, file, page and byte offset, and what page patching did (a checksum's report and CSV: tests/faults)."""

from __future__ import annotations

from engine.io.pages import ErrorKind
from engine.results.scan_schema import DamagedPage, DatabaseScan, ScanResult
from engine.tuning.advisor import advise_session
from engine.workload.errors import PATCHED, IoProblem
from engine.workload.scan import NEVER_WRITES
from engine.workload.stats import DB_READ
from reporting.bundle import RunBundle
from reporting.csv_export import SCAN_CSV_COLUMNS
from reporting.document import render_html
from reporting.jetstress_files import write_jetstress_files
from tests.engine.test_report import _samples, _tally, known_result
from tests.reporting.reading import html_text
from ui.views.results_view import ResultsView
from ui.widgets.scan_table import ScanTable

FILE = r"F:\sg1\Jetwise001.jwdb"
REASON = (f"Instance 1: 2 CRC errors (ESE -1021 JET_errDiskReadVerificationFailure) in database pages, each {PATCHED}; "
          rf"the first at page 12 of {FILE}, byte offset 393,216")


def test_a_patched_crc_error_is_named_with_its_ese_error_and_its_patch_in_the_result_report_files_and_window(qtbot, tmp_path):
    crc = IoProblem(ErrorKind.CRC_ERROR, DB_READ, FILE, "page", 12, 12 * 32768,
                    detail="Data error (cyclic redundancy check)", patched=True)
    result = known_result(tmp_path, errors={"Instance 1": _tally((crc, 2))})
    assert result.summary.reasons[0] == REASON and result.summary.io_errors_by_kind == {"crc_error": 2}
    [group] = result.error_groups
    assert (group.ese_error, group.ese_name, group.patched, group.patch) == (
        -1021, "JET_errDiskReadVerificationFailure", 2, f"each {PATCHED}")
    assert group.first_message == (
        rf"CRC error (ESE -1021 JET_errDiskReadVerificationFailure) reading page 12 of {FILE} at byte offset 393,216: "
        f"the operating system failed the read for a data error, the drive could not read it back as written: Data "
        f"error (cyclic redundancy check); {PATCHED}")
    assert any(c.name == "CRC errors (ESE -1021)" and c.instance == "Instance 1" and not c.passed for c in result.criteria)

    text = html_text(render_html(RunBundle(result, _samples(), [], tmp_path)))
    errors = text[text.index("I/O Errors Every I/O error") :]
    assert (f"Instance 1 CRC error -1021 JET_errDiskReadVerificationFailure 2 page 12 393,216 Database reads in {FILE} · "
            f"each {PATCHED}") in errors
    assert REASON in text and "CRC errors (ESE -1021) Instance 1 2" in text

    into = tmp_path / "jetstress"
    into.mkdir()
    html, _xml = write_jetstress_files(result, [f"Instance 1: {group.first_message}"], into)
    jetstress = html_text(html.read_text(encoding="utf-8"))
    assert f"Issue {REASON}" in jetstress and group.first_message in jetstress  # Test Issues, and the test log

    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(result, advise_session(result.configuration, [result], device=result.device))
    assert REASON in html_text(view.reasons.text())
    assert ("The storage returned I/O errors: 2 CRC errors (ESE -1021 JET_errDiskReadVerificationFailure) on Instance 1, "
            f"each {PATCHED}, the first at page 12 of {FILE}") in html_text(view.advice.text())


def test_a_checksums_crc_error_pages_have_their_own_column_in_the_window_and_its_reason(qtbot):
    row = DatabaseScan(instance="Instance 1", database_file=FILE, pages=256, seen_pages=256, bad_pages=0,
                       wrong_page_number_pages=0, uninitialised_pages=0, crc_error_pages=1, lost_flush_pages=2,
                       bytes_read=255 * 32768, seconds=1.0, complete=True,
                       first_damaged=[DamagedPage(page=17, offset=17 * 32768, kind=ErrorKind.CRC_ERROR),
                                      DamagedPage(page=30, offset=30 * 32768, kind=ErrorKind.LOST_FLUSH),
                                      DamagedPage(page=31, offset=31 * 32768, kind=ErrorKind.LOST_FLUSH)])
    assert row.damaged_pages == 3
    table = ScanTable()
    qtbot.addWidget(table)
    table.show_scan(ScanResult(read_bytes=65536, databases=[row]), checksum=True)
    headers = [table.table.horizontalHeaderItem(c).text() for c in range(table.table.columnCount())]
    cells = {name: table.table.item(0, c).text() for c, name in enumerate(headers)}
    assert cells["CRC\nerror"] == "1" and cells["Lost\nflush"] == "2" and cells["Unreadable"] == "0"
    assert "page 17 (CRC error, ESE -1021) at byte offset 557,056" in table.damaged.text()
    assert {"crc_error_pages", "lost_flush_pages"} <= set(SCAN_CSV_COLUMNS)
    assert SCAN_CSV_COLUMNS.index("crc_error_pages") < SCAN_CSV_COLUMNS.index("damaged_pages")
    from engine.results.scans import damage_words

    assert damage_words(row) == (f"Instance 1: 3 damaged pages of 256 in {FILE}: 1 CRC error (ESE -1021) not patched, as "
                                 f"{NEVER_WRITES}, 2 lost flush (ESE -1119); the first at page 17, byte offset 557,056")


def test_a_database_read_without_its_flush_map_shows_no_count_of_lost_flushes_and_says_why(qtbot):
    from engine.results.scans import row_words

    why = "Jetwise001.jwdb: it has no flush map (an earlier Jetwise made it, or its map was removed)"
    kept = DatabaseScan(instance="Instance 1", database_file=FILE, pages=256, seen_pages=256, bad_pages=0,
                        wrong_page_number_pages=0, uninitialised_pages=0, bytes_read=255 * 32768, seconds=1.0,
                        complete=True)
    missing = kept.model_copy(update={"instance": "Instance 2", "flush_map": why})
    table = ScanTable()
    qtbot.addWidget(table)
    table.show_scan(ScanResult(read_bytes=65536, databases=[kept, missing]), checksum=True)
    headers = [table.table.horizontalHeaderItem(c).text() for c in range(table.table.columnCount())]
    column = headers.index("Lost\nflush")
    assert [table.table.item(r, column).text() for r in (0, 1)] == ["0", "—"]  # none could be told without its map
    assert row_words(kept).endswith("; read against its flush map")
    assert row_words(missing).endswith(f"; no lost flush could be told: {why}")
