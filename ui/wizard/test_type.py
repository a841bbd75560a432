"""Page 5, Test type: what to run, for how long, with what alongside, and the settings most tests leave alone."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QButtonGroup, QFormLayout, QLabel, QRadioButton, QVBoxLayout, QWidget

from engine.model.config import TestType
from engine.model.options import option
from engine.model.units import compact_duration
from engine.model.validation import Severity
from ui.widgets.fields import DurationChoice, tooltip_of, zero_allowed
from ui.widgets.style import ERROR_STYLE
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.more_settings import more_settings

PRESETS = {"duration_s": ["15m", "30m", "2h", "24h"], "warmup_s": ["1m", "5m", "10m"]}


class TestTypePage(WizardPage):
    __test__ = False

    NAME = "test_type"
    TITLE = "Test type"
    SUBTITLE = "What to run, for how long, and with what alongside."
    OPTIONS = ("test_type", "duration_s", "warmup_s", "background_maintenance", "continue_on_errors")

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        strict = self.state.data["thresholds"]["strict"]
        lenient = self.state.data["thresholds"]["lenient"]
        self.performance = QRadioButton(
            f"Performance — Strict thresholds: database reads ≤ {strict['db_read_avg_latency_ms']:g} ms average, "
            f"≤ {strict['db_read_max_latency_ms']:g} ms maximum; log writes ≤ {strict['log_write_avg_latency_ms']:g} ms / "
            f"{strict['log_write_max_latency_ms']:g} ms")
        self.stress = QRadioButton(
            f"Stress — Lenient thresholds: maximum database read ≤ {lenient['db_read_max_latency_ms']:g} ms, "
            f"maximum log write ≤ {lenient['log_write_max_latency_ms']:g} ms (usually 24 h)")
        self.performance.setToolTip("The standard 2-hour test of the design load")
        self.stress.setToolTip("A long soak at the design load, judged against the Lenient thresholds")
        group = self.kinds = QButtonGroup(self)
        group.addButton(self.performance)
        group.addButton(self.stress)
        self.performance.toggled.connect(self._on_performance_toggled)
        self.kind_error = QLabel()
        self.kind_error.setStyleSheet(ERROR_STYLE)
        self.kind_error.setWordWrap(True)
        self.kind_error.hide()
        kinds = QWidget()
        column = QVBoxLayout(kinds)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.performance)
        column.addWidget(self.stress)
        column.addWidget(self.kind_error)
        self.editors["test_type"] = kinds
        form = QFormLayout()
        durations = {}
        for path in ("duration_s", "warmup_s"):
            found = option(path)
            field = DurationChoice(PRESETS[path], tooltip_of(found), allow_zero=zero_allowed(found))
            form.addRow(f"{found.label}:", self.bind(path, field))
            durations[path] = field
        self.duration, self.duration_error = durations["duration_s"].combo, durations["duration_s"].error
        self.warmup, self.warmup_error = durations["warmup_s"].combo, durations["warmup_s"].error
        for path in ("background_maintenance", "continue_on_errors"):
            self.add_field(form, path)
        self.more = more_settings(self, context.more_settings)
        layout = QVBoxLayout(self)
        layout.addWidget(kinds)
        layout.addLayout(form)
        layout.addWidget(self.more)
        layout.addStretch(1)

    def load(self) -> None:
        kind = self.state.data["test_type"]
        if kind in (TestType.PERFORMANCE.value, TestType.STRESS.value):
            (self.stress if kind == TestType.STRESS.value else self.performance).setChecked(True)
        else:  # a type a file named that this version cannot run: neither is chosen until one is
            self.kinds.setExclusive(False)
            for button in (self.performance, self.stress):
                with QSignalBlocker(button):
                    button.setChecked(False)
            self.kinds.setExclusive(True)
        super().load()

    def _on_performance_toggled(self) -> None:
        self.state.set("test_type", TestType.PERFORMANCE.value if self.performance.isChecked() else TestType.STRESS.value)

    def check(self) -> dict[str, str]:
        messages = super().check()
        kind = next((p.message for p in self.state.problems() if p.field == "test_type" and p.severity == Severity.ERROR), None)
        if kind is not None:
            messages["test_type"] = kind
        for path in ("duration_s", "warmup_s"):
            if path in messages and path not in self.state.parse_errors:
                messages[path] = _longest_words(path, self.state.data[path]) or messages[path]
        return messages

    def refresh(self) -> None:
        super().refresh()
        kind = self.check().get("test_type")
        self.kind_error.setText(kind or "")
        self.kind_error.setVisible(kind is not None)
        if any(path in self.check() for path in self.fields if path not in self.OPTIONS):
            self.more.expand()  # a setting in the closed section keeps Next disabled: show why


def _longest_words(path: str, value: object) -> str | None:
    """A duration over the engine's bound in words ("at most 30 days"), not in seconds."""
    limit = option(path).maximum
    if limit is not None and isinstance(value, int | float) and value > limit:
        return f"must be at most {_duration_words(limit)} (got {_duration_words(value)})"
    return None


def _duration_words(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:g} days" if days >= 2 else compact_duration(seconds)
