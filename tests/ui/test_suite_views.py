"""The ESRP qualification in the window: chosen on the Test type page with its two lengths and the later tests'
settings, run by hand, its five tests run on the simulated device in virtual time, each shown under its stage, then
the five verdicts with the combined report and each test's own results; Stop leaves it unfinished, and the window
resumes it, from the results or from the Review page."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from engine.run.suite import SUITE_FILE
from tests.conftest import small_config
from tests.ui.scan_runs import ENGINE_TIMEOUT_MS, choose, wait_for_results
from ui.wizard import PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE


def _config(tmp_path):
    """Two tiny databases; 30 s samples, so an hour of a simulated test is 120 of them."""
    return small_config(tmp_path / "data" / "dbs", sample_interval_s=30.0, warmup_s=60.0, duration_s=60.0, log_files_to_replay=20)


def _shown(page, widget) -> bool:
    return widget.isVisibleTo(page)


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _stages_seen(window) -> list[str]:
    """Every stage title the run view shows, in order."""
    seen: list[str] = []
    show = window.run_view.show_suite

    def spy(record, stage):
        show(record, stage)
        if record is not None and stage is not None:
            seen.append(window.run_view.suite.title.text())

    window.run_view.show_suite = spy
    return seen


def _choose_esrp(qtbot, window, tmp_path, performance: str, stress: str) -> None:
    window.wizard.load_config(_config(tmp_path), session="esrp")
    window.wizard.restart_at(PAGE_TYPE)
    choose(qtbot, window.wizard.test_type.esrp)
    lengths = window.wizard.test_type.lengths
    lengths["performance"].combo.setCurrentText(performance)
    lengths["stress"].combo.setCurrentText(stress)


def _start(qtbot, window) -> None:
    window.wizard.restart_at(PAGE_REVIEW)
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)
    with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):
        qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)


def _stop_at(qtbot, window, seen: list[str], title: str) -> None:
    """Stop once the run view shows stage `title` (`seen` holds the stages shown since the start)."""
    qtbot.waitUntil(lambda: title in seen, timeout=ENGINE_TIMEOUT_MS)
    qtbot.mouseClick(window.run_view.stop, Qt.MouseButton.LeftButton)
    wait_for_results(qtbot, window)


def _cells(window, column: int) -> list[str]:
    table = window.results_view.suite_table.table
    return [table.item(row, column).text() for row in range(table.rowCount())]


def test_the_esrp_qualification_has_its_own_settings_runs_its_five_tests_and_shows_their_verdicts(qtbot, window, tmp_path):
    window.runs.simulate = "flash"
    window.wizard.load_config(_config(tmp_path), session="esrp")
    window.state.set_auto_tune(True)
    window.wizard.restart_at(PAGE_TYPE)
    page = window.wizard.test_type
    assert not _shown(page, page.suite_note) and not _shown(page, page.lengths["stress"])

    choose(qtbot, page.esrp)
    assert window.suite.chosen and window.state.data["test_type"] == "performance" and not window.state.auto_tune
    assert [page.lengths[k].combo.currentText() for k in ("performance", "stress")] == ["2h", "24h"]
    assert not _shown(page, page.fields["duration_s"])  # each timed test has its own length
    assert all(_shown(page, page.fields[p]) for p in ("warmup_s", "backup_path", "log_files_to_replay", "replay_limit_s"))
    assert _shown(page, page.suite_note) and "Five tests on the same databases" in page.suite_note.text()
    assert "resumes it" in page.suite_note.text() and not _shown(page, page.recovery_note)
    assert "A trial, not a qualification" not in page.suite_note.text()  # the published lengths, as it opens
    stress = page.lengths["stress"]
    stress.combo.setCurrentText("a day")
    assert stress.error.isVisibleTo(page) and not _next_enabled(window)
    stress.combo.setCurrentText("31d")
    assert stress.error.text() == "must be at most 30 days (got 31 days)" and not _next_enabled(window)
    page.fields["backup_path"].edit.setText("Backup")
    assert "give a full path" in page.fields["backup_path"].error.text()  # the suite's Database backup writes there
    page.fields["backup_path"].edit.setText("")
    stress.combo.setCurrentText("2h")
    page.lengths["performance"].combo.setCurrentText("1h")
    assert not stress.error.isVisibleTo(page) and _next_enabled(window)
    assert (window.suite.performance_s, window.suite.stress_s) == (3600, 7200) and "Stress (2h" in page.suite_note.text()
    assert "A trial, not a qualification" in page.suite_note.text()  # said where the lengths are chosen

    window.wizard.restart_at(PAGE_TUNING)  # every test at the setting typed
    tuning = window.wizard.tuning
    assert tuning.manual.isChecked() and not tuning.auto.isEnabled()
    assert "Auto-tune does not apply to the ESRP qualification" in tuning.scan_note.text()
    window.wizard.restart_at(PAGE_REVIEW)
    review = window.wizard.review
    text = review.text.toPlainText()
    assert "ESRP trial (not a qualification): 5 of 5 tests to run" in text and "A new suite in a folder of its own" in text
    assert "A trial, not a qualification: its Performance and Stress tests are shorter" in text
    assert "an ESRP submission publishes Performance 2h and Stress 24h" in text and not _shown(review, review.resume)

    seen = _stages_seen(window)
    _start(qtbot, window)
    wait_for_results(qtbot, window)
    assert seen == [f"Stage {n} of 5: {name}" for n, name in enumerate(
        ("Performance", "Stress", "Database checksum", "Database backup", "Soft recovery"), 1)]
    # the running banner named it a trial too, as the Review page and the results do
    assert window.run_view.suite.where.text().startswith("ESRP trial (not a qualification): Performance 1h, Stress 2h")
    results = window.results_view
    assert results.verdict.text().endswith("PASS</span> (simulated device) — ESRP trial (not a qualification)")
    assert results.headline.text().startswith("A trial, not a qualification: ")
    assert "5 of 5 tests passed — Performance 1h, Stress 2h" in results.headline.text()
    assert _cells(window, 1) == ["PASS"] * 5
    figures = _cells(window, 2)
    assert "transactional IOPS" in figures[0] and "transactional IOPS" in figures[1]
    assert "MB/s" in figures[2] and "MB/s" in figures[3] and "per log file replayed" in figures[4]
    suite_table = results.suite_table
    assert not suite_table.resume.isVisibleTo(results) and not results.table.isVisibleTo(results)
    folder = window.runs.last_output
    assert folder is not None and folder.parent.parent == tmp_path / "runs" and folder.name.endswith("-esrp")
    qtbot.mouseClick(suite_table.report, Qt.MouseButton.LeftButton)
    assert window.statusBar().currentMessage() == f"ESRP report: {folder / 'esrp-report.html'}"
    pdf = window.reports.export_suite_pdf(folder, tmp_path / "esrp.pdf")  # what Export PDF writes, without its dialog
    assert pdf is not None and pdf.read_bytes().startswith(b"%PDF") and pdf.read_bytes().rstrip().endswith(b"%%EOF")
    assert window.statusBar().currentMessage().startswith(f"PDF of the ESRP trial (not a qualification): {pdf} (")
    assert suite_table.pdf.isVisibleTo(results) and suite_table.print.isVisibleTo(results)

    assert not suite_table.stage.isEnabled()  # nothing selected
    suite_table.table.cellDoubleClicked.emit(1, 0)  # the Stress test's own results
    assert "PASS" in results.verdict.text() and results.back.isVisibleTo(results) and results.table.isVisibleTo(results)
    assert "Test 2 of 5 of the ESRP trial (not a qualification)" in results.headline.text()
    assert window.runs.last_output == folder / "2-stress"
    qtbot.mouseClick(results.back, Qt.MouseButton.LeftButton)
    assert suite_table.isVisibleTo(results) and not results.back.isVisibleTo(results)

    window.new_test()  # New test works afterwards: the wizard, the suite still chosen
    assert window.stack.currentWidget() is window.wizard and window.wizard.currentId() == PAGE_PROFILE
    window.wizard.restart_at(PAGE_TYPE)
    assert page.esrp.isChecked()
    choose(qtbot, page.performance)  # another test: its duration back, auto-tune back as it was
    assert not window.suite.chosen and window.state.auto_tune and _shown(page, page.fields["duration_s"])


def test_a_stopped_esrp_qualification_is_unfinished_and_resumes_from_its_results_or_the_review_page(
        qtbot, window, tmp_path):
    window.runs.simulate = "flash"
    _choose_esrp(qtbot, window, tmp_path, "30m", "3h")  # a Stress test long enough to stop during it
    seen = _stages_seen(window)
    _start(qtbot, window)
    _stop_at(qtbot, window, seen, "Stage 2 of 5: Stress")
    results, suite_table = window.results_view, window.results_view.suite_table
    folder = results.suite.folder
    assert "UNFINISHED" in results.verdict.text() and _cells(window, 1)[0] == "PASS"
    assert _cells(window, 1)[4] == "Not run" and "ABORTED" in _cells(window, 1)[1:4]
    assert suite_table.note.text().startswith("Unfinished: ") and f"in the same folder, {folder}" in suite_table.note.text()
    assert suite_table.resume.isVisibleTo(results)

    seen.clear()
    with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):  # Resume, from the results
        qtbot.mouseClick(suite_table.resume, Qt.MouseButton.LeftButton)
    _stop_at(qtbot, window, seen, "Stage 2 of 5: Stress")  # ... stopped again
    assert "UNFINISHED" in results.verdict.text() and results.suite.folder == folder

    window.new_test()  # the same configuration again: the Review page offers to resume it
    window.wizard.restart_at(PAGE_REVIEW)
    review = window.wizard.review
    assert review.resume.isVisibleTo(review) and review.resume.isChecked() and str(folder) in review.resume.text()
    text = review.text.toPlainText()
    assert f"Resumes the unfinished suite in {folder} from" in text
    assert text.count("passed: kept") == 1 and "Soft recovery" in text.split("runs ")[-1]
    assert window.wizard.button(QWizard.WizardButton.FinishButton).text() == "Resume"
    review.resume.setChecked(False)
    assert f"the unfinished one in {folder} is left as it is" in review.text.toPlainText()
    assert window.wizard.button(QWizard.WizardButton.FinishButton).text() == "Start"
    review.resume.setChecked(True)

    seen.clear()
    _start(qtbot, window)
    wait_for_results(qtbot, window)
    assert seen[0] in ("Stage 2 of 5: Stress", "Stage 3 of 5: Database checksum")  # where the stop left it
    assert "PASS" in results.verdict.text() and results.suite.folder == folder and _cells(window, 1) == ["PASS"] * 5
    assert _cells(window, 2)[0] != "—"  # the Performance test of the first start, read from its folder
    assert (folder / SUITE_FILE).is_file() and sorted(p.name for p in folder.iterdir() if p.is_dir())[0] == "1-performance"


def test_a_host_bound_stage_says_so_in_the_suites_table(store, tmp_path):
    from tests.ui.test_reports import record_run
    from ui.suite import key_figure

    result = record_run(store, "esrp", tmp_path / "runs" / "one")
    assert not key_figure(result).endswith("host-bound")
    held = result.model_copy(update={"summary": result.summary.model_copy(update={"host_bound": True})})
    assert key_figure(held) == f"{key_figure(result)}, host-bound"
