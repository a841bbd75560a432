"""The composition root: what a sub-command or the window is given rather than builds for itself.

One `AppContext` per process opens the run store once, on first need, and closes it at
exit; it builds runners with the store's recorder attached, on the disk or on a
simulated storage model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.advice import AdviceRecorder
from engine.io.safety import destination_problem
from engine.model.config import TestConfig
from engine.protocol import EmitFn, LogEvent, ResultEvent, RunEvent
from engine.run.runner import IntervalSource, Runner
from engine.run.settling import SettleRule
from engine.run.simulation import PROFILES, StorageModel, runner_for
from engine.run.sinks import fan_out, log_line
from engine.run.sweep import SweepPlan
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store


class UsageError(Exception):
    """Bad input: the command exits with code 2 and this message."""


def writable_destination(flag: str, path: Path, *, folder: bool = False) -> Path:
    """`path`, given after `flag` for a command to write (a file, or with `folder` a folder to write files in), once
    the one rule of where Jetwise writes allows it (`engine.io.safety.destination_problem`); else UsageError."""
    if (problem := destination_problem(path, folder=folder)) is not None:
        raise UsageError(f"{flag} {problem}" if flag else problem)
    return path


def unusable_path(path: Path) -> str | None:
    """Why no file system could hold `path` (a name too long), or None; a path not there yet is fine."""
    try:
        path.exists()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def simulated_model(name: str | None) -> StorageModel | None:
    """The simulated storage profile `name`, or None for the real disk."""
    if name is None:
        return None
    if name not in PROFILES:
        known = ", ".join(sorted(PROFILES))
        raise UsageError(f"no simulated storage profile '{name}'; choose one of: {known}")
    return PROFILES[name]


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


class AppContext:
    """The store, opened once, and the runners built on it."""

    def __init__(self, store_path: Path | None = None) -> None:
        self._store_path = store_path
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        """The run store (opened on first use; a `StoreError` says why it cannot be)."""
        if self._store is None:
            self._store = Store(self._store_path)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def session(self, wanted: str, config: TestConfig, note: Callable[[str], None]) -> str:
        """The tuning session a run of `config` joins: `wanted`, or "wanted (2)" for another storage design."""
        name, words = self.store.resolve_session(wanted, config)
        if words is not None:
            note(words)
        return name

    def runner(
        self,
        config: TestConfig,
        output: Path,
        emit: EmitFn,
        *,
        session: str | None,
        model: StorageModel | None = None,
        settle: SettleRule | None = None,
        sweep: SweepPlan | None = None,
        jetstress_folder: Path | None = None,
        source: IntervalSource | None = None,
    ) -> Runner:
        """A runner whose events also go to the store, in `session` (None: not recorded); a load sweep with `sweep`.

        When the run ends with a result, its Jetstress-layout result files are written in `jetstress_folder`
        (default: the run folder)."""
        unusable = unusable_path(output)
        if unusable is not None:
            raise UsageError(f"the run folder {output} cannot be used: {unusable}")
        jetstress = JetstressResults(jetstress_folder or output, output)
        if session is not None:
            emit = fan_out(RunRecorder(self.store, session, output), AdviceRecorder(self.store), emit)
        emit = fan_out(emit, jetstress)
        if source is not None:  # a test across servers: its servers' agents
            runner = Runner(config, output, emit, source=source, session=session, settle=settle, sweep=sweep)
        else:
            runner = runner_for(model, config, output, emit, session=session, settle=settle, sweep=sweep)
        jetstress.say = runner.log
        return runner
