"""A run opened from its `RunRequest`, for every front end (`jetwise run`, `tune`, `suite`, `cmd`, and `engine`, the
window's): the one place that picks the run's interval source (this server's disks, a simulated device, or the agents of
the servers its configuration names), checks that every server is enrolled, builds its runners with their sinks (the store's
recorder, the advice, the Jetstress-layout files, the front end's) and applies the rules of calibration and simulation."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from app.advice import AdviceRecorder
from app.context import AppContext, UsageError, WaitStoppedError, simulated_model, unusable_path
from engine.hosts.controller import Arrived, Controller, HostsMissingError
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.logs import CONTROLLER_LOG, log_link_to
from engine.hosts.port import PortInUseError, controller_on
from engine.hosts.roster import CONTROLLER_PORT, Roster, RosterError
from engine.model.config import TestConfig
from engine.protocol import EmitFn, LogEvent, ResultEvent, RunEvent
from engine.run.request import RunRequest
from engine.run.runner import IntervalSource, Runner
from engine.run.sinks import fan_out, log_line
from engine.run.sources.model import ModelSource
from engine.run.sources.servers import HostsSource
from engine.run.suite import Stage, Suite, SuiteRecord
from engine.run.sweep import SweepPlan, plan_sweep
from engine.store.paths import hosts_folder
from engine.store.recorder import RunRecorder
from engine.tuning.tuner import calibration_rule

# What ends a test across servers before it begins, said in words: a server not enrolled or its key unreadable, the
# port held by another program, an agent that never connected.
NOT_BEGUN = (RosterError, KeyStoreError, PortInUseError, HostsMissingError)


class NotBegunError(UsageError):
    """What kept a test across servers from beginning, in words: the engineer can change it, and nothing began."""


def enrolled_roster(hosts: list[str]) -> Roster:
    """The controller's roster, every host in it enrolled (NotBegunError naming those that are not)."""
    if Roster.file_in(hosts_folder()) is None:
        raise NotBegunError("--hosts: no server enrolled: jetwise hosts add HOST")
    roster = Roster(hosts_folder(), KeyStore())
    enrolled = {entry.name for entry in roster.hosts()}
    unknown = [host for host in hosts if host not in enrolled]
    if unknown:
        raise NotBegunError(f"--hosts: {', '.join(unknown)} not enrolled (enrolled: {', '.join(sorted(enrolled)) or 'none'}); "
                            "jetwise hosts add HOST")
    return roster


@contextmanager
def listening(roster: Roster, hosts: list[str], *, port: int, wait_s: float,
              say: Callable[[str], None], arrived: Arrived | None = None) -> Iterator[Controller]:
    """The controller listening on `port` (PortInUseError when another program holds it), every one of `hosts`' agents
    connected within `wait_s` (HostsMissingError naming those that did not), each refusal said as it happens, the
    link's own log in the controller's file; closed on leaving."""
    log_link_to(hosts_folder() / CONTROLLER_LOG)
    with controller_on(roster, port, said=lambda words: say(words[:1].upper() + words[1:])) as controller:
        say(f"Listening at {controller.address}; waiting for {', '.join(hosts)}...")
        controller.wait_for(hosts, wait_s, arrived)
        yield controller


class JetstressResults:
    """A sink that writes the run's Jetstress-layout result files (`reporting.jetstress_files`) when its result
    arrives, into `folder`; what it wrote, or why it could not, is said in the run's log (`say`, the runner's)."""

    def __init__(self, folder: Path, run_folder: Path) -> None:
        self.folder, self.run_folder = folder, run_folder
        self.say: Callable[[str, str], None] = lambda _message, _level: None
        self.log: list[str] = []  # the test log's lines as they come, as the run folder's test.log has them

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, LogEvent):
            self.log.append(log_line(event))
        if not isinstance(event, ResultEvent):
            return
        from reporting.jetstress_files import JetstressFileError, write_jetstress_files  # loads at a run's end

        try:
            written = write_jetstress_files(event.result, self.log, self.folder, self.run_folder)
        except JetstressFileError as exc:
            self.say(f"the Jetstress-layout result files were not written: {exc}", "warning")
            return
        self.say(f"Jetstress-layout result files: {', '.join(p.name for p in written)} in {self.folder}", "info")


