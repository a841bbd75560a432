"""Page 7, Review: everything on one page, with every problem of the configuration that will run."""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QTextBrowser, QVBoxLayout, QWizard

from engine.model.config import ExchangeVersion, TestConfig, TestType
from engine.model.exchange import generation
from engine.model.units import compact_duration, sentence
from engine.model.validation import (
    AUTO_TUNE_HELD,
    Problem,
    Severity,
    cache_holds_database,
    check_rules,
    errors_only,
    problems_from_validation_error,
)
from engine.protocol import WaitingEvent
from engine.tuning.tuner import calibration_rule
from ui.widgets.style import ERROR_STYLE, WARNING_STYLE, laid_out, tip_button, tipped, wrapped
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.problems import plan_html, problems_html, review_html
from ui.wizard.scan_options import backup_folder_problems
from ui.wizard.services import MachineCheck, ServiceError, WizardServices, agents_missing, frees_itself
from ui.wizard.suite_review import suite_review_html
from ui.workers import BackgroundCheck

THREAD_FIELDS = ("thread_count", "sluggish_sessions")


class ReviewPage(WizardPage):
    """Everything on one page, with every problem of the configuration that will run.

    The problems are the engine's own: its rules (errors and warnings), the checks of the
    machine the Databases page runs, run again here off the GUI thread, and what the engine
    refused the configuration for when Start was last pressed. In auto-tune mode the
    configuration judged is the one the first calibration run uses: the advisor's starting
    setting, shaped as a calibration run. Start stays disabled while any error remains,
    until the machine's checks of what would run are in, and while the engine checks what
    Start handed it. A refusal stands until a value changes or the checks pass again.

    For the ESRP qualification the machine is checked for each of its tests (the Soft recovery's
    log files, the Database backup's folder), and the page says which tests Start runs: all five
    in a new suite, or, when the runs folder holds an unfinished suite of this configuration and
    these lengths, those it still lacks (unless the engineer asks for a new suite instead).
    """

    NAME = "review"
    TITLE = "Review"
    SUBTITLE = "Everything on one page. Start runs the test; the configuration can be saved first."

    save_requested = Signal()
    save_xml_requested = Signal()
    cancel_requested = Signal()  # Cancel while a test across servers waits for its agents

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        self.text = QTextBrowser(openLinks=False)
        self.status = wrapped()
        self.session = tipped(QLineEdit(), "The tuning session this run belongs to: one storage design, many runs")
        self.session.textChanged.connect(self._on_session_text_changed)
        self.state.session_changed.connect(self._on_state_session_changed)
        save = tip_button("Save configuration…", "Save this configuration as a Jetwise JSON file", self.save_requested)
        save_xml = tip_button("Save as Jetstress XML…", "Save this configuration as a JetstressConfig.xml that "
                              "Jetstress 2013 opens", self.save_xml_requested)
        self.recheck = tip_button("Check again", "A folder another run holds is free once that run ends: check the "
                                  "folders again", lambda: self._ask(again=True))
        self.recheck.hide()
        self.resume = tipped(QCheckBox(), "Run the tests the unfinished suite lacks, in its folder; untick it for a "
                             "new suite")
        self.resume.setChecked(self.suite.resume)
        self.resume.toggled.connect(self.suite.set_resume)
        self.resume.hide()
        # a test across servers waiting for its agents: who connected, the time left
        self.wait_words = wrapped(hidden=True)
        self.cancel = tip_button("Cancel", "Stop waiting for the agents: no test begins, and Start tries again",
                                 self.cancel_requested)
        self.cancel.hide()
        self._wait: WaitingEvent | None = None
        self._wait_ends = 0.0  # time.monotonic() when the wait gives up
        self._tick = QTimer(self, interval=1000)
        self._tick.timeout.connect(self._show_wait)
        waiting = laid_out(QHBoxLayout(), (self.wait_words, 1), self.cancel)
        row = laid_out(QHBoxLayout(), QLabel("Tuning session:"), (self.session, 1), self.recheck, save, save_xml)
        laid_out(QVBoxLayout(self), (self.text, 1), self.resume, waiting, self.status, row)
        self.setButtonText(QWizard.WizardButton.FinishButton, "Start")
        services = context.services
        self._targets: dict[str, float] = {}  # each tuning session's target, as its latest run had it
        self._workloads: dict[str, ExchangeVersion] = {}  # each tuning session's Exchange workload, its latest run's
        self.checks = BackgroundCheck(lambda configs: _check_all(services, configs), self)
        # each chosen server's configuration (its folders) in a test across servers; the wizard tells it the Servers
        # page's (`ServersPage.server_configs`)
        self.servers: Callable[[TestConfig], dict[str, TestConfig]] = lambda _config: {}
        self.checks.finished.connect(self._on_checks_finished)

    def initializePage(self) -> None:
        if not self.state.session:
            volume = Path(self.state.data["databases"][0]["database_path"]).anchor or "disk"
            what = ("Disk throughput" if self.state.data.get("scenario") == "disk_throughput"
                    else f"{self.state.data['profile']['mailboxes']} mailboxes")
            self.state.session = f"{what} on {volume}"
        self.session.setText(self.state.session)
        self._look_for_sessions()
        self._look_for_suites()
        self._ask(again=True)  # the folders may have changed since the Databases page looked
        self.refresh()

    def shown_again(self) -> None:
        self._look_for_sessions()  # a run may have ended meanwhile, in a session of another target
        self._look_for_suites()  # a suite may have been stopped meanwhile
        self._ask(again=True)  # the window back from a run, or a page before: a run holding a folder may have ended

    def show_wait(self, event: WaitingEvent | None) -> None:
        """A test across servers waits for its agents (`event`: who connected, who not yet, the seconds left), with
        Cancel; None once it began or ended."""
        self._wait = event
        if event is None:
            self._tick.stop()
            self.wait_words.hide()
            self.cancel.hide()
        else:
            self._wait_ends = time.monotonic() + event.left_s
            self._tick.start()
            self.wait_words.show()
            self.cancel.show()
            self._show_wait()
        self.refresh()

    def _show_wait(self) -> None:
        event = self._wait
        if event is None:
            return
        left = max(0, math.ceil(self._wait_ends - time.monotonic()))
        said = [f"{', '.join(event.connected)} connected"] if event.connected else []
        if event.waiting:
            said.append(f"waiting for {', '.join(event.waiting)}")
        self.wait_words.setText(f"Waiting for the agents to connect: {'; '.join(said)} — "
                                f"{compact_duration(left) if left else 'no time'} left.")

    def _look_for_sessions(self) -> None:
        try:
            sessions = self.context.services.recent_sessions()
        except ServiceError:  # a broken store must not stop a test: the session's target is not compared
            sessions = []
        self._targets = {session.name: session.target_iops for session in sessions}
        self._workloads = {session.name: session.last_config.profile.exchange for session in sessions
                           if session.last_config is not None}

    def _look_for_suites(self) -> None:
        if self.suite.chosen:
            self.suite.set_suites(self.context.services.unfinished_suites())

    def _on_checks_finished(self) -> None:
        answer = self.checks.answer
        if isinstance(answer, MachineCheck) and not errors_only(answer.problems):
            self.state.clear_refusal()  # checked again and passed: what the engine refused for is gone
        self.refresh()

    def _on_session_text_changed(self, text: str) -> None:
        self.state.session = text.strip()
        self.refresh()

    def _on_state_session_changed(self, name: str) -> None:
        if self.session.text().strip() != name:
            self.session.setText(name)

    def _is_current(self) -> bool:
        wizard = self.wizard()
        return wizard is not None and wizard.currentPage() is self

    def _ask(self, again: bool = False) -> None:
        config = self.state.config()
        configs = None if config is None else self._checked(config)
        key = None if configs is None else "\n".join(c.model_dump_json() for c in configs)
        self.checks.want(key, configs, again=again)

    def _checked(self, config: TestConfig) -> tuple[TestConfig, ...]:
        """The configurations Start runs: the test's, or each of the ESRP qualification's that needs more of the
        machine than its Performance test (the Soft recovery's log files, the Database backup's folder)."""
        if not self.suite.chosen:
            return (config,)
        stages = [config, config.model_copy(update={"test_type": TestType.SOFT_RECOVERY})]
        if config.backup_path is not None:
            stages.append(config.model_copy(update={"test_type": TestType.DATABASE_BACKUP}))
        return tuple(stages)

    def environment_problems(self) -> list[Problem]:
        """The machine's problems with what would run; none until its checks are in."""
        answer = self.checks.answer
        if self.checks.pending or not isinstance(answer, MachineCheck):
            return []
        return answer.problems

    def review_problems(self) -> list[Problem]:
        """Every problem with what Start would run, errors first."""
        problems: list[Problem] = []
        problems += [Problem(p.field, p.message, Severity.WARNING) for p in self.state.refusal if agents_missing(p)]
        for path, message in self.state.parse_errors.items():
            if not (self.state.auto_tune and path in THREAD_FIELDS):
                problems.append(Problem(path, message))
        config = self.state.config()
        drafted = [p for p in self.state.problems() if not agents_missing(p)]  # said above, as a warning
        if config is None:
            problems += [p for p in drafted if p.field not in self.state.parse_errors]
        else:
            problems += drafted
            problems += [p for p in backup_folder_problems(self.state.data, self.suite.chosen) if p not in problems]
            if self.state.auto_tune and not config.open_ended:  # a scan or a soft recovery runs as planned
                try:
                    shaped, _rule = calibration_rule(config, self.state.calibration_s)
                except ValidationError as exc:
                    problems += problems_from_validation_error(exc)
                else:
                    problems += [p for p in check_rules(shaped) if p not in problems]
                if cache_holds_database(config):  # Start would run nothing: said where Start is
                    problems.append(Problem("database_cache_max_mb", AUTO_TUNE_HELD))
            problems += [p for p in self.environment_problems() if p not in problems]  # a refusal says it too
            if self.checks.error is not None and not self.checks.pending:
                problems.append(Problem("", f"the database and log folders could not be checked: {self.checks.error}"))
        if not self.state.session:
            problems.append(Problem("session", "name the tuning session this run belongs to"))
        elif config is not None:
            problems += [mixed for mixed in (_other_target(config, self.state.session, self._targets),
                                             _other_workload(config, self.state.session, self._workloads)) if mixed]
        return sorted(problems, key=lambda p: p.severity != Severity.ERROR)

    def refresh(self) -> None:
        if self._is_current():
            self._ask()
        problems = self.review_problems()
        errors = errors_only(problems)
        config = self.state.config()
        listed = problems_html(problems, self.context.placed)
        unfinished = self.suite.unfinished(config)
        resumed = self.suite.resuming(config)
        if config is None:
            self.text.setHtml(f"<p style='{ERROR_STYLE}'>The configuration is not valid yet:</p>{listed}"
                              + plan_html(self.state.data))
        elif self.suite.chosen:
            self.text.setHtml(listed + suite_review_html(config, self.suite.performance_s, self.suite.stress_s,
                                                         resumed, unfinished, self.servers(config)))
        else:
            self.text.setHtml(listed + review_html(config, self.state.auto_tune, self.state.calibration_s,
                                                   self.state.first_advice(), self.servers(config)))
        self.resume.setVisible(unfinished is not None)
        if unfinished is not None:
            self.resume.setText(f"Resume the unfinished ESRP qualification of this configuration in {unfinished.folder}")
        self.resume.setEnabled(not self.state.starting)
        self.setButtonText(QWizard.WizardButton.FinishButton, "Resume" if resumed is not None else "Start")
        self.session.setEnabled(not self.state.starting)
        self.recheck.setVisible(any(frees_itself(p) for p in errors))
        self.recheck.setEnabled(not self.checks.pending and not self.state.starting)
        missing = [p.message for p in self.state.refusal if agents_missing(p)]
        if self.state.starting and self._wait is not None:
            self.status.setText("Starting: the test begins on every server once all their agents have connected.")
        elif self.state.starting:
            self.status.setText("Starting: the engine checks the configuration and takes the folders…")
        elif missing and not errors:
            self.status.setText(f"<span style='{WARNING_STYLE}'>{html.escape(sentence('; '.join(missing)))}. Start "
                                "tries again once its agent runs there (jetwise agent); choosing other servers clears "
                                "this.</span>")
        elif config is not None and self.checks.pending:
            self.status.setText("Checking the database and log folders…")
        elif errors:
            held = (" A folder another run holds is free once that run ends: then press Check again."
                    if self.recheck.isVisibleTo(self) else "")
            self.status.setText(f"<span style='{ERROR_STYLE}'>{len(errors)} error(s) listed above must be corrected "
                                f"before Start: Back leads to the page of each field.{held}</span>")
        elif problems:
            self.status.setText(f"<span style='{WARNING_STYLE}'>{len(problems)} warning(s) listed above: "
                                "Start runs the test as it is.</span>")
        else:
            self.status.setText("")
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        if self.state.config() is None or self.checks.pending or self.state.starting:
            return False
        return not errors_only(self.review_problems())


