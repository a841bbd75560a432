"""Runs a test: validate, prepare databases in worker processes, warm up, measure, judge.

The runner lives in the parent process. It emits typed events (`engine.events`) to
one callback, writes the interval samples and the test log as they happen, and always
finishes with a result document, marked aborted when the run did not complete.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import traceback
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from queue import Empty
from typing import Any, Protocol

from pydantic import BaseModel

from engine.config import PAGE_SIZE_BYTES, TestConfig
from engine.events import (
    PHASE_WORDS,
    LogEvent,
    Phase,
    PhaseEvent,
    ProgressEvent,
    ResultEvent,
    StartEvent,
)
from engine.host import HostSampler, host_info
from engine.measurement import EmitFn, Measurement, RunEnd
from engine.metrics import InstanceInterval
from engine.platform import IoBackend, UnbufferedProbe, default_backend
from engine.schema import HostFigures, HostInfo, RunResult, RunTimes
from engine.settling import SettleRule
from engine.sinks import RunFolderWriter, fan_out
from engine.units import format_bytes
from engine.validation import Problem, errors_only, validate_config
from engine.worker import WorkerSpec, assign_instances, worker_main

START_DELAY_S = 0.3
STOP_WAIT_S = 1.5


class InvalidConfigError(Exception):
    """The configuration cannot run; `problems` says why, field by field."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


class IntervalSource(Protocol):
    """What feeds a run's measurement: the worker pool on real files, or a storage model."""

    name: str
    simulated: bool

    def validate(self, config: TestConfig) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]: ...

    def run(self, runner: Runner, measurement: Measurement, probes: dict[Path, UnbufferedProbe]) -> RunEnd: ...


def new_run_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Runner:
    """One run of one configuration. Call `run()` once; `request_stop()` from anywhere.

    validate → StartEvent → the source feeds the measurement → verdict → ResultEvent.
    The run folder is written by a `RunFolderWriter` on the same event stream as the
    store's recorder and the front end, so every front end gets the same artefacts.
    """

    def __init__(
        self,
        config: TestConfig,
        output_dir: Path,
        emit: EmitFn,
        *,
        source: IntervalSource | None = None,
        backend: IoBackend | None = None,
        run_id: str | None = None,
        settle: SettleRule | None = None,
        session: str | None = None,
    ) -> None:
        self.config = config
        self.settle = settle
        self.output_dir = output_dir
        self.session = session
        self.source: IntervalSource = source or WorkerPoolSource(backend or default_backend())
        self._folder = RunFolderWriter(output_dir)
        self._emit_fn = fan_out(self._folder, emit)
        self.run_id = run_id or new_run_id()
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
        if errors:
            raise InvalidConfigError(errors)
        started = datetime.now(UTC).isoformat(timespec="seconds")
        self.emit(StartEvent(run_id=self.run_id, session=self.session, started_utc=started, config=self.config))
        try:
            for problem in problems:
                self.log(str(problem), "warning")
            self._log_settings()
            measurement = Measurement(self.config, self.settle, self.emit, self.log)
            end = self.source.run(self, measurement, probes)
            self.emit(PhaseEvent(phase=Phase.FINISHING, message=PHASE_WORDS[Phase.FINISHING]))
            result = measurement.result(self.run_id, end, backend_name=self.source.name, simulated=self.source.simulated)
            self.log(f"Test ends: {result.verdict.value.upper()}" + (" (simulated)" if self.source.simulated else ""))
            self.emit(ResultEvent(result=result))
            self.emit(PhaseEvent(phase=Phase.DONE, message=PHASE_WORDS[Phase.DONE]))
            return result
        finally:
            self._folder.close()

    def _log_settings(self) -> None:
        """What the test runs with, at the head of its test log, as the Jetstress test log has it."""
        config = self.config
        self.log(f"{config.test_type.value.capitalize()} test begins: {config.database_count} database(s), "
                   f"{config.thread_count} thread(s), SluggishSessions {config.sluggish_sessions}")
        pages = config.database_cache_pages
        start, stop = config.flush_thresholds_pages
        scaled = "" if config.capacity_percent == 100 else f", scaled to {config.capacity_percent:g} % capacity"
        self.log(f"Database cache settings per instance: (minimum: {config.database_cache_min_mb:g} MB, "
                   f"maximum: {config.database_cache_max_mb:g} MB; model: {format_bytes(pages * PAGE_SIZE_BYTES)}{scaled})")
        self.log(f"Database flush thresholds: (start: {format_bytes(start * PAGE_SIZE_BYTES)}, "
                   f"stop: {format_bytes(stop * PAGE_SIZE_BYTES)} available)")
        mix = config.operation_mix
        self.log(f"Operation mix: Inserts {mix.insert_percent:g} %, Deletes {mix.delete_percent:g} %, "
                   f"Replaces {mix.replace_percent:g} %, Reads {mix.read_percent:g} %, Lazy Commits {mix.lazy_commit_percent:g} %; "
                   f"background maintenance {'on' if config.background_maintenance else 'off'}, "
                   f"{config.copies_per_database} cop{'y' if config.copies_per_database == 1 else 'ies'} per database")

    @property
    def stop_reason(self) -> str | None:
        return self._stop_reason

    def emit(self, event: BaseModel) -> None:
        self._emit_fn(event)

    def log(self, message: str, level: str = "info") -> None:
        stamp = datetime.now().astimezone()
        self.emit(LogEvent.model_validate({"time": stamp.isoformat(timespec="seconds"), "level": level, "message": message}))


