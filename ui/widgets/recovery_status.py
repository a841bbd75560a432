"""A running Soft Recovery's status in large type: how far the log generation, then the replay, got, and the time left.

The log generation runs the transactional load, so the live plots and the running verdict show it
as they show a Performance test; this says how many log files are written. The replay has no
samples: its progress and time left are all the run view shows of it until the result is in.
"""

from __future__ import annotations

import time

from PySide6.QtWidgets import QWidget

from engine.model.config import TestConfig
from engine.model.units import format_duration
from engine.protocol import ProgressEvent
from engine.results.recovery_schema import RecoveryResult
from engine.results.schema import Outcome
from ui.recovery import RecoveryProgress, average_words, files_words, over_limit
from ui.widgets.scan_status import status_lines
from ui.widgets.style import FAIL_STYLE, PASS_STYLE


class RecoveryStatus(QWidget):
    """"42 % · about 0:12 left", and "5 of 12 log files generated (6 per instance); …" beneath."""

    def __init__(self) -> None:
        super().__init__()
        self.figures, self.files = status_lines(
            self, "How much of the log files are generated (then replayed), and the time left at the rate so far",
            "Log files of 1 MiB, over every instance")
        self.progress: RecoveryProgress | None = None

    def reset(self, config: TestConfig) -> None:
        self.progress = RecoveryProgress(config)
        self.figures.setText("Waiting for the load to start…")
        self.files.setText("")
        self.files.setStyleSheet("")

    def begin_phase(self, replaying: bool) -> None:
        """The log generation (or the replay) began."""
        if self.progress is None:
            return
        self.progress.begin(replaying, time.monotonic())
        self.figures.setText("0 %")
        self.files.setText(self.progress.words()[1])

    def add_progress(self, event: ProgressEvent) -> float | None:
        """The engine's count of log bytes generated or replayed; the share of the phase done, None if not counted."""
        progress = self.progress
        if progress is None or not progress.add(event.done_bytes, event.total_bytes, time.monotonic()):
            return None
        figures, files = progress.words()
        self.figures.setText(figures)
        self.files.setText(files)
        return progress.share

    def clock_words(self) -> str:
        """"replaying: 0:02 elapsed"."""
        progress = self.progress
        if progress is None or not progress.began_s:
            return ""
        doing = "replaying" if progress.replaying else "generating log files"
        return f"{doing}: {format_duration(time.monotonic() - progress.began_s)} elapsed"

    def finish(self, recovery: RecoveryResult, outcome: Outcome) -> None:
        """Each instance's replay, once the result is in."""
        complete = all(r.complete for r in recovery.instances)
        errors = sum(r.errors for r in recovery.instances)
        if outcome == Outcome.ABORTED:
            stage = "replaying" if self.progress is not None and self.progress.replaying else "generating log files"
            head = f"Stopped while {stage}"
        else:
            head = "Done" if complete else "Ended"
        self.figures.setText(f"{head} · {average_words(recovery)}")
        self.files.setText(files_words(recovery))
        self.files.setStyleSheet(FAIL_STYLE if errors or over_limit(recovery) or (outcome == Outcome.FAIL and not complete)
                                 else PASS_STYLE if complete else "")
