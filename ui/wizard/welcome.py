"""Page 1, Welcome: a new test, a configuration file, or a tuning session to continue."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QVBoxLayout,
)

from engine.model.config import Scenario
from engine.model.derive import target_words
from ui.scans import setting_words, type_words
from ui.widgets.fitting import WrappingRadioButton
from ui.widgets.style import ERROR_STYLE, laid_out, tipped, wrapped
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.services import ServiceError, SessionSummary

SCENARIOS = {
    Scenario.MAILBOX_PROFILE: "Test an Exchange mailbox profile: pass or fail against the target IOPS its mailboxes ask for",
    Scenario.DISK_THROUGHPUT: "Test a disk subsystem throughput: no target; find the most transactional IOPS the storage "
                              "passes within the thresholds, and what that means in mailboxes",
}


class WelcomePage(WizardPage):
    """The way in: a new test, a configuration file, or a tuning session to continue.

    A session's configuration is loaded only on an explicit choice: clicking or
    activating (double-click, Enter) its row, or choosing "Continue a tuning session"
    with a row selected. Moving through the list (focus, arrow keys) loads nothing,
    so the fields already entered are never replaced by accident. With "Continue a
    tuning session" ticked, Next waits until a session is chosen, and says so; the
    session comes back in the tuning mode its runs were started in.
    """

    NAME = "welcome"
    TITLE = "Welcome to Jetwise"
    SUBTITLE = "Prove the storage carries the mailbox workload before production."
    OPTIONS = ("scenario",)

    open_requested = Signal()
    report_requested = Signal()  # the import report of the JetstressConfig.xml loaded, shown again

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        self.new_test = QRadioButton("Start a new test")
        self.open_file = WrappingRadioButton("Open a configuration file: Jetwise's JSON or a JetstressConfig.xml "
                                             "(or drop one on this window)")
        self.resume = QRadioButton("Continue a tuning session")
        self.new_test.setChecked(True)
        group = QButtonGroup(self)
        for button in (self.new_test, self.open_file, self.resume):
            group.addButton(button)
        self.browse = QPushButton("Open configuration…")
        self.browse.clicked.connect(self.open_requested)
        self.loaded = wrapped()
        self.report = QLabel(textFormat=Qt.TextFormat.RichText)
        self.report.linkActivated.connect(self.report_requested)
        self.report.hide()
        self.sessions = tipped(QListWidget(), "Recent tuning sessions with the verdict of their last run; click one "
                               "(or press Enter) to continue it")
        self.sessions.itemClicked.connect(self._session_chosen)
        self.sessions.itemActivated.connect(self._session_chosen)
        self.no_sessions = QLabel("No tuning sessions yet. Each test started here begins one (or continues the "
                                  "session that tests the same storage design), and it is listed here to continue.",
                                  wordWrap=True, alignment=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.session_list = QStackedWidget()  # the list, or the words that say it is empty
        self.session_list.addWidget(self.sessions)
        self.session_list.addWidget(self.no_sessions)
        self.resume.toggled.connect(self._on_resume_toggled)
        self.reason = wrapped()
        self.scenarios = self._scenario_box()
        self.chosen: str | None = None  # the session whose last run's configuration the draft holds
        self._summaries: dict[str, SessionSummary] = {}
        row = QHBoxLayout()
        row.addSpacing(24)
        laid_out(row, self.browse, (self.loaded, 1), self.report)
        laid_out(QVBoxLayout(self), self.new_test, self.open_file, row, self.resume, (self.session_list, 1),
                 self.reason, self.scenarios)
        self.fill_sessions()
        self._show_reason()

    def _scenario_box(self) -> QGroupBox:
        """Jetstress's two scenarios, as its wizard offers them: the test's, whichever way in was taken."""
        box = QGroupBox("Scenario")
        column = QVBoxLayout(box)
        group = QButtonGroup(box)
        self.scenario_buttons: dict[Scenario, QRadioButton] = {}
        for scenario, words in SCENARIOS.items():
            button = self.scenario_buttons[scenario] = WrappingRadioButton(words)
            group.addButton(button)
            column.addWidget(button)
            button.toggled.connect(lambda on, chosen=scenario: self.state.set("scenario", chosen.value) if on else None)
        self.editors["scenario"] = box
        return box

    def refresh(self) -> None:
        super().refresh()
        chosen = self.scenario_buttons.get(Scenario(self.state.get("scenario")))
        if chosen is not None and not chosen.isChecked():
            with QSignalBlocker(chosen):
                chosen.setChecked(True)

    def shown_again(self) -> None:
        """The sessions as the store holds them now: the runs since the window opened are in them."""
        self.fill_sessions()
        self._show_reason()

    def fill_sessions(self) -> None:
        """The recent sessions, the one being continued (if any) selected again."""
        self.sessions.clear()
        try:
            sessions = self.context.services.recent_sessions()
        except ServiceError:  # a broken store must not stop a new test
            sessions = []
        self._summaries = {session.name: session for session in sessions}
        for session in sessions:
            item = QListWidgetItem(_words(session))
            item.setData(Qt.ItemDataRole.UserRole, session.name)
            self.sessions.addItem(item)
            item.setSelected(session.name == self.chosen)  # selected as it was (a click, not this, loads it)
        self.session_list.setCurrentWidget(self.sessions if sessions else self.no_sessions)

    def _on_resume_toggled(self, on: bool) -> None:
        selected = self.sessions.selectedItems()
        if on and selected:
            self._session_chosen(selected[0])
        self._show_reason()

    def _show_reason(self) -> None:
        """Why Next waits, when it does: a session to continue is not chosen yet."""
        waiting = self.resume.isChecked() and self.chosen is None
        if not waiting:
            words = ""
        elif self.sessions.count():
            words = "Choose the session to continue: click it in the list (or select it and press Enter)."
        else:
            words = "There is no tuning session to continue yet: start a new test or open a configuration file."
        self.reason.setText(f"<span style='{ERROR_STYLE}'>{words}</span>" if words else "")
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return not (self.resume.isChecked() and self.chosen is None)

    def _session_chosen(self, item: QListWidgetItem | None) -> None:
        """Continue the session of `item`: its last run's configuration fills the wizard."""
        if item is None:
            return
        name = item.data(Qt.ItemDataRole.UserRole)
        try:
            config = self.context.services.last_config(name)
        except ServiceError as exc:  # a broken store must not stop the wizard
            self.loaded.setText(f"Cannot read the tuning sessions: {exc}")
            return
        if config is None:
            self.loaded.setText(f"'{name}' has no runs yet: there is no configuration to continue from")
            return
        with QSignalBlocker(self.resume):  # checking it must not load the selection a second time
            self.resume.setChecked(True)
        summary = self._summaries.get(name)
        mode = summary.auto_tune if summary is not None else None
        if mode is not None:  # back in the mode its runs were started in: Manual stays Manual
            self.state.set_auto_tune(mode)
        self.state.load(config, session=name)
        self.chosen = name
        self.report.hide()  # the draft no longer holds the imported file
        tuning = "" if mode is None else " in auto-tune" if mode else " in Manual tuning"
        self.loaded.setText(f"Continuing '{name}' from its last run's configuration{tuning}")
        self._show_reason()

    def show_loaded(self, path: Path, said: str = "") -> None:
        """The file the draft holds now; `said`: what its import report lists ("2 warnings, 1 note"), if anything."""
        self.chosen = None  # the draft holds the file now
        self.open_file.setChecked(True)
        self.loaded.setText(f"Loaded {path}" + (f": {said}" if said else ""))
        self.report.setText("<a href='report'>Show the import report</a>")
        self.report.setVisible(bool(said))
        self._show_reason()


def _words(session: SessionSummary) -> str:
    words = f"{session.name} — {target_words(session.target_iops, 0)} — {session.runs} run(s)"
    last = session.last_config
    if session.last_status is not None and last is not None:  # the test, as its setting means one: a scan's reads
        words += (f", last: {type_words(last.test_type)} ({setting_words(last)}): {session.last_status.upper()}"
                  + (", host-bound" if session.last_host_bound else ""))
    return words
