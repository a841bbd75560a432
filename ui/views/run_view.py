"""The running test: phase and progress, live plots, a running verdict per criterion, the test log.

A Database checksum or backup (a scan) is judged on what it reads: its progress, read rate
and time left show in large type, with the pages checked and the damaged ones met in place
of the running verdict, and the plots draw read throughput and latency with no limits.

A Soft Recovery shows its log generation as a Performance test (the plots and the running
verdict on its load), with the log files generated and the time left beneath the progress; then
the replay, which has no samples, by its progress and time left alone.

A load sweep (auto-tune's first run) adds its curve beside the live plots, a point per step as
each step completes; the runs that confirm the setting chosen from it keep it in view.

An ESRP qualification shows its stage ("Stage 2 of 5: Stress") and each test's verdict so far
above the run view, and each test beneath it as a run of its own type; the log runs on.
"""

from __future__ import annotations

from typing import assert_never

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.model.config import TestConfig
from engine.model.units import format_bytes, format_duration, sentence
from engine.protocol import (
    WORK_PHASES,
    HelloEvent,
    IntervalEvent,
    LogEvent,
    Phase,
    PhaseEvent,
    ProgressEvent,
    RefusalEvent,
    ResultEvent,
    RunEvent,
    StartEvent,
    SuiteEvent,
    WaitingEvent,
)
from engine.results.clock import MeasuredClock
from engine.results.criterion_schema import Criterion
from engine.results.sample_schema import IntervalSample
from engine.results.schema import RunResult
from engine.results.suite import SuiteRecord
from engine.results.verdict import ACTIVITY_CRITERIA, CACHE_HIT_CRITERION, worst_of_each
from engine.run.samples import RunningVerdict
from engine.tuning.advisor import Advice
from ui.widgets.fitting import ScrollContent, scrolled
from ui.widgets.plots import LivePlots
from ui.widgets.recovery_status import RecoveryStatus
from ui.widgets.scan_status import ScanStatus
from ui.widgets.style import FAIL_STYLE, PASS_STYLE, laid_out, larger_font, tip_button, tipped, wrapped
from ui.widgets.suite_progress import SuiteProgress
from ui.widgets.sweep_plots import SweepPlots
from ui.widgets.sweep_points import LiveSweep, StepPoint

RUNNING_TITLE = "Running verdict (measured samples so far)"
STEP_RUNNING_TITLE = "Running verdict (this step's measured samples so far)"
REPLAY_RUNNING_TITLE = "Verdict on the load that generated the log files (the replay is judged at its end)"
CHOSEN_FROM_CURVE = ("next", "converged", "unreachable")  # the advice's setting was read from the measured curve


