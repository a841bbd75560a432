"""The tuning session view with or without a run in the window: the store's sessions to choose from, rows that
open their run's report with their reasons, and no page with a button that does nothing."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from engine.run.sinks import fan_out
from engine.run.sources.model import PROFILES, runner_for
from engine.store.recorder import RunRecorder
from tests.conftest import small_config
from tests.pdf_text import pdf_text
from tests.ui.test_reports import record_run
from ui.views.session_view import VERDICT


def _record_stopped_run(store, session: str, folder):
    """A run the engineer stopped at once: aborted, with its reason."""
    config = small_config(folder.parent / "data", thread_count=2)
    runner = runner_for(PROFILES["flash"], config, folder, fan_out(RunRecorder(store, session, folder), lambda _e: None),
                        session=session)
    runner.request_stop("stopped by the user")
    return runner.run()


def test_with_no_run_in_the_window_the_session_view_offers_the_stores_sessions_latest_first(qtbot, window, tmp_path):
    record_run(window.store, "older", tmp_path / "runs" / "a")
    record_run(window.store, "newer", tmp_path / "runs" / "b")
    stopped = _record_stopped_run(window.store, "newer", tmp_path / "runs" / "c")
    assert stopped.verdict == "aborted"
    view = window.session_view
    assert window.stack.currentWidget() is window.wizard and window.runs.last_result is None

    window.show_session()  # View → Tuning session, with no run in the window
    assert window.stack.currentWidget() is view
    assert [view.chooser.itemText(i) for i in range(view.chooser.count())] == ["newer", "older"]
    assert view.title.text() == "Tuning session 'newer': 2 run(s)" and view.table.rowCount() == 2
    reasons = view.table.item(1, view.table.columnCount() - 1).text()
    assert reasons == "; ".join(stopped.summary.reasons) and "stopped by the user" in reasons  # why it was aborted

    view.chooser.activated.emit(1)  # the engineer picks the older session
    assert view.title.text() == "Tuning session 'older': 1 run(s)" and view.table.rowCount() == 1

    assert not view.open_report.isEnabled()  # nothing selected: nothing to open
    view.table.selectRow(0)
    assert view.open_report.isEnabled()
    qtbot.mouseClick(view.open_report, Qt.MouseButton.LeftButton)
    report = tmp_path / "runs" / "a" / "report.html"
    assert window.statusBar().currentMessage() == f"Report: {report}"
    assert "Tuning session “older”: 1 run(s)" in report.read_text(encoding="utf-8")
    view.table.cellDoubleClicked.emit(0, 0)  # a double-click on a row opens it too
    assert window.statusBar().currentMessage() == f"Report: {report}"

    qtbot.mouseClick(_button(view, "Back"), Qt.MouseButton.LeftButton)
    assert window.stack.currentWidget() is window.wizard  # where it was opened from, not an empty results page


def test_with_no_session_in_the_store_the_view_says_so_and_the_empty_results_page_offers_nothing(qtbot, window):
    window.show_session()
    view = window.session_view
    assert view.title.text() == "No tuning session yet: a session is made by the first run of a test"
    assert not view.chooser.isEnabled() and view.table.rowCount() == 0 and not view.open_report.isEnabled()
    qtbot.mouseClick(_button(view, "Back"), Qt.MouseButton.LeftButton)
    assert window.stack.currentWidget() is window.wizard

    results = window.results_view  # before any run: only New test and the session view do anything
    enabled = {b.text() for b in results.findChildren(type(results.apply)) if b.isEnabled() and b.isVisibleTo(results)}
    assert enabled == {"Session view", "New test"}


def _button(view, text: str):
    return next(b for b in view.findChildren(type(view.open_report)) if b.text() == text)


def test_any_run_of_a_session_is_exported_as_a_pdf_or_printed_from_the_view(qtbot, window, tmp_path, monkeypatch):
    """Where no browser is set up (Windows Server Core), a past run's printable report comes from the window too."""
    from PySide6.QtPrintSupport import QPrintDialog, QPrinter
    from PySide6.QtWidgets import QFileDialog

    record_run(window.store, "walk", tmp_path / "runs" / "a")
    _record_stopped_run(window.store, "walk", tmp_path / "runs" / "b")
    window.show_session()
    view = window.session_view
    assert not view.export_pdf.isEnabled() and not view.print_report.isEnabled()  # nothing selected yet

    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: (str(tmp_path / "stopped.pdf"), "PDF, Letter (*.pdf)"))
    view.table.selectRow(1)
    qtbot.mouseClick(view.export_pdf, Qt.MouseButton.LeftButton)
    assert window.statusBar().currentMessage().startswith(f"PDF report: {tmp_path / 'stopped.pdf'} (")
    text = pdf_text(tmp_path / "stopped.pdf")
    assert "ABORTED" in text and "stopped by the user" in text

    printed = tmp_path / "printed.pdf"

    class AcceptingDialog:  # the system's print dialog, the engineer choosing a printer that writes a file
        DialogCode = QPrintDialog.DialogCode

        def __init__(self, printer: QPrinter, _parent) -> None:
            self.printer = printer

        def exec(self):
            self.printer.setOutputFileName(str(printed))
            return QPrintDialog.DialogCode.Accepted

    monkeypatch.setattr("PySide6.QtPrintSupport.QPrintDialog", AcceptingDialog)
    view.table.selectRow(0)
    qtbot.mouseClick(view.print_report, Qt.MouseButton.LeftButton)
    assert re.fullmatch(r"Printed \d+ pages", window.statusBar().currentMessage())
    assert printed.read_bytes().startswith(b"%PDF-")


