"""The ESRP qualification as the wizard plans it: chosen or not, its two stage lengths, and whether Start resumes the
unfinished suite of this configuration. The draft holds the configuration every stage runs (its test type stays
Performance); this holds what only the suite has."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from engine.model.config import TestConfig
from engine.results.suite import PERFORMANCE_S, STRESS_S
from engine.run.suite import FoundSuite


class SuitePlan(QObject):
    """What Start runs when the ESRP qualification is chosen on the Test type page."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.chosen = False
        self.performance_s = PERFORMANCE_S
        self.stress_s = STRESS_S
        self.resume = True  # resume the unfinished suite of this configuration, when there is one
        self.suites: list[FoundSuite] = []  # the unfinished suites in the runs folder, as last looked up

    def choose(self, chosen: bool) -> None:
        if chosen != self.chosen:
            self.chosen = chosen
            self.changed.emit()

    def set_lengths(self, performance_s: float, stress_s: float) -> None:
        if (performance_s, stress_s) != (self.performance_s, self.stress_s):
            self.performance_s, self.stress_s = performance_s, stress_s
            self.changed.emit()

    def set_resume(self, resume: bool) -> None:
        if resume != self.resume:
            self.resume = resume
            self.changed.emit()

    def set_suites(self, suites: list[FoundSuite]) -> None:
        self.suites = suites
        self.changed.emit()

    def unfinished(self, config: TestConfig | None) -> FoundSuite | None:
        """The latest unfinished suite of `config` with these lengths: the one Start can resume."""
        if config is None or not self.chosen:
            return None
        return next((s for s in self.suites if s.of(config, self.performance_s, self.stress_s)), None)

    def resuming(self, config: TestConfig | None) -> FoundSuite | None:
        """The suite Start resumes: the unfinished one of `config`, unless the engineer asked for a new one."""
        return self.unfinished(config) if self.resume else None
