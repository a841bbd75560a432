"""Soft recovery in the window: chosen on the Test type page with its own settings and run by hand (never auto-tuned),
run for real on tiny databases with the load's plots and the log files' progress, each instance's replay in the
results; Stop during the replay, and New test after it."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWizard

from engine.model import config as model
from engine.model.sizing import LOG_DATA_BYTES
from engine.model.units import format_duration
from engine.protocol import PHASE_WORDS, Phase, ProgressEvent
from engine.results.recovery import judge_recovery, recovery_result
from engine.results.schema import Failure, Outcome
from engine.results.verdict import Verdict
from engine.workload.recovery import RecoveryTally
from tests.conftest import small_config
from tests.engine.test_report import known_result
from tests.ui.scan_runs import choose, start, wait_for_results
from ui.recovery import RecoveryProgress
from ui.views.results_view import ResultsView
from ui.widgets.criteria_table import NOT_REACHED
from ui.widgets.recovery_table import COLUMNS
from ui.wizard import PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE

FILES = 5
MiB = 1 << 20


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _row_shown(page, path: str) -> bool:
    return page.fields[path].isVisibleTo(page)


def _recovery(base, **overrides):
    return small_config(base, test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=FILES, **overrides)


def _column(table, name: str) -> list[str]:
    column = COLUMNS.index(name)
    return [table.item(row, column).text() for row in range(table.rowCount())]


def test_soft_recovery_has_its_own_settings_and_runs_at_the_thread_count_set_by_hand(qtbot, window, tmp_path):
    window.wizard.load_config(small_config(tmp_path / "data" / "dbs"), session="recovery")
    window.state.set_auto_tune(True)
    window.wizard.restart_at(PAGE_TYPE)
    page = window.wizard.test_type
    assert not _row_shown(page, "log_files_to_replay") and not page.recovery_note.isVisibleTo(page)

    choose(qtbot, page.recovery)
    assert window.state.data["test_type"] == "soft_recovery" and not window.state.auto_tune
    assert _row_shown(page, "log_files_to_replay") and _row_shown(page, "replay_limit_s")
    assert page.fields["log_files_to_replay"].edit.text() == "500" and page.fields["replay_limit_s"].edit.text() == "6"
    assert page.fields["replay_limit_s"].unit.text() == "s per log file"
    assert not any(_row_shown(page, p) for p in ("duration_s", "warmup_s", "checksum_read_kib", "backup_path"))
    assert _row_shown(page, "background_maintenance")  # the log generation runs the transactional load
    note = page.recovery_note
    assert note.isVisibleTo(page) and "generates 500 log files of 1 MiB" in note.text() and "500 MiB" in note.text()
    logs = page.fields["log_files_to_replay"]
    logs.edit.setText("1")
    assert "at least 2 files (got 1)" in logs.error.text() and not _next_enabled(window)
    logs.edit.setText("four")
    assert logs.error.text() == "enter a whole number" and not _next_enabled(window)
    logs.edit.setText(str(FILES))
    assert not logs.error.isVisibleTo(page) and f"generates {FILES} log files" in note.text() and f"{FILES} MiB" in note.text()
    limit = page.fields["replay_limit_s"]
    limit.edit.setText("0")
    assert "more than 0 s" in limit.error.text() and not _next_enabled(window)
    limit.edit.setText("2.5")
    assert _next_enabled(window) and window.state.config().replay_limit_s == 2.5

    window.wizard.restart_at(PAGE_TUNING)  # Manual, and the thread count is what runs
    tuning = window.wizard.tuning
    assert tuning.manual.isChecked() and not tuning.auto.isEnabled() and tuning.fields["thread_count"].isEnabled()
    assert "Auto-tune does not apply to a Soft recovery test" in tuning.scan_note.text()
    window.wizard.restart_at(PAGE_REVIEW)
    review = window.wizard.review.text.toPlainText()
    assert "Soft recovery test, Strict thresholds for its load" in review
    assert f"generates {FILES} log files of 1 MiB" in review and "auto-tune does not apply" in review
    assert f"{FILES} MiB per instance, free on its log path" in review and "at most 2.5 s on average" in review

    window.wizard.restart_at(PAGE_TYPE)
    choose(qtbot, page.performance)  # auto-tune was on before: it is back, with the duration
    assert window.state.auto_tune and _row_shown(page, "duration_s") and not _row_shown(page, "log_files_to_replay")
    window.wizard.restart_at(PAGE_TUNING)
    assert tuning.auto.isEnabled() and tuning.auto.isChecked() and not tuning.scan_note.isVisibleTo(tuning)


def test_the_replay_counts_whole_log_files_not_the_generations_last_counts(tmp_path):
    progress = RecoveryProgress(_recovery(tmp_path / "data"))
    progress.begin(False, 10.0)
    assert progress.add(5 * (MiB - 4096), 10 * (MiB - 4096), 12.0) and progress.files == 5 and progress.eta_s == 2.0
    progress.begin(True, 14.0)
    assert progress.generation_s == 4.0 and progress.files == 0
    assert not progress.add(10 * (MiB - 4096), 10 * (MiB - 4096), 14.1)  # a generation count that came late
    assert progress.add(3 * MiB, 10 * MiB, 15.0) and progress.files == 3
    assert progress.words()[1] == "3 of 10 log files replayed; all were generated in 4.0 s"


def test_a_soft_recovery_stopped_while_generating_says_how_far_it_got_and_fails_no_instance(qtbot, tmp_path):
    known = known_result(tmp_path)
    config = known.configuration.model_copy(update={"test_type": model.TestType.SOFT_RECOVERY, "log_files_to_replay": FILES})
    recovery = recovery_result(config, {i: RecoveryTally(log_files=FILES, log_files_generated=3, generation_seconds=2.0)
                                        for i in range(2)})
    stopped = Verdict(Outcome.ABORTED, list(known.criteria),
                      [Failure(words="Run aborted: stopped by the user after 2.0 s of measurement")])
    verdict = judge_recovery(recovery, stopped)
    summary = known.summary.model_copy(update={"verdict": verdict.outcome, "reasons": verdict.reasons,
                                               "failures": verdict.failures,
                                               "test_type": config.test_type})
    result = known.model_copy(update={"configuration": config, "recovery": recovery, "criteria": verdict.criteria,
                                      "summary": summary})
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(result, None)
    assert view.headline.text().startswith(f"Generated 6 of {2 * FILES} log files, so none was replayed — under 26 threads")
    assert "6 of 10 log files were generated and 0 replayed" in view.reasons.text()
    assert "Failing instances" not in view.reasons.text()  # the stop left the replay unreached: no storage failed it
    outcomes = {(view.table.item(r, 0).text(), view.table.item(r, 4).text()) for r in range(view.table.rowCount())}
    assert ("Log files replayed", NOT_REACHED) in outcomes and ("Log files replayed", "Fail") not in outcomes
    table = view.recovery.table
    assert _column(table, "Ended") == [f"Not replayed: the log generation stopped at 3 of {FILES} files"] * 2
    assert _column(table, "Seconds per\nlog file") == ["—"] * 2
    assert view.recovery.summary.text().startswith("<b>Average time to play one log file: none played (limit 6 s).</b>")


def test_a_soft_recovery_shows_the_load_then_the_replay_and_each_instances_recovery(qtbot, window, tmp_path):
    config = _recovery(tmp_path / "data" / "dbs")
    start(qtbot, window, config, "recovery")
    view = window.run_view
    assert view.title.text() == f"Soft recovery test: {FILES} log files per instance, 2 threads, SluggishSessions 1"
    assert view.recovery_status.isVisibleTo(view) and view.criteria_box.isVisibleTo(view)
    assert not view.scan_status.isVisibleTo(view)
    seen: list[tuple[str, str]] = []
    window.runs.engine.event_received.connect(lambda _event: seen.append((view.phase.text(), view.recovery_status.files.text())))
    wait_for_results(qtbot, window)
    result = window.runs.last_result
    assert result.verdict in ("pass", "fail") and result.recovery is not None, result.summary.reasons
    assert window.runs.last_output.name.endswith("-recovery-t2-s1")
    assert any(phase == "Generating log files" and "log files generated (5 per instance)" in files for phase, files in seen)
    assert any(phase == PHASE_WORDS[Phase.REPLAYING] and "log files replayed" in files for phase, files in seen)
    assert view.plots.iops.n >= 1 and view.plots.iops_plot.getPlotItem().titleLabel.text == "Transactional IOPS"
    assert view.recovery_status.figures.text().startswith("Done · ") and "limit 6 s" in view.recovery_status.figures.text()
    assert view.recovery_status.files.text() == f"{2 * FILES} of {2 * FILES} log files generated, {2 * FILES} replayed, 0 errors"

    results = window.results_view
    assert "Soft recovery" in results.verdict.text()
    assert results.headline.text().startswith(f"Replayed {2 * FILES} of {2 * FILES} log files in ")
    if result.summary.measured_s >= result.configuration.sample_interval_s:
        assert "generated under 2 threads, SluggishSessions 1 at " in results.headline.text()
    else:  # a fast disk writes the load's few log files within one sample interval: no rate to give
        assert "generated under 2 threads, SluggishSessions 1, Strict thresholds" in results.headline.text()
    assert results.table.isVisibleTo(results) and results.recovery.isVisibleTo(results)
    criteria = {results.table.item(r, 0).text() for r in range(results.table.rowCount())}
    assert {"Seconds to play one log file", "Log files replayed", "Replay errors", "Average database read latency"} <= criteria
    table = results.recovery.table
    assert table.rowCount() == 2 and _column(table, "Instance") == ["Instance 1", "Instance 2"]
    assert _column(table, "Log files\ngenerated") == [f"{FILES} of {FILES}"] * 2
    assert _column(table, "Log files\nreplayed") == [str(FILES)] * 2 and _column(table, "Ended") == ["Complete"] * 2
    rows = result.recovery.instances
    assert _column(table, "Pages\nredone") == [f"{r.pages_redone:,}" for r in rows] and rows[0].pages_redone > 0
    assert _column(table, "Seconds per\nlog file") == [f"{r.seconds_per_log_file:.3f}" for r in rows]
    summary = results.recovery.summary.text()
    assert f"Average time to play one log file: {result.recovery.seconds_per_log_file:.3f} s (limit 6 s)" in summary
    assert not results.advice_box.isVisibleTo(results) and not results.full_length.isVisibleTo(results)
    assert not results.scan.isVisibleTo(results)
    assert window.reports.open_report() is not None
    window.show_session()  # named in the session, and no point of its load curve
    session = window.session_view
    assert session.table.rowCount() == 1 and session.table.item(0, 0).text().endswith(" (Soft recovery)")
    assert all(len(item.data) == 0 for item in session.iops_plot.getPlotItem().items if isinstance(item, pg.ScatterPlotItem))


def test_stop_during_the_replay_shows_what_was_done_and_new_test_plans_the_next(qtbot, window, tmp_path):
    start(qtbot, window, _recovery(tmp_path / "data" / "dbs"), "recovery")
    view = window.run_view

    def stop_at_replay(event: object) -> None:
        # when the last log data is written: the replay of a few tiny log files is over before its phase is shown
        if isinstance(event, ProgressEvent) and event.done_bytes == event.total_bytes == 2 * FILES * LOG_DATA_BYTES:
            view.stop.click()

    window.runs.engine.event_received.connect(stop_at_replay)
    wait_for_results(qtbot, window)
    stopped = window.runs.last_result
    assert stopped.verdict == "aborted" and "while replaying the log files" in stopped.summary.reasons[0]
    assert all(r.log_files_generated == FILES and not r.complete for r in stopped.recovery.instances)
    results = window.results_view
    assert "ABORTED" in results.verdict.text() and "while replaying the log files" in results.reasons.text()
    assert f"{2 * FILES} of {2 * FILES} log files were generated" in results.reasons.text()
    assert view.recovery_status.figures.text().startswith("Stopped while replaying")
    table = results.recovery.table
    assert table.rowCount() == 2 and all(state.startswith("Stopped after ") for state in _column(table, "Ended"))
    assert _column(table, "Log files\ngenerated") == [f"{FILES} of {FILES}"] * 2
    outcomes = {(results.table.item(r, 0).text(), results.table.item(r, 4).text()) for r in range(results.table.rowCount())}
    assert ("Log files replayed", NOT_REACHED) in outcomes and not results.advice_box.isVisibleTo(results)

    qtbot.keySequence(window, QKeySequence.StandardKey.New)  # New test: the wizard, the soft recovery as it was
    assert window.stack.currentWidget() is window.wizard and window.wizard.currentId() == PAGE_PROFILE
    window.wizard.restart_at(PAGE_TYPE)
    page = window.wizard.test_type
    assert page.recovery.isChecked() and page.fields["log_files_to_replay"].edit.text() == str(FILES)
    choose(qtbot, page.performance)
    assert _row_shown(page, "duration_s") and not page.recovery_note.isVisibleTo(page) and _next_enabled(window)


def test_the_time_left_waits_until_the_pace_is_set(tmp_path):
    """Replay at first opens the databases: "0 % · about 30:20 left" was said for logs replayed in about ten
    seconds. The time left shows once a twentieth of the files or ten seconds have set the pace."""
    config = _recovery(tmp_path / "data").model_copy(update={"log_files_to_replay": 100})
    progress = RecoveryProgress(config)
    progress.begin(True, 0.0)
    total = 100 * config.database_count
    assert progress.add(1 * MiB, total * MiB, 1.0) and progress.eta_s is None
    assert " left" not in progress.words()[0]
    assert progress.add(total // 10 * MiB, total * MiB, 2.0) and progress.eta_s == pytest.approx(18.0)
    assert progress.words()[0] == f"10% · about {format_duration(18.0)} left"
