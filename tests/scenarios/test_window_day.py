"""A field engineer's day in the window, as sequences: after any run the results page appears,
New test and Next work, the advice and the report follow, whatever way the run ended."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from engine.model.config import default_config
from engine.run.sources.model import PROFILES, runner_for
from engine.store.sqlite import Store
from engine.tuning.tuner import Tuner, calibration_rule
from tests.conftest import small_config
from ui.wizard import PAGE_DATABASES, PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING, PAGE_TYPE

pytestmark = pytest.mark.slow

ENGINE_TIMEOUT_MS = 120_000


def _start(qtbot, window, config, session: str, *, auto: bool = False, calibration: str = "15s") -> None:
    window.wizard.load_config(config, session=session)
    (window.wizard.tuning.auto if auto else window.wizard.tuning.manual).setChecked(True)
    if auto:
        window.wizard.tuning.calibration.set_value(calibration)
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()
    window.wizard.review.session.setText(session)
    _click_start(qtbot, window)


def _click_start(qtbot, window) -> None:
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)


def _wait_for_results(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.results_view, timeout=ENGINE_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.runs.engine is None or not window.runs.engine.running, timeout=10_000)


def _auto_tune(qtbot, window, config, session: str, profile: str):
    """Auto-tune `config` on a simulated storage profile from the wizard to its end; the advice it ends on."""
    window.runs.simulate = profile
    _start(qtbot, window, config, session, auto=True, calibration="15s")
    _wait_for_results(qtbot, window)
    qtbot.waitUntil(lambda: window.runs.tuner is None, timeout=ENGINE_TIMEOUT_MS)
    return window.results_view.suggestion


def _reports_for_every_run(window, tmp_path: Path) -> int:
    """Export PDF from the results page works for the run shown; the report of every run renders."""
    pdf = window.reports.export_pdf(tmp_path / f"report-{window.runs.last_result.run_id}.pdf")
    assert pdf is not None and pdf.read_bytes().startswith(b"%PDF")
    from reporting.bundle import load_run
    from reporting.document import render_html

    store = Store()
    try:
        runs = [run for session in store.sessions() for run in store.runs(session.name)]
        for run in runs:
            html = render_html(load_run(run.run_id, store))
            assert f"{run.status.upper()}</span>" in html
    finally:
        store.close()
    return len(runs)


def test_new_test_after_a_run_walks_the_wizard_again_and_starts_a_second_run(qtbot, window, tmp_path):
    window.runs.simulate = "flash"
    config = small_config(tmp_path / "data" / "dbs")
    _start(qtbot, window, config, "day")
    _wait_for_results(qtbot, window)
    first = window.runs.last_result
    assert first is not None and first.verdict == "pass"
    assert "This setting passes" in window.results_view.advice.text()
    window.new_test()
    assert window.stack.currentWidget() is window.wizard and window.wizard.currentId() == PAGE_PROFILE
    for page in (PAGE_TUNING, PAGE_DATABASES, PAGE_TYPE, PAGE_REVIEW):
        next_button = window.wizard.button(QWizard.WizardButton.NextButton)
        qtbot.waitUntil(next_button.isEnabled, timeout=10_000)
        qtbot.mouseClick(next_button, Qt.MouseButton.LeftButton)
        assert window.wizard.currentId() == page
    window.wizard.back()
    assert window.wizard.currentId() == PAGE_TYPE
    window.wizard.next()
    _click_start(qtbot, window)
    _wait_for_results(qtbot, window)
    assert window.runs.last_result.run_id != first.run_id
    assert _reports_for_every_run(window, tmp_path) == 2


def test_a_run_stopped_at_once_is_aborted_not_out_of_reach(qtbot, window, tmp_path):
    config = small_config(tmp_path / "data" / "dbs", duration_s=120.0)
    _start(qtbot, window, config, "stopped")
    qtbot.waitUntil(lambda: window.run_view.plots.iops.n >= 1, timeout=ENGINE_TIMEOUT_MS)
    qtbot.mouseClick(window.run_view.stop, Qt.MouseButton.LeftButton)
    _wait_for_results(qtbot, window)
    assert window.runs.last_result.verdict == "aborted"
    text = window.results_view.advice.text()
    assert "out of reach" not in text and "None" not in text
    assert "ended early" in text  # the advisor says why it cannot learn from this run
    assert window.results_view.apply.isEnabled()  # and still offers a setting to run
    # the next run after a Stop works, and the report of both renders
    qtbot.mouseClick(window.results_view.apply, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.run_view.plots.iops.n >= 1, timeout=ENGINE_TIMEOUT_MS)
    window.runs.stop()
    _wait_for_results(qtbot, window)
    assert _reports_for_every_run(window, tmp_path) == 2


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_killed_engine_still_ends_on_the_results_page_with_its_samples(qtbot, window, tmp_path):
    config = small_config(tmp_path / "data" / "dbs", duration_s=120.0)
    _start(qtbot, window, config, "killed")
    qtbot.waitUntil(lambda: window.run_view.plots.iops.n >= 3, timeout=ENGINE_TIMEOUT_MS)
    os.kill(window.runs.engine.process.processId(), signal.SIGKILL)
    _wait_for_results(qtbot, window)
    result = window.runs.last_result
    assert result.verdict == "aborted" and result.summary.measured_s > 0
    assert "ABORTED" in window.results_view.verdict.text()
    assert _reports_for_every_run(window, tmp_path) == 1


def test_a_database_in_the_cache_fails_with_a_failing_row_and_auto_tune_ends_on_the_results(qtbot, window, tmp_path):
    # a warm-up long enough for the cache to take in every page even on a loaded machine (a few thousand
    # transactions): no read reaches the disk in the measured window; no inserts, whose splits would grow the
    # database by 8 MB steps past the cache within seconds on a disk that answers in 0.1 ms
    config = small_config(tmp_path / "data" / "dbs", database_cache_min_mb=64.0, database_cache_max_mb=64.0, warmup_s=3.0,
                          operation_mix={"insert_percent": 0.0, "replace_percent": 45.0})
    _start(qtbot, window, config, "cached")
    _wait_for_results(qtbot, window)
    result = window.runs.last_result
    assert result.verdict == "fail", (result.configuration.database_cache_max_mb, result.summary)
    results = window.results_view
    fails = [results.table.item(row, 4).text() for row in range(results.table.rowCount())].count("Fail")
    assert fails >= 1  # the FAIL has its failing row: no database reads in the measured window
    assert results.advice.text().startswith("<b>Not a test of the storage: the database cache serves its reads.</b>")
    assert "raise the mailboxes or the mailbox size" in results.advice.text() and not results.apply.isEnabled()
    # while it ran, the running verdict said why there was no read latency to show, not a bare dash
    assert window.run_view.criteria["read_avg"].text() == "Average database read latency: no database reads yet"
    assert _reports_for_every_run(window, tmp_path) >= 1
    # auto-tune has no setting to find for it: Review says so where Start is, and Start waits for a design that is one
    window.new_test()
    window.wizard.load_config(config, session="cached")
    window.wizard.tuning.auto.setChecked(True)
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()
    review = window.wizard.review
    qtbot.waitUntil(lambda: "auto-tune has no setting to find" in " ".join(review.text.toPlainText().split()),
                    timeout=10_000)
    assert not window.wizard.button(QWizard.WizardButton.FinishButton).isEnabled()
    window.wizard.tuning.manual.setChecked(True)  # run as it is, judged FAIL: Start is open to it
    qtbot.waitUntil(window.wizard.button(QWizard.WizardButton.FinishButton).isEnabled, timeout=10_000)


def test_auto_tune_in_the_window_gives_the_same_answer_as_the_cli_tuner(qtbot, window, tmp_path):
    """Out of reach on simulated SATA: the window's auto-tune and `Tuner.run` agree, run for run."""
    (tmp_path / "cli").mkdir()
    values = {"mailboxes": 2000, "iops_per_mailbox": 0.2, "mailbox_size_mb": 500}
    # 1 % of the size: the wizard checks the folders even for the simulated device, and the cache scales with it
    config = default_config(tmp_path / "data", databases=1, profile=values, seed=11, capacity_percent=1.0)

    def run_one(run_config, number, sweep):
        if sweep is not None:  # the first run: the load sweep, as the window's engine runs it
            return runner_for(PROFILES["sata-2x7k"], run_config, tmp_path / "cli" / str(number), lambda _e: None,
                              sweep=sweep).run()
        shaped, rule = calibration_rule(run_config, 15.0)
        return runner_for(PROFILES["sata-2x7k"], shaped, tmp_path / "cli" / str(number), lambda _e: None,
                          settle=rule).run()

    expected = Tuner(config, device="sata-2x7k", max_runs=8).run(run_one)
    assert expected.status == "unreachable" and len(expected.runs) == 2 and expected.runs[0]["sweep"]
    advice = _auto_tune(qtbot, window, config, "sata", "sata-2x7k")
    assert advice is not None and advice.status == "unreachable"
    assert advice.max_passing_iops == pytest.approx(expected.max_passing_iops)
    assert (advice.threads, advice.sluggish_sessions) == expected.recommendation
    text = window.results_view.advice.text()
    assert "out of reach" in text and "It carries about" in text and "None" not in text
    said = window.runs.tuning_log  # as the command line lists them: a sweep's steps, then each run
    assert [line.split(":")[0] for line in said if line.startswith("Run ")] == [f"Run {n + 1}" for n in range(len(expected.runs))]
    assert all(line.startswith(("Run ", "step ")) for line in said) and any(line.startswith("step ") for line in said)
    assert _reports_for_every_run(window, tmp_path) == len(expected.runs)