class WorkerPoolSource:
    """Intervals from worker processes driving real I/O at the configured files."""

    simulated = False

    def __init__(self, backend: IoBackend) -> None:
        self.backend = backend
        self.name = backend.name

    def validate(self, config: TestConfig) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]:
        return validate_config(config, self.backend)

    def run(self, runner: Runner, measurement: Measurement, probes: dict[Path, UnbufferedProbe]) -> RunEnd:
        unbuffered = all(p.supported for p in probes.values())
        representative = all(p.representative for p in probes.values())
        details = sorted({p.detail for p in probes.values()})
        return _Session(runner, measurement, unbuffered, representative, "; ".join(details)).execute()


class _Session:
    """The mechanics of one worker-pool run: processes, messages, the clock."""

    def __init__(
        self, runner: Runner, measurement: Measurement, unbuffered: bool, representative: bool, io_detail: str
    ) -> None:
        self.runner = runner
        self.measurement = measurement
        self.config = runner.config
        self.unbuffered = unbuffered
        self.representative = representative
        self.io_detail = io_detail
        config = self.config
        self.interval_s = config.sample_interval_s
        self.interval_ns = round(config.sample_interval_s * 1e9)
        self.window = measurement.window
        workers = config.worker_processes or os.cpu_count() or 1
        self.assignments = assign_instances(config.database_count, min(workers, config.database_count))
        self.pending: dict[int, dict[int, dict[str, Any]]] = defaultdict(dict)
        self.next_interval = 0
        self.sampler = HostSampler()
        self.t0_ns = 0
        self.wall0 = datetime.now(UTC)
        self.perf0 = time.perf_counter_ns()
        self.stop_at_ns: int | None = None
        self.phase = Phase.PREPARING
        self.engine_error: str | None = None
        self.failures: list[str] = []  # reasons that fail the run (I/O errors)
        self.progress: dict[int, tuple[int, int]] = {}
        self.progress_started: float | None = None  # the first report starts the rate clock
        self.progress_base = 0
        self.started_utc = self.wall0

    def _wall(self, perf_ns: int) -> datetime:
        return self.wall0 + timedelta(microseconds=(perf_ns - self.perf0) / 1000)

    def set_phase(self, phase: Phase, message: str = "") -> None:
        self.phase = phase
        self.runner.emit(PhaseEvent(phase=phase, message=message or PHASE_WORDS[phase]))

    # the run --------------------------------------------------------------------------

    def execute(self) -> RunEnd:
        runner = self.runner
        config = self.config
        ctx = multiprocessing.get_context("spawn")
        self.messages = ctx.Queue()
        self.go, self.stop = ctx.Event(), ctx.Event()
        self.t0_value, self.stop_at_value = ctx.Value("q", 0), ctx.Value("q", 0)
        self.end_at_value = ctx.Value("q", 0)  # an earlier planned end, once a settling run has decided
        self.ready: set[int] = set()
        self.done: set[int] = set()
        self.measuring_announced = False
        self.worker_count = 0
        config_json = config.model_dump_json()
        processes: list[Any] = []
        if not self.representative:
            runner.log(f"Unbuffered I/O is not in effect ({self.io_detail}); results are marked unbuffered_io: false", "warning")
        self.set_phase(Phase.PREPARING)
        try:
            for worker_id, indexes in enumerate(self.assignments):
                spec = WorkerSpec(
                    worker_id, config_json, indexes, self.unbuffered, self.window.min_warmup, self.window.total_intervals
                )
                process = ctx.Process(
                    target=worker_main,
                    args=(spec, self.messages, self.go, self.t0_value, self.stop, self.stop_at_value, self.end_at_value),
                    name=f"jetwise-worker-{worker_id}",
                    daemon=True,
                )
                process.start()
                processes.append(process)
            self.worker_count = len(processes)
            self._loop(processes)
        except BaseException as exc:  # KeyboardInterrupt included: always leave a result
            if isinstance(exc, KeyboardInterrupt):
                runner.request_stop("stopped by the user (Ctrl-C)")
            else:
                self.engine_error = f"{type(exc).__name__}: {exc}"
                runner.log(f"Engine error: {self.engine_error}\n{traceback.format_exc()}", "error")
            self._stop()
        finally:
            self._reap(processes)
        return self._finish()

    def _loop(self, processes: list[Any]) -> None:
        runner = self.runner
        while len(self.done) < self.worker_count:
            try:
                self._dispatch(self.messages.get(timeout=0.1))
            except Empty:
                pass
            if runner.stop_reason is not None and not self.stop.is_set():
                runner.log(f"Stop requested: {runner.stop_reason}", "warning")
                self._stop()
            for worker_id, process in enumerate(processes):
                # An exited worker gets a moment for its last messages to arrive before it is called dead.
                exited = worker_id not in self.done and process.exitcode is not None
                if exited and not self._drain_until_done(worker_id):
                    self.engine_error = f"worker process {worker_id} ended unexpectedly (exit code {process.exitcode})"
                    runner.log(self.engine_error, "error")
                    self.done.add(worker_id)
                    self._stop()

    def _dispatch(self, message: tuple[Any, ...]) -> None:
        """Act on one message from a worker; every path that reads the queue comes here."""
        runner = self.runner
        kind, worker_id = message[0], message[1]
        if kind == "log":
            runner.log(message[3], message[2])
        elif kind == "progress":
            self._on_progress(message[2], message[3], message[4])
        elif kind == "ready":
            self.ready.add(worker_id)
            if len(self.ready) == self.worker_count and not self.stop.is_set():
                self._start_measuring_clock()
        elif kind == "interval":
            self._on_interval(worker_id, message[2], message[3], self.worker_count)
            if not self.measuring_announced and self.next_interval >= self.measurement.warmup_intervals:
                self.measuring_announced = True
                self.set_phase(Phase.MEASURING)
                runner.log("Measurement begins")
        elif kind == "io_error":
            if message[2] not in self.failures:
                self.failures.append(message[2])
            self._stop()
        elif kind == "error":
            self.engine_error = message[2].splitlines()[0]
            runner.log(f"Engine error in worker {worker_id}: {message[2]}", "error")
            self._stop()
        elif kind == "done":
            self.done.add(worker_id)

    def _start_measuring_clock(self) -> None:
        """Every worker is ready: fix t0 a moment ahead and let them go."""
        self.t0_ns = time.perf_counter_ns() + int(START_DELAY_S * 1e9)
        self.t0_value.value = self.t0_ns
        self.go.set()
        if self.window.settle is not None:
            self.set_phase(Phase.WARMING_UP)
            self.runner.log("Attaining prerequisites: warm-up until latency settles "
                            f"(at least {self.window.min_warmup * self.interval_s:g} s)")
        elif self.measurement.warmup_intervals:
            self.set_phase(Phase.WARMING_UP)
            self.runner.log(f"Attaining prerequisites: warm-up for {self.measurement.warmup_intervals * self.interval_s:g} s")
        else:
            self.set_phase(Phase.MEASURING)
            self.measuring_announced = True

    def _drain_until_done(self, worker_id: int) -> bool:
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            try:
                self._dispatch(self.messages.get(timeout=0.05))
            except Empty:
                continue
            if worker_id in self.done:
                return True
        return False

    def _stop(self) -> None:
        if self.stop.is_set():
            return
        now = time.perf_counter_ns()
        self.stop_at_ns = now
        self.stop_at_value.value = now
        self.stop.set()

    def _reap(self, processes: list[Any]) -> None:
        deadline = time.monotonic() + STOP_WAIT_S
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:
            if process.is_alive():
                self.runner.log(f"{process.name} did not stop in time; terminating it", "warning")
                process.terminate()
                process.join(1.0)
        try:
            while True:
                self._dispatch(self.messages.get_nowait())
        except (Empty, OSError, ValueError):
            pass
        self.messages.close()
        self.messages.join_thread()

    # events from workers ------------------------------------------------------------

    def _on_progress(self, instance: int, done_bytes: int, total_bytes: int) -> None:
        now = time.monotonic()
        if self.progress_started is None:
            self.progress_started = now
            self.progress_base = done_bytes  # bytes a resumed creation had already written
        self.progress[instance] = (done_bytes, total_bytes)
        done = sum(d for d, _ in self.progress.values())
        total = self.config.database_size_bytes * self.config.database_count
        elapsed = max(1e-3, now - self.progress_started)
        rate = max(0, done - self.progress_base) / elapsed
        eta = (total - done) / rate if rate > 0 else None
        self.runner.emit(
            ProgressEvent(phase=Phase.PREPARING, done_bytes=done, total_bytes=total, rate_bytes_per_s=rate, eta_s=eta)
        )

    def _parts(self, payloads: dict[int, dict[str, Any]]) -> dict[str, InstanceInterval]:
        merged = {name: InstanceInterval(name) for name in self.measurement.names}
        for payload in payloads.values():
            for name, wire in payload.items():
                merged[name] = InstanceInterval.from_wire(name, wire)
        return merged

    def _on_interval(self, worker_id: int, index: int, payload: dict[str, Any], worker_count: int) -> None:
        if index >= self.measurement.total_intervals:
            return  # past an end a settling run decided after the workers had already measured on
        if index < self.next_interval:
            # a straggler for an interval already shown: counted, not shown again
            self.measurement.add_late(index, self._parts({worker_id: payload}))
            return
        self.pending[index][worker_id] = payload
        while len(self.pending.get(self.next_interval, {})) == worker_count and self.next_interval < self.measurement.total_intervals:
            self._emit_interval(self.next_interval, self.pending.pop(self.next_interval))
            self.next_interval += 1

    def _interval_span(self, index: int) -> tuple[int, int]:
        start = self.t0_ns + index * self.interval_ns
        end = start + self.interval_ns
        if self.stop_at_ns is not None:
            end = min(end, self.stop_at_ns)
        return start, end

    def _emit_interval(self, index: int, parts: dict[int, dict[str, Any]]) -> None:
        start, end = self._interval_span(index)
        settled = self.measurement.add(
            index,
            self._parts(parts),
            duration_s=max(1e-9, (end - start) / 1e9),
            elapsed_s=(end - self.t0_ns) / 1e9,
            time_utc=self._wall(end).isoformat(timespec="milliseconds"),
            host=HostFigures(**self.sampler.sample()),
        )
        if settled:
            self.end_at_value.value = self.t0_ns + self.measurement.total_intervals * self.interval_ns

    # the end --------------------------------------------------------------------------

    def _finish(self) -> RunEnd:
        runner = self.runner
        for index in sorted(self.pending):
            if index < self.measurement.total_intervals:
                self._emit_interval(index, self.pending[index])
        self.pending.clear()
        measure_start = self.t0_ns + self.measurement.warmup_intervals * self.interval_ns
        planned_end = self.t0_ns + self.measurement.total_intervals * self.interval_ns
        end = planned_end if self.stop_at_ns is None else min(planned_end, self.stop_at_ns)
        measured_s = max(0.0, (end - measure_start) / 1e9) if self.t0_ns else 0.0
        aborted_reason = None
        if self.engine_error is not None:
            aborted_reason = f"Run aborted by an engine error: {self.engine_error}"
        elif runner.stop_reason is not None and (self.stop_at_ns is not None or not self.t0_ns):
            where = {
                Phase.PREPARING: "while preparing the databases",
                Phase.WARMING_UP: "during warm-up, before measurement began",
            }.get(self.phase, f"after {measured_s:.1f} s of measurement")
            aborted_reason = f"Run aborted: {runner.stop_reason} {where}"
        times = RunTimes(
            test_start_utc=self.started_utc.isoformat(timespec="seconds"),
            test_end_utc=datetime.now(UTC).isoformat(timespec="seconds"),
            collection_start_utc=self._wall(measure_start).isoformat(timespec="seconds") if self.t0_ns else None,
            collection_end_utc=self._wall(end).isoformat(timespec="seconds") if self.t0_ns else None,
        )
        notes = []
        if not self.representative:
            notes.append(f"Unbuffered I/O was not in effect: {self.io_detail}. These figures may measure a cache.")
        return RunEnd(
            measured_s=measured_s,
            aborted_reason=aborted_reason,
            failures=list(self.failures),
            host=HostInfo(**host_info()),
            times=times,
            unbuffered_io=self.representative,
            io_detail=self.io_detail,
            notes=notes,
        )
