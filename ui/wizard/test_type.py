"""Page 6, Test type: what to run (one test, or the ESRP qualification's five), for how long, with what alongside, and
the settings most tests leave alone."""

from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QFormLayout, QRadioButton, QVBoxLayout, QWidget

from engine.model.config import SCAN_TEST_TYPES, TestConfig, TestType
from engine.model.options import option
from engine.model.units import compact_duration
from engine.model.validation import Problem, Severity
from ui.widgets.fields import DurationChoice, FolderField, bounds_problem, tooltip_of, zero_allowed
from ui.widgets.fitting import WrappingRadioButton, scrolled_body
from ui.widgets.style import NOTE_STYLE, WARNING_STYLE, laid_out, tipped, wrapped
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.more_settings import more_settings
from ui.wizard.scan_options import KINDS, SCAN_NOTE, applies, backup_folder_problems, kind_label, kind_of, recovery_note
from ui.wizard.services import MachineCheck
from ui.wizard.suite_options import LABEL, LENGTHS, TOOLTIP, length_field, note
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
        self._choosing = False
        group = self.kinds = QButtonGroup(self)
        self.buttons: dict[TestType, QRadioButton] = {}
        kinds = QWidget()
        column = QVBoxLayout(kinds)
        column.setContentsMargins(0, 0, 0, 0)
        for kind, _line, tip in KINDS:
            button = self.buttons[kind] = tipped(WrappingRadioButton(kind_label(kind, self.state.data["thresholds"])), tip)
            group.addButton(button)
            column.addWidget(button)
            button.toggled.connect(lambda on, chosen=kind: self._choose(chosen) if on else None)
        self.esrp = tipped(WrappingRadioButton(LABEL), TOOLTIP)
        group.addButton(self.esrp)
        column.addWidget(self.esrp)
        self.esrp.toggled.connect(lambda on: self._choose(None) if on else None)
        self.performance = self.buttons[TestType.PERFORMANCE]
        self.checksum, self.backup = self.buttons[TestType.DATABASE_CHECKSUM], self.buttons[TestType.DATABASE_BACKUP]
        self.recovery = self.buttons[TestType.SOFT_RECOVERY]
        self.editors["test_type"] = kinds
        form = self.form = QFormLayout()
        duration = self._duration_field(form, "duration_s")
        self.duration = duration.combo
        self.lengths: dict[str, DurationChoice] = {}  # the ESRP qualification's, in the duration's place
        for key, (label, _published, _presets) in LENGTHS.items():
            length = self.lengths[key] = length_field(key)
            length.changed.connect(self._on_length_changed)
            form.addRow(f"{label}:", length)
        warmup = self._duration_field(form, "warmup_s")
        self.warmup = warmup.combo
        for path in ("background_maintenance", "continue_on_errors", "checksum_read_kib", "backup_read_kib"):
            self.add_field(form, path)
        folder = option("backup_path")
        self.backup_folder = FolderField(tooltip_of(folder), folder.default_words)
        form.addRow(f"{folder.label}:", self.bind("backup_path", self.backup_folder))
        self.add_field(form, "log_files_to_replay")
        self.add_field(form, "replay_limit_s").unit.setText("s per log file")
        # a note on what the chosen test does with the page's settings, hidden until that test is chosen
        self.scan_note = wrapped(SCAN_NOTE, style=NOTE_STYLE, hidden=True)
        self.recovery_note = wrapped(recovery_note(None), style=NOTE_STYLE, hidden=True)
        self.suite_note = wrapped(note(self.suite.performance_s, self.suite.stress_s), style=NOTE_STYLE, hidden=True)
        self.window_note = wrapped(hidden=True)  # a duration shorter than a verdict needs: said under the length
        self.more = more_settings(self, context.more_settings)
        layout, _page = scrolled_body(self)  # More settings open is taller than a small screen
        laid_out(layout, kinds, self.scan_note, self.recovery_note, self.suite_note, form, self.window_note, self.more, 1)
        self.folder_checks = BackgroundCheck(lambda config: context.services.check_machine(config), self)
        self.folder_checks.finished.connect(self.refresh)
        self._auto_held = False  # auto-tune was on when a Soft recovery was chosen: another test gets it back
        self.state.loaded.connect(self._on_state_loaded)

    def _duration_field(self, form: QFormLayout, path: str) -> DurationChoice:
        found = option(path)
        field = DurationChoice(PRESETS[path], tooltip_of(found), allow_zero=zero_allowed(found))
        form.addRow(f"{found.label}:", self.bind(path, field))
        return field

    def _choose(self, kind: TestType | None) -> None:
        """The test chosen, or (None) the ESRP qualification, which runs its tests on the draft's configuration as a
        Performance test's. A Soft recovery, and so the qualification, runs at the thread count set by hand, never
        auto-tuned: choosing it turns Manual on, and choosing another test after it turns auto-tune back on if it was."""
        by_hand = kind in (TestType.SOFT_RECOVERY, None)
        self._choosing = True  # the draft and the plan are told one after the other: the buttons keep the choice
        try:
            if by_hand and self.state.auto_tune:
                self._auto_held = True
                self.state.set_auto_tune(False)
            elif not by_hand and self._auto_held:
                self._auto_held = False
                self.state.set_auto_tune(True)
            self.suite.choose(kind is None)
            self.state.set("test_type", (kind or TestType.PERFORMANCE).value)
        finally:
            self._choosing = False

    def _on_state_loaded(self) -> None:
        self._auto_held = False  # a loaded configuration states its own setting and runs in Manual
        self.suite.choose(False)  # and its own test type

    def _on_length_changed(self) -> None:
        performance, stress = (self._length(field) for field in self.lengths.values())
        if performance is not None and stress is not None:
            self.suite.set_lengths(performance, stress)
        self.refresh()

    def _length(self, field: DurationChoice) -> float | None:
        ok, value = field.parsed()
        return value if ok and isinstance(value, float) and self._length_problem(value) is None else None

    def load(self) -> None:
        kind = kind_of(self.state.data)
        if self._choosing:
            pass
        elif self.suite.chosen:
            self.esrp.setChecked(True)
        elif kind in self.buttons:
            self.buttons[kind].setChecked(True)
        super().load()

    def check(self) -> dict[str, str]:
        messages = super().check()
        for path in ("duration_s", "warmup_s"):
            if path in messages and path not in self.state.parse_errors:
                messages[path] = _longest_words(path, self.state.data[path]) or messages[path]
        for problem in backup_folder_problems(self.state.data, self.suite.chosen) + self._folder_problems():
            messages.setdefault(problem.field, problem.message)
        if self.suite.chosen:
            for key, field in self.lengths.items():
                ok, value = field.parsed()
                wrong = self._length_problem(value) if ok and isinstance(value, float) else str(value)
                if wrong is not None:
                    messages[key] = wrong
        return messages

    @staticmethod
    def _length_problem(value: float) -> str | None:
        return _longest_words("duration_s", value) or bounds_problem(option("duration_s"), value)

    def _folder_problems(self) -> list[Problem]:
        """The machine's errors with the backup folder, once its checks of the configuration as it is are in."""
        config = self._backup_config()
        wanted = _backup_check_key(config)
        answer = self.folder_checks.answer
        if wanted is None or not self.folder_checks.holds(wanted) or not isinstance(answer, MachineCheck):
            return []
        return [p for p in answer.problems if p.field == "backup_path" and p.severity == Severity.ERROR]

    def _backup_config(self) -> TestConfig | None:
        """The configuration whose backup folder is checked: the test planned's, or the suite's Database backup's."""
        config = self.state.config()
        if config is not None and self.suite.chosen:
            return config.model_copy(update={"test_type": TestType.DATABASE_BACKUP})
        return config

    def refresh(self) -> None:
        config = self._backup_config()
        if not backup_folder_problems(self.state.data, self.suite.chosen):
            self.folder_checks.want(_backup_check_key(config), config)
        super().refresh()
        messages = self.check()
        chosen, suite = kind_of(self.state.data), self.suite.chosen
        for path in self.OPTIONS[1:]:  # a value that does not apply stays in view while it is wrong
            self.form.setRowVisible(self.fields[path], applies(path, chosen, suite) or path in messages)
        for key, field in self.lengths.items():
            self.form.setRowVisible(field, suite)
            field.set_error(messages.get(key))
        self.scan_note.setVisible(chosen in SCAN_TEST_TYPES and not suite)
        self.recovery_note.setText(recovery_note(self.state.data.get("log_files_to_replay")))
        self.recovery_note.setVisible(chosen == TestType.SOFT_RECOVERY and not suite)
        self.suite_note.setText(note(self.suite.performance_s, self.suite.stress_s))
        self.suite_note.setVisible(suite)
        short = [p.message for p in self.state.problems() if p.field == "duration_s" and p.severity == Severity.WARNING]
        self.window_note.setText("".join(f"<span style='{WARNING_STYLE}'>Duration: {m}.</span>" for m in short))
        self.window_note.setVisible(bool(short) and not suite and "duration_s" not in messages)
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
