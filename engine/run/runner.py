"""Runs a test: validate, prepare databases in worker processes, warm up, measure, judge.

The runner lives in the parent process. It emits typed events (`engine.protocol`) to
one callback, writes the interval samples and the test log as they happen, and always
finishes with a result document, marked aborted when the run did not complete.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from engine.io.locks import FolderInUseError, FolderLocks
from engine.io.platform import IoBackend, UnbufferedProbe, default_backend
from engine.io.preflight import run_folders
from engine.model.config import TestConfig, ThreadWeight
from engine.model.derive import thread_weight_words
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.units import MIB, format_bytes
from engine.model.validation import Problem, Severity, errors_only
from engine.protocol import PHASE_WORDS, EmitFn, LogEvent, Phase, PhaseEvent, ResultEvent, RunEvent, StartEvent
from engine.results.document import new_run_id, output_folder_problem, run_id_of
from engine.results.host_schema import HostInfo
from engine.results.jetstress_log import opening_lines
from engine.results.recovery import recovery_words
from engine.results.scans import scan_words
from engine.results.schema import RunResult
from engine.run.gate import StartGate, SweepLead
from engine.run.measurement import Measurement
from engine.run.played import played_mix
from engine.run.run_end import RunEnd
from engine.run.scan_plan import scan_order_words
from engine.run.settling import SettleRule
from engine.run.sinks import RunFolderWriter, SinkFailedError, fan_out, output_space_problem
from engine.run.sources.pool import WorkerPoolSource
from engine.run.streams import target_streams_words
from engine.run.sweep import SweepPlan


class InvalidConfigError(Exception):
    """The configuration cannot run; `problems` says why, field by field."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


class IntervalSource(Protocol):
    """What feeds a run's measurement: the worker pool on real files, or a storage model."""

    name: str
    device: str  # what it runs on: a simulated device's profile, or '' for the storage at the configured paths

    def host(self) -> HostInfo:
        """The machine the test runs on, as its run folder keeps it from the start."""
        ...

    def validate(self, config: TestConfig) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]: ...

    def lead(self) -> SweepLead | None:
        """Who chooses a load sweep's steps when others step with this run (across servers: the source itself, from
        the servers' summed counters); None: the sweep chooses its own."""
        ...

    def run(self, runner: Runner, measurement: Measurement, probes: dict[Path, UnbufferedProbe]) -> RunEnd: ...


