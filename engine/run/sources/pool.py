"""The worker pool: real files driven by worker processes, their messages merged into intervals.

One `_PoolRun` per run: it starts the workers (`engine.run.processes`), acts on their
typed messages (`engine.run.messages`: a hello, creation progress, readiness, interval
counters, log lines, errors), starts the measured clock, stops and reaps them.
"""

from __future__ import annotations

import os
import time
import traceback
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from engine.io.platform import IoBackend, UnbufferedProbe, default_backend
from engine.io.platform.lifetime import contain_children
from engine.io.preflight import validate_config
from engine.model.config import TestConfig
from engine.model.validation import Problem
from engine.protocol import PHASE_WORDS, WORK_PHASES, Phase, PhaseEvent
from engine.results.host_schema import HostFigures, HostInfo
from engine.results.note_schema import RunNote
from engine.results.scans import SCAN_PHASE_WORDS
from engine.results.schema import RunTimes
from engine.run.gate import SweepLead
from engine.run.host import HostSampler, host_info
from engine.run.measurement import Measurement
from engine.run.messages import (
    MESSAGE_VERSION,
    DatabaseProgress,
    IntervalCounters,
    LogsGenerated,
    RecoveryReport,
    ScanReport,
    WorkerCrash,
    WorkerDone,
    WorkerHello,
    WorkerIoError,
    WorkerLog,
    WorkerReady,
    WorkerSpec,
    interval_parts,
    refused_words,
)
from engine.run.processes import WorkerProcesses
from engine.run.progress import ProgressMeter
from engine.run.run_end import RunEnd, stopped_reason
from engine.run.scan_plan import scan_groups
from engine.run.work_ends import WorkEnds
from engine.run.worker import assign_groups
from engine.workload.stats import InstanceInterval

if TYPE_CHECKING:
    from engine.run.runner import Runner

START_DELAY_S = 0.3
EXIT_GRACE_S = 0.5  # how long an exited worker's last messages get to arrive before it is called dead


class WorkerPoolSource:
    """Intervals from worker processes driving real I/O at the configured files."""

    device = ""  # the storage at the configured paths

    def __init__(self, backend: IoBackend) -> None:
        self.backend = backend
        self.name = backend.name

    def host(self) -> HostInfo:
        return HostInfo.model_validate(host_info())

    def validate(self, config: TestConfig) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]:
        return validate_config(config, self.backend)

    def lead(self) -> SweepLead | None:
        return None  # a sweep on this machine chooses its own steps

    def run(self, runner: Runner, measurement: Measurement, probes: dict[Path, UnbufferedProbe]) -> RunEnd:
        unbuffered, representative = all(p.supported for p in probes.values()), all(p.representative for p in probes.values())
        details = sorted({p.detail for p in probes.values()})
        # A backend other than the platform's own (a device a test builds) goes to the workers as it is; the
        # platform's own is opened afresh in each worker (it may hold the OS's handles, which do not travel).
        handed = None if type(self.backend) is type(default_backend()) else self.backend
        return _PoolRun(runner, measurement, unbuffered, representative, "; ".join(details), handed).execute()


