"""The Jetwise window: the wizard, the running test, the verdict and the tuning session."""

from __future__ import annotations

import os
import platform
from datetime import datetime
from pathlib import Path

import numpy
import pydantic
import pyqtgraph
import PySide6
from PySide6.QtCore import QByteArray, QSettings, Qt, QUrl
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QStackedWidget

from engine.model.config import TestConfig, save_config
from engine.model.validation import validate_data
from engine.results.document import CONFIG_FILE
from engine.results.schema import RunResult
from engine.store.sqlite import Store
from engine.tuning.advisor import Advice, advise_session
from engine.tuning.tuner import Tuner
from engine.version import __version__
from reporting.bundle import ReportError, RunBundle, load_run
from reporting.document import render_html
from ui.engine_process import EngineOutcome, EngineProcess
from ui.printing import paint_pages, report_document, report_title, write_pdf
from ui.results_view import ResultsView
from ui.run_view import RunView
from ui.session_view import SessionView
from ui.wizard import PAGE_PROFILE, TestWizard, WizardState

MAX_AUTO_RUNS = 8


def default_runs_root() -> Path:
    return Path(os.environ.get("JETWISE_RUNS_DIR") or Path.home() / "Jetwise runs")


class MainWindow(QMainWindow):
    def __init__(self, runs_root: Path | None = None, data_base: Path | None = None, simulate: str | None = None) -> None:
        super().__init__()
        self.settings = QSettings()
        self.runs_root = runs_root or default_runs_root()
        last_data = str(self.settings.value("last_data_folder", str(Path.home() / "Jetwise data")))
        self.state = WizardState(data_base or Path(last_data))
        self._results_cache: dict[str, list[RunResult]] = {}  # a session's results, read once per finished run
        self.state.first_setting = lambda config: Tuner(config, self._session_results(config)).advice
        self.wizard = TestWizard(self.state)
        self.wizard.setWindowFlags(Qt.WindowType.Widget)
        self.wizard.accepted.connect(self.start_from_wizard)
        self.wizard.rejected.connect(lambda: None)
        self.wizard.welcome.open_requested.connect(self.open_config)
        self.wizard.review.save_requested.connect(self.save_config)
        self.run_view = RunView()
        self.run_view.stop_requested.connect(self.stop_run)
        self.results_view = ResultsView()
        self.results_view.apply_requested.connect(self.apply_advice)
        self.results_view.full_length_requested.connect(self.run_full_length)
        self.results_view.new_test_requested.connect(self.new_test)
        self.results_view.session_requested.connect(self.show_session)
        self.results_view.open_folder_requested.connect(self.open_run_folder)
        self.results_view.open_report_requested.connect(self.open_report)
        self.results_view.export_pdf_requested.connect(self.export_pdf)
        self.results_view.print_requested.connect(self.print_report)
        self.session_view = SessionView()
        self.stack = QStackedWidget()
        self.session_view.back_requested.connect(lambda: self.stack.setCurrentWidget(self.results_view))
        for widget in (self.wizard, self.run_view, self.results_view, self.session_view):
            self.stack.addWidget(widget)
        self.setCentralWidget(self.stack)
        self.setAcceptDrops(True)
        self.engine: EngineProcess | None = None
        self.config: TestConfig | None = None
        self.tuner: Tuner | None = None  # auto-tune in progress: the same step machine as `jetwise tune`
        self.simulate: str | None = simulate  # a simulated storage profile instead of the disk
        self.tuning_log: list[str] = []
        self.last_result: RunResult | None = None
        self.last_output: Path | None = None
        self._menus()
        self.setWindowTitle(f"Jetwise {__version__}")
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1100, 780)
        self.statusBar().showMessage("Plan a test: mailbox profile, threads, databases, test type.")

    # menus ---------------------------------------------------------------------------

    def _menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        for text, shortcut, slot in (
            ("&New test", QKeySequence.StandardKey.New, self.new_test),
            ("&Open configuration…", QKeySequence.StandardKey.Open, self.open_config),
            ("&Save configuration…", QKeySequence.StandardKey.Save, self.save_config),
        ):
            action = QAction(text, self)
            action.setShortcut(shortcut)
            action.triggered.connect(slot)
            file_menu.addAction(action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        view_menu = self.menuBar().addMenu("&View")
        session = QAction("Tuning &session", self)
        session.setShortcut("Ctrl+H")
        session.triggered.connect(self.show_session)
        view_menu.addAction(session)
        help_menu = self.menuBar().addMenu("&Help")
        about = QAction("&About Jetwise", self)
        about.triggered.connect(self.about)
        help_menu.addAction(about)

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

    def open_config(self) -> None:
        folder = str(self.settings.value("last_config_folder", str(Path.home())))
        name, _ = QFileDialog.getOpenFileName(self, "Open a Jetwise configuration", folder, "Jetwise configuration (*.json)")
        if name:
            self.load_config_file(Path(name))

    def load_config_file(self, path: Path) -> bool:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            QMessageBox.warning(self, "Cannot open the configuration", f"{path}: cannot be read ({exc})")
            return False
        config, problems = validate_data(text)
        if config is None:
            words = "\n".join(f"• {p}" for p in problems[:12])
            QMessageBox.warning(self, "Cannot open the configuration", f"{path} is not a valid Jetwise configuration:\n\n{words}")
            return False
        self.settings.setValue("last_config_folder", str(path.parent))
        self.wizard.load_config(config, session=self._session_of(config) or path.stem)
        self.wizard.welcome.show_loaded(path)
        self.stack.setCurrentWidget(self.wizard)
        self.statusBar().showMessage(f"Loaded {path}")
        return True

    def save_config(self) -> None:
        config = self.state.config()
        if config is None:
            QMessageBox.information(self, "Not saved", "The configuration has problems; the wizard shows them at each field.")
            return
        folder = str(self.settings.value("last_config_folder", str(Path.home())))
        name, _ = QFileDialog.getSaveFileName(self, "Save the configuration", str(Path(folder) / "jetwise-test.json"),
                                              "Jetwise configuration (*.json)")
        if name:
            save_config(config, Path(name))
            self.settings.setValue("last_config_folder", str(Path(name).parent))
            self.statusBar().showMessage(f"Saved {name}")

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.toLocalFile().lower().endswith(".json") for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.toLocalFile().lower().endswith(".json"):
                self.load_config_file(Path(url.toLocalFile()))
                break

    # runs ------------------------------------------------------------------------------

    def new_test(self) -> None:
        if self.engine is not None and self.engine.running:
            self.statusBar().showMessage("A test is running: stop it first to plan a new one")
            return
        self.stack.setCurrentWidget(self.wizard)
        if self.wizard.currentId() > PAGE_PROFILE:
            self.wizard.restart_at(PAGE_PROFILE)

    def start_from_wizard(self) -> None:
        config = self.state.config()
        if config is None:
            return
        self.settings.setValue("last_data_folder", str(Path(config.databases[0].database_path).parent))
        self.tuner = None
        self.tuning_log = []
        self.run_view.show_iterations(self.tuning_log)
        if self.state.auto_tune:
            tuner = Tuner(config, self._session_results(config), max_runs=MAX_AUTO_RUNS)
            first = tuner.next_run()
            if first is not None:
                self.tuner = tuner
                self.start_run(first)
                return
            # The session's runs already answer it: run the setting they found, at the planned length.
            advice = tuner.advice
            config = config.model_copy(update={"thread_count": advice.threads, "sluggish_sessions": advice.sluggish_sessions})
            self.statusBar().showMessage(f"This session already has its answer ({advice.status}): running "
                                         f"{advice.threads} threads, SluggishSessions {advice.sluggish_sessions}")
        self.start_run(config)

    def start_run(self, config: TestConfig) -> None:
        config = TestConfig.model_validate(config.model_dump())
        self.config = config
        session = self.state.session or "Jetwise"
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        output = self.runs_root / _safe(session) / f"{stamp}-t{config.thread_count}-s{config.sluggish_sessions}"
        if output.exists():  # two runs started within a second: never share a folder
            output = output.with_name(output.name + f"-{len(list(output.parent.iterdir()))}")
        engine = EngineProcess(self)
        engine.event_received.connect(self.run_view.on_event)
        engine.stderr_line.connect(self.run_view.engine_line)
        engine.finished.connect(self.run_finished)
        self.engine = engine
        self.last_output = output
        tuner = self.tuner
        if tuner is not None:
            title = (f"Auto-tune run {len(tuner.runs) + 1}: {config.thread_count} threads, "
                     f"SluggishSessions {config.sluggish_sessions}")
        else:
            title = (f"{config.test_type.value.capitalize()} test: {config.thread_count} threads, "
                     f"SluggishSessions {config.sluggish_sessions}")
        self.run_view.begin(config, title)
        self.stack.setCurrentWidget(self.run_view)
        self.setWindowTitle(f"Jetwise {__version__} — {session}")
        calibrate = self.state.calibration_s if tuner is not None else None
        engine.start(config, output, session, calibrate_s=calibrate, simulate=self.simulate)
        self.statusBar().showMessage(f"Running; results go to {output}")

    def stop_run(self) -> None:
        if self.tuner is not None:
            self.tuner.stop()
        if self.engine is not None:
            self.run_view.append_log("Stop requested: the engine keeps what it measured")
            self.engine.stop()

    def run_finished(self, outcome: EngineOutcome) -> None:
        self._results_cache.clear()
        engine = self.engine
        if engine is not None and engine.session:
            self.state.session = engine.session  # the engine may have moved the run to a session of its own
        result = outcome.result or self._recovered_result(outcome)
        if result is None:
            # Refused before it started (nothing was written): back to the wizard with the engine's reasons.
            self.tuner = None
            self.stack.setCurrentWidget(self.wizard)
            self.statusBar().showMessage(f"{_sentence(str(outcome))}; see the messages")
            QMessageBox.warning(self, "The run did not start",
                                f"{_sentence(str(outcome))} before the run started:\n\n"
                                + "\n".join(self.run_view.error_lines()[-10:]))
            return
        self.last_result = result
        assert self.config is not None
        tuner = self.tuner
        note = ""
        if tuner is not None:
            tuner.record(result)
            s = result.summary
            self.tuning_log.append(
                f"Run {len(tuner.runs)}: {s.threads} threads / SluggishSessions {s.sluggish_sessions} → "
                f"{s.achieved_transactional_iops:,.0f} IOPS, reads {s.db_read_avg_latency_ms:.1f} ms: "
                f"{s.verdict.value.upper()}" + (" (host-bound)" if s.host_bound else "")
            )
            self.run_view.show_iterations(self.tuning_log)
            following = tuner.next_run()
            if following is not None:
                self.run_view.append_log(f"Advisor: {tuner.describe_next()}")
                self.start_run(following)
                return
            note = f"Auto-tune: {tuner.outcome().status} after {len(tuner.runs)} run(s)."
            self.tuner = None
            advice = tuner.advice
        else:
            advice = self.advise(self.config)
        self.results_view.show_result(result, advice, note)
        self.stack.setCurrentWidget(self.results_view)
        self.statusBar().showMessage(f"{result.verdict.value.upper()}: results in {self.last_output}")

    def _recovered_result(self, outcome: EngineOutcome) -> RunResult | None:
        """The result of a run whose engine ended without sending one: rebuilt from what it wrote."""
        if self.last_output is None or not (self.last_output / CONFIG_FILE).exists():
            return None
        try:
            bundle = load_run(str(self.last_output))
        except ReportError:
            return None
        self.run_view.append_log(f"{_sentence(str(outcome))} without a result; the result was rebuilt from its samples")
        return bundle.result

    def _session_results(self, config: TestConfig) -> list[RunResult]:
        """The results of the session a run of `config` goes into (cached until a run finishes)."""
        store = Store()
        try:
            session, _note = store.resolve_session(self.state.session or "Jetwise", config)
            if session not in self._results_cache:
                self._results_cache[session] = store.results(session)
            return self._results_cache[session]
        finally:
            store.close()

    def _session_of(self, config: TestConfig) -> str | None:
        """The latest session that tests this configuration's storage design, to continue it."""
        store = Store()
        try:
            return store.session_of_design(config)
        finally:
            store.close()

    def advise(self, config: TestConfig) -> Advice:
        return advise_session(config, self._session_results(config), os.cpu_count() or 1)

    def apply_advice(self) -> None:
        advice = self.results_view.suggestion
        if advice is None or self.config is None or advice.status not in ("start", "next"):
            return
        self.start_run(self.config.model_copy(
            update={"thread_count": advice.threads, "sluggish_sessions": advice.sluggish_sessions}))

    def run_full_length(self) -> None:
        """A qualification run at the setting of the run shown: the standard 2 h (Performance) or 24 h (Stress)."""
        result = self.results_view.result
        if result is None or self.config is None:
            return
        config = self.config.model_copy(update={
            "thread_count": result.summary.threads, "sluggish_sessions": result.summary.sluggish_sessions,
            "duration_s": self.config.standard_duration_s,
        })
        self.start_run(config)

    def show_session(self) -> None:
        store = Store()
        try:
            runs = store.runs(self.state.session) if store.session(self.state.session) else []
        finally:
            store.close()
        self.session_view.show_session(self.state.session or "(none yet)", runs)
        self.stack.setCurrentWidget(self.session_view)

    def _bundle(self) -> RunBundle | None:
        if self.last_result is None:
            return None
        try:
            return load_run(str(self.last_output)) if self.last_output else None
        except ReportError as exc:
            QMessageBox.warning(self, "No report", str(exc))
            return None

    def open_report(self) -> Path | None:
        bundle = self._bundle()
        if bundle is None or self.last_output is None:
            return None
        path = self.last_output / "report.html"
        path.write_text(render_html(bundle), encoding="utf-8")
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
        self.statusBar().showMessage(f"Report: {path}")
        return path

    def export_pdf(self, path: Path | None = None) -> Path | None:
        bundle = self._bundle()
        if bundle is None or self.last_output is None:
            return None
        if path is None:
            name, chosen = QFileDialog.getSaveFileName(
                self, "Export the report as PDF", str(self.last_output / "report.pdf"),
                "PDF, A4 (*.pdf);;PDF, Letter (*.pdf)")
            if not name:
                return None
            path, size = Path(name), ("letter" if "Letter" in chosen else "a4")
        else:
            size = "a4"
        pages = write_pdf(bundle, path, size)
        self.statusBar().showMessage(f"PDF report: {path} ({pages} pages)")
        return path

    def print_report(self) -> None:
        from PySide6.QtPrintSupport import QPrintDialog, QPrinter

        bundle = self._bundle()
        if bundle is None:
            return
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintDialog(printer, self)
        if dialog.exec() != QPrintDialog.DialogCode.Accepted:
            return
        paint = printer.pageLayout().paintRectPixels(printer.resolution())
        pages = paint_pages(report_document(bundle, paint.width(), printer.resolution()), printer, report_title(bundle))
        self.statusBar().showMessage(f"Printed {pages} pages")

    def open_run_folder(self) -> None:
        if self.last_output is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.last_output)))

    # closing ---------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.engine is not None and self.engine.running:
            answer = QMessageBox.question(self, "A test is running",
                                          "Stop the running test and quit? What it measured so far is kept.")
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
            self.tuner = None
            self.engine.stop()
            self.engine.process.waitForFinished(7000)
        self.settings.setValue("geometry", self.saveGeometry())
        event.accept()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_ ." else "_" for c in name).strip() or "session"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