class RunView(QWidget):
    stop_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.title = QLabel("Run", wordWrap=True)  # many servers' long names wrap: the title never sets the window's width
        self.title.setFont(larger_font(4))
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.phase = QLabel("Starting the engine…", wordWrap=True)
        self.phase.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.clock = QLabel()
        self.progress = QProgressBar(textVisible=True)
        self.stop = tip_button("Stop (Esc)", STOP_TIPS[False], self.stop_requested)
        self.stop.setShortcut(QKeySequence(Qt.Key.Key_Escape))  # Stop asks before it stops (`MainWindow`)
        self.suite = SuiteProgress()
        self.iterations = wrapped(tip="Each auto-tune calibration run as it completes", hidden=True)
        self.plots = LivePlots()
        self.sweep_plots = tipped(SweepPlots(), "The load sweep's curve: one point per step, drawn as each step completes")
        self.sweep_plots.hide()
        self.scan_status = ScanStatus()
        self.scan_status.hide()
        self.recovery_status = RecoveryStatus()
        self.recovery_status.hide()
        self.criteria_box = QGroupBox(RUNNING_TITLE)
        self.criteria_grid = QGridLayout(self.criteria_box)
        self.criteria: dict[str, QLabel] = {}
        for row, key in enumerate(RUNNING_NAMES):
            # a long instance name must not set the window's minimum width
            label = self.criteria[key] = wrapped(f"{RUNNING_NAMES[key]}: —")
            self.criteria_grid.addWidget(label, row // 3, row % 3)
        self.others = wrapped(style=FAIL_STYLE, hidden=True)  # a failing criterion beyond the six shown, said below them
        self.criteria_grid.addWidget(self.others, 2, 0, 1, 3)
        self.log = tipped(QPlainTextEdit(readOnly=True, maximumBlockCount=5000), "The engine's test log")
        top = ScrollContent()
        plots = laid_out(QHBoxLayout(), (self.plots, 3), (self.sweep_plots, 2))
        status = laid_out(QHBoxLayout(), (self.phase, 1), self.clock)
        laid_out(QVBoxLayout(top), status, self.progress, self.scan_status, self.recovery_status, self.iterations,
                 (plots, 1), self.criteria_box).setContentsMargins(0, 0, 0, 0)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(scrolled(top))  # a small screen scrolls the plots and figures, never the title and Stop
        splitter.addWidget(self.log)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        header = laid_out(QHBoxLayout(), (self.title, 1), self.stop)
        # the header fixed above what scrolls: Stop in reach at any width and any number of servers
        laid_out(QVBoxLayout(self), self.suite, header, (splitter, 1))
        self.config: TestConfig | None = None
        self.running: RunningVerdict | None = None
        self.sweep: LiveSweep | None = None
        self.measuring = MeasuredClock()  # the seconds measured so far, from the start of measuring
        self._errors: list[str] = []
        self._warming = False

    def begin(self, config: TestConfig, title: str, *, keep_log: bool = False) -> None:
        """A run begins; `keep_log` keeps the log of the runs before it (the tests of a suite). A test across the
        configuration's servers shows their sum against the summed target, with the running verdict on every server's
        instances, and each server's line against its own share of the target."""
        self.config = config
        self.running = RunningVerdict(config)
        self.sweep = LiveSweep(config)
        self.measuring = MeasuredClock()
        self._errors = []
        self._warming = False  # the last sample was the warm-up's
        self.title.setText(title)
        self.title.setToolTip(f"{title}\n\n" + "\n".join(config.server_names) if config.servers else "")
        self.phase.setText("Starting the engine…")
        self.clock.setText("")
        self.progress.setRange(0, 0)
        self.stop.setEnabled(True)
        if not keep_log:
            self.log.clear()
        limits = config.active_thresholds
        self.plots.reset(config.test_target_iops or None, limits.db_read_avg_latency_ms,
                         limits.log_write_avg_latency_ms, scan=config.scans, servers=config.instance_servers,
                         server_target=config.target_transactional_iops)
        self.sweep_plots.reset(config.test_target_iops or None, limits.db_read_avg_latency_ms)  # summed steps
        self.sweep_plots.hide()
        self.scan_status.setVisible(config.scans)
        self.scan_status.reset(config)
        self.recovery_status.setVisible(config.recovers)
        self.recovery_status.reset(config)
        self.criteria_box.setVisible(not config.scans)  # nothing of a scan is judged on latency
        self.criteria_box.setTitle(RUNNING_TITLE)
        for key, label in self.criteria.items():
            label.setText(f"{RUNNING_NAMES[key]}: —")
            label.setStyleSheet("")
        self.others.hide()

    def on_event(self, event: RunEvent) -> None:
        match event:
            case PhaseEvent():
                self._on_phase(event)
            case ProgressEvent():
                self._on_progress(event)
            case IntervalEvent():
                self._on_sample(event.sample)
            case ResultEvent():
                self._on_result(event.result)
            case LogEvent():
                if event.level == "error":
                    self._errors.append(event.message)
                self.append_log(f"{event.time.astimezone():%H:%M:%S}  {event.level:<7}  {event.message}")
            case HelloEvent() | StartEvent() | SuiteEvent() | RefusalEvent() | WaitingEvent():
                pass  # the run controller begins the view (`begin`, `show_suite`), shows a refusal at its fields, or
                # the wait for a test's agents on the Review page
            case _:
                assert_never(event)

    def _on_phase(self, event: PhaseEvent) -> None:
        self.phase.setText(event.message)
        if event.phase in (Phase.MEASURING, Phase.WARMING_UP):
            self.progress.setRange(0, 1000)
        if event.phase == Phase.MEASURING and self.config is not None and self.config.open_ended:
            self.progress.setValue(0)  # the reading begins: not the databases' creation, at its end
        if event.phase in WORK_PHASES and self._recovers():
            replaying = event.phase == Phase.REPLAYING
            self.recovery_status.begin_phase(replaying)
            if replaying:
                self.criteria_box.setTitle(REPLAY_RUNNING_TITLE)
        if event.phase in (Phase.FINISHING, Phase.DONE):
            self.stop.setEnabled(False)

    def _on_progress(self, event: ProgressEvent) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(1000 * event.done_bytes / max(1, event.total_bytes)))
        if event.phase in WORK_PHASES and self._recovers():  # log files generated, or replayed
            share = self.recovery_status.add_progress(event)
            if share is not None:
                self.progress.setValue(int(1000 * share))
                self.clock.setText(self.recovery_status.clock_words())
            return
        if event.phase == Phase.MEASURING:  # a scan's reading, under its phase's own words
            self.scan_status.add_progress(event)
            return
        eta = f", about {format_duration(event.eta_s)} left" if event.eta_s is not None else ""
        self.phase.setText(
            f"Creating databases: {format_bytes(event.done_bytes)} of {format_bytes(event.total_bytes)} "
            f"at {format_bytes(event.rate_bytes_per_s)}/s{eta}"
        )

    def _on_sample(self, sample: IntervalSample) -> None:
        self.plots.add_sample(sample.elapsed_s, sample.summary, sample.instance_figures())
        if self.config is not None and self.config.scans:
            self.scan_status.add_sample(sample)
            self.clock.setText(f"reading: {format_duration(sample.elapsed_s)} elapsed")
            return
        if self._recovers():  # the log generation's load: its progress and time left are the log files'
            self._add_running(sample)
            return
        total = sample.elapsed_s + sample.remaining_s
        self.progress.setValue(int(1000 * sample.elapsed_s / max(total, 1e-9)))
        where = "attaining prerequisites (warm-up)" if sample.phase == "warmup" else "measuring"
        if self._warming and sample.phase == "measure" and sample.step is None:  # the warm-up ends: marked
            self.plots.mark_step(sample.elapsed_s - sample.duration_s, "measuring from here")
        self._warming = sample.phase == "warmup"
        if sample.step is not None:
            self._on_step_sample(sample)
            where = f"step {sample.step + 1}, " + ("settling" if sample.phase == "warmup" else "measuring")
        self.measuring.add(sample)
        measured = self.measuring.measured_s(sample)
        so_far = (f"{format_duration(sample.elapsed_s)} elapsed" if measured is None
                  else f"{format_duration(measured)} measured")  # from the start of measuring, the warm-up aside
        self.clock.setText(f"{where}: {so_far}, {format_duration(sample.remaining_s)} remaining")
        self._add_running(sample)

    def _on_result(self, result: RunResult) -> None:
        if result.scan is not None:
            self.scan_status.finish(result.scan)
        elif result.recovery is not None:
            self.recovery_status.finish(result.recovery, result.verdict)
        elif result.sweep is not None and self.sweep is not None:
            self.sweep.finish(result.sweep.steps)
            self.sweep_plots.show_points(self.sweep.points)
            self.sweep_plots.show()

    def show_suite(self, record: SuiteRecord | None, stage: int | None) -> None:
        """The ESRP suite's stage running (numbered from 0), or no suite."""
        self.suite.show_stage(record, stage)
        self.stop.setToolTip(STOP_TIPS[record is not None])

    def show_iterations(self, lines: list[str]) -> None:
        """Auto-tune: the calibration runs so far, one line each."""
        self.iterations.setText("Auto-tune so far:\n" + "\n".join(lines))
        self.iterations.setVisible(bool(lines))
        for line in lines[-1:]:
            self.append_log(f"Auto-tune {line}")

    def show_sweep(self, result: RunResult, advice: Advice | None) -> None:
        """A load sweep's steps with the setting the advisor chose from them: this run's, once its result is read,
        or an earlier run's of the same auto-tune, whose chosen setting this run confirms."""
        if result.sweep is None or not result.sweep.steps:
            return
        this_run = self.sweep is not None and self.sweep.active
        context = "" if this_run else " in an earlier run of this auto-tune"
        chosen = advice if advice is not None and advice.status in CHOSEN_FROM_CURVE else None
        self.sweep_plots.show_points([StepPoint.of(step) for step in result.sweep.steps], chosen, context)
        self.sweep_plots.show()

    def _recovers(self) -> bool:
        return self.config is not None and self.config.recovers

    def _add_running(self, sample: IntervalSample) -> None:
        if sample.phase == "measure" and self.running is not None:
            self.running.add(sample)
            self._show_running()

    def _on_step_sample(self, sample: IntervalSample) -> None:
        """A load sweep's sample: a new step marks the time plots; a completed step adds its point to the curve."""
        if self.sweep is None:
            return
        new_step = sample.step != self.sweep.step
        self.sweep.add(sample)  # the first sample of a step completes the one before
        if not new_step:
            return
        number = (sample.step or 0) + 1
        self.plots.mark_step(sample.elapsed_s, f"step {number}")
        self.criteria_box.setTitle(STEP_RUNNING_TITLE)
        running = f"; step {number} running ({sample.threads} threads, SluggishSessions {sample.sluggish_sessions})"
        self.sweep_plots.show_points(self.sweep.points, note=running)
        self.sweep_plots.show()

    def error_lines(self) -> list[str]:
        """The engine's error messages of this run (its log errors and what it wrote to stderr)."""
        return list(self._errors)

    def engine_line(self, line: str) -> None:
        """A line the engine wrote outside its event stream (stderr)."""
        self._errors.append(line)
        self.append_log(f"engine: {line}")

    def append_log(self, line: str) -> None:
        self.log.appendPlainText(line)

    def _show_running(self) -> None:
        """The engine's verdict on the measured samples so far: per criterion, the worst instance."""
        if self.running is None or self.running.measured_s <= 0:
            return
        verdict = self.running.verdict()
        each = worst_of_each(verdict.criteria)
        worst = {RUNNING_CRITERIA[name]: c for name, c in each.items() if name in RUNNING_CRITERIA}
        others = [c for name, c in each.items() if name not in RUNNING_CRITERIA and not c.passed]
        # whatever else fails is said too, never hidden
        self.others.setText("✗ Also failing: " + "; ".join(map(_running_words, others)) if others else "")
        self.others.setVisible(bool(others))
        # no database read completed on any instance yet: its latency is not judged, and the page says why
        unread = any(c.name == ACTIVITY_CRITERIA[0] and not c.passed for c in verdict.criteria)
        for key, label in self.criteria.items():
            shown = worst.get(key)
            if shown is None:
                why = " no database reads yet" if unread and key in READ_KEYS else " —"
                label.setText(f"{RUNNING_NAMES[key]}:{why}")
                label.setStyleSheet("")
                continue
            label.setText(f"{'✓' if shown.passed else '✗'} {_running_words(shown)}")
            label.setStyleSheet(PASS_STYLE if shown.passed else FAIL_STYLE)