def test_auto_tune_on_a_busy_host_ends_on_what_the_storage_carried_never_below_it(qtbot, window, tmp_path):
    """The simulated device's busy host (its CPU drives about 2,000 transactional IOPS) and a target above that: the
    sweep's host-bound step kept the thresholds, so the storage carried at least that much. Auto-tune used to descend
    to a setting the host did not saturate and end on a FAIL far below it, advising fewer threads."""
    values = {"mailboxes": 2000, "iops_per_mailbox": 1.5, "mailbox_size_mb": 500}
    config = default_config(tmp_path / "data", databases=2, profile=values, seed=5, capacity_percent=1.0)
    advice = _auto_tune(qtbot, window, config, "busy host", "flash-busy-host")
    assert advice is not None and advice.status == "host_bound"
    store = Store()
    try:
        results = store.results("busy host")
    finally:
        store.close()
    sweep = next(r.sweep for r in results if r.sweep is not None)
    kept = [step for step in sweep.steps if step.latency_ok]
    assert kept and all(step.host_bound for step in kept)
    most = max(kept, key=lambda step: step.transactional_iops)
    assert advice.max_passing_iops >= most.transactional_iops  # what the sweep measured is kept
    assert advice.threads / advice.sluggish_sessions >= most.threads / most.sluggish_sessions  # never a lighter setting
    assert all(r.summary.threads / r.summary.sluggish_sessions >= most.threads / most.sluggish_sessions for r in results)
    text = window.results_view.advice.text()
    assert "CPU, not the storage, set the pace" in text and "at least" in text and "fewer threads" not in text
    assert "To measure the storage:" in text and "more cores" in text  # what to do next, not a dead end
    assert not window.results_view.apply.isEnabled()  # a heavier setting would only load the CPU more
    assert _reports_for_every_run(window, tmp_path) == len(results)


