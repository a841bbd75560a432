"""The ESRP qualification's stage above the running test: "Stage 2 of 5: Stress", and each of the five tests with its
verdict so far, the one running marked."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout

from engine.results.suite import STAGES, SuiteRecord
from ui.scans import type_words
from ui.suite import NOT_RUN, lengths_words, stage_title, stage_verdict
from ui.widgets.style import NOTE_BACKGROUND, laid_out, larger_font, tipped, verdict_colour

MARKS = {"pass": "✓", "fail": "✗", "aborted": "■"}


class SuiteProgress(QFrame):
    """Where the suite is: its stage in large type, then the five tests in order, each with its verdict so far."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("suite")
        self.setStyleSheet(f"QFrame#suite {{ background: {NOTE_BACKGROUND}; }}")
        self.title = QLabel()
        self.title.setFont(larger_font(6))
        self.where = QLabel(wordWrap=True)
        self.stages = [tipped(QLabel(f"{number + 1}. {type_words(kind)}"), "Its verdict once it ends; the tests after "
                              "it wait for it") for number, kind in enumerate(STAGES)]
        row = laid_out(QHBoxLayout(), *self.stages, 1)
        row.setSpacing(24)
        laid_out(QVBoxLayout(self), self.title, row, self.where)
        self.hide()

    def show_stage(self, record: SuiteRecord | None, stage: int | None) -> None:
        """The suite's stage `stage` running (numbered from 0); no record: no suite, nothing shown."""
        self.setVisible(record is not None and stage is not None)
        if record is None or stage is None:
            return
        self.title.setText(stage_title(stage, record.stages[stage]))
        for number, (label, kept) in enumerate(zip(self.stages, record.stages, strict=True)):
            name = f"{number + 1}. {type_words(kept.test_type)}"
            verdict = stage_verdict(kept)
            if number == stage:
                label.setText(f"▶ {name}: running")
                label.setStyleSheet("font-weight: bold;")
            elif number > stage or verdict == NOT_RUN:
                label.setText(f"{name}: waiting")
                label.setStyleSheet("")
            else:
                label.setText(f"{MARKS.get(verdict, '')} {name}: {verdict.upper()}")
                label.setStyleSheet(f"color: {verdict_colour(verdict)}; font-weight: bold;")
        self.where.setText(f"{record.title}: {lengths_words(record.performance_s, record.stress_s)}. Each test is "
                           "kept as a run of its own; Stop ends the suite after the test running, and it can be "
                           "resumed from there.")