def _check_all(services: WizardServices, configs: tuple[TestConfig, ...]) -> MachineCheck:
    """The machine's problems with each configuration, once each; of a Database backup's beyond the first, only its
    backup folder's (its warnings about databases not yet there are the earlier tests' to answer). Blocks."""
    first, *others = configs
    found = services.check_machine(first)
    problems = list(found.problems)
    for config in others:
        for problem in services.check_machine(config).problems:
            if problem not in problems and (config.test_type != TestType.DATABASE_BACKUP or problem.field == "backup_path"):
                problems.append(problem)
    return MachineCheck(problems, found.rows)


def _other_workload(config: TestConfig, session: str, workloads: dict[str, ExchangeVersion]) -> Problem | None:
    """A warning when the session's runs drove the other Exchange generation's workload: its advice would mix them."""
    earlier = workloads.get(session)
    if earlier is None or generation(earlier) == config.generation:
        return None
    return Problem("session", f"this session's earlier runs drove {generation(earlier).words}, and this test drives "
                              f"{config.generation.words}: the advisor reads every run of the session as one workload. "
                              f"To keep the two apart, name a new tuning session (for example '{session}, "
                              f"Exchange {config.profile.exchange.value}')", Severity.WARNING)


def _other_target(config: TestConfig, session: str, targets: dict[str, float]) -> Problem | None:
    """A warning when the session's runs were for another target: its advice and plots would mix the two."""
    earlier = targets.get(session)
    target = config.target_transactional_iops
    if earlier is None or config.seeks_maximum or abs(earlier - target) <= 0.005 * max(target, earlier):
        return None
    return Problem("session", f"this session's earlier runs were for a target of {earlier:,.0f} transactional IOPS, and "
                              f"this test's is {target:,.0f}: the advisor judges every run against the new target from "
                              f"now on. To keep the two apart, name a new tuning session (for example '{session}, "
                              f"target {target:,.0f}')", Severity.WARNING)
