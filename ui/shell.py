"""The Jetwise window: menus, and the wizard, the running test, the verdict and the tuning session as one stack.

The window is given the run store (`app.window` opens it once) and wires its parts: the
wizard over the draft, the run controller that drives the engine process and auto-tune,
and the report actions. It keeps no run state of its own.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy
import pydantic
import pyqtgraph
import PySide6
from PySide6.QtCore import QByteArray, QSettings, QSize, Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMessageBox, QStackedWidget, QWidget

from engine.io.capacity import sized_for_capacity
from engine.model.draft import Draft
from engine.results.schema import RunResult
from engine.store.sqlite import Store, StoreError
from engine.tuning.advisor import Advice
from engine.version import __version__
from reporting.bundle import measured_runs
from ui import confirm
from ui.controllers.cleanup import delete_test_files
from ui.controllers.config_files import SUFFIXES, ConfigFiles
from ui.controllers.reports import ReportActions
from ui.controllers.runs import RunController
from ui.controllers.sessions import SessionActions
from ui.controllers.wizard_services import StoreServices
from ui.help import show_places
from ui.servers import ServersDialog
from ui.suite import SuiteSummary
from ui.views.results_view import ResultsView
from ui.views.run_view import RunView
from ui.views.session_view import SessionView
from ui.wizard import PAGE_PROFILE, PAGE_REVIEW, TestWizard
from ui.wizard.suite_plan import SuitePlan


def default_runs_root() -> Path:
    return Path(os.environ.get("JETWISE_RUNS_DIR") or Path.home() / "Jetwise runs")


class MainWindow(QMainWindow):
    def __init__(self, store: Store, runs_root: Path | None = None, data_base: Path | None = None,
                 simulate: str | None = None) -> None:
        super().__init__()
        self.settings = QSettings()
        self.store = store
        last_data = str(self.settings.value("last_data_folder", str(Path.home() / "Jetwise data")))
        self.state: Draft[Advice] = Draft(data_base or Path(last_data), lambda config: self.runs.first_setting(config),
                                          sized_for_capacity)
        self.run_view = RunView()
        self.runs = RunController(store, self.state, self.run_view, runs_root or default_runs_root(), simulate, self)
        self.reports = ReportActions(self.runs, store, self)
        self.wizard_services = StoreServices(store, self.runs.runs_root)
        self.sessions = SessionActions(store, self.runs, self)
        self.suite = SuitePlan(self)
        self.wizard = TestWizard(self.state, self.suite, self.wizard_services)
        self.wizard.setWindowFlags(Qt.WindowType.Widget)
        self.files = ConfigFiles(self, self.state, self.wizard, store, self.settings)
        self.results_view = ResultsView()
        self.session_view = SessionView()
        self._before_session: QWidget = self.wizard  # the page the session view's Back returns to
        self.stack = QStackedWidget()
        for widget in (self.wizard, self.run_view, self.results_view, self.session_view):
            self.stack.addWidget(widget)
        self.setCentralWidget(self.stack)
        self._connect()
        self.setAcceptDrops(True)
        self._menus()
        self._on_state_session_changed(self.state.session)
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(QSize(1100, 780).boundedTo(self.screen().availableGeometry().size()))  # a small screen's room
        self.statusBar().showMessage("Plan a test: mailbox profile, threads, databases, test type.")

    def _connect(self) -> None:
        self.wizard.accepted.connect(self.start_from_wizard)
        self.state.session_changed.connect(self._on_state_session_changed)
        self.wizard.welcome.open_requested.connect(self.files.open_config)
        self.wizard.review.save_requested.connect(self.files.save_json)
        self.wizard.review.save_xml_requested.connect(self.files.save_xml)
        self.files.loaded.connect(lambda: self.stack.setCurrentWidget(self.wizard))
        self.files.message.connect(self.statusBar().showMessage)
        self.run_view.stop_requested.connect(self._confirm_stop)
        self.runs.started.connect(self._on_runs_started)
        self.runs.finished.connect(self._on_runs_finished)
        self.runs.refused.connect(self._on_runs_refused)
        self.runs.suite_finished.connect(self._on_runs_suite_finished)
        self.runs.waiting.connect(self.wizard.review.show_wait)
        self.wizard.review.cancel_requested.connect(self.runs.cancel_wait)
        self.runs.message.connect(self.statusBar().showMessage)
        self.reports.message.connect(self.statusBar().showMessage)
        results = self.results_view
        results.apply_requested.connect(lambda: self.runs.apply_advice(results.suggestion))
        results.full_length_requested.connect(lambda: self.review_full_length(results.full_length_setting))
        results.new_test_requested.connect(self.new_test)
        results.session_requested.connect(self.show_session)
        results.open_folder_requested.connect(self.reports.open_run_folder)
        results.open_report_requested.connect(self.reports.open_report)
        results.export_pdf_requested.connect(self.reports.export_pdf)
        results.export_csv_requested.connect(self.reports.export_csv)
        results.print_requested.connect(self.reports.print_report)
        results.suite_requested.connect(self._show_suite_results)
        suite = results.suite_table
        suite.stage_requested.connect(self._show_stage_results)
        suite.report_requested.connect(lambda: self.reports.open_suite_report(self._suite_folder()))
        suite.pdf_requested.connect(lambda: self.reports.export_suite_pdf(self._suite_folder()))
        suite.print_requested.connect(lambda: self.reports.print_suite_report(self._suite_folder()))
        suite.folder_requested.connect(self.reports.open_run_folder)
        suite.resume_requested.connect(self._resume_suite)
        self.session_view.back_requested.connect(self._on_session_view_back_requested)
        self.session_view.session_chosen.connect(self._show_session)
        self.session_view.report_requested.connect(self.reports.open_report)
        self.session_view.pdf_requested.connect(lambda run_id: self.reports.export_pdf(run_id=run_id))
        self.session_view.print_requested.connect(lambda run_id: self.reports.print_report(run_id=run_id))
        self.session_view.rename_requested.connect(self._rename_session)
        self.session_view.delete_run_requested.connect(lambda run_id: self._edited(self.sessions.delete_run(run_id)))
        self.session_view.delete_session_requested.connect(lambda name: self._edited(self.sessions.delete_session(name)))
        self.session_view.compare_requested.connect(self.sessions.compare)

    # menus ---------------------------------------------------------------------------

    def _menus(self) -> None:
        """The menus, each a list of its actions (words, shortcut, what it does, tooltip), None a separator."""
        def clean() -> None:
            config = self.runs.config or self.state.config()
            self.statusBar().showMessage(delete_test_files(self, config, self.runs.running, self.runs.last_output))

        key = QKeySequence.StandardKey
        menus: dict[str, list[tuple[str, QKeySequence.StandardKey | str | None, Callable[[], object], str] | None]] = {
            "&File": [("&New test", key.New, self.new_test, ""),
                      ("&Open configuration…", key.Open, self.files.open_config, ""),
                      ("&Save configuration…", key.Save, self.files.save_json, ""),
                      ("Save as &Jetstress XML…", None, self.files.save_xml, ""),
                      None,
                      ("&Delete test files…", None, clean,
                       "The databases and log files this test left in its folders, with the space they free"),
                      ("Se&rvers…", None, self.show_servers,
                       "The servers a test across servers runs on: add, remove, check their connections"),
                      None,
                      ("&Quit", key.Quit, self.close, "")],
            "&View": [("Tuning &session", "Ctrl+H", self.show_session, "")],
            "&Help": [("&Where Jetwise keeps things…", None,
                       lambda: show_places(self, self.runs.runs_root, self.store.path), ""),
                      ("&About Jetwise", None, self.about, "")],
        }
        for title, entries in menus.items():
            menu = self.menuBar().addMenu(title)
            for entry in entries:
                if entry is None:
                    menu.addSeparator()
                    continue
                text, shortcut, slot, tip = entry
                action = QAction(text, self)
                if shortcut is not None:
                    action.setShortcut(shortcut)
                if tip:
                    action.setToolTip(tip)
                action.triggered.connect(slot)
                menu.addAction(action)

    def show_servers(self) -> ServersDialog:
        """The servers of a test across servers, shown without blocking the window."""
        dialog = ServersDialog(self)
        dialog.open()
        return dialog

    def about(self) -> None:
        QMessageBox.about(
            self,
            "About Jetwise",
            f"<h3>Jetwise {__version__}</h3>"
            "<p>Proves that storage carries an Exchange-style mailbox workload before production: "
            "ESE-like unbuffered I/O, exact Pass/Fail verdicts, a tuning advisor.</p>"
            f"<p>Python {platform.python_version()} · Qt {PySide6.QtCore.qVersion()} · PySide6 {PySide6.__version__} · "
            f"pyqtgraph {pyqtgraph.__version__} · numpy {numpy.__version__} · pydantic {pydantic.VERSION}<br>"
            f"{platform.system()} {platform.release()} ({platform.machine()})</p>",
        )

    # configuration files ---------------------------------------------------------------

    def load_config_file(self, path: Path) -> bool:
        """Fill the wizard from a Jetwise JSON file or a JetstressConfig.xml (see `ConfigFiles`)."""
        return self.files.load_file(path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.toLocalFile().lower().endswith(SUFFIXES) for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.toLocalFile().lower().endswith(SUFFIXES):
                self.load_config_file(Path(url.toLocalFile()))
                break

    # runs ------------------------------------------------------------------------------

    def new_test(self) -> None:
        if self.runs.running:
            self.statusBar().showMessage("A test is running: stop it first to plan a new one")
            return
        self.statusBar().clearMessage()  # the last run's words (a report written, a PDF exported) were about that run
        self.stack.setCurrentWidget(self.wizard)
        if self.wizard.currentId() > PAGE_PROFILE:
            self.wizard.restart_at(PAGE_PROFILE)

    def review_full_length(self, setting: tuple[int, int] | None) -> None:
        """The full-length qualification run at `setting`, on the Review page: what it says is what Start runs."""
        config = self.runs.full_length(setting)
        if config is None or self.runs.running:
            return
        self.wizard.load_config(config, self.state.session)  # Manual, at that setting and the standard length
        self.stack.setCurrentWidget(self.wizard)
        self.wizard.restart_at(PAGE_REVIEW)
        self.statusBar().showMessage("The full-length test: check it on the Review page, then Start")

    def start_from_wizard(self) -> None:
        config = self.state.config()
        if config is None:
            return
        self.settings.setValue("last_data_folder", str(Path(config.databases[0].database_path).parent))
        config = self.wizard.servers.with_servers(config)  # across the servers chosen, if any
        self.runs.across_port = self.wizard.servers.port.value()  # where their bundles tell their agents to connect
        if self.suite.chosen:
            resumed = self.suite.resuming(config) if not config.servers else None  # a suite across servers starts anew
            self.runs.start_suite(config, self.suite.performance_s, self.suite.stress_s,
                                  resumed.folder if resumed is not None else None)
            return
        self.runs.start_planned(config)

    def _on_runs_started(self) -> None:
        self.stack.setCurrentWidget(self.run_view)

    def _on_state_session_changed(self, name: str) -> None:
        """The title names the tuning session loaded or named, the one the next run goes into."""
        self.setWindowTitle(f"Jetwise {__version__} — {name}" if name else f"Jetwise {__version__}")

    def _on_runs_finished(self, result: RunResult, advice: Advice | None, note: str) -> None:
        self.results_view.show_result(result, advice, note)
        self.stack.setCurrentWidget(self.results_view)
        self.statusBar().showMessage(f"{result.verdict.value.upper()}: results in {self.runs.last_output}")

    def _on_runs_suite_finished(self, summary: SuiteSummary) -> None:
        self.results_view.show_suite(summary)
        self.stack.setCurrentWidget(self.results_view)
        self.statusBar().showMessage(f"{summary.record.title}: {summary.verdict.upper()}; results in {summary.folder}")

    def _suite_folder(self) -> Path:
        suite = self.results_view.suite
        assert suite is not None  # the suite's buttons show only with a suite
        return suite.folder

    def _show_stage_results(self, number: int) -> None:
        """A test of the suite shown with its own results: its report, PDF and run folder are the test's."""
        suite = self.results_view.suite
        if suite is None or not suite.shown(number):
            return
        folder = suite.stage_folder(number)
        self.runs.last_result, self.runs.last_output = suite.results[number], folder
        self.results_view.show_stage(number)

    def _resume_suite(self) -> None:
        if self.results_view.suite is not None:
            self.runs.resume_suite(self.results_view.suite)

    def _show_suite_results(self) -> None:
        suite = self.results_view.suite
        if suite is not None:
            self.runs.last_result, self.runs.last_output = None, suite.folder
            self.results_view.show_suite(suite)
            self.stack.setCurrentWidget(self.results_view)

    def _on_runs_refused(self, outcome: str) -> None:
        """Refused before it started (nothing was written): back to the wizard with the engine's reasons."""
        self.stack.setCurrentWidget(self.wizard)
        refusal = list(self.state.refusal)
        if refusal:  # reasons at fields: the wizard shows each where it is entered, no dialog
            try:
                self.wizard.restart_at(PAGE_REVIEW)
            except RuntimeError:
                pass  # a page before Review cannot go on: it is the one that shows the reason
            self.statusBar().showMessage(f"{outcome}: {refusal[0].message}")
            return
        self.statusBar().showMessage(f"{outcome}; see the messages")
        QMessageBox.warning(self, "The run did not start",
                            f"{outcome} before the run started:\n\n" + "\n".join(self.run_view.error_lines()[-10:]))

    def show_session(self) -> None:
        """The session of the test planned or shown, else the store's latest; any other can be chosen there."""
        shown = self.stack.currentWidget()
        if shown is not None and shown is not self.session_view:
            self._before_session = shown
        names = self._sessions_latest_first()
        current = self.state.session if self.state.session in names else (names[0] if names else None)
        self.session_view.show_sessions(names, current)
        if current is not None:
            self._show_session(current)
        self.stack.setCurrentWidget(self.session_view)

    def _rename_session(self, name: str) -> None:
        try:
            new = self.sessions.rename(name)
        except StoreError as exc:
            QMessageBox.warning(self, "Session not renamed", str(exc))
            return
        if new is not None:
            self._edited(f"Tuning session '{name}' is now '{new}'", new)

    def _edited(self, said: str, current: str | None = None) -> None:
        """After a session or run was renamed or deleted: the view as the store is now."""
        self.statusBar().showMessage(said)
        names = self._sessions_latest_first()
        wanted = current or self.session_view.chooser.currentText()
        chosen = wanted if wanted in names else (names[0] if names else None)
        self.session_view.show_sessions(names, chosen)
        if chosen is not None:
            self._show_session(chosen)

    def _show_session(self, name: str) -> None:
        self.session_view.show_session(name, measured_runs(self.store, name), self.store.results(name))

    def _sessions_latest_first(self) -> list[str]:
        """The store's sessions, the one with the latest run first (a session without runs by when it was made)."""
        latest: dict[str, datetime] = {}
        for run in self.store.runs():
            latest[run.session] = max(latest.get(run.session, run.started_utc), run.started_utc)
        sessions = sorted(self.store.sessions(), key=lambda s: (latest.get(s.name, s.created_utc), s.id), reverse=True)
        return [session.name for session in sessions]

    def _on_session_view_back_requested(self) -> None:
        """Back where the view was opened from; a results page with no run shown is no place to land."""
        back = self._before_session
        if back is self.results_view and self.results_view.result is None and self.results_view.suite is None:
            back = self.wizard
        self.stack.setCurrentWidget(back)

    def _confirm_stop(self) -> None:
        """Stop asks first: a stopped run cannot be resumed, only run again."""
        then = ("the tests after it do not run, and the suite can be resumed from it" if self.runs.suite is not None
                else "a stopped run cannot be resumed, only run again")
        if self.runs.running and confirm.ask(
                self, "Stop the test?", "Stop the running test? It ends within a couple of seconds; what it measured "
                f"so far is kept, and its report says it was stopped; {then}.", yes="Stop the test", no="Keep running"):
            self.runs.stop()

    # closing ---------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.runs.running:
            if not confirm.ask(self, "A test is running", "Stop the running test and quit? What it measured so far is "
                               "kept, and its report says it was stopped.", yes="Stop and quit", no="Keep running"):
                event.ignore()
                return
            self.runs.stop_and_wait()
        self.settings.setValue("geometry", self.saveGeometry())
        event.accept()