def test_a_criterion_every_instance_failed_is_one_reason_in_its_row(qtbot, window, tmp_path):
    from engine.model.config import default_config

    config = default_config(tmp_path / "data", databases=6, thread_count=48, duration_s=120.0, warmup_s=10.0,
                            profile={"mailboxes": 2000})
    folder = tmp_path / "runs" / "six"
    result = runner_for(PROFILES["sata-2x7k"], config, folder,
                        fan_out(RunRecorder(window.store, "six", folder), lambda _e: None), session="six").run()
    assert len(result.summary.reasons) >= 12  # each instance's average and maximum read latency
    window.show_session()
    view = window.session_view
    reasons = view.table.item(0, view.table.columnCount() - 1).text()
    assert reasons.startswith("6 of 6 instances: average database read latency ") and "Instance 1:" not in reasons
    assert view.table.item(0, view.table.columnCount() - 1).toolTip() == reasons.replace("; ", "\n")


def test_a_session_whose_target_changed_says_so_on_review_and_draws_each_run_against_its_own_target(
        qtbot, window, tmp_path):
    """Runs at target 60, then the profile edited to 100 IOPS per mailbox: the session used to keep its name with no
    word, draw only the new target's line and hide one run's dot under another's."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QWizard

    from ui.wizard import PAGE_REVIEW

    first = record_run(window.store, "design", tmp_path / "runs" / "a")
    target = first.configuration.target_transactional_iops
    edited = first.configuration.model_copy(update={"profile": first.configuration.profile.model_copy(
        update={"iops_per_mailbox": first.configuration.profile.iops_per_mailbox * 50})})
    assert edited.target_transactional_iops > 40 * target
    window.wizard.load_config(edited, session="design")
    window.wizard.restart_at(PAGE_REVIEW)
    text = window.wizard.review.text.toPlainText()
    assert f"this session's earlier runs were for a target of {target:,.0f} transactional IOPS" in text
    assert f"name a new tuning session (for example 'design, target {edited.target_transactional_iops:,.0f}')" in text
    qtbot.waitUntil(window.wizard.button(QWizard.WizardButton.FinishButton).isEnabled, timeout=10_000)  # a warning
    window.wizard.review.session.setText("design, target 2")
    assert "earlier runs were for a target" not in window.wizard.review.text.toPlainText()  # a new session: no word

    record_run(window.store, "design", tmp_path / "runs" / "b", profile=edited.profile.model_dump())
    window.show_session()
    window.session_view.chooser.activated.emit(0)
    lines = [item for item in window.session_view.iops_plot.getPlotItem().items if isinstance(item, pg.InfiniteLine)]
    labels = sorted(line.label.format for line in lines)
    assert labels == sorted([f"target {target:,.0f} (circles)", f"target {edited.target_transactional_iops:,.0f} (triangles)"])


def test_the_session_view_names_each_runs_start_test_length_and_folder_and_plots_log_writes(qtbot, window, tmp_path):
    first = record_run(window.store, "columns", tmp_path / "runs" / "a")
    record_run(window.store, "columns", tmp_path / "runs" / "b")
    window.show_session()
    view = window.session_view
    view.chooser.activated.emit(0)
    for _ in range(2):  # shown again: the same, no legend entry twice
        view.chooser.activated.emit(0)
    headers = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    assert headers[:4] == ["Run", "Started", "Test", "Measured"]
    row = [view.table.item(0, c).text() for c in range(4)]
    assert row[0] == first.run_id and row[1][:4].isdigit() and row[2] == "Performance"
    assert row[3].endswith(" s") or "min" in row[3]
    assert view.table.item(0, 0).toolTip() == f"Run folder: {tmp_path / 'runs' / 'a'}"
    legend = view.latency_plot.getPlotItem().legend
    names = [label.text for _sample, label in legend.items]
    assert names.count("log writes") == 1 and names.count("database reads (verdict's colour)") == 1


def test_rename_delete_and_compare_from_the_session_view(qtbot, window, tmp_path, monkeypatch):
    """A session renamed keeps its runs; a run deleted takes the files Jetwise wrote in its folder and leaves the
    engineer's; two runs compared side by side; a session deleted with its runs."""
    from PySide6.QtWidgets import QInputDialog, QTableWidgetSelectionRange

    from ui import confirm
    from ui.widgets.compare import CompareDialog

    first = record_run(window.store, "to manage", tmp_path / "runs" / "a")
    second = record_run(window.store, "to manage", tmp_path / "runs" / "b", threads=4)
    record_run(window.store, "other", tmp_path / "runs" / "c")
    mine = tmp_path / "runs" / "b" / "my notes.txt"
    mine.write_text("the engineer's")
    window.state.session = "to manage"
    window.show_session()
    view = window.session_view
    assert view.chooser.currentText() == "to manage" and view.table.rowCount() == 2

    monkeypatch.setattr(QInputDialog, "getText", lambda *_a: ("other", True))
    monkeypatch.setattr("ui.shell.QMessageBox.warning", lambda _parent, title, text: said.append(f"{title}: {text}"))
    said: list[str] = []
    qtbot.mouseClick(view.rename, Qt.MouseButton.LeftButton)
    assert said == ["Session not renamed: there is a tuning session 'other' already: choose another name"]
    monkeypatch.setattr(QInputDialog, "getText", lambda *_a: ("  SAN tier 2  ", True))
    qtbot.mouseClick(view.rename, Qt.MouseButton.LeftButton)
    assert view.chooser.currentText() == "SAN tier 2" and view.table.rowCount() == 2
    assert window.state.session == "SAN tier 2" and {r.run_id for r in window.store.runs("SAN tier 2")} == {
        first.run_id, second.run_id}

    view.table.selectRow(0)
    view.table.setRangeSelected(QTableWidgetSelectionRange(1, 0, 1, 0), True)  # and a second row, as Ctrl+click
    assert view.selected_runs() == [first.run_id, second.run_id] and view.compare.isEnabled()
    assert not view.delete_run.isEnabled()  # one run at a time
    qtbot.mouseClick(view.compare, Qt.MouseButton.LeftButton)
    dialog = next(w for w in window.findChildren(CompareDialog))
    rows = {dialog.table.item(r, 0).text(): (dialog.table.item(r, 1).text(), dialog.table.item(r, 2).text())
            for r in range(dialog.table.rowCount())}
    assert rows["Threads"] == (str(first.summary.threads), "4") and rows["Verdict"][0] in ("PASS", "FAIL")
    dialog.close()

    asked: list[str] = []
    monkeypatch.setattr(confirm, "ask", lambda _parent, title, text, **_b: asked.append(text) or True)
    view.table.selectRow(1)
    qtbot.mouseClick(view.delete_run, Qt.MouseButton.LeftButton)
    assert f"Delete run {second.run_id}" in asked[-1]
    assert window.store.run(second.run_id) is None and view.table.rowCount() == 1
    assert sorted(p.name for p in (tmp_path / "runs" / "b").iterdir()) == ["my notes.txt"]  # the engineer's, kept
    assert "left with 1 file(s) Jetwise did not write" in window.statusBar().currentMessage()

    qtbot.mouseClick(view.delete_session, Qt.MouseButton.LeftButton)
    assert "Delete tuning session 'SAN tier 2' and its 1 run(s)" in asked[-1]
    assert window.store.runs("SAN tier 2") == [] and not (tmp_path / "runs" / "a").exists()
    assert view.chooser.currentText() == "other" and view.table.rowCount() == 1  # what is left


