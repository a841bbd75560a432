"""The test wizard: welcome, mailbox profile, thread tuning, databases, test type, review.

Every page edits one shared `WizardState` (the configuration as JSON data). Each edit
is validated by the engine's own rules; a page shows the message of each bad field
under that field and keeps Next disabled until its fields are valid. Going Back
loses nothing: the state is the single source of every field. The Review page lists
every problem of what Start would run, errors and warnings, each with its field, and
keeps Start disabled while any error remains.
"""

from __future__ import annotations

import copy
import html
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from PySide6.QtCore import QObject, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from engine.io.files import database_file_path
from engine.io.platform import default_backend
from engine.io.preflight import check_environment, existing_folder
from engine.model.config import DatabaseSource, TestConfig, TestType, default_config
from engine.model.units import compact_duration, format_bytes, parse_duration_s
from engine.model.validation import Problem, Severity, check_rules, errors_only, problems_from_validation_error, validate_data
from engine.store.sqlite import Store
from engine.tuning.advisor import Advice, advise
from engine.tuning.tuner import calibration_rule
from ui.fields import ERROR_STYLE, WARNING_STYLE, FieldEdit

# Exchange 2010 guidance: each 50 messages sent and received per day adds about 0.06 IOPS
# per mailbox (stand-alone) or 0.05 (with database copies).
MESSAGE_PROFILES = [(50 * n, 0.06 * n, 0.05 * n) for n in range(1, 11)]
CREATE_RATE_BYTES_PER_S = 150e6  # a conservative estimate for the review page; the run measures the real rate
DURATIONS = ["15m", "30m", "2h", "24h"]

PAGE_WELCOME, PAGE_PROFILE, PAGE_TUNING, PAGE_DATABASES, PAGE_TYPE, PAGE_REVIEW = range(6)
THREAD_FIELDS = ("thread_count", "sluggish_sessions")

# where each field is edited, for the Review page's list of problems
_PAGE_OF_FIELD = {
    "profile": "Mailbox profile", "capacity_percent": "Mailbox profile",
    "thread_count": "Thread tuning", "sluggish_sessions": "Thread tuning",
    "databases": "Databases and logs", "copies_per_database": "Databases and logs", "database_source": "Databases and logs",
    "test_type": "Test type", "duration_s": "Test type", "warmup_s": "Test type",
    "background_maintenance": "Test type", "continue_on_errors": "Test type", "session": "Review",
}


def field_label(path: str) -> str:
    """A problem's field in the words of the form: "Database 2 log path (Databases and logs page)"."""
    if not path:
        return "Configuration"
    if path == "session":
        return "Tuning session (Review page)"
    head = path.split(".")[0].split("[")[0]
    page = _PAGE_OF_FIELD.get(head)
    if head == "databases" and "[" in path:
        index = int(path.split("[")[1].split("]")[0])
        leaf = path.rsplit(".", 1)[-1]
        name = f"Database {index + 1}" + {"database_path": " path", "log_path": " log path"}.get(leaf, "")
    else:
        model: type[BaseModel] | None = TestConfig
        name = path
        titles: list[str] = []
        for part in path.split("."):
            info = model.model_fields.get(part.split("[")[0]) if model is not None else None
            if info is None:
                titles = []
                break
            titles.append(info.title or part)
            annotation = info.annotation
            model = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
        if titles:  # a field of a page goes by its own name; one only a file sets, with its group
            name = titles[-1] if len(titles) == 1 or page else f"{titles[0]}: {titles[-1]}"
    return f"{name} ({page} page)" if page else f"{name} (in the configuration file)"