def _stderr(words: str) -> None:
    print(words, file=sys.stderr, flush=True)


class OpenRun:
    """A request opened: its simulated device and servers checked, its session resolved; `sourced` gives it its
    interval source, and `runner` and `suite` build what runs on it."""

    def __init__(self, context: AppContext, request: RunRequest, *, note: Callable[[str], None],
                 say: Callable[[str], None] = _stderr, arrived: Arrived | None = None) -> None:
        self.context, self.request, self.say, self.arrived = context, request, say, arrived
        self.model = simulated_model(request.simulate)
        config = request.config
        # every server enrolled, or said before anything is made
        self.roster = enrolled_roster(config.server_names) if config.servers else None
        self.session = context.session(request.session, config, note)
        self.source: IntervalSource | None = None  # this server's own until `sourced`: across servers, their agents

    @property
    def device(self) -> str:
        """What the runs run on: a simulated device's profile, or '' for the storage at the configured paths."""
        return self.source.device if self.source is not None else self.model.name if self.model is not None else ""

    @contextmanager
    def sourced(self) -> Iterator[OpenRun]:
        """The run with its interval source: across servers, their agents once every one has connected (NotBegunError,
        or WaitStoppedError on Ctrl-C, when they never did); otherwise this server's own, or the simulated device."""
        if self.roster is None:
            yield self
            return
        hosts = self.request.config.server_names
        try:
            with listening(self.roster, hosts, port=self.request.port or CONTROLLER_PORT, wait_s=self.request.wait_s,
                           say=self.say, arrived=self.arrived) as controller:
                self.source = HostsSource(controller, simulate=self.request.simulate)
                yield self
        except (UsageError, *NOT_BEGUN) as exc:  # nothing began: the engineer can change what kept the servers apart
            raise NotBegunError(str(exc)) from None
        except KeyboardInterrupt:
            raise WaitStoppedError from None
        finally:
            self.source = None

    def runner(self, emit: EmitFn, *, config: TestConfig | None = None, output: Path | None = None,
               sweep: SweepPlan | None = None, calibration_s: float | None = None,
               jetstress_folder: Path | None = None) -> Runner:
        """A runner of `config` in `output` (by default the request's own run: its test, load sweep or calibration run),
        recorded in the session; a calibration run of at most `calibration_s` when it is no load sweep."""
        request = self.request
        if config is None:
            config = request.config
            sweep = plan_sweep(config, os.cpu_count() or 1) if request.work == "sweep" else None
            calibration_s = request.calibration_s if request.work == "calibration" else None
        settle = None
        if calibration_s is not None and sweep is None:
            config, rule = calibration_rule(config, calibration_s)
            settle = rule if self.source is None else None  # across servers every server's run ends at one instant
        output = output or request.output
        if (unusable := unusable_path(output)) is not None:
            raise UsageError(f"the run folder {output} cannot be used: {unusable}")
        store = self.context.store
        recorder, jetstress = RunRecorder(store, self.session, output), JetstressResults(jetstress_folder or output, output)
        emit = fan_out(recorder, AdviceRecorder(store), emit, jetstress)
        source = self.source or (ModelSource(self.model) if self.model is not None else None)
        runner = Runner(config, output, emit, source=source, session=self.session, settle=settle, sweep=sweep)
        jetstress.say = runner.log
        return runner

    def suite(self, record: SuiteRecord, emit: EmitFn, on_stage: Callable[[int, Stage], None]) -> Suite:
        """The suite's stages, each a runner in its own folder of the request's."""
        return Suite(record, self.request.output, lambda config, out: self.runner(emit, config=config, output=out),
                     on_stage=on_stage)