def test_a_simulated_run_beside_a_run_on_the_disk_is_marked_in_the_view_and_the_report(qtbot, window, tmp_path):
    from reporting.bundle import load_run
    from reporting.document import render_html

    flash = record_run(window.store, "mixed", tmp_path / "runs" / "flash")
    window.show_session()
    view = window.session_view
    view.chooser.activated.emit(0)
    assert view.table.item(0, VERDICT).text() == "pass"  # one device alone: nothing to tell apart
    config = small_config(tmp_path / "runs" / "data", thread_count=2)
    folder = tmp_path / "runs" / "disk"
    disk = runner_for(None, config, folder, fan_out(RunRecorder(window.store, "mixed", folder), lambda _e: None),
                      session="mixed").run()
    assert (flash.device, disk.device) == ("flash", "")
    window.show_session()
    view.chooser.activated.emit(0)
    marks = [view.table.item(row, VERDICT).text() for row in (0, 1)]
    assert marks[0] == "pass (simulated: flash)" and marks[1].startswith(disk.verdict.value) and "simulated" not in marks[1]
    # the disk's advice read its own run alone, and said which it set aside
    html = render_html(load_run(disk.run_id, window.store))
    assert "PASS (simulated: flash)" in html and f"run {flash.run_id} ran on the simulated device" in html