class WizardState(QObject):
    """The configuration being edited, as JSON data, with the engine's verdict on it.

    In auto-tune mode the thread count and SluggishSessions in `data` are not what runs:
    the advisor picks the first setting. `config()` is then the configuration with the
    advisor's starting setting in place, so every page and the Review judge what will run,
    while `data` keeps the engineer's own values for a return to Manual.
    """

    changed = Signal()
    loaded = Signal()  # a whole configuration replaced the data (a file, a session)
    session_changed = Signal(str)

    def __init__(self, base: Path) -> None:
        super().__init__()
        self.base = base
        self.data: dict[str, Any] = json.loads(default_config(base).model_dump_json())
        self.data["warmup_s"] = 60.0
        self.auto_tune = True
        self.calibration_s = 180.0
        self._session = ""
        self.parse_errors: dict[str, str] = {}
        self._verdict: tuple[TestConfig | None, list[Problem]] | None = None
        self._advice: Advice | None = None  # the first setting, asked once per change with the verdict
        # The first auto-tune setting for a configuration: the window's tuner, which knows the
        # session's runs; without one (a wizard on its own) Microsoft's rule.
        self.first_setting: Callable[[TestConfig], Advice] = lambda config: advise(config, [], os.cpu_count() or 1)
        self.changed.connect(self._forget)  # connected first: runs before every page's refresh

    @property
    def session(self) -> str:
        return self._session

    @session.setter
    def session(self, name: str) -> None:
        if name != self._session:
            self._session = name
            self.session_changed.emit(name)

    def _forget(self) -> None:
        self._verdict = None

    def load(self, config: TestConfig, session: str = "") -> None:
        self.data = json.loads(config.model_dump_json())
        self.session = session
        self.parse_errors.clear()
        self.changed.emit()
        self.loaded.emit()

    def set_auto_tune(self, on: bool) -> None:
        """Auto-tune (the advisor picks the threads) or Manual (the fields' setting runs)."""
        if on != self.auto_tune:
            self.auto_tune = on
            self.changed.emit()

    def get(self, path: str) -> Any:
        node: Any = self.data
        for part in path.split("."):
            node = node[int(part)] if part.isdigit() else node[part]
        return node

    def set(self, path: str, value: Any) -> bool:
        """Set one field; True (and `changed` emitted) if its value changed."""
        parts = path.split(".")
        node: Any = self.data
        for part in parts[:-1]:
            node = node[int(part)] if part.isdigit() else node[part]
        key: Any = int(parts[-1]) if parts[-1].isdigit() else parts[-1]
        if node[key] == value:
            return False
        node[key] = value
        self.changed.emit()
        return True

    def set_parse_error(self, path: str, message: str | None) -> None:
        if message:
            self.parse_errors[path] = message
        else:
            self.parse_errors.pop(path, None)
        self.changed.emit()

    def set_databases(self, specs: list[dict[str, str]]) -> None:
        self.data["databases"] = specs
        self.changed.emit()

    def _validated(self) -> tuple[TestConfig | None, list[Problem]]:
        """The engine's verdict on the data, computed once per change however many pages ask."""
        if self._verdict is None:
            data = copy.deepcopy(self.data)
            if self.auto_tune:
                # a placeholder the advisor replaces: the fields the engineer cannot edit now
                # must not make the rest of the configuration invalid
                databases = data.get("databases")
                data["thread_count"] = min(4096, max(1, len(databases) if isinstance(databases, list) else 1))
                data["sluggish_sessions"] = 1
            config, problems = validate_data(data)
            advice = self._advice = self.first_setting(config) if config is not None else None
            if config is not None and advice is not None and self.auto_tune:
                data = json.loads(config.model_dump_json())
                data.update(thread_count=advice.threads, sluggish_sessions=advice.sluggish_sessions)
                config, problems = validate_data(data)
            self._verdict = (config, check_rules(config) if config is not None else problems)
        return self._verdict

    def config(self) -> TestConfig | None:
        return self._validated()[0]

    def first_advice(self) -> Advice | None:
        """The advisor's first setting for the configuration as it stands (None while it is invalid)."""
        self._validated()
        return self._advice

    def problems(self) -> list[Problem]:
        return self._validated()[1]


class _Page(QWizardPage):
    """A page whose fields map to configuration paths and show their own problems."""

    def __init__(self, state: WizardState, title: str, subtitle: str) -> None:
        super().__init__()
        self.state = state
        self.setTitle(title)
        self.setSubTitle(subtitle)
        self.fields: dict[str, FieldEdit] = {}
        state.changed.connect(self.refresh)

    def add_field(self, form: QFormLayout, label: str, path: str, kind: type, unit: str = "", tooltip: str = "") -> FieldEdit:
        field = FieldEdit(kind, unit, tooltip)
        field.set_value(self.state.get(path))
        field.changed.connect(lambda p=path, f=field: self._edited(p, f))
        self.fields[path] = field
        form.addRow(label, field)
        return field

    def _edited(self, path: str, field: FieldEdit) -> None:
        ok, value = field.parsed()
        if ok:
            cleared = self.state.parse_errors.pop(path, None) is not None
            if not self.state.set(path, value) and cleared:
                self.state.changed.emit()  # only the parse error went away
        else:
            self.state.set_parse_error(path, str(value))

    def page_problems(self) -> dict[str, str]:
        """This page's fields that are wrong, with the message to show."""
        messages: dict[str, str] = {}
        problems = self.state.problems()
        for path in self.fields:
            if path in self.state.parse_errors:
                messages[path] = self.state.parse_errors[path]
                continue
            for problem in problems:
                if problem.severity.value == "error" and (problem.field == path or problem.field.startswith(path + "[")):
                    messages[path] = problem.message
                    break
        return messages

    def refresh(self) -> None:
        messages = self.page_problems()
        for path, field in self.fields.items():
            if path not in self.state.parse_errors and not field.edit.hasFocus():
                field.set_value(self.state.get(path))
            field.set_error(messages.get(path))
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return not self.page_problems()

    def initializePage(self) -> None:
        self.refresh()


# 1. Welcome --------------------------------------------------------------------------------


