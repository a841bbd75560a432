"""Page 3, Thread tuning: auto-tune (the advisor picks the setting) or a thread count set by hand.

A scan has no thread count at all. A Soft recovery runs its load at the setting given here: it
is never auto-tuned (choosing it on the Test type page turns Manual on), so Auto-tune is
offered again only for another test. So does the ESRP qualification, every test of it.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QButtonGroup, QFormLayout, QLabel, QRadioButton, QVBoxLayout

from engine.model.config import SCAN_TEST_TYPES, TestType
from engine.model.units import compact_duration, parse_duration_s
from engine.tuning.tuner import shortest_calibration_s
from ui.scans import type_words
from ui.suite import TITLE as SUITE_TITLE
from ui.widgets.fields import FieldEdit
from ui.widgets.style import NOTE_STYLE, laid_out, tipped, wrapped
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.scan_options import kind_of


class TuningPage(WizardPage):
    NAME = "tuning"
    TITLE = "Thread tuning"
    SUBTITLE = "Let Jetwise find the thread count, or set it yourself."
    OPTIONS = ("thread_count", "sluggish_sessions")

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        self.auto = tipped(QRadioButton("Auto-tune: a load sweep toward the latency limit, then a run that confirms "
                                        "the setting"),
                           "The sweep steps the load from Microsoft's rule, each step judged once latency has settled "
                           "(at most 8 minutes); the advisor reads the setting off the measured curve and a calibration "
                           "run confirms it")
        self.manual = tipped(QRadioButton("Manual: use this thread count and SluggishSessions"),
                             "Run one test at exactly this setting")
        group = QButtonGroup(self)
        group.addButton(self.auto)
        group.addButton(self.manual)
        (self.auto if self.state.auto_tune else self.manual).setChecked(True)
        self.auto.toggled.connect(self._on_auto_toggled)
        form = QFormLayout()
        self.add_field(form, "thread_count")
        form.addRow("", QLabel("More threads drive more IOPS, and more latency. At least one per database."))
        self.add_field(form, "sluggish_sessions")
        form.addRow("", QLabel("Fine-tunes between thread steps: 2 halves each thread's I/O, 3 makes it a third."))
        self.calibration = FieldEdit("duration", "", "Longest confirmation run after the sweep (e.g. 3m)")
        self.calibration.set_value("3m")
        self.calibration.changed.connect(self.completeChanged)
        form.addRow("Confirmation run (at most):", self.calibration)
        self.suggestion = wrapped()
        self.scan_note = wrapped(style=NOTE_STYLE, hidden=True)
        laid_out(QVBoxLayout(self), self.scan_note, self.auto, self.manual, form, self.suggestion, 1)
        self.refresh()

    def _on_auto_toggled(self) -> None:
        self.state.set_auto_tune(self.auto.isChecked())

    def _recovers(self) -> bool:
        return kind_of(self.state.data) == TestType.SOFT_RECOVERY and not self.suite.chosen

    def check(self) -> dict[str, str]:
        if self.state.auto_tune:
            return {}  # the advisor's setting replaces the fields, and it is valid by construction
        return super().check()

    def _scan(self) -> TestType | None:
        """The test planned reads the databases through (a checksum or a backup): no thread count applies."""
        kind = kind_of(self.state.data)
        return kind if kind in SCAN_TEST_TYPES and not self.suite.chosen else None

    def refresh(self) -> None:
        auto = self.state.auto_tune
        wanted = self.auto if auto else self.manual
        if not wanted.isChecked():
            wanted.setChecked(True)
        scan = self._scan()
        recovers = self._recovers()
        by_hand = recovers or self.suite.chosen
        messages = super().check() if not auto else {}
        for path in self.OPTIONS:  # a value the engine refuses stays editable, a scan or not
            self.fields[path].setEnabled(not auto and (scan is None or path in messages))
        self.calibration.setEnabled(auto and scan is None)
        self.auto.setEnabled(scan is None and not by_hand)
        self.manual.setEnabled(scan is None)
        self.scan_note.setVisible(scan is not None or by_hand)
        self.suggestion.setVisible(scan is None and not by_hand)
        if scan is not None:
            self.scan_note.setText(
                f"<b>Thread tuning does not apply to a {type_words(scan)} test</b> (chosen on the Test type page): it "
                "reads each database through once, one sequential reader per database, as fast as the storage "
                "gives it. What is set here is kept for a Performance or Stress test.")
        elif recovers:
            self.scan_note.setText(
                f"<b>Auto-tune does not apply to a {type_words(TestType.SOFT_RECOVERY)} test</b> (chosen on the Test "
                "type page): its log files are generated under the load of the thread count and SluggishSessions set "
                "here, then replayed. Auto-tune is offered again for a Performance or Stress test.")
        elif by_hand:
            self.scan_note.setText(
                f"<b>Auto-tune does not apply to the {SUITE_TITLE}</b> (chosen on the Test type page): its five tests "
                "are judged at one setting, the thread count and SluggishSessions set here, as an ESRP submission "
                "publishes it. Find the setting first with a tuned Performance test; auto-tune is offered again for a "
                "Performance or Stress test.")
        super().refresh()
        config = self.state.config()
        if config is None:
            return
        if auto:
            # the disabled fields show the setting the first calibration run uses; the
            # engineer's own values stay in the draft for a return to Manual
            self.fields["thread_count"].set_value(config.thread_count, quiet=True)
            self.fields["sluggish_sessions"].set_value(config.sluggish_sessions, quiet=True)
        advice = self.state.first_advice()
        if advice is None:
            return
        if advice.status == "cache_held":  # no setting: what to change instead
            self.suggestion.setText(f"<b>No thread count tests this design's storage:</b> {html.escape(advice.rationale)}.")
            return
        first = "Advisor's starting point" if advice.status in ("start", "next", "host_bound") else "This session's answer"
        self.suggestion.setText(
            f"{first}: <b>{advice.threads} threads, SluggishSessions {advice.sluggish_sessions}</b> "
            f"({html.escape(advice.rationale)})."
        )

    def isComplete(self) -> bool:
        if self.state.auto_tune and self._scan() is not None:
            return True  # the calibration runs' length means nothing to a scan
        if self.state.auto_tune:
            try:
                self.state.calibration_s = parse_duration_s(self.calibration.text() or "3m")
            except ValueError as exc:
                self.calibration.set_error(str(exc))
                return False
            config = self.state.config()
            shortest = shortest_calibration_s(config) if config is not None else 0.0
            if self.state.calibration_s < shortest and config is not None:
                self.calibration.set_error(
                    f"at least {compact_duration(shortest)}: a confirmation warms up, waits for its latency to settle, "
                    f"then measures the {compact_duration(config.thresholds.minimum_measured_s)} a verdict needs")
                return False
            self.calibration.set_error(None)
            return True
        return super().isComplete()