class Runner:
    """One run of one configuration. Call `run()` once; `request_stop()` from anywhere.

    validate → StartEvent → the source feeds the measurement → verdict → ResultEvent.
    The run folder is written by a `RunFolderWriter` on the same event stream as the
    store's recorder and the front end, so every front end gets the same artefacts.
    """

    def __init__(self, config: TestConfig, output_dir: Path, emit: EmitFn, *, source: IntervalSource | None = None,
                 backend: IoBackend | None = None, run_id: str | None = None, settle: SettleRule | None = None,
                 session: str | None = None, sweep: SweepPlan | None = None, gate: StartGate | None = None,
                 lead: SweepLead | None = None) -> None:
        self.config = config
        self.gate = gate  # a test across servers: the measured clock starts when every server's run has arrived
        self.settle = settle
        self.sweep = sweep  # a load sweep: the load steps through this plan as the run goes
        self.lead = lead  # a server's share of a sweep across servers: each step at the word of the test's lead
        self.output_dir = output_dir
        self.session = session
        self.source: IntervalSource = source or WorkerPoolSource(backend or default_backend())
        self._folder = RunFolderWriter(output_dir)
        self._emit_fn = fan_out(self._folder, emit)
        self.run_id = run_id or run_id_of(output_dir) or new_run_id()  # the id its folder was named by
        self._stop_reason: str | None = None

    # public ---------------------------------------------------------------------

    def request_stop(self, reason: str = "stopped by the user") -> None:
        """Ask the run to end now; it still writes its samples and an aborted result."""
        if self._stop_reason is None:
            self._stop_reason = reason

    def run(self) -> RunResult:
        self.emit(PhaseEvent(phase=Phase.VALIDATING, message=PHASE_WORDS[Phase.VALIDATING]))
        problems, probes = self.source.validate(self.config)
        errors = errors_only(problems)
        taken = output_folder_problem(self.output_dir)
        if taken is not None:
            errors.append(Problem("output", taken))
        else:
            space = output_space_problem(self.config, self.output_dir)
            if space is not None:
                (errors if space.severity == Severity.ERROR else problems).append(space)
        if errors:
            raise InvalidConfigError(errors)
        locks = self._lock_folders()
        try:
            return self._run(problems, probes)
        finally:
            locks.release()

    def _lock_folders(self) -> FolderLocks:
        """The run's database, log and output folders, each held by this run alone until it ends."""
        folders = [] if self.source.device or self.config.servers else run_folders(self.config)  # a server locks its own
        folders.append(("output", Path(os.path.abspath(self.output_dir))))
        try:
            return FolderLocks([folder for _, folder in folders], self.run_id).take()
        except FolderInUseError as exc:
            field = next((name for name, folder in folders if folder == exc.folder), "output")
            raise InvalidConfigError([Problem(field, str(exc))]) from None
        except OSError as exc:
            raise InvalidConfigError([Problem("output", f"cannot take the run's folders: {exc}")]) from None

    def _run(self, problems: list[Problem], probes: dict[Path, UnbufferedProbe]) -> RunResult:
        started = datetime.now(UTC)
        self.emit(StartEvent(run_id=self.run_id, session=self.session, started_utc=started, config=self.config,
                             host=self.source.host()))
        try:
            for problem in problems:
                self.log(problem.located, "warning")
            self._log_settings()
            lead = self.lead or (self.source.lead() if self.sweep is not None else None)
            measurement = Measurement(self.config, self.settle, self.emit, self.log, sweep=self.sweep, lead=lead)
            end = self.source.run(self, measurement, probes)
            self.emit(PhaseEvent(phase=Phase.FINISHING, message=PHASE_WORDS[Phase.FINISHING]))
            result = measurement.result(self.run_id, end, backend_name=self.source.name, device=self.source.device)
            self.log(f"Test ends: {result.verdict.value.upper()}" + (" (simulated)" if result.simulated else ""))
            self.emit(ResultEvent(result=result))
            self.emit(PhaseEvent(phase=Phase.DONE, message=PHASE_WORDS[Phase.DONE]))
            return result
        finally:
            self._folder.close()

    def _log_settings(self) -> None:
        """What the test runs with, at the head of its test log, as the Jetstress test log has it."""
        config = self.config
        if config.scans:
            self.log(f"{scan_words(config)}; {scan_order_words(config)}")
            return
        kind = "Soft recovery" if config.recovers else config.test_type.value.capitalize()
        if config.recovers:
            self.log(recovery_words(config))
        self.log(f"{kind} test begins: {config.database_count} database(s), "
                 f"{config.thread_count} thread(s), SluggishSessions {config.sluggish_sessions}")
        self.log(f"Exchange version: {config.generation.words}")
        if config.background_maintenance:
            self.log(f"Background maintenance: {config.generation.maintenance_words(config.dbm_throttling_ms)}")
        self.log(f"Checkpoint depth: {config.checkpoint_depth_bytes / MIB:g} MB, "
                 + ("an active database with copies (Microsoft's table)" if config.copies_per_database > 1 else
                    "a stand-alone database (ESE's default)"))
        self.log(f"Thread count: {config.generation.thread_words(config.thread_count, config.database_count)}")
        basis = f"; {config.generation.thread_weight_basis}" if config.thread_weight == ThreadWeight.JETSTRESS else ""
        self.log(f"Thread weight: {thread_weight_words(config.thread_weight)}{basis}")
        # a simulated device drives the model's own cache as it plays the design; the storage, the formula's estimate
        self.log(target_streams_words(config, played_mix(config) if self.source.device else None))
        pages = config.database_cache_pages
        start, stop = config.flush_thresholds_pages
        scaled = "" if config.capacity_percent == 100 else f", scaled to {config.capacity_percent:g} % capacity"
        each = (f"shared by {config.database_file_count} database(s), {config.database_cache_mb_per_database:,.1f} MB each"
                if config.database_cache_shared else "per instance")
        self.log(f"Database cache settings: (minimum: {config.database_cache_min_mb:g} MB, "
                   f"maximum: {config.database_cache_max_mb:g} MB, {each}; model per database: "
                   f"{format_bytes(pages * PAGE_SIZE_BYTES)}{scaled})")
        self.log(f"Database flush thresholds: (start: {format_bytes(start * PAGE_SIZE_BYTES)}, "
                   f"stop: {format_bytes(stop * PAGE_SIZE_BYTES)} available)")
        for line in opening_lines(config):
            self.log(line)
        self.log(f"Background maintenance {'on' if config.background_maintenance else 'off'}, "
                 f"{config.copies_per_database} cop{'y' if config.copies_per_database == 1 else 'ies'} per database")
        self.log(f"I/O errors: {config.io_error_words}")
        if self.sweep is not None:
            self.log(self.sweep.describe(config.sample_interval_s))

    @property
    def stop_reason(self) -> str | None:
        return self._stop_reason

    def emit(self, event: RunEvent) -> None:
        try:
            self._emit_fn(event)
        except SinkFailedError as exc:  # the run folder or the store cannot be written: stop, keep what is there
            self.request_stop(exc.reason)

    def log(self, message: str, level: str = "info") -> None:
        stamp = datetime.now().astimezone().replace(microsecond=0)
        self.emit(LogEvent.model_validate({"time": stamp, "level": level, "message": message}))