class WelcomePage(_Page):
    """The way in: a new test, a configuration file, or a tuning session to continue.

    A session's configuration is loaded only on an explicit choice: clicking or
    activating (double-click, Enter) its row, or choosing "Continue a tuning session"
    with a row selected. Moving through the list (focus, arrow keys) loads nothing,
    so the fields already entered are never replaced by accident.
    """

    open_requested = Signal()

    def __init__(self, state: WizardState) -> None:
        super().__init__(state, "Welcome to Jetwise", "Prove the storage carries the mailbox workload before production.")
        self.new_test = QRadioButton("Start a new test")
        self.open_file = QRadioButton("Open a configuration file (or drop a Jetwise JSON file on this window)")
        self.resume = QRadioButton("Continue a tuning session")
        self.new_test.setChecked(True)
        group = QButtonGroup(self)
        for button in (self.new_test, self.open_file, self.resume):
            group.addButton(button)
        self.browse = QPushButton("Open configuration…")
        self.browse.clicked.connect(self.open_requested)
        self.loaded = QLabel()
        self.loaded.setWordWrap(True)
        self.sessions = QListWidget()
        self.sessions.setToolTip("Recent tuning sessions with the verdict of their last run; click one (or press Enter) to continue it")
        self.sessions.itemClicked.connect(self._session_chosen)
        self.sessions.itemActivated.connect(self._session_chosen)
        self.resume.toggled.connect(self._on_resume_toggled)
        layout = QVBoxLayout(self)
        layout.addWidget(self.new_test)
        layout.addWidget(self.open_file)
        row = QHBoxLayout()
        row.addSpacing(24)
        row.addWidget(self.browse)
        row.addWidget(self.loaded, 1)
        layout.addLayout(row)
        layout.addWidget(self.resume)
        layout.addWidget(self.sessions, 1)
        self.fill_sessions()

    def fill_sessions(self) -> None:
        self.sessions.clear()
        try:
            store = Store()
        except Exception:  # a broken store must not stop a new test
            return
        try:
            for session in reversed(store.sessions()):
                runs = store.runs(session.name)
                last = runs[-1] if runs else None
                words = f"{session.name} — target {session.target_iops:,.0f} IOPS — {len(runs)} run(s)"
                if last is not None:
                    words += f", last: {last.status.upper()} at {last.threads} threads / SluggishSessions {last.sluggish_sessions}"
                item = QListWidgetItem(words)
                item.setData(Qt.ItemDataRole.UserRole, session.name)
                self.sessions.addItem(item)
        finally:
            store.close()

    def _on_resume_toggled(self, on: bool) -> None:
        selected = self.sessions.selectedItems()
        if on and selected:
            self._session_chosen(selected[0])

    def _session_chosen(self, item: QListWidgetItem | None) -> None:
        """Continue the session of `item`: its last run's configuration fills the wizard."""
        if item is None:
            return
        name = item.data(Qt.ItemDataRole.UserRole)
        try:
            store = Store()
        except Exception as exc:  # a broken store must not stop the wizard
            self.loaded.setText(f"Cannot read the tuning sessions: {exc}")
            return
        try:
            runs = store.runs(name)
        finally:
            store.close()
        if not runs:
            self.loaded.setText(f"'{name}' has no runs yet: there is no configuration to continue from")
            return
        with QSignalBlocker(self.resume):  # checking it must not load the selection a second time
            self.resume.setChecked(True)
        self.state.load(TestConfig.model_validate(runs[-1].config), session=name)
        self.loaded.setText(f"Continuing '{name}' from its last run's configuration")

    def show_loaded(self, path: Path) -> None:
        self.open_file.setChecked(True)
        self.loaded.setText(f"Loaded {path}")


# 2. Mailbox profile -------------------------------------------------------------------------


class ProfilePage(_Page):
    def __init__(self, state: WizardState) -> None:
        super().__init__(state, "Mailbox profile", "What the mailbox design asks of this server's storage.")
        form = QFormLayout()
        self.add_field(form, "Mailboxes:", "profile.mailboxes", int, "mailboxes", "Number of mailboxes this server hosts")
        iops = self.add_field(form, "IOPS per mailbox:", "profile.iops_per_mailbox", float, "IOPS",
                              "Transactional I/O per second each mailbox generates (typed, or from a message profile)")
        self.messages = QComboBox()
        self.messages.addItem("Pick from messages sent and received per day…", None)
        for count, standalone, copies in MESSAGE_PROFILES:
            self.messages.addItem(f"{count} messages/day: {standalone:.2f} IOPS (stand-alone), {copies:.2f} (with copies)",
                                  (standalone, copies))
        self.messages.setToolTip("Exchange 2010 guidance: about 0.06 IOPS per mailbox per 50 messages a day")
        self.messages.activated.connect(lambda _i: self._profile_picked(iops))
        form.addRow("", self.messages)
        self.add_field(form, "Mailbox size:", "profile.mailbox_size_mb", int, "MB", "Mailbox quota (1 MB = 1,048,576 bytes)")
        self.add_field(form, "Headroom:", "profile.headroom_percent", float, "%", "Extra IOPS above the design (ESRP papers use 20 %)")
        self.add_field(form, "Create:", "capacity_percent", float, "% of the size",
                       "How much of the computed database size to create; 100 % tests the real footprint, "
                       "less makes quicker tuning runs (the database cache is scaled with it)")
        self.readout = QLabel()
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        box = QGroupBox("What this means")
        QVBoxLayout(box).addWidget(self.readout)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(box)
        layout.addStretch(1)

    def _profile_picked(self, iops: FieldEdit) -> None:
        values = self.messages.currentData()
        if values:
            copies = self.state.data.get("copies_per_database", 1) > 1
            iops.set_value(round(values[1] if copies else values[0], 3))

    def refresh(self) -> None:
        super().refresh()
        config = self.state.config()
        if config is None:
            self.readout.setText("<i>Correct the fields above to see the target and sizes.</i>")
            return
        databases = config.database_count
        self.readout.setText(
            f"Target: <b>{config.target_transactional_iops:,.1f} transactional IOPS</b> "
            f"({config.profile.mailboxes:,} × {config.profile.iops_per_mailbox:g} + {config.profile.headroom_percent:g} %)<br>"
            f"Database size: <b>{format_bytes(config.database_size_bytes)}</b> each, "
            f"{format_bytes(config.database_size_bytes * databases)} in total over {databases} database(s)<br>"
            f"Log space: {format_bytes(config.log_space_bytes_per_database)} per database (16 × 1 MB circular)"
        )


# 3. Thread tuning ---------------------------------------------------------------------------


