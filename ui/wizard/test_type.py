"""Page 5, Test type: what to run, for how long, with what alongside, and the settings most tests leave alone."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QButtonGroup, QFormLayout, QLabel, QRadioButton, QVBoxLayout, QWidget

from engine.model.config import SCAN_TEST_TYPES, TestConfig, TestType
from engine.model.options import option
from engine.model.units import compact_duration
from engine.model.validation import Problem, Severity
from ui.widgets.fields import DurationChoice, FolderField, tooltip_of, zero_allowed
from ui.widgets.style import ERROR_STYLE, NOTE_BACKGROUND
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.more_settings import more_settings
from ui.wizard.scan_options import KINDS, SCAN_NOTE, applies, backup_folder_problems, kind_label, kind_of
from ui.wizard.services import MachineCheck
from ui.workers import BackgroundCheck

PRESETS = {"duration_s": ["15m", "30m", "2h", "24h"], "warmup_s": ["1m", "5m", "10m"]}


class TestTypePage(WizardPage):
    __test__ = False

    NAME = "test_type"
    TITLE = "Test type"
    SUBTITLE = "What to run, for how long, and with what alongside."
    OPTIONS = ("test_type", "duration_s", "warmup_s", "background_maintenance", "continue_on_errors",
               "checksum_read_kib", "backup_read_kib", "backup_path")

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
            button.toggled.connect(lambda on, chosen=kind: on and self.state.set("test_type", chosen.value))
        self.performance, self.stress = self.buttons[TestType.PERFORMANCE], self.buttons[TestType.STRESS]
        self.checksum, self.backup = self.buttons[TestType.DATABASE_CHECKSUM], self.buttons[TestType.DATABASE_BACKUP]
        self.kind_error = QLabel()
        self.kind_error.setStyleSheet(ERROR_STYLE)
        self.kind_error.setWordWrap(True)
        self.kind_error.hide()
        column.addWidget(self.kind_error)
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
        self.scan_note = QLabel(SCAN_NOTE)
        self.scan_note.setWordWrap(True)
        self.scan_note.setStyleSheet(f"QLabel {{ background: {NOTE_BACKGROUND}; padding: 6px; }}")
        self.scan_note.hide()
        self.more = more_settings(self, context.more_settings)
        layout = QVBoxLayout(self)
        layout.addWidget(kinds)
        layout.addWidget(self.scan_note)
        layout.addLayout(form)
        layout.addWidget(self.more)
        layout.addStretch(1)
        self.folder_checks = BackgroundCheck(lambda config: context.services.check_machine(config), self)
        self.folder_checks.finished.connect(self.refresh)

    def load(self) -> None:
        kind = kind_of(self.state.data)
        if kind in self.buttons:
            self.buttons[kind].setChecked(True)
        else:  # a type a file named that this version cannot run: none is chosen until one is
            self.kinds.setExclusive(False)
            for button in self.buttons.values():
                with QSignalBlocker(button):
                    button.setChecked(False)
            self.kinds.setExclusive(True)
        super().load()

    def check(self) -> dict[str, str]:
        messages = super().check()
        kind = next((p.message for p in self.state.problems() if p.field == "test_type" and p.severity == Severity.ERROR), None)
        if kind is not None:
            messages["test_type"] = kind
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
        kind = messages.get("test_type")
        self.kind_error.setText(kind or "")
        self.kind_error.setVisible(kind is not None)
        chosen = kind_of(self.state.data)
        for path in self.OPTIONS[1:]:  # a value that does not apply stays in view while it is wrong
            self.form.setRowVisible(self.fields[path], applies(path, chosen) or path in messages)
        self.scan_note.setVisible(chosen in SCAN_TEST_TYPES)
        if any(path in messages for path in self.fields if path not in self.OPTIONS):
            self.more.expand()  # a setting in the closed section keeps Next disabled: show why


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