def _running_words(criterion: Criterion) -> str:
    """A criterion of the running verdict: where, what, its value and its limit."""
    sign, unit = "≤" if criterion.comparison == "<=" else "≥", criterion.unit_after
    where = f"{criterion.instance}: " if criterion.instance else ""
    return f"{where}{sentence(criterion.name)}: {criterion.value:,.2f}{unit} ({sign} {criterion.limit:,.1f}{unit})"


STOP_TIPS = {False: "Stop the run (Esc; it asks first): it ends within a couple of seconds and keeps what it measured",
             True: "Stop the suite (Esc; it asks first): the test running ends within a couple of seconds and keeps what "
                   "it measured, the tests after it do not run; it can be resumed from there"}
RUNNING_NAMES = {
    "iops": "Transactional IOPS", "read_avg": "Average database read latency",
    "read_max": "Maximum database read latency", "log_avg": "Average log write latency",
    "log_max": "Maximum log write latency", "cache_hits": "Database cache hits",
}
READ_KEYS = ("read_avg", "read_max", "cache_hits")
RUNNING_CRITERIA = {
    "achieved transactional IOPS": "iops",
    "average database read latency": "read_avg",
    "maximum database read latency": "read_max",
    "average log write latency": "log_avg",
    "maximum log write latency": "log_max",
    CACHE_HIT_CRITERION: "cache_hits",  # a test the cache served is no test of the storage: said as it runs
}