class TuningPage(_Page):
    def __init__(self, state: WizardState) -> None:
        super().__init__(state, "Thread tuning", "Let Jetwise find the thread count, or set it yourself.")
        self.auto = QRadioButton("Auto-tune: short calibration runs steered by the advisor until a setting passes")
        self.manual = QRadioButton("Manual: use this thread count and SluggishSessions")
        self.auto.setToolTip("Each calibration run is judged once latency has settled; the advisor picks the next setting")
        self.manual.setToolTip("Run one test at exactly this setting")
        group = QButtonGroup(self)
        group.addButton(self.auto)
        group.addButton(self.manual)
        (self.auto if state.auto_tune else self.manual).setChecked(True)
        self.auto.toggled.connect(self._on_auto_toggled)
        form = QFormLayout()
        self.add_field(form, "Thread count:", "thread_count", int, "threads",
                       "Concurrent sessions for the whole server, spread over the databases")
        form.addRow("", QLabel("More threads drive more IOPS, and more latency. At least one per database."))
        self.add_field(form, "SluggishSessions:", "sluggish_sessions", int, "",
                       "Each session issues at most 1/s of its unthrottled I/O; 1 = no pause")
        form.addRow("", QLabel("Fine-tunes between thread steps: 2 halves each thread's I/O, 3 makes it a third."))
        self.calibration = FieldEdit(str, "", "Longest calibration run (e.g. 3m)")
        self.calibration.set_value("3m")
        self.calibration.changed.connect(self.completeChanged)
        form.addRow("Calibration run (at most):", self.calibration)
        self.suggestion = QLabel()
        self.suggestion.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.auto)
        layout.addWidget(self.manual)
        layout.addLayout(form)
        layout.addWidget(self.suggestion)
        layout.addStretch(1)
        self.refresh()

    @property
    def calibration_s(self) -> float:
        return self.state.calibration_s

    def _on_auto_toggled(self) -> None:
        self.state.set_auto_tune(self.auto.isChecked())

    def page_problems(self) -> dict[str, str]:
        if self.state.auto_tune:
            return {}  # the advisor's setting replaces the fields, and it is valid by construction
        return super().page_problems()

    def refresh(self) -> None:
        auto = self.state.auto_tune
        wanted = self.auto if auto else self.manual
        if not wanted.isChecked():
            wanted.setChecked(True)
        for path in ("thread_count", "sluggish_sessions"):
            self.fields[path].setEnabled(not auto)
        self.calibration.setEnabled(auto)
        super().refresh()
        config = self.state.config()
        if config is None:
            return
        if auto:
            # the disabled fields show the setting the first calibration run uses; the
            # engineer's own values stay in the state for a return to Manual
            self.fields["thread_count"].set_value(config.thread_count, quiet=True)
            self.fields["sluggish_sessions"].set_value(config.sluggish_sessions, quiet=True)
        advice = self.state.first_advice()
        if advice is None:
            return
        first = "Advisor's starting point" if advice.status in ("start", "next") else "This session's answer"
        self.suggestion.setText(
            f"{first}: <b>{advice.threads} threads, SluggishSessions {advice.sluggish_sessions}</b> "
            f"({html.escape(advice.rationale)})."
        )

    def isComplete(self) -> bool:
        if self.state.auto_tune:
            try:
                self.state.calibration_s = parse_duration_s(self.calibration.text() or "3m")
            except ValueError as exc:
                self.calibration.set_error(str(exc))
                return False
            self.calibration.set_error(None)
            return True
        return super().isComplete()


# 4. Databases and logs ----------------------------------------------------------------------