def test_the_session_curve_joins_the_judged_runs_and_leaves_a_stopped_run_s_partial_point_on_its_own(qtbot, window,
                                                                                                      tmp_path):
    import pyqtgraph as pg

    from engine.protocol import IntervalEvent

    record_run(window.store, "curve", tmp_path / "runs" / "a")
    record_run(window.store, "curve", tmp_path / "runs" / "b")
    folder = tmp_path / "runs" / "c"  # stopped part-way, once it measured a little: a partial point
    config = small_config(folder.parent / "data", thread_count=6, duration_s=600.0, warmup_s=1.0)
    record = RunRecorder(window.store, "curve", folder)

    def emit(event: object) -> None:
        record(event)  # type: ignore[arg-type]
        if isinstance(event, IntervalEvent) and event.sample.phase == "measure" and event.sample.interval >= 4:
            runner.request_stop("stopped by the user")

    runner = runner_for(PROFILES["flash"], config, folder, emit, session="curve")
    assert runner.run().verdict == "aborted"
    window.session_view.show_sessions(["curve"], "curve")
    window.show_session()
    view = window.session_view
    assert view.table.rowCount() == 3
    lines = [item for item in view.iops_plot.getPlotItem().items if isinstance(item, pg.PlotDataItem)]
    points = [item for item in view.iops_plot.getPlotItem().items if isinstance(item, pg.ScatterPlotItem)]
    assert [len(line.getData()[0]) for line in lines] == [2]  # the two judged runs, joined
    assert sum(len(item.data) for item in points) == 3  # every run a point, the stopped one too


def test_a_session_switched_to_the_other_exchange_generation_says_so_on_review_before_start(qtbot, window, tmp_path):
    from engine.model.config import ExchangeVersion
    from ui.wizard import PAGE_REVIEW

    first = record_run(window.store, "generations", tmp_path / "runs" / "a")
    assert first.configuration.profile.exchange.value == "2013"
    switched = first.configuration.model_copy(update={"profile": first.configuration.profile.model_copy(
        update={"exchange": ExchangeVersion.EXCHANGE_2010})})
    window.wizard.load_config(switched, session="generations")
    window.wizard.restart_at(PAGE_REVIEW)
    text = window.wizard.review.text.toPlainText()
    assert "this session's earlier runs drove Exchange 2013" in text and "this test drives Exchange 2010" in text
    assert "name a new tuning session (for example 'generations, Exchange 2010')" in text
    window.wizard.load_config(first.configuration, session="generations")  # the same generation again: no word
    window.wizard.restart_at(PAGE_REVIEW)
    assert "earlier runs drove" not in window.wizard.review.text.toPlainText()


def test_a_saved_configuration_opened_again_goes_on_in_the_session_it_was_saved_from(qtbot, window, tmp_path,
                                                                                      monkeypatch):
    """Two sessions of one storage design: opened, the file used to go on in the latest, whichever it came from."""
    from PySide6.QtWidgets import QFileDialog

    older = record_run(window.store, "older", tmp_path / "runs" / "a")
    record_run(window.store, "newer", tmp_path / "runs" / "b")
    assert window.store.session_of_design(older.configuration) == "newer"
    window.wizard.load_config(older.configuration, session="older")
    saved = tmp_path / "older.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(saved), ""))
    window.files.save_json()
    window.wizard.load_config(older.configuration, session="newer")  # the window goes on in another session
    assert window.load_config_file(saved) and window.state.session == "older"
    other = tmp_path / "elsewhere.json"  # a file saved from no session of this window: the latest of its design
    other.write_text(saved.read_text(encoding="utf-8"), encoding="utf-8")
    assert window.load_config_file(other) and window.state.session == "newer"