class _PoolRun:
    """The mechanics of one worker-pool run: processes, messages, the clock."""

    def __init__(self, runner: Runner, measurement: Measurement, unbuffered: bool, representative: bool, io_detail: str,
                 backend: IoBackend | None = None) -> None:
        self.runner = runner
        self.backend = backend
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
        self.assignments = assign_groups(scan_groups(config), workers)  # a checksum's volume whole in one worker
        self.pending: dict[int, dict[int, dict[str, InstanceInterval]]] = defaultdict(dict)
        self.next_interval = 0
        self.sampler = HostSampler()
        self.t0_ns = 0
        self.wall0, self.perf0 = datetime.now(UTC), time.perf_counter_ns()
        self.stop_at_ns: int | None = None
        self.phase = Phase.PREPARING
        self.engine_error: str | None = None
        self.engine_fault = True  # the error is the engine's (a traceback), not the system's (a full volume)
        self.failures: list[str] = []  # reasons that fail the run (I/O errors)
        self.progress = ProgressMeter()
        contained = contain_children()  # Windows: the workers end with this process however it ends
        if contained is not None:
            runner.log(contained, "warning")
        self.workers = WorkerProcesses()
        self.ready: set[int] = set()
        self.done: set[int] = set()
        self.refused: set[int] = set()  # workers that speak another message version: not listened to
        self.measuring_announced = False
        self.waiting_at_gate = False  # every worker is ready; the start instant comes from the run's gate
        self.applied_load = measurement.load  # a sweep's load the workers were last told
        self.ends = WorkEnds(config.database_count)  # a scan's or a Soft Recovery's work, as it ends
        self.held_replay: dict[int, tuple[int, int]] = {}  # instance -> a replay's bytes done, total, not yet shown

    def _wall(self, perf_ns: int) -> datetime:
        return self.wall0 + timedelta(microseconds=(perf_ns - self.perf0) / 1000)

    def set_phase(self, phase: Phase, message: str = "") -> None:
        self.phase = phase
        self.runner.emit(PhaseEvent(phase=phase, message=message or PHASE_WORDS[phase]))

    # the run --------------------------------------------------------------------------

    def execute(self) -> RunEnd:
        runner = self.runner
        config = self.config
        sweep = self.measurement.steps
        if sweep is not None:  # the workers start every thread the sweep may ask for; the load says how many run
            config = config.model_copy(update={"thread_count": sweep.plan.max_threads})
            self.workers.set_load(sweep.load.threads, sweep.load.sluggish)
        config_json = config.model_dump_json()
        if not self.representative:
            runner.log(f"Unbuffered I/O is not in effect ({self.io_detail}); results are marked unbuffered_io: false", "warning")
        self.set_phase(Phase.PREPARING)
        try:
            for worker_id, indexes in enumerate(self.assignments):
                self.workers.start(WorkerSpec(worker_id, config_json, indexes, self.unbuffered, self.window.min_warmup,
                                              self.window.total_intervals, self.backend))
            self._loop()
        except BaseException as exc:  # KeyboardInterrupt included: always leave a result
            if isinstance(exc, KeyboardInterrupt):
                runner.request_stop("stopped by the user (Ctrl-C)")
            else:
                self.engine_error = f"{type(exc).__name__}: {exc}"
                runner.log(f"Engine error: {self.engine_error}\n{traceback.format_exc()}", "error")
            self._stop()
        finally:
            for message in self.workers.reap(lambda text: runner.log(text, "warning")):
                self._dispatch(message)
        return self._finish()

    def _loop(self) -> None:
        runner = self.runner
        while len(self.done) < len(self.workers):
            message = self.workers.receive(0.1)
            if message is not None:
                self._dispatch(message)
            if self.waiting_at_gate and not self.workers.stopping and runner.gate is not None:
                t0_ns = runner.gate.start_ns()
                if t0_ns is not None:
                    self.waiting_at_gate = False
                    self._start_measuring_clock(t0_ns)
            if runner.stop_reason is not None and not self.workers.stopping:
                runner.log(f"Stop requested: {runner.stop_reason}", "warning")
                self._stop()
            for worker_id, exit_code in self.workers.exited():
                if worker_id not in self.done and not self._drain_until_done(worker_id):
                    self.engine_error = f"worker process {worker_id} ended unexpectedly (exit code {exit_code})"
                    runner.log(self.engine_error, "error")
                    self.done.add(worker_id)
                    self._stop()

    def _dispatch(self, message: object) -> None:
        """Act on one message from a worker; every path that reads the queue comes here."""
        runner = self.runner
        match message:
            case WorkerDone(worker_id=worker_id):
                self.done.add(worker_id)
            case WorkerHello(worker_id=worker_id, pid=pid, version=version):
                if version != MESSAGE_VERSION:
                    self._refuse(worker_id, pid, version)
            case _ if getattr(message, "worker_id", None) in self.refused:
                pass  # a worker of another message version is not listened to
            case WorkerLog(level=level, text=text):
                runner.log(text, level)
            case DatabaseProgress(instance_index=index, done_bytes=done_bytes, total_bytes=total_bytes):
                self._on_progress(index, done_bytes, total_bytes)
            case ScanReport(instance_index=index, tally=tally, ended_ns=ended_ns):
                self._end_measuring(self.ends.scan_ended(index, tally, max(self.t0_ns, ended_ns)))
            case LogsGenerated(instance_index=index, ended_ns=ended_ns):
                if self._end_measuring(self.ends.logs_generated(index, max(self.t0_ns, ended_ns))):
                    self.ends.replaying = True
                    runner.log("Log files generated; shutting down the databases without a clean checkpoint, as a crash does")
                    self._announce_replay()
            case RecoveryReport(instance_index=index, tally=tally):
                self.ends.recoveries[index] = tally
            case WorkerReady(worker_id=worker_id):
                self.ready.add(worker_id)
                if len(self.ready) == len(self.workers) and not self.workers.stopping:
                    if runner.gate is None:
                        self._start_measuring_clock(time.perf_counter_ns() + int(START_DELAY_S * 1e9))
                    else:
                        self.waiting_at_gate = True
                        runner.gate.arrived()
                        runner.log("The databases are ready; waiting for the other servers of the test")
            case IntervalCounters(worker_id=worker_id, index=index, counters=counters):
                self._on_interval(worker_id, index, counters, len(self.workers))
                if not self.measuring_announced and self.next_interval >= self.measurement.warmup_intervals:
                    self.measuring_announced = True
                    self.set_phase(Phase.MEASURING)
                    runner.log("Measurement begins")
            case WorkerIoError(reason=reason):
                if reason not in self.failures:
                    self.failures.append(reason)
                self._stop()
            case WorkerCrash(worker_id=worker_id, error=error, details=details):  # no details: the system's, said whole
                self.engine_error, self.engine_fault = error, bool(details)
                runner.log(f"Engine error in worker {worker_id}: {error}\n{details}" if details else error, "error")
                self._stop()
            case _:
                runner.log(f"A worker sent a message this runner does not know; it was ignored: {message!r:.300}", "error")

    def _refuse(self, worker_id: int, pid: int, version: int) -> None:
        """A worker of another Jetwise (the installation changed as the test started): end the run, aborted."""
        self.refused.add(worker_id)
        self.engine_error = refused_words(worker_id, pid, version, MESSAGE_VERSION)
        self.runner.log(f"Worker refused: {self.engine_error}", "error")
        self._stop()

    def _start_measuring_clock(self, t0_ns: int) -> None:
        """Every worker is ready: let them go at `t0_ns` (a moment ahead)."""
        self.ends.began(self.config)  # the databases created or attached: what the test grows them from
        self.t0_ns = max(t0_ns, time.perf_counter_ns())
        self.workers.let_go(self.t0_ns)
        if self.window.settle is not None:
            self.set_phase(Phase.WARMING_UP)
            self.runner.log("Attaining prerequisites: warm-up until latency settles "
                            f"(at least {self.window.min_warmup * self.interval_s:g} s)")
        elif self.measurement.warmup_intervals:
            self.set_phase(Phase.WARMING_UP)
            self.runner.log(f"Attaining prerequisites: warm-up for {self.measurement.warmup_intervals * self.interval_s:g} s")
        else:
            self.set_phase(Phase.MEASURING, SCAN_PHASE_WORDS.get(self.config.test_type, ""))
            self.measuring_announced = True
            self.progress.restart()  # a scan's rate and time to go count from its own first read

    def _drain_until_done(self, worker_id: int) -> bool:
        """An exited worker: act on its last messages; False if its done never came."""
        deadline = time.monotonic() + EXIT_GRACE_S
        while time.monotonic() < deadline:
            message = self.workers.receive(0.05)
            if message is not None:
                self._dispatch(message)
            if worker_id in self.done:
                return True
        return False

    def _stop(self) -> None:
        self.stop_at_ns = self.stop_at_ns if self.workers.stopping else self.workers.stop_now()

    # events from workers ------------------------------------------------------------

    def _announce_replay(self, shown: bool = False) -> None:
        """A Soft Recovery's replay begins once its log generation's last sample is shown."""
        if self.ends.announce_replay(shown or self.next_interval >= self.measurement.total_intervals):
            self.set_phase(Phase.REPLAYING)
            self.progress.restart()
            held, self.held_replay = self.held_replay, {}
            for instance, (done_bytes, total_bytes) in sorted(held.items()):  # what it replayed before it was shown
                self._on_progress(instance, done_bytes, total_bytes)

    def _on_progress(self, instance: int, done_bytes: int, total_bytes: int) -> None:
        if self.ends.replaying and not self.ends.announced:
            self.held_replay[instance] = (done_bytes, total_bytes)  # said once the replay is (`_announce_replay`)
            return
        # a scan (the databases as they are, with their logs for a checksum) or a replay: not the databases' creation
        scanning = self.phase in WORK_PHASES
        planned = self.ends.planned_bytes(self.config, scanning)
        event = self.progress.report(self.phase, instance, done_bytes, total_bytes, planned_total=planned)
        self.measurement.eta_s = event.eta_s if scanning else None
        self.runner.emit(event)

    def _end_measuring(self, end: int | None) -> bool:
        """The work of an open-ended test is done at `end` (None: not yet): its measured run ends there (False if it
        already ended)."""
        if end is None or self.workers.stopping or not self.ends.end(end):
            return False
        self.measurement.window.total_intervals = max(1, -(-(end - self.t0_ns) // self.interval_ns))
        self.workers.end_at(end)
        return True

    def _on_interval(self, worker_id: int, index: int, payload: dict[str, InstanceInterval], worker_count: int) -> None:
        if index >= self.measurement.total_intervals:
            return  # past an end a settling run decided after the workers had already measured on
        if index < self.next_interval:
            # a straggler for an interval already shown: counted and shown with the next
            self.measurement.add_late(interval_parts(self.measurement.names, {worker_id: payload}))
            return
        self.pending[index][worker_id] = payload
        while len(self.pending.get(self.next_interval, {})) == worker_count and self.next_interval < self.measurement.total_intervals:
            self._emit_interval(self.next_interval, self.pending.pop(self.next_interval))
            self.next_interval += 1
        self._announce_replay()

    def _interval_span(self, index: int) -> tuple[int, int]:
        start = self.t0_ns + index * self.interval_ns
        return start, min(stop for stop in (start + self.interval_ns, self.stop_at_ns, self.ends.end_ns) if stop is not None)

    def _emit_interval(self, index: int, parts: dict[int, dict[str, InstanceInterval]]) -> None:
        start, end = self._interval_span(index)
        settled = self.measurement.add(index, interval_parts(self.measurement.names, parts),
                                       duration_s=max(1e-9, (end - start) / 1e9), elapsed_s=(end - self.t0_ns) / 1e9,
                                       time_utc=self._wall(end), host=HostFigures.model_validate(self.sampler.sample()))
        if settled:
            self.workers.end_at(self.t0_ns + self.measurement.total_intervals * self.interval_ns)
        load = self.measurement.load
        if load is not None and load != self.applied_load:
            self.applied_load = load
            self.workers.set_load(load.threads, load.sluggish)

    def _finish(self) -> RunEnd:
        runner = self.runner
        for index in sorted(self.pending):
            if index < self.measurement.total_intervals:
                self._emit_interval(index, self.pending[index])
        self.pending.clear()
        self._announce_replay(shown=True)  # the generation's last samples came only now: its logs were replayed
        measure_start = self.t0_ns + self.measurement.warmup_intervals * self.interval_ns
        planned_end = self.t0_ns + self.measurement.total_intervals * self.interval_ns
        end = min(stop for stop in (planned_end, self.stop_at_ns, self.ends.end_ns) if stop is not None)
        measured = self.t0_ns != 0
        measured_s = max(0.0, (end - measure_start) / 1e9) if measured else 0.0
        by = " by an engine error" if self.engine_fault else ""
        aborted_reason = f"Run aborted{by}: {self.engine_error}" if self.engine_error is not None else None
        if aborted_reason is None and runner.stop_reason is not None and (self.stop_at_ns is not None or not measured):
            aborted_reason = stopped_reason(runner.stop_reason, self.phase, measured_s, replaying=self.ends.replaying)
        times = RunTimes(test_start_utc=self.wall0, test_end_utc=datetime.now(UTC),
                         collection_start_utc=self._wall(measure_start) if measured else None,
                         collection_end_utc=self._wall(end) if measured else None)
        notes = [] if self.representative else [RunNote(what="not_unbuffered", device=self.io_detail)]
        return RunEnd(measured_s=measured_s, aborted_reason=aborted_reason, failures=list(self.failures),
                      host=HostInfo.model_validate(host_info()), times=times, unbuffered_io=self.representative,
                      io_detail=self.io_detail, notes=notes, scans=self.ends.scan_tallies(),
                      recoveries=dict(self.ends.recoveries), database_bytes=self.ends.database_bytes(self.config))