class DatabasesPage(_Page):
    COLUMNS = ("Database path", "Log path", "Checks")

    def __init__(self, state: WizardState) -> None:
        super().__init__(state, "Databases and logs", "Where each database and its logs go. Every row is checked as you type.")
        self.count = QSpinBox()
        self.count.setRange(1, 256)
        self.count.setToolTip("Number of databases (ESE instances) on this server")
        self.copies = QSpinBox()
        self.copies.setRange(1, 16)
        self.copies.setToolTip("Copies per database: each extra copy reads the closed logs back, as replication does")
        self.source = QComboBox()
        self.source.addItem("Create new databases", "create")
        self.source.addItem("Attach existing Jetwise databases", "attach")
        self.source.setToolTip("Create (or resume) the databases, or attach ones a previous run created")
        self.db_pattern = QLineEdit()
        self.db_pattern.setPlaceholderText("F:\\DB{n}")
        self.db_pattern.setToolTip("A folder pattern; {n} becomes the database number")
        self.log_pattern = QLineEdit()
        self.log_pattern.setPlaceholderText("L:\\Log{n}")
        self.log_pattern.setToolTip("A folder pattern; {n} becomes the database number")
        fill = self.fill_button = QPushButton("Fill down")
        fill.setToolTip("Fill every row from the patterns")
        fill.clicked.connect(self._fill)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 220)
        self.table.setColumnWidth(1, 220)
        self.table.setWordWrap(True)
        self.table.itemChanged.connect(self._table_edited)
        browse_db = QPushButton("Browse database folder…")
        browse_log = QPushButton("Browse log folder…")
        browse_db.clicked.connect(lambda: self._browse(0))
        browse_log.clicked.connect(lambda: self._browse(1))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        top = QGridLayout()
        top.addWidget(QLabel("Databases:"), 0, 0)
        top.addWidget(self.count, 0, 1)
        top.addWidget(QLabel("Copies per database:"), 0, 2)
        top.addWidget(self.copies, 0, 3)
        top.addWidget(QLabel("Database source:"), 0, 4)
        top.addWidget(self.source, 0, 5)
        top.addWidget(QLabel("Database folders:"), 1, 0)
        top.addWidget(self.db_pattern, 1, 1, 1, 2)
        top.addWidget(QLabel("Log folders:"), 1, 3)
        top.addWidget(self.log_pattern, 1, 4)
        top.addWidget(fill, 1, 5)
        buttons = QHBoxLayout()
        buttons.addWidget(browse_db)
        buttons.addWidget(browse_log)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        self.row_messages: dict[int, list[tuple[str, str]]] = {}  # (text, "ok" | "warning" | "error")
        self._checks = QTimer(self)
        self._checks.setSingleShot(True)
        self._checks.setInterval(300)
        self._checks.timeout.connect(self.run_checks)
        self._filling = False
        self.count.valueChanged.connect(self._count_changed)
        self.copies.valueChanged.connect(lambda v: self.state.set("copies_per_database", v))
        self.source.currentIndexChanged.connect(self._on_source_changed)
        state.loaded.connect(self._load_rows)
        self._load_rows()

    def initializePage(self) -> None:
        self._load_rows()
        super().initializePage()

    def _load_rows(self) -> None:
        specs = self.state.data["databases"]
        self._filling = True
        self.count.setValue(len(specs))
        self.copies.setValue(int(self.state.data.get("copies_per_database", 1)))
        self.source.setCurrentIndex(0 if self.state.data.get("database_source", "create") == "create" else 1)
        self.table.setRowCount(len(specs))
        for row, spec in enumerate(specs):
            for column, key in enumerate(("database_path", "log_path")):
                item = QTableWidgetItem(spec[key])
                item.setToolTip("Folder for this database's file" if column == 0 else "Folder for this database's log files")
                self.table.setItem(row, column, item)
            checks = QTableWidgetItem("")
            checks.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.setItem(row, 2, checks)
        self._filling = False
        self._recheck()

    def _on_source_changed(self) -> None:
        """Attaching asks other things of each row (the database files must exist): check again."""
        if self._filling:
            return
        self.state.set("database_source", self.source.currentData())
        self._recheck()

    def _recheck(self) -> None:
        self._checks.start()
        self.completeChanged.emit()  # Next waits for the checks

    def _count_changed(self, count: int) -> None:
        if self._filling:
            return
        specs = list(self.state.data["databases"])
        base = Path(specs[-1]["database_path"]).parent if specs else self.state.base
        log_base = Path(specs[-1]["log_path"]).parent if specs else self.state.base
        while len(specs) < count:
            n = len(specs) + 1
            specs.append({"database_path": str(base / f"DB{n}"), "log_path": str(log_base / f"Log{n}")})
        del specs[count:]
        self.state.set_databases(specs)
        self._load_rows()

    def _fill(self) -> None:
        specs = [dict(s) for s in self.state.data["databases"]]
        for n, spec in enumerate(specs, start=1):
            if self.db_pattern.text().strip():
                spec["database_path"] = _expand(self.db_pattern.text().strip(), n, "DB")
            if self.log_pattern.text().strip():
                spec["log_path"] = _expand(self.log_pattern.text().strip(), n, "Log")
        self.state.set_databases(specs)
        self._load_rows()

    def _browse(self, column: int) -> None:
        row = max(0, self.table.currentRow())
        item = self.table.item(row, column)
        if item is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Choose a folder", item.text())
        if folder:
            item.setText(str(Path(folder)))

    def _table_edited(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() > 1:
            return
        specs = [dict(s) for s in self.state.data["databases"]]
        key = "database_path" if item.column() == 0 else "log_path"
        specs[item.row()][key] = item.text().strip()
        self.state.set_databases(specs)
        self._recheck()

    def run_checks(self) -> None:
        """The per-row checks: folder, writable, free space against need, shared volume, unbuffered I/O."""
        config = self.state.config()
        self.row_messages = {}
        if config is None:
            self._show_rows()
            self.completeChanged.emit()
            return
        attach = config.database_source == DatabaseSource.ATTACH
        problems, probes = check_environment(config, default_backend())
        devices: dict[int, list[int]] = {}
        for row, spec in enumerate(config.databases):
            messages: list[tuple[str, str]] = []
            for problem in problems:
                if problem.field.startswith(f"databases[{row}]."):
                    messages.append((problem.message, "error" if problem.severity == Severity.ERROR else "warning"))
            folder, _ = existing_folder(spec.database_path)
            if folder is not None:
                device = os.stat(folder).st_dev
                devices.setdefault(device, []).append(row)
                free = shutil.disk_usage(folder).free
                probe = probes.get(folder)
                if not any(kind == "error" for _m, kind in messages):
                    if attach:
                        where = f"attaches {database_file_path(spec.database_path, row).name}"
                    else:
                        where = "exists" if spec.database_path.is_dir() else "will be created"
                    unbuffered = "unbuffered I/O" if probe is not None and probe.representative else "buffered only"
                    messages.insert(0, (f"✓ {where}, writable, {unbuffered}; {format_bytes(free)} free for "
                                        f"{format_bytes(config.database_size_bytes)}", "ok"))
            self.row_messages[row] = messages
        for rows in devices.values():
            if len(rows) > 1:
                for row in rows:
                    others = ", ".join(str(r + 1) for r in rows if r != row)
                    self.row_messages[row].append((f"same volume as row {others}", "ok"))
        self._show_rows()
        self.completeChanged.emit()

    def _show_rows(self) -> None:
        self._filling = True
        for row in range(self.table.rowCount()):
            messages = self.row_messages.get(row, [])
            item = self.table.item(row, 2)
            if item is None:
                continue
            item.setText("; ".join(m for m, _kind in messages))
            kinds = {kind for _m, kind in messages}
            colour = "#b00020" if "error" in kinds else "#8a5a00" if "warning" in kinds else "#2e7d32"
            item.setForeground(QColor(colour))
            item.setToolTip("\n".join(m for m, _kind in messages))
        self.table.resizeRowsToContents()
        self._filling = False
        bad_rows = [row + 1 for row, m in self.row_messages.items() if any(kind == "error" for _t, kind in m)]
        if self.state.config() is None:
            # a field on another page is wrong: say which, or Next is disabled for no visible reason
            words = "; ".join(f"{field_label(p.field)}: {p.message}" for p in errors_only(self.state.problems()))
            self.summary.setText(f"<span style='{ERROR_STYLE}'>{html.escape(words or 'The configuration is not valid')} "
                                 "— correct it to check the rows.</span>")
        else:
            self.summary.setText(f"<span style='{ERROR_STYLE}'>Fix rows {', '.join(map(str, bad_rows))} to continue.</span>"
                                 if bad_rows else "")

    def isComplete(self) -> bool:
        if self.state.config() is None or self._checks.isActive():
            return False
        return not any(kind == "error" for messages in self.row_messages.values() for _m, kind in messages)


def _expand(pattern: str, n: int, leaf: str) -> str:
    if "{n}" in pattern:
        return pattern.replace("{n}", str(n))
    return str(Path(pattern) / f"{leaf}{n}")


# 5. Test type -------------------------------------------------------------------------------


class TestTypePage(_Page):
    __test__ = False

    def __init__(self, state: WizardState) -> None:
        super().__init__(state, "Test type", "What to run, for how long, and with what alongside.")
        strict = state.data["thresholds"]["strict"]
        lenient = state.data["thresholds"]["lenient"]
        self.performance = QRadioButton(
            f"Performance — Strict thresholds: database reads ≤ {strict['db_read_avg_latency_ms']:g} ms average, "
            f"≤ {strict['db_read_max_latency_ms']:g} ms maximum; log writes ≤ {strict['log_write_avg_latency_ms']:g} ms / "
            f"{strict['log_write_max_latency_ms']:g} ms")
        self.stress = QRadioButton(
            f"Stress — Lenient thresholds: maximum database read ≤ {lenient['db_read_max_latency_ms']:g} ms, "
            f"maximum log write ≤ {lenient['log_write_max_latency_ms']:g} ms (usually 24 h)")
        self.performance.setToolTip("The standard 2-hour test of the design load")
        self.stress.setToolTip("A long soak at the design load, judged against the Lenient thresholds")
        group = QButtonGroup(self)
        group.addButton(self.performance)
        group.addButton(self.stress)
        self.performance.toggled.connect(self._type)
        form = QFormLayout()
        self.duration = QComboBox()
        self.duration.setEditable(True)
        self.duration.addItems(DURATIONS)
        self.duration.setToolTip("Measured time: 2 h (Performance) or 24 h (Stress) as standard; shorter for tuning runs")
        self.duration_error = QLabel()
        self.duration_error.setStyleSheet(ERROR_STYLE)
        self.duration_error.setWordWrap(True)
        self.duration.currentTextChanged.connect(self._duration)
        form.addRow("Duration:", self.duration)
        form.addRow("", self.duration_error)
        self.warmup = QComboBox()
        self.warmup.setEditable(True)
        self.warmup.addItems(["1m", "5m", "10m"])
        self.warmup.setToolTip("Attaining prerequisites: the database cache fills before measuring")
        self.warmup_error = QLabel()
        self.warmup_error.setStyleSheet(ERROR_STYLE)
        self.warmup_error.setWordWrap(True)
        self.warmup.currentTextChanged.connect(self._warmup)
        form.addRow("Warm-up:", self.warmup)
        form.addRow("", self.warmup_error)
        self.maintenance = QCheckBox("Run background database maintenance (sequential reads beside the transactions)")
        self.maintenance.setToolTip("Paced 256 KB reads through each database, as Exchange does")
        self.maintenance.toggled.connect(lambda on: self.state.set("background_maintenance", on))
        self.continue_on_errors = QCheckBox("Continue despite I/O errors (they are still counted and reported)")
        self.continue_on_errors.setToolTip("Otherwise any I/O error stops and fails the test")
        self.continue_on_errors.toggled.connect(lambda on: self.state.set("continue_on_errors", on))
        layout = QVBoxLayout(self)
        layout.addWidget(self.performance)
        layout.addWidget(self.stress)
        layout.addLayout(form)
        layout.addWidget(self.maintenance)
        layout.addWidget(self.continue_on_errors)
        layout.addStretch(1)

    def initializePage(self) -> None:
        data = self.state.data
        (self.stress if data["test_type"] == TestType.STRESS.value else self.performance).setChecked(True)
        self.duration.setCurrentText(compact_duration(data["duration_s"]))
        self.warmup.setCurrentText(compact_duration(data["warmup_s"]))
        self.maintenance.setChecked(bool(data["background_maintenance"]))
        self.continue_on_errors.setChecked(bool(data["continue_on_errors"]))
        super().initializePage()

    def _type(self) -> None:
        self.state.set("test_type", TestType.PERFORMANCE.value if self.performance.isChecked() else TestType.STRESS.value)

    def _duration(self, text: str) -> None:
        try:
            self.state.set("duration_s", parse_duration_s(text))
            self.state.set_parse_error("duration_s", None)
        except ValueError as exc:
            self.state.set_parse_error("duration_s", str(exc))

    def _warmup(self, text: str) -> None:
        try:
            self.state.set("warmup_s", parse_duration_s(text, allow_zero=True))
            self.state.set_parse_error("warmup_s", None)
        except ValueError as exc:
            self.state.set_parse_error("warmup_s", str(exc))

    def timing_problems(self) -> dict[str, str]:
        """What is wrong with the duration and the warm-up: text that does not read, or a value the engine refuses."""
        messages: dict[str, str] = {}
        for path in ("duration_s", "warmup_s"):
            if path in self.state.parse_errors:
                messages[path] = self.state.parse_errors[path]
                continue
            for problem in errors_only(self.state.problems()):
                if problem.field == path:
                    messages[path] = _longest_words(path, self.state.data[path]) or problem.message
                    break
        return messages

    def refresh(self) -> None:
        messages = self.timing_problems()
        for path, label in (("duration_s", self.duration_error), ("warmup_s", self.warmup_error)):
            label.setText(messages.get(path, ""))
            label.setVisible(path in messages)
        super().refresh()

    def isComplete(self) -> bool:
        return not self.timing_problems()


def _longest_words(path: str, value: object) -> str | None:
    """A duration over the engine's bound in words ("at most 30 days"), not in seconds."""
    info = TestConfig.model_fields.get(path)
    if info is None or not isinstance(value, (int, float)):
        return None
    for bound in info.metadata:
        limit = getattr(bound, "le", None)
        if isinstance(limit, (int, float)) and value > limit:
            return f"must be at most {_duration_words(limit)} (got {_duration_words(value)})"
    return None


def _duration_words(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:g} days" if days >= 2 else compact_duration(seconds)


# 6. Review ----------------------------------------------------------------------------------


class ReviewPage(_Page):
    """Everything on one page, with every problem of the configuration that will run.

    The problems are the engine's own: its rules (errors and warnings) and the checks of
    the machine the Databases page runs. In auto-tune mode the configuration judged is
    the one the first calibration run uses: the advisor's starting setting, shaped as a
    calibration run. Start stays disabled while any error remains.
    """

    save_requested = Signal()

    def __init__(self, state: WizardState) -> None:
        super().__init__(state, "Review", "Everything on one page. Start runs the test; the configuration can be saved first.")
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.session = QLineEdit()
        self.session.setToolTip("The tuning session this run belongs to: one storage design, many runs")
        self.session.textChanged.connect(self._on_session_text_changed)
        state.session_changed.connect(self._on_state_session_changed)
        save = QPushButton("Save configuration…")
        save.setToolTip("Save this configuration as a Jetwise JSON file")
        save.clicked.connect(self.save_requested)
        row = QHBoxLayout()
        row.addWidget(QLabel("Tuning session:"))
        row.addWidget(self.session, 1)
        row.addWidget(save)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.status)
        layout.addLayout(row)
        self.setButtonText(QWizard.WizardButton.FinishButton, "Start")
        self.environment_problems: list[Problem] = []
        self._environment_of: str | None = None  # the configuration the machine's checks were made for
        self._checks = QTimer(self)
        self._checks.setSingleShot(True)
        self._checks.setInterval(300)
        self._checks.timeout.connect(self.run_environment_checks)

    def initializePage(self) -> None:
        if not self.state.session:
            volume = Path(self.state.data["databases"][0]["database_path"]).anchor or "disk"
            self.state.session = f"{self.state.data['profile']['mailboxes']} mailboxes on {volume}"
        self.session.setText(self.state.session)
        self.run_environment_checks()

    def _on_session_text_changed(self, text: str) -> None:
        self.state.session = text.strip()
        self.refresh()

    def _on_state_session_changed(self, name: str) -> None:
        if self.session.text().strip() != name:
            self.session.setText(name)

    def _is_current(self) -> bool:
        wizard = self.wizard()
        return wizard is not None and wizard.currentPage() is self

    def _environment_key(self) -> str | None:
        config = self.state.config()
        return None if config is None else config.model_dump_json()

    def run_environment_checks(self) -> None:
        """The checks of the machine (folders, free space, unbuffered I/O, existing files) for the configuration."""
        self._checks.stop()
        config = self.state.config()
        self.environment_problems = check_environment(config, default_backend())[0] if config is not None else []
        self._environment_of = self._environment_key()
        self.refresh()

    def review_problems(self) -> list[Problem]:
        """Every problem with what Start would run, errors first."""
        problems: list[Problem] = []
        for path, message in self.state.parse_errors.items():
            if not (self.state.auto_tune and path in THREAD_FIELDS):
                problems.append(Problem(path, message))
        config = self.state.config()
        if config is None:
            problems += [p for p in self.state.problems() if p.field not in self.state.parse_errors]
        else:
            problems += self.state.problems()
            if self.state.auto_tune:
                try:
                    shaped, _rule = calibration_rule(config, self.state.calibration_s)
                except ValidationError as exc:
                    problems += problems_from_validation_error(exc)
                else:
                    problems += [p for p in check_rules(shaped) if p not in problems]
            problems += self.environment_problems
        if not self.state.session:
            problems.append(Problem("session", "name the tuning session this run belongs to"))
        return sorted(problems, key=lambda p: p.severity != Severity.ERROR)

    def _checks_pending(self) -> bool:
        return self.state.config() is not None and self._environment_of != self._environment_key()

    def refresh(self) -> None:
        if self._checks_pending() and self._is_current():
            self._checks.start()
        problems = self.review_problems()
        errors = errors_only(problems)
        config = self.state.config()
        listed = problems_html(problems)
        if config is None:
            self.text.setHtml(f"<p style='{ERROR_STYLE}'>The configuration is not valid yet:</p>{listed}")
        else:
            self.text.setHtml(listed + review_html(config, self.state.auto_tune, self.state.calibration_s))
        if self._checks_pending():
            self.status.setText("Checking the database and log folders…")
        elif errors:
            self.status.setText(f"<span style='{ERROR_STYLE}'>{len(errors)} error(s) listed above must be corrected "
                                "before Start: Back leads to the page of each field.</span>")
        elif problems:
            self.status.setText(f"<span style='{WARNING_STYLE}'>{len(problems)} warning(s) listed above: "
                                "Start runs the test as it is.</span>")
        else:
            self.status.setText("")
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        if self.state.config() is None or self._checks_pending():
            return False
        return not errors_only(self.review_problems())


