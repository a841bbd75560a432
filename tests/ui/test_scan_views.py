"""Database checksum and Database backup in the window: chosen on the Test type page with their own settings, run
for real on tiny databases with their progress, throughput and pages in the run view, each database's scan in the
results; Stop, New test, and a Performance test after them."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWizard

from engine.model import config as model
from tests.conftest import small_config
from tests.ui.scan_runs import ENGINE_TIMEOUT_MS, choose, start, wait_for_results
from ui.widgets.scan_table import BACKUP_FILE, COLUMNS, LOG_SECTORS
from ui.wizard import PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _row_shown(page, path: str) -> bool:
    return page.fields[path].isVisibleTo(page)


def _headers(table) -> list[str]:
    return [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]


def test_the_test_type_page_offers_the_scans_each_with_its_own_settings(qtbot, window, tmp_path):
    window.wizard.load_config(small_config(tmp_path / "data" / "dbs"), session="scans")
    window.wizard.restart_at(PAGE_TYPE)
    page = window.wizard.test_type
    assert "Reads every page of every database and its logs and verifies each" in page.checksum.text()
    assert [b.text().split(" — ")[0] for b in page.buttons.values()] == [
        "Performance", "Stress", "Database checksum", "Database backup", "Soft recovery"]
    assert _row_shown(page, "duration_s") and not _row_shown(page, "checksum_read_kib") and not page.scan_note.isVisibleTo(page)

    choose(qtbot, page.checksum)
    assert window.state.data["test_type"] == "database_checksum"
    assert _row_shown(page, "checksum_read_kib") and page.fields["checksum_read_kib"].edit.text() == "64"
    assert not any(_row_shown(page, p) for p in ("duration_s", "warmup_s", "background_maintenance", "backup_path"))
    assert page.scan_note.isVisibleTo(page) and _next_enabled(window)
    page.fields["checksum_read_kib"].edit.setText("48")  # not whole pages
    assert "multiple of 32" in page.fields["checksum_read_kib"].error.text() and not _next_enabled(window)
    page.fields["checksum_read_kib"].edit.setText("128")

    choose(qtbot, page.backup)
    assert _row_shown(page, "backup_read_kib") and _row_shown(page, "backup_path") and not _row_shown(page, "checksum_read_kib")
    folder = page.backup_folder
    assert folder.browse.isVisibleTo(page) and folder.edit.placeholderText() == "read only, no copy written"
    folder.edit.setText("backups")  # relative: refused where it is typed
    assert "give a full path" in folder.error.text() and not _next_enabled(window)
    folder.edit.setText(str(tmp_path / "nowhere" / "backups"))  # the machine's checks say what is wrong with it
    qtbot.waitUntil(lambda: "does not exist" in folder.error.text(), timeout=10_000)
    assert not _next_enabled(window)
    (tmp_path / "backups").mkdir()
    folder.edit.setText(str(tmp_path / "backups"))
    qtbot.waitUntil(lambda: not folder.error.isVisibleTo(page) and _next_enabled(window), timeout=10_000)
    assert window.state.config().backup_path == tmp_path / "backups"
    folder.edit.setText("")  # empty: read only
    assert window.state.config().backup_path is None

    window.wizard.restart_at(PAGE_TUNING)  # thread tuning does not apply to a scan, and says so
    tuning = window.wizard.tuning
    assert tuning.scan_note.isVisibleTo(tuning) and "does not apply to a Database backup test" in tuning.scan_note.text()
    assert not tuning.auto.isEnabled() and not tuning.fields["thread_count"].isEnabled() and _next_enabled(window)
    window.wizard.restart_at(PAGE_REVIEW)
    review = window.wizard.review.text.toPlainText()
    assert "Database backup test" in review and "read through in sequential 256 KiB reads" in review
    assert "Target" not in review and "Warm-up" not in review.replace("warm-up", "")

    window.wizard.restart_at(PAGE_TYPE)
    choose(qtbot, page.performance)  # everything of a Performance test is back as it was
    assert _row_shown(page, "duration_s") and page.duration.currentText() == "2s" and page.warmup.currentText() == "0.5s"
    assert not any(_row_shown(page, p) for p in ("checksum_read_kib", "backup_read_kib", "backup_path"))
    assert not page.scan_note.isVisibleTo(page) and window.state.config().checksum_read_kib == 128
    window.wizard.restart_at(PAGE_TUNING)
    assert not tuning.scan_note.isVisibleTo(tuning) and tuning.auto.isEnabled() and tuning.fields["thread_count"].isEnabled()


def test_a_checksum_runs_shows_its_pages_and_each_databases_scan_then_new_test_and_a_performance_test(qtbot, window, tmp_path):
    config = small_config(tmp_path / "data" / "dbs", test_type=model.TestType.DATABASE_CHECKSUM)
    start(qtbot, window, config, "checksum")
    view = window.run_view
    assert view.title.text() == "Database checksum test: 2 databases in 64 KiB reads"
    assert view.scan_status.isVisibleTo(view) and not view.criteria_box.isVisibleTo(view)
    wait_for_results(qtbot, window)
    result = window.runs.last_result
    assert result.verdict == "pass" and result.scan is not None
    pages = sum(d.pages for d in result.scan.databases)
    assert view.scan_status.pages.text().startswith(f"{pages:,} of {pages:,} pages checked, 0 damaged; 32 log files read")
    assert view.plots.iops.n >= 1 and view.plots.iops_plot.getPlotItem().titleLabel.text == "Database read throughput"
    assert view.plots.iops.view()[1][0] > 0  # MB/s, not IOPS
    assert not [i for p in (view.plots.iops_plot, view.plots.latency_plot)
                for i in p.getPlotItem().items if isinstance(i, pg.InfiniteLine)]  # no target, no thresholds

    results = window.results_view
    assert "PASS" in results.verdict.text() and "Database checksum" in results.verdict.text()
    assert results.headline.text().startswith(f"Read {pages:,} of {pages:,} pages of 2 databases")
    table = results.scan.table
    assert results.scan.isVisibleTo(results) and not results.table.isVisibleTo(results)
    read = COLUMNS.index("MB read")
    assert _headers(table) == [*COLUMNS[:read], LOG_SECTORS, *COLUMNS[read:]] and table.rowCount() == 2
    assert [table.item(r, 0).text() for r in range(2)] == ["Instance 1", "Instance 2"]
    assert table.item(0, 1).text() == f"{result.scan.databases[0].pages:,}" == table.item(0, 2).text()
    assert not results.advice_box.isVisibleTo(results) and not results.full_length.isVisibleTo(results)
    assert window.reports.open_report() is not None  # the report of a scan opens

    qtbot.keySequence(window, QKeySequence.StandardKey.New)  # New test: the wizard, every value kept
    assert window.stack.currentWidget() is window.wizard and window.wizard.currentId() == PAGE_PROFILE
    assert window.state.data["test_type"] == "database_checksum"
    window.wizard.restart_at(PAGE_TYPE)
    assert window.wizard.test_type.checksum.isChecked()
    choose(qtbot, window.wizard.test_type.performance)
    start(qtbot, window, window.state.config(), "checksum", load=False)
    assert view.criteria_box.isVisibleTo(view) and not view.scan_status.isVisibleTo(view)
    wait_for_results(qtbot, window)
    after = window.runs.last_result
    assert after.scan is None and after.summary.test_type == "performance"
    assert results.table.isVisibleTo(results) and not results.scan.isVisibleTo(results)
    assert results.advice_box.isVisibleTo(results)  # the checksum before it is no evidence for the advisor
    assert view.plots.iops_plot.getPlotItem().titleLabel.text == "Transactional IOPS"


def test_a_backup_copies_each_database_and_stop_shows_the_aborted_scan(qtbot, window, tmp_path):
    (tmp_path / "backups").mkdir()
    config = small_config(tmp_path / "data" / "dbs", test_type=model.TestType.DATABASE_BACKUP, backup_path=tmp_path / "backups")
    start(qtbot, window, config, "backup")
    assert window.run_view.title.text().endswith(f"copied to {tmp_path / 'backups'}")
    wait_for_results(qtbot, window)
    result = window.runs.last_result
    assert result.verdict == "pass" and all(d.backup_file for d in result.scan.databases)
    table = window.results_view.scan.table
    assert _headers(table) == [*COLUMNS, BACKUP_FILE]
    assert table.item(1, len(COLUMNS)).text() == result.scan.databases[1].backup_file
    assert "copied to" in window.results_view.headline.text()

    # databases large enough to read for a few seconds: Stop ends the reading, and the results say how far it got
    big = small_config(tmp_path / "data" / "big", test_type=model.TestType.DATABASE_BACKUP, backup_read_kib=32,
                       profile={"mailboxes": 16, "iops_per_mailbox": 0.1, "mailbox_size_mb": 96})
    qtbot.keySequence(window, QKeySequence.StandardKey.New)
    start(qtbot, window, big, "backup")
    view = window.run_view
    qtbot.waitUntil(lambda: view.phase.text() == "Backing up databases" and view.progress.value() > 0,
                    timeout=ENGINE_TIMEOUT_MS)
    qtbot.mouseClick(view.stop, Qt.MouseButton.LeftButton)
    wait_for_results(qtbot, window)
    stopped = window.runs.last_result
    assert stopped.verdict == "aborted" and not all(d.complete for d in stopped.scan.databases)
    assert "ABORTED" in window.results_view.verdict.text() and "stopped by the user" in window.results_view.reasons.text()
    assert view.scan_status.figures.text().startswith("Stopped")
    assert window.reports.open_report() is not None


def test_the_pages_backed_up_keep_up_with_the_progress_the_bar_shows(tmp_path):
    """A backup's samples lag its progress: "75 % · 583.3 MB/s" used to stand beside "0 of 12,800 pages backed up"."""
    from engine.model.sizing import PAGE_SIZE_BYTES
    from ui.scans import ScanProgress

    config = small_config(tmp_path / "data", test_type="database_backup")
    tally = ScanProgress(config)
    total = config.database_pages * config.database_count
    tally.add_progress(total * PAGE_SIZE_BYTES, total * PAGE_SIZE_BYTES * 3 // 4)
    assert tally.pages == total * 3 // 4 and tally.words().startswith(f"{total * 3 // 4:,} of {total:,} pages backed up")
    tally.add_progress(total * PAGE_SIZE_BYTES, total * PAGE_SIZE_BYTES * 2)  # never past the pages there are
    assert tally.pages == total
