"""Page 5, Test type: what to run, for how long, with what alongside, and the settings most tests leave alone."""

from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QFormLayout, QLabel, QRadioButton, QVBoxLayout, QWidget

from engine.model.config import SCAN_TEST_TYPES, TestConfig, TestType
from engine.model.options import option
from engine.model.units import compact_duration
from engine.model.validation import Problem, Severity
from ui.widgets.fields import DurationChoice, FolderField, tooltip_of, zero_allowed
from ui.widgets.style import NOTE_BACKGROUND
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.more_settings import more_settings
from ui.wizard.scan_options import KINDS, SCAN_NOTE, applies, backup_folder_problems, kind_label, kind_of, recovery_note
from ui.wizard.services import MachineCheck
from ui.workers import BackgroundCheck

PRESETS = {"duration_s": ["15m", "30m", "2h", "24h"], "warmup_s": ["1m", "5m", "10m"]}


class TestTypePage(WizardPage):
    __test__ = False

    NAME = "test_type"
    TITLE = "Test type"
    SUBTITLE = "What to run, for how long, and with what alongside."
    OPTIONS = ("test_type", "duration_s", "warmup_s", "background_maintenance", "continue_on_errors",
               "checksum_read_kib", "backup_read_kib", "backup_path", "log_files_to_replay", "replay_limit_s")

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        group = self.kinds = QButtonGroup(self)
        self.buttons: dict[TestType, QRadioButton] = {}
        kinds = QWidget()
        column = QVBoxLayout(kinds)
        column.setContentsMargins(0, 0, 0, 0)
        for kind, _line, tip in KINDS:
            button = self.buttons[kind] = QRadioButton(kind_label(kind, self.state.data["thresholds"]))
            button.setToolTip(tip)
            group.addButton(button)
            column.addWidget(button)
            button.toggled.connect(lambda on, chosen=kind: self._choose(chosen) if on else None)
        self.performance = self.buttons[TestType.PERFORMANCE]
        self.checksum, self.backup = self.buttons[TestType.DATABASE_CHECKSUM], self.buttons[TestType.DATABASE_BACKUP]
        self.recovery = self.buttons[TestType.SOFT_RECOVERY]
        self.editors["test_type"] = kinds
        form = self.form = QFormLayout()
        durations = {}
        for path in ("duration_s", "warmup_s"):
            found = option(path)
            field = DurationChoice(PRESETS[path], tooltip_of(found), allow_zero=zero_allowed(found))
            form.addRow(f"{found.label}:", self.bind(path, field))
            durations[path] = field
        self.duration, self.duration_error = durations["duration_s"].combo, durations["duration_s"].error
        self.warmup, self.warmup_error = durations["warmup_s"].combo, durations["warmup_s"].error
        for path in ("background_maintenance", "continue_on_errors", "checksum_read_kib", "backup_read_kib"):
            self.add_field(form, path)
        folder = option("backup_path")
        self.backup_folder = FolderField(tooltip_of(folder), folder.default_words)
        form.addRow(f"{folder.label}:", self.bind("backup_path", self.backup_folder))
        self.add_field(form, "log_files_to_replay")
        self.add_field(form, "replay_limit_s").unit.setText("s per log file")
        self.scan_note = _note(SCAN_NOTE)
        self.recovery_note = _note(recovery_note(None))
        self.more = more_settings(self, context.more_settings)
        layout = QVBoxLayout(self)
        layout.addWidget(kinds)
        layout.addWidget(self.scan_note)
        layout.addWidget(self.recovery_note)
        layout.addLayout(form)
        layout.addWidget(self.more)
        layout.addStretch(1)
        self.folder_checks = BackgroundCheck(lambda config: context.services.check_machine(config), self)
        self.folder_checks.finished.connect(self.refresh)
        self._auto_held = False  # auto-tune was on when a Soft recovery was chosen: another test gets it back
        self.state.loaded.connect(self._on_state_loaded)

    def _choose(self, kind: TestType) -> None:
        """The test chosen. A Soft recovery runs at the thread count set by hand, never auto-tuned: choosing it turns
        Manual on, and choosing another test after it turns auto-tune back on if it was."""
        if kind == TestType.SOFT_RECOVERY and self.state.auto_tune:
            self._auto_held = True
            self.state.set_auto_tune(False)
        elif kind != TestType.SOFT_RECOVERY and self._auto_held:
            self._auto_held = False
            self.state.set_auto_tune(True)
        self.state.set("test_type", kind.value)

    def _on_state_loaded(self) -> None:
        self._auto_held = False  # a loaded configuration states its own setting and runs in Manual

    def load(self) -> None:
        kind = kind_of(self.state.data)
        if kind in self.buttons:
            self.buttons[kind].setChecked(True)
        super().load()

    def check(self) -> dict[str, str]:
        messages = super().check()
        for path in ("duration_s", "warmup_s"):
            if path in messages and path not in self.state.parse_errors:
                messages[path] = _longest_words(path, self.state.data[path]) or messages[path]
        for problem in backup_folder_problems(self.state.data) + self._folder_problems():
            messages.setdefault(problem.field, problem.message)
        return messages

    def _folder_problems(self) -> list[Problem]:
        """The machine's errors with the backup folder, once its checks of the configuration as it is are in."""
        config = self.state.config()
        wanted = _backup_check_key(config)
        answer = self.folder_checks.answer
        if wanted is None or not self.folder_checks.holds(wanted) or not isinstance(answer, MachineCheck):
            return []
        return [p for p in answer.problems if p.field == "backup_path" and p.severity == Severity.ERROR]

    def refresh(self) -> None:
        key = _backup_check_key(self.state.config())
        if not backup_folder_problems(self.state.data):
            self.folder_checks.want(key, self.state.config())
        super().refresh()
        messages = self.check()
        chosen = kind_of(self.state.data)
        for path in self.OPTIONS[1:]:  # a value that does not apply stays in view while it is wrong
            self.form.setRowVisible(self.fields[path], applies(path, chosen) or path in messages)
        self.scan_note.setVisible(chosen in SCAN_TEST_TYPES)
        self.recovery_note.setText(recovery_note(self.state.data.get("log_files_to_replay")))
        self.recovery_note.setVisible(chosen == TestType.SOFT_RECOVERY)
        if any(path in messages for path in self.fields if path not in self.OPTIONS):
            self.more.expand()  # a setting in the closed section keeps Next disabled: show why


def _note(text: str) -> QLabel:
    """A note on what the chosen test does with the page's settings, hidden until that test is chosen."""
    note = QLabel(text)
    note.setWordWrap(True)
    note.setStyleSheet(f"QLabel {{ background: {NOTE_BACKGROUND}; padding: 6px; }}")
    note.hide()
    return note


def _backup_check_key(config: TestConfig | None) -> str | None:
    """What the backup folder's checks are about: the whole configuration of a backup to a folder, or nothing."""
    if config is None or config.test_type != TestType.DATABASE_BACKUP or config.backup_path is None:
        return None
    return config.model_dump_json()


def _longest_words(path: str, value: object) -> str | None:
    """A duration over the engine's bound in words ("at most 30 days"), not in seconds."""
    limit = option(path).maximum
    if limit is not None and isinstance(value, int | float) and value > limit:
        return f"must be at most {_duration_words(limit)} (got {_duration_words(value)})"
    return None


def _duration_words(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:g} days" if days >= 2 else compact_duration(seconds)