def problems_html(problems: list[Problem]) -> str:
    """The problems as a list: errors in red, warnings in amber, each with its field and page."""
    if not problems:
        return ""
    items = []
    for problem in problems:
        error = problem.severity == Severity.ERROR
        style = ERROR_STYLE if error else WARNING_STYLE
        where = field_label(problem.field)
        items.append(f"<li><span style='{style}'><b>{'Error' if error else 'Warning'}</b> — {html.escape(where)}: "
                     f"{html.escape(problem.message)}</span></li>")
    return f"<p><b>Before Start</b></p><ul>{''.join(items)}</ul>"


def review_html(config: TestConfig, auto_tune: bool, calibration_s: float) -> str:
    mix = config.operation_mix
    total = config.database_size_bytes * config.database_count
    create_s = total / CREATE_RATE_BYTES_PER_S
    rows = "".join(
        f"<tr><td>{config.instance_name(i)}</td><td>{s.database_path}</td><td>{s.log_path}</td></tr>"
        for i, s in enumerate(config.databases)
    )
    running = (f"calibration runs of at most {compact_duration(calibration_s)} each, usually 2 to 4 of them"
               if auto_tune else f"running: {compact_duration(config.warmup_s + config.duration_s)}")
    tuning = (f"Auto-tune (calibration runs until a setting passes), starting at {config.thread_count} threads, "
              f"SluggishSessions {config.sluggish_sessions}" if auto_tune
              else f"{config.thread_count} threads, SluggishSessions {config.sluggish_sessions}")
    return f"""
<h3>{config.test_type.value.capitalize()} test, {config.threshold_set_name} thresholds</h3>
<table cellpadding="3">
<tr><td><b>Target</b></td><td>{config.target_transactional_iops:,.1f} transactional IOPS
 ({config.profile.mailboxes:,} mailboxes × {config.profile.iops_per_mailbox:g} IOPS + {config.profile.headroom_percent:g} %)</td></tr>
<tr><td><b>Databases</b></td><td>{config.database_count} × {format_bytes(config.database_size_bytes)}
 ({format_bytes(total)}), {config.copies_per_database} cop{'y' if config.copies_per_database == 1 else 'ies'} each,
 {config.database_source.value}</td></tr>
<tr><td><b>Thread tuning</b></td><td>{tuning}</td></tr>
<tr><td><b>Operation mix</b></td><td>inserts {mix.insert_percent:g} %, deletes {mix.delete_percent:g} %,
 replaces {mix.replace_percent:g} %, reads {mix.read_percent:g} %, lazy commits {mix.lazy_commit_percent:g} %</td></tr>
<tr><td><b>Background maintenance</b></td><td>{'on' if config.background_maintenance else 'off'}</td></tr>
<tr><td><b>Duration</b></td><td>{compact_duration(config.warmup_s)} warm-up + {compact_duration(config.duration_s)} measured</td></tr>
<tr><td><b>Estimated time</b></td><td>creating the databases: about {compact_duration(max(1, round(create_s)))}
 (at {CREATE_RATE_BYTES_PER_S / 1e6:.0f} MB/s; existing Jetwise databases are reused);
 {running}</td></tr>
</table>
<h4>Databases</h4>
<table cellpadding="3" border="1" cellspacing="0"><tr><th>Instance</th><th>Database path</th><th>Log path</th></tr>{rows}</table>
"""