def test_a_configuration_edited_and_rerun_and_a_setting_repeated_in_the_window(qtbot, window, tmp_path):
    window.runs.simulate = "sas-8x10k"
    config = small_config(tmp_path / "data" / "dbs")
    _start(qtbot, window, config, "edits")
    _wait_for_results(qtbot, window)
    for mailboxes in (24, 32):  # the profile edited between runs: the same tuning session
        window.new_test()
        window.state.set("profile.mailboxes", mailboxes)
        while window.wizard.currentId() != PAGE_REVIEW:
            window.wizard.next()
        _click_start(qtbot, window)
        _wait_for_results(qtbot, window)
        assert window.runs.last_result.configuration.profile.mailboxes == mailboxes
    window.new_test()  # the same setting again: a confirmation run
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()
    _click_start(qtbot, window)
    _wait_for_results(qtbot, window)
    store = Store()
    try:
        runs = store.runs("edits")
    finally:
        store.close()
    assert len(runs) == 4 and [r.config.profile.mailboxes for r in runs] == [16, 24, 32, 32]
    window.show_session()
    assert window.session_view.table.rowCount() == 4
    assert _reports_for_every_run(window, tmp_path) == 4


def test_a_configuration_the_engine_refuses_returns_to_the_wizard_with_its_reasons(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text: shown.append(f"{title}: {text}"))
    config = small_config(tmp_path / "data" / "dbs", thread_count=1)  # one thread cannot serve two databases
    window.runs.start_run(config)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.wizard, timeout=ENGINE_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not window.runs.running, timeout=ENGINE_TIMEOUT_MS)
    assert shown == []  # no dialog of raw lines: the reason is in the status bar and at its field in the wizard
    assert "each database needs at least one thread" in window.statusBar().currentMessage()
    assert any("each database needs at least one thread" in p.message for p in window.state.refusal)
    store = Store()
    try:
        assert store.runs() == []  # nothing was recorded for a run that never started
    finally:
        store.close()
