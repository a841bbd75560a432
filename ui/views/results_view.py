"""The verdict first, then every criterion, a load sweep's steps, then the advisor's next step.

A tuning run that passed offers the full-length test at its setting; a run that did not qualify the
storage (failed, stopped) in a session where a setting passed offers it at that setting.

A Database checksum or backup (a scan) shows its verdict and reasons, then each database's
scan and the first damaged pages; no thread count was at stake, so no advisor and no
full-length run.

A Soft Recovery shows its criteria (the load's latencies, then each instance's replay) and a table
of each instance's replay beneath, headed by the average time to play one log file against the
limit; it was run at a setting chosen by hand, so no advisor and no full-length run either.

An ESRP qualification shows its verdict over its five tests, a table of each test's verdict and
key figure, and the combined report; each test's own results open from there, with the way back.
An unfinished suite says what it lacks, and Resume runs it on.

A test across servers shows each server's share beneath the verdict (`ServersTable`): its verdict, target, achieved
IOPS and latencies, then the ESRP paper's aggregate beside the exact figure the verdict judges.

Before a run has been shown, only New test and the session view do anything, so only they
are enabled.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from engine.model.config import TestType
from engine.model.derive import achieved_words
from engine.model.units import seconds_words
from engine.model.validation import cache_holds_database
from engine.results import verdict as rules
from engine.results.reasons import grouped_reasons
from engine.results.recovery import failing_instances, unreached
from engine.results.schema import RunKind, RunResult
from engine.results.spikes import spike_sentences
from engine.results.suite import STAGES
from engine.results.verdict import (
    cache_served,
    was_measured,
)
from engine.tuning.advisor import Advice
from engine.tuning.offers import can_apply, full_length_setting
from ui.advice_words import advice_html
from ui.recovery import recovery_headline
from ui.scans import scan_headline, type_words
from ui.suite import TITLE, SuiteSummary
from ui.widgets.advice_box import AdviceBox
from ui.widgets.criteria_table import CriteriaTable
from ui.widgets.fitting import scrolled_body
from ui.widgets.recovery_table import RecoveryTable
from ui.widgets.scan_table import ScanTable
from ui.widgets.servers_table import ServersTable
from ui.widgets.style import laid_out, tip_button, verdict_colour
from ui.widgets.suite_table import SuiteTable
from ui.widgets.sweep_table import SweepTable


class ResultsView(QWidget):
    apply_requested = Signal()
    full_length_requested = Signal()
    new_test_requested = Signal()
    session_requested = Signal()
    open_folder_requested = Signal()
    open_report_requested = Signal()
    export_pdf_requested = Signal()
    export_csv_requested = Signal()
    print_requested = Signal()
    suite_requested = Signal()  # back from a test of the suite to the suite

    def __init__(self) -> None:
        super().__init__()
        self.verdict = QLabel()
        font = QFont()
        font.setPointSize(font.pointSize() * 3)
        font.setBold(True)
        self.verdict.setFont(font)
        self.verdict.setWordWrap(True)  # a suite's title beside its verdict must not set the window's minimum width
        self.headline = QLabel(wordWrap=True)
        self.reasons = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.table = CriteriaTable()
        self.servers = ServersTable()  # a test across servers: each server's share and the servers together
        self.sweep = SweepTable()
        self.scan = ScanTable()
        self.recovery = RecoveryTable()
        self.suite_table = SuiteTable()
        self.back = tip_button(f"Back to the {TITLE}", "The suite's five tests and its combined report",
                               self.suite_requested)
        self.back.hide()
        self.apply = tip_button("Apply and run again", "Start the next run of this tuning session with the suggested "
                                "setting", self.apply_requested)
        self.apply.setEnabled(False)
        self.full_length = tip_button("Run the full-length test with this setting", "A qualification run of the "
                                      "standard length (2 h Performance, 24 h Stress) at this run's thread count and "
                                      "SluggishSessions", self.full_length_requested)
        self.full_length.hide()
        self.advice_box = AdviceBox("Advisor", [self.apply, self.full_length])  # hidden until a run has advice
        self.advice = self.advice_box.words
        buttons = QHBoxLayout()
        self.run_buttons: list[QPushButton] = []  # what needs a run shown
        for text, signal, tip in (
            ("Open report", self.open_report_requested, "The full report of this run in the browser (HTML)"),
            ("Export PDF…", self.export_pdf_requested, "Save the report as a PDF (A4 or Letter)"),
            ("Print…", self.print_requested, "Print the report on a printer of this system"),
            ("Export CSV…", self.export_csv_requested, "Every sample of this run as a CSV file, for a spreadsheet"),
            ("Session view", self.session_requested, "Every run of this tuning session, as a table and as curves"),
            ("Open run folder", self.open_folder_requested, "The result document, samples and test log of this run"),
            ("New test", self.new_test_requested, "Back to the wizard; nothing is lost"),
        ):
            button = tip_button(text, tip, signal)
            buttons.addWidget(button)
            if signal not in (self.session_requested, self.new_test_requested):
                button.setEnabled(False)
                self.run_buttons.append(button)
        buttons.addStretch(1)
        layout, outer = scrolled_body(self)  # a small screen scrolls the tables; the buttons stay in sight
        # the stretch below a scan's table, which is as tall as its rows; the tables above take it otherwise
        laid_out(layout, laid_out(QHBoxLayout(), self.back, 1), self.verdict, self.headline, self.reasons,
                 self.servers, (self.table, 1), (self.sweep, 1), self.scan, self.recovery, self.suite_table, 0,
                 self.advice_box)
        outer.addLayout(buttons)
        self.suggestion: Advice | None = None
        self.full_length_setting: tuple[int, int] | None = None  # (threads, SluggishSessions) the button would run
        self.result: RunResult | None = None
        self.suite: SuiteSummary | None = None  # the suite shown, or whose test is shown

    def show_suite(self, summary: SuiteSummary) -> None:
        """The suite's verdict over its five tests, and each test's."""
        self.suite, self.result, self.suggestion, self.full_length_setting = summary, None, None, None
        verdict = summary.verdict
        simulated = " (simulated device)" if summary.simulated else ""
        colour = verdict_colour(summary.record.outcome.value)  # an unfinished suite in the colour of a stopped run
        self.verdict.setText(f"<span style='color:{colour}'>{verdict.upper()}</span>{simulated} — {summary.record.title}")
        trial = f"{summary.record.trial_words}. " if summary.record.rehearsal else ""
        self.headline.setText(f"{trial}{summary.headline()}. Results in {summary.folder}")
        for widget in (self.reasons, self.table, self.servers, self.sweep, self.scan, self.recovery, self.advice_box,
                       self.full_length, self.back, *self.run_buttons):
            widget.hide()
        self.suite_table.show_summary(summary)

    def show_stage(self, number: int) -> None:
        """A test of the suite shown, with its own results, and the way back to the suite."""
        suite = self.suite
        if suite is None or number not in suite.results:
            return
        self.show_result(suite.results[number], None, f"Test {number + 1} of {len(STAGES)} of the {suite.record.title}.")
        self.back.setText(f"Back to the {suite.record.title}")
        self.suite = suite
        self.back.show()

    def show_result(self, result: RunResult, advice: Advice | None, tuning_note: str = "") -> None:
        self.suite = None
        self.back.hide()
        self.suite_table.hide()
        for widget in (self.reasons, *self.run_buttons):
            widget.show()
        summary = result.summary
        verdict = summary.verdict.value
        colour = verdict_colour(verdict)
        simulated = " (simulated device)" if result.simulated else ""
        kind = " — tuning run" if summary.run_kind == RunKind.TUNING else ""
        if result.scan is not None or result.recovery is not None:
            kind = f" — {type_words(summary.test_type)}"
        self.verdict.setText(f"<span style='color:{colour}'>{verdict.upper()}</span>{simulated}{kind}")
        setting = (f"{summary.threads} threads, SluggishSessions {summary.sluggish_sessions}, "
                   f"{summary.threshold_set} thresholds")
        if result.sweep is not None and result.sweep.judged_step is not None:
            setting += f", judged on step {result.sweep.judged_step + 1} of the load sweep"
        if result.scan is not None:
            achieved, setting = scan_headline(result, result.scan)
        elif result.recovery is not None:
            achieved, setting = recovery_headline(result, result.recovery)
        elif was_measured(result):
            achieved = (f"Achieved {achieved_words(summary.achieved_transactional_iops, summary.target_transactional_iops)} "
                        f"over {seconds_words(summary.measured_s)}")
        else:
            achieved = (f"Nothing measured: {seconds_words(summary.measured_s)} of measurement, less than one "
                        f"{result.configuration.sample_interval_s:g} s sample interval, so IOPS and latency were not judged")
        self.headline.setText(f"{achieved} — {setting}. {tuning_note}")
        parts = []
        if summary.reasons:
            parts.append("<ul>" + "".join(f"<li>{escape(r)}</li>" for r in grouped_reasons(result)) + "</ul>")
        if failing := failing_instances(result):
            parts.append(f"<b>Failing instances:</b> {', '.join(failing)}")
        parts.extend(f"<p><b>When:</b> {escape(spike)}.</p>" for spike in spike_sentences(summary))
        if result.instances and result.scan is None and was_measured(result):
            parts.append(f"<p><i>{escape(rules.maximum_note(result))}.</i></p>")
        if summary.host_bound and result.scan is None and not cache_served(result):  # the cache, not the host, then
            parts.append("<p><b>Host-bound:</b> the host's CPU was saturated while measuring; the engine, not the "
                         "storage, may have set the pace.</p>")
        if cache_holds_database(result.configuration):  # what page 1 of its report says in its banner
            parts.append("<p><b>Not a test of the storage:</b> by design the database cache served this test's reads; "
                         "its figures describe the cache, and no verdict of the storage comes from it.</p>")
        elif summary.run_kind == RunKind.TUNING and result.scan is None:
            parts.append(f"<p>This was a tuning run ({seconds_words(summary.measured_s)} measured). The storage is qualified by "
                         f"the full-length {summary.test_type} test "
                         f"({result.configuration.standard_duration_s / 3600:g} h).</p>")
        self.reasons.setText("".join(parts))
        self.table.show_criteria(result, unreached(result))
        self.servers.show_servers(result)
        self.sweep.show_sweep(result.sweep)
        self.scan.show_scan(result.scan, result.configuration.test_type == TestType.DATABASE_CHECKSUM)
        self.recovery.show_recovery(result.recovery, summary.verdict)
        self.table.setVisible(result.scan is None)  # a scan's criteria are its table's counts, and its reasons
        self.full_length_setting = full_length_setting(result, advice)
        self.full_length.setVisible(self.full_length_setting is not None)
        if self.full_length_setting is not None:
            threads, sluggish = self.full_length_setting
            this = "this" if (threads, sluggish) == (summary.threads, summary.sluggish_sessions) else "the passing"
            self.full_length.setText(f"Run the full-length test with {this} setting ({threads} threads, "
                                     f"SluggishSessions {sluggish})")
        self.result = result
        self.suggestion = advice
        for button in self.run_buttons:
            button.setEnabled(True)
        self.show_advice(advice, result)

    def show_advice(self, advice: Advice | None, result: RunResult | None = None) -> None:
        if advice is None or (result is not None and result.configuration.open_ended):
            self.advice_box.hide()
            return
        self.advice_box.show()
        self.apply.setEnabled(can_apply(advice, result))
        self.advice.setText(advice_html(advice, result))