class TestWizard(QWizard):
    """The six pages; Start (Finish) hands the configuration to the main window."""

    __test__ = False

    def __init__(self, state: WizardState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setWindowTitle("New Jetwise test")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoCancelButton, True)
        self.welcome = WelcomePage(state)
        self.profile = ProfilePage(state)
        self.tuning = TuningPage(state)
        self.databases = DatabasesPage(state)
        self.test_type = TestTypePage(state)
        self.review = ReviewPage(state)
        for page_id, page in enumerate(
            (self.welcome, self.profile, self.tuning, self.databases, self.test_type, self.review)
        ):
            self.setPage(page_id, page)

    def load_config(self, config: TestConfig, session: str = "") -> None:
        """Fill the wizard from a configuration (a file, a dropped file) in Manual mode.

        A configuration file states a thread count and SluggishSessions, and loading it
        means the engineer chose that setting: the Thread tuning page opens in Manual with
        those values in its fields. Auto-tune stays one click away.
        """
        self.state.set_auto_tune(False)
        self.state.load(config, session)

    def restart_at(self, page_id: int) -> None:
        """Show page `page_id` as if the engineer had walked to it with Next from the Welcome page.

        The history is rebuilt, so Next and Back work as usual from there (jumping with
        setCurrentId would leave later pages in the history and Next would refuse to go
        on). Nothing entered is lost: every page shows the shared state, and the walk only
        initialises each page on the way, which also starts the Databases page's checks.
        """
        if page_id not in self.pageIds():
            raise ValueError(f"the wizard has no page {page_id}")
        self.restart()
        while self.currentId() != page_id:
            before = self.currentId()
            self.next()
            if self.currentId() == before:
                raise RuntimeError(f"the wizard cannot go on from page {before} to reach page {page_id}")
