"""Real runs through the window: the engine in its own process, a verdict, the advisor's next run, Stop, the full-length run."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWizard

from engine.results.document import read_samples
from engine.store.sqlite import Store
from tests.conftest import small_config
from ui.views.session_view import COLUMNS
from ui.wizard import PAGE_REVIEW

ENGINE_TIMEOUT_MS = 120_000


def _start(qtbot, window, config, session: str) -> None:
    window.wizard.load_config(config, session=session)
    window.wizard.tuning.manual.setChecked(True)
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()
    window.wizard.review.session.setText(session)
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=5000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)


def _wait_for_results(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.results_view, timeout=ENGINE_TIMEOUT_MS)


def test_a_run_reaches_a_verdict_and_the_advice_applied_runs_again_in_the_same_session(qtbot, window, tmp_path):
    # 2 threads at SluggishSessions 20 cannot reach 3,000 IOPS: the advisor asks for more. On the simulated
    # device (seeded) the figures, and so the advice, are the same every time.
    window.runs.simulate = "sas-8x10k"
    config = small_config(
        tmp_path / "data" / "dbs", thread_count=2, sluggish_sessions=20, capacity_percent=0.3,
        profile={"mailboxes": 3000, "iops_per_mailbox": 1.0, "headroom_percent": 0, "mailbox_size_mb": 1},
    )
    with qtbot.waitSignal(window.runs.started, timeout=ENGINE_TIMEOUT_MS):  # the run view shows once the run begins
        _start(qtbot, window, config, "gui session")
    assert window.stack.currentWidget() is window.run_view
    _wait_for_results(qtbot, window)
    first = window.runs.last_result
    assert first is not None and first.verdict == "fail"
    assert "FAIL" in window.results_view.verdict.text()
    assert any("below the target" in r for r in first.summary.reasons)
    assert window.run_view.plots.iops.n >= 4  # the live plot received every interval
    advice = window.results_view.suggestion
    assert advice is not None and advice.status == "next" and window.results_view.apply.isEnabled()
    assert advice.threads / advice.sluggish_sessions > 2 / 20
    assert "Next:" in window.results_view.advice.text()

    qtbot.mouseClick(window.results_view.apply, Qt.MouseButton.LeftButton)
    _wait_for_results(qtbot, window)
    second = window.runs.last_result
    assert (second.summary.threads, second.summary.sluggish_sessions) == (advice.threads, advice.sluggish_sessions)
    store = Store()
    try:
        runs = store.runs("gui session")
    finally:
        store.close()
    assert [r.run_id for r in runs] == [first.run_id, second.run_id]

    window.show_session()
    assert window.session_view.table.rowCount() == 2
    assert window.session_view.table.item(1, COLUMNS.index("Threads")).text() == str(advice.threads)

    # New test after the advice applied: the wizard starts from the setting applied, and the Thread tuning page speaks
    # of the session's runs, not of a first run
    window.new_test()
    assert window.wizard.tuning.fields["thread_count"].text() == str(advice.threads)
    assert window.wizard.tuning.fields["sluggish_sessions"].text() == str(advice.sluggish_sessions)
    assert "first run" not in window.state.first_advice().rationale, window.state.first_advice().rationale
    window.wizard.tuning.auto.setChecked(True)
    assert "first run" not in window.wizard.tuning.suggestion.text(), window.wizard.tuning.suggestion.text()
    window.wizard.tuning.manual.setChecked(True)
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=5000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    _wait_for_results(qtbot, window)
    third = window.runs.last_result
    assert (third.summary.threads, third.summary.sluggish_sessions) == (advice.threads, advice.sluggish_sessions)


def test_stop_asks_first_and_ends_the_run_keeping_what_it_measured(qtbot, window, tmp_path, monkeypatch):
    from ui import confirm

    config = small_config(tmp_path / "data" / "dbs", duration_s=120.0, sample_interval_s=0.5)
    _start(qtbot, window, config, "stopped")
    qtbot.waitUntil(lambda: window.run_view.plots.iops.n >= 3, timeout=ENGINE_TIMEOUT_MS)
    asked: list[dict[str, str]] = []
    monkeypatch.setattr(confirm, "ask", lambda _parent, title, text, **buttons: asked.append(buttons) and False)
    qtbot.mouseClick(window.run_view.stop, Qt.MouseButton.LeftButton)  # ... and the engineer keeps it running
    assert asked == [{"yes": "Stop the test", "no": "Keep running"}] and window.runs.running
    shown = window.run_view.plots.iops.n
    qtbot.waitUntil(lambda: window.run_view.plots.iops.n > shown, timeout=ENGINE_TIMEOUT_MS)  # it measures on
    monkeypatch.setattr(confirm, "ask", lambda _parent, title, text, **buttons: asked.append(buttons) or True)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    qtbot.keyClick(window.run_view, Qt.Key.Key_Escape)  # Stop's shortcut (an animated click), asked again: Stop
    qtbot.waitUntil(lambda: len(asked) == 2, timeout=5000)
    _wait_for_results(qtbot, window)
    result = window.runs.last_result
    assert result.verdict == "aborted"
    assert "stopped by the user" in result.summary.reasons[0]
    assert "ABORTED" in window.results_view.verdict.text()
    folder = Path(window.runs.last_output)
    assert json.loads((folder / "result.json").read_text())["summary"]["verdict"] == "aborted"
    assert len(read_samples(folder)) >= 3
    store = Store()
    try:
        [run] = store.runs("stopped")
        assert run.status == "aborted" and Path(run.output_dir) == folder  # where its samples are
    finally:
        store.close()
    assert not window.runs.engine.running
    # the partial run still gets its report, marked aborted
    report = window.reports.open_report()
    assert report is not None and "ABORTED</span>: this run did not complete" in report.read_text()
    pdf = window.reports.export_pdf(tmp_path / "stopped.pdf")
    assert pdf is not None and pdf.stat().st_size > 10_000


def test_auto_tune_runs_calibration_runs_until_a_setting_passes(qtbot, window, tmp_path):
    # Auto-tune begins with a load sweep, which on a disk measures for minutes: the simulated device answers at once
    window.runs.simulate = "flash"
    config = small_config(tmp_path / "data" / "dbs", sample_interval_s=0.5)  # a tiny target: the first run passes
    window.wizard.load_config(config, session="auto")
    window.wizard.tuning.auto.setChecked(True)
    window.wizard.tuning.calibration.set_value("15s")
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()
    assert "confirmation runs of at most 15s each" in " ".join(window.wizard.review.text.toPlainText().split())
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=5000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    assert window.run_view.title.text().startswith("Auto-tune run 1: load sweep from ")
    _wait_for_results(qtbot, window)
    result = window.runs.last_result
    assert result.verdict == "pass" and result.summary.run_kind == "tuning"
    assert result.summary.measured_s < 15  # judged on the settled samples, not the whole allowance
    log = (Path(window.runs.last_output) / "test.log").read_text()
    assert "Latency settled after" in log
    assert window.results_view.suggestion.status == "converged"
    assert "Run 1: " in window.run_view.iterations.text() and "PASS" in window.run_view.iterations.text()
    sweep = window.runs.store.results("auto")[0].sweep
    assert sweep is not None and len(window.run_view.sweep_plots.points) == len(sweep.steps)  # the sweep's curve stays
    assert "in an earlier run of this auto-tune" in window.run_view.sweep_plots.caption.text()  # while run 2 confirms it
    assert "This setting passes" in window.results_view.advice.text()


def test_an_unexpected_error_shows_a_dialog_and_is_logged(qtbot, window, monkeypatch):
    import sys

    from PySide6.QtWidgets import QMessageBox

    from app.crash import crash_log_path
    from app.window import install_exception_hook

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box.text()) or 0)
    import threading

    previous, previous_thread = sys.excepthook, threading.excepthook
    install_exception_hook()
    try:
        try:
            raise RuntimeError("a slot went wrong")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())

        def fail() -> None:
            raise ValueError("a helper thread went wrong")

        helper = threading.Thread(target=fail)
        helper.start()
        helper.join()
    finally:
        sys.excepthook, threading.excepthook = previous, previous_thread
    assert shown and "a slot went wrong" in shown[0]
    assert "RuntimeError: a slot went wrong" in crash_log_path(window=True).read_text()
    assert "ValueError: a helper thread went wrong" in crash_log_path(window=True).read_text()
    assert window.isVisible()  # the window carries on


def test_after_a_stopped_run_the_full_length_test_runs_at_the_session_s_passing_setting(qtbot, window, tmp_path):
    # a tuning session as the field has it: a setting passes, a later try at another is stopped; the page still
    # leads to the full-length run at the setting that passed, and that run, stopped too, leads there again
    config = small_config(tmp_path / "data" / "dbs", thread_count=2, sluggish_sessions=1, sample_interval_s=0.5)
    _start(qtbot, window, config, "qualify")
    _wait_for_results(qtbot, window)
    assert window.runs.last_result.verdict == "pass" and window.runs.last_result.summary.run_kind == "tuning"
    results = window.results_view

    def stop_once_measuring() -> None:
        qtbot.waitUntil(lambda: window.stack.currentWidget() is window.run_view and window.run_view.plots.iops.n >= 2,
                        timeout=ENGINE_TIMEOUT_MS)
        qtbot.mouseClick(window.run_view.stop, Qt.MouseButton.LeftButton)
        _wait_for_results(qtbot, window)

    window.new_test()
    _start(qtbot, window, config.model_copy(update={"thread_count": 3, "duration_s": 120.0}), "qualify")
    stop_once_measuring()
    assert window.runs.last_result.verdict == "aborted"
    assert results.full_length.isVisible()
    assert results.full_length.text() == "Run the full-length test with the passing setting (2 threads, SluggishSessions 1)"

    qtbot.mouseClick(results.full_length, Qt.MouseButton.LeftButton)  # through Review: what it says, Start runs
    assert window.stack.currentWidget() is window.wizard and window.wizard.currentId() == PAGE_REVIEW
    review = window.wizard.review.text.toPlainText()
    assert "2 threads" in review and "SluggishSessions 1" in review and "2h measured" in review, review
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=5000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    stop_once_measuring()
    qualification = window.runs.last_result
    assert qualification.summary.run_kind == "qualification" and qualification.verdict == "aborted"
    assert (qualification.summary.threads, qualification.summary.sluggish_sessions) == (2, 1)
    assert qualification.configuration.duration_s == config.standard_duration_s
    assert results.full_length.isVisible() and "(2 threads, SluggishSessions 1)" in results.full_length.text()
    assert [r.summary.verdict for r in window.runs.store.results("qualify")] == ["pass", "aborted", "aborted"]
