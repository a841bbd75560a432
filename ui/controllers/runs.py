"""The runs started from the window: one test, or auto-tune's calibration runs, each in the engine process.

Auto-tune is the same step machine as `jetwise tune` (`engine.tuning.tuner.Tuner`): after
each run the tuner records the result and names the next setting, until a setting passes,
the target is out of reach, or the runs teach the advisor nothing more. The controller
shows the run on a `RunDisplay` (the run view) and says how it ended with `finished` or
`refused`; the window decides what to show next.

A run started from the wizard shows (`started`) once the engine begins it: until then the
wizard stays where Start was pressed, the draft saying a start is under way. An engine
that refuses the configuration before the run begins gives its problems back to the draft,
each at its field, so the Review page shows them where the engineer changes them and Start
waits until a value changes or the checks pass again; its run folder is removed
(`EngineProcess`). Runs started from elsewhere (the advice applied, auto-tune's next run)
show at once, and a refusal of one is `refused`, the draft still holding its problems.

A test that lasts as long as its work takes (a Checksum or Backup scan, a Soft Recovery) runs
as planned: it is never auto-tuned, no advice follows it, and its result is no evidence of how
a thread count carries the load.

A test across servers is a run of a configuration that names its servers (the Servers page's): the engine waits for
their agents (the Review page shows who has connected, with Cancel: `cancel_wait`), then runs it as any run, kept in
the tuning session; auto-tune across them is the same tuner on that configuration.

The ESRP qualification runs in one engine process too (`start_suite`): each of its tests shows
as a run of its own, under the suite's stage, and the suite's end is `suite_finished` with the
verdict of each test. A suite is started in a new folder of the session's runs folder, or
resumed in the folder of an unfinished one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from engine.hosts.roster import CONTROLLER_PORT
from engine.model.config import TestConfig
from engine.model.draft import Draft
from engine.model.units import sentence
from engine.protocol import RunEvent, StartEvent, WaitingEvent
from engine.results.document import CONFIG_FILE, stamped_folder
from engine.results.schema import RunResult
from engine.results.suite import SuiteRecord, suite_title
from engine.run.request import RunRequest, Work
from engine.run.sweep import SweepPlan
from engine.store.sqlite import Store
from engine.tuning.advisor import Advice, advise_session
from engine.tuning.tuner import MAX_RUNS, Tuner
from reporting.bundle import ReportError, load_run
from ui.controllers.engine_process import EngineOutcome, EngineProcess
from ui.controllers.suite_runs import SuiteRun
from ui.controllers.wizard_services import TuningModes
from ui.scans import across_words, setting_words, type_words
from ui.suite import FOLDER_SUFFIX, SuiteSummary

MAX_AUTO_RUNS = MAX_RUNS
ACROSS_WAIT_S = 120.0  # a test across servers waits this long for every agent to connect


class RunDisplay(Protocol):
    """Where a run shows while it runs: the run view."""

    def begin(self, config: TestConfig, title: str, *, keep_log: bool = False) -> None: ...
    def show_suite(self, record: SuiteRecord | None, stage: int | None) -> None: ...
    def on_event(self, event: RunEvent) -> None: ...
    def engine_line(self, line: str) -> None: ...
    def append_log(self, line: str) -> None: ...
    def show_iterations(self, lines: list[str]) -> None: ...
    def show_sweep(self, result: RunResult, advice: Advice | None) -> None: ...


class RunController(QObject):
    """Starts runs in the engine process, drives auto-tune, and keeps the last run's result and folder."""

    started = Signal()  # the engine began a run: show the run view
    finished = Signal(object, object, str)  # RunResult, Advice | None, a note on the tuning
    refused = Signal(str)  # the run did not start, in a sentence, and the wizard is not showing why; nothing was left
    suite_finished = Signal(object)  # SuiteSummary: the ESRP suite stopped or ran through
    waiting = Signal(object)  # WaitingEvent: a test across servers started from the wizard waits for its agents; None: no more
    message = Signal(str)  # a line for the status bar

    def __init__(self, store: Store, draft: Draft[Advice], display: RunDisplay, runs_root: Path,
                 simulate: str | None = None, parent: QObject | None = None, modes: TuningModes | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.draft = draft
        self.display = display
        self.runs_root = runs_root
        self.simulate = simulate  # a simulated storage profile instead of the disk
        self.engine: EngineProcess | None = None
        self.config: TestConfig | None = None
        self.tuner: Tuner | None = None  # auto-tune in progress
        self.tuning_log: list[str] = []
        self.last_result: RunResult | None = None
        self.last_output: Path | None = None
        self.suite: SuiteRun | None = None  # the ESRP suite under way
        self._results_cache: dict[str, list[RunResult]] = {}  # a session's results, read once per finished run
        self.modes = modes or TuningModes()
        self._from_wizard = False  # a start from the wizard's Review page whose run has not begun yet
        self._planned_auto = False  # the tuning mode the wizard planned the session's runs in
        self.across_port = CONTROLLER_PORT  # where a test across servers listens for the agents
        self.across_wait_s = ACROSS_WAIT_S  # and how long it waits for them to connect
        self._cancelled = False  # the wait for the agents was cancelled: the engine ends without a run

    @property
    def device(self) -> str:
        """What the window's runs run on (`RunResult.device`): the advisor reads the session's runs of it alone."""
        return self.simulate or ""

    @property
    def running(self) -> bool:
        return self.engine is not None and self.engine.running

    # the advisor ------------------------------------------------------------------------

    def session_results(self, config: TestConfig) -> list[RunResult]:
        """The results of the session a run of `config` goes into (cached until a run finishes)."""
        session, _note = self.store.resolve_session(self.draft.session or "Jetwise", config)
        if session not in self._results_cache:  # a scan or a soft recovery says nothing of a thread count's load
            self._results_cache[session] = [r for r in self.store.results(session) if not r.configuration.open_ended]
        return self._results_cache[session]

    def first_setting(self, config: TestConfig) -> Advice:
        """Where auto-tune starts for `config`: the tuner's first step, which knows the session's runs."""
        return Tuner(config, self.session_results(config), device=self.device).advice

    def advise(self, config: TestConfig) -> Advice:
        return advise_session(config, self.session_results(config), os.cpu_count() or 1, device=self.device)

    # starting -----------------------------------------------------------------------------

    def start_planned(self, config: TestConfig) -> None:
        """Start what the wizard planned: auto-tune's first calibration run, or the test as it is."""
        if not self._fresh_start(from_wizard=True, planned_auto=self.draft.auto_tune):
            return
        if self.draft.auto_tune and not config.open_ended:  # a scan or a soft recovery runs as planned
            tuner = Tuner(config, self.session_results(config), device=self.device, max_runs=MAX_AUTO_RUNS)
            first = tuner.next_run()
            if first is not None:
                self.tuner = tuner
                self.start_run(first)
                return
            advice = tuner.advice
            if advice.status == "cache_held":  # no setting tests the storage: nothing to tune, said
                self.message.emit(f"Auto-tune runs nothing: {sentence(advice.rationale)}")
                return
            # The session's runs already answer it: run the setting they found, at the planned length.
            config = config.at_setting(advice.threads, advice.sluggish_sessions)
            self.message.emit(f"This session already has its answer ({advice.status}): running "
                              f"{advice.threads} threads, SluggishSessions {advice.sluggish_sessions}")
        self.start_run(config)

    def _fresh_start(self, *, from_wizard: bool, planned_auto: bool) -> bool:
        """A new start (a test, auto-tune, a suite, a test across servers) with no tuning under way; False, said, while a
        run is starting or under way."""
        if self.running:
            self.message.emit("A run is starting or under way: stop it first")
            return False
        self._from_wizard = from_wizard
        self._planned_auto = planned_auto
        self._cancelled = False
        self.tuner = None
        self.tuning_log = []
        self.display.show_iterations(self.tuning_log)
        return True

    def _output(self, name: str) -> Path:
        """A new folder for a run (or a suite) in the session's runs folder, named by when it starts."""
        return stamped_folder(self.runs_root / _safe(self.draft.session or "Jetwise"), name)

    def _engine(self) -> EngineProcess:
        engine = EngineProcess(self)
        engine.event_received.connect(self.display.on_event)
        engine.event_received.connect(self._on_engine_event)
        engine.stderr_line.connect(self.display.engine_line)
        engine.finished.connect(self._on_engine_finished)
        self.engine = engine
        return engine

    def start_run(self, config: TestConfig) -> None:
        config = TestConfig.model_validate(config.model_dump())
        self.config = config
        self.suite = None
        session = self.draft.session or "Jetwise"
        name = f"t{config.thread_count}-s{config.sluggish_sessions}"
        if config.open_ended:  # "checksum", "backup", "recovery-t4-s1"
            name = config.test_type.value.split("_")[-1] + (f"-{name}" if config.recovers else "")
        output = self._output(name)
        engine = self._engine()
        tuner = self.tuner
        plan = tuner.next_sweep() if tuner is not None else None
        hosts = config.server_names
        self.display.begin(config, run_title(config, tuner, plan))
        self.display.show_suite(None, None)
        swept = [run for run in tuner.runs if run.sweep is not None] if tuner is not None else []
        if tuner is not None and swept:  # the curve this run's setting was read from
            self.display.show_sweep(swept[-1], tuner.advice)
        self.draft.start_requested()
        work: Work = "sweep" if plan is not None else "calibration" if tuner is not None else "test"
        engine.start(RunRequest(config=config, work=work, output=output, session=session, simulate=self.simulate,
                                calibration_s=self.draft.calibration_s if tuner is not None else None,
                                port=self.across_port, wait_s=self.across_wait_s))
        if self._from_wizard and hosts:  # Review shows who has connected, with Cancel
            self.message.emit(f"Starting: listening for the agents of {', '.join(hosts)}")
            self.waiting.emit(WaitingEvent(connected=[], waiting=hosts, left_s=self.across_wait_s))
        elif self._from_wizard:  # the Review page says it is starting, and shows why if the engine refuses
            self.message.emit("Starting: the engine checks the configuration and takes the folders")
        else:  # the run view or the results show: the run view at once, as every run after the first
            self.started.emit()
            self.message.emit(f"Running; results go to {output}")

    def start_suite(self, config: TestConfig, performance_s: float, stress_s: float, folder: Path | None = None,
                    *, from_wizard: bool = True) -> None:
        """The ESRP qualification: a new suite, or the unfinished one in `folder` resumed (same configuration,
        lengths and servers, or the engine refuses it); across the servers `config` names, each of its tests across
        them."""
        if not self._fresh_start(from_wizard=from_wizard, planned_auto=False):
            return
        config = TestConfig.model_validate(config.model_dump())
        self.config = config
        servers = config.server_names
        output = folder or self._output(f"{FOLDER_SUFFIX}-across-{len(servers)}" if servers else FOLDER_SUFFIX)
        self.suite = SuiteRun(output)
        engine = self._engine()
        across = across_words(servers) if servers else ""
        title = suite_title(performance_s, stress_s)  # a trial is named one from its start
        self.display.begin(config, f"{title}{across}: {setting_words(config)}")
        self.display.show_suite(None, None)
        self.draft.start_requested()
        engine.start(RunRequest(config=config, work="suite", output=output, session=self.draft.session or "Jetwise",
                                simulate=self.simulate, performance_s=performance_s, stress_s=stress_s,
                                port=self.across_port, wait_s=self.across_wait_s))
        if from_wizard:
            self.message.emit(f"Starting: listening for the agents of {', '.join(servers)}" if servers else
                              "Starting: the engine checks the configuration and takes the folders")
            if servers:
                self.waiting.emit(WaitingEvent(connected=[], waiting=servers, left_s=self.across_wait_s))
        else:
            self.started.emit()
            self.message.emit(f"Running the {title}{across}; its tests go to {output}")

    def resume_suite(self, summary: SuiteSummary) -> None:
        """Run on the unfinished suite shown, from its first test without a verdict."""
        record = summary.record
        self.start_suite(record.config, record.performance_s, record.stress_s, summary.folder, from_wizard=False)

    def cancel_wait(self) -> None:
        """End the wait for a test's agents at once: the engine ends before any run begins, and the wizard is as it
        was, ready to Start again."""
        if self.engine is not None and self.engine.running and not self.engine.began:
            self._cancelled = True
            self.tuner = None
            self.engine.cancel()

    def _on_engine_event(self, event: object) -> None:
        engine = self.engine
        if self.suite is not None:
            self.suite.on_event(event, self.display)
        if isinstance(event, WaitingEvent) and self._from_wizard and not self._cancelled:
            self.waiting.emit(event)
        if not isinstance(event, StartEvent) or engine is None:
            return
        self.waiting.emit(None)
        self.last_output = engine.output_dir
        if event.session:
            self.modes.remember(event.session, self._planned_auto)
        self.draft.start_answered()
        if self._from_wizard:
            self._from_wizard = False
            self.started.emit()
            self.message.emit(f"Running; results go to {engine.output_dir}")

    def apply_advice(self, advice: Advice | None) -> None:
        """The next run of the session at the advisor's setting."""
        if advice is None or self.config is None or advice.status not in ("start", "next"):
            return
        self._from_wizard = False
        self.draft.applied(advice.threads, advice.sluggish_sessions)  # New test starts from it
        self.start_run(self.config.at_setting(advice.threads, advice.sluggish_sessions))

    def full_length(self, setting: tuple[int, int] | None) -> TestConfig | None:
        """The qualification run at `setting` (threads, SluggishSessions) of the last run's design: the standard 2 h
        (Performance) or 24 h (Stress), for the Review page to show before it starts."""
        if setting is None or self.config is None:
            return None
        threads, sluggish = setting
        return self.config.at_setting(threads, sluggish).model_copy(update={"duration_s": self.config.standard_duration_s})

    def stop(self) -> None:
        if self.tuner is not None:
            self.tuner.stop()
        if self.engine is not None:
            self.display.append_log("Stop requested: the engine keeps what it measured")
            self.engine.stop()

    def stop_and_wait(self) -> None:
        """Stop for good (the window closes): no further tuning run, and the engine given time to end."""
        self.tuner = None
        if self.engine is not None:
            self.engine.stop()
            self.engine.process.waitForFinished(7000)

    # ending -------------------------------------------------------------------------------

    def _on_engine_finished(self, outcome: EngineOutcome) -> None:
        self.waiting.emit(None)
        if self._cancelled:  # ended before its run began: nothing ran, nothing to recover
            self._cancelled, self._from_wizard, self.tuner, self.suite = False, False, None, None
            self.draft.start_answered()
            self.message.emit("Cancelled while waiting for the agents: no test began; Start tries again")
            return
        self._results_cache.clear()
        self.store.recover_abandoned()  # a run its engine left unfinished (killed) is marked aborted
        engine = self.engine
        if engine is not None and engine.session:
            self.draft.session = engine.session  # the engine may have moved the run to a session of its own
        self.draft.runs_changed()  # the Thread tuning page's advice speaks of the session's runs, this one's too
        suite, self.suite = self.suite, None
        # a suite stopped before its first test began is a suite all the same: its record says where it is
        began = engine is not None and (engine.began or outcome.stop_requested)
        summary = suite.summary() if suite is not None and began else None
        if summary is not None:
            self.tuner = None
            self.last_result, self.last_output = None, summary.folder
            self.suite_finished.emit(summary)
            return
        result = outcome.result or self._recovered_result(outcome)
        if result is None:
            self.tuner = None
            on_review, self._from_wizard = self._from_wizard, False
            self.draft.start_answered(outcome.problems if outcome.refused_before_start else ())
            if on_review and outcome.refused_before_start:  # the Review page still shows: it lists why, at each field
                self.message.emit("The run did not start; Review lists why, at each field")
                return
            self.refused.emit(sentence(str(outcome)))
            return
        self.last_result = result
        assert self.config is not None
        tuner = self.tuner
        if tuner is None:  # a scan or a soft recovery is no setting to advise on
            self.finished.emit(result, None if self.config.open_ended else self.advise(self.config), "")
            return
        self.tuning_log.extend(tuner.take(result))
        self.display.show_sweep(result, tuner.advice)  # a sweep's chosen setting, on its curve
        self.display.show_iterations(self.tuning_log)
        following = tuner.next_run()
        if following is not None:
            self.display.append_log(f"Advisor: {tuner.describe_next()}")
            self.start_run(following)
            return
        self.tuner = None
        self.finished.emit(result, tuner.advice, tuner.outcome().words)

    def _recovered_result(self, outcome: EngineOutcome) -> RunResult | None:
        """The result of a run whose engine ended without sending one: rebuilt from what it wrote."""
        engine = self.engine
        folder = engine.output_dir if engine is not None and engine.began else None  # never an earlier run's
        if folder is None or not (folder / CONFIG_FILE).exists():
            return None
        try:
            bundle = load_run(str(folder))
        except ReportError:
            return None
        self.display.append_log(f"{sentence(str(outcome))} without a result; the result was rebuilt from its samples")
        return bundle.result


def run_title(config: TestConfig, tuner: Tuner | None, plan: SweepPlan | None) -> str:
    """What the run view calls a run: its test or auto-tune run, the servers it runs across, its setting or sweep."""
    what = f"Auto-tune run {len(tuner.runs) + 1}" if tuner is not None else f"{type_words(config.test_type)} test"
    hosts = config.server_names
    if hosts:
        what += across_words(hosts)
    setting = setting_words(config) + (" on each" if hosts else "")
    if plan is not None:
        plural = "s" if plan.start.threads != 1 else ""
        setting = f"load sweep from {plan.start.threads} thread{plural}, SluggishSessions {plan.start.sluggish}"
        setting += ", every server stepping together" if hosts else ""
    return f"{what}: {setting}"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_ ." else "_" for c in name).strip() or "session"
