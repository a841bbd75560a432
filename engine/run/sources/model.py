"""The simulated device: a storage model played in virtual time, for tests and what-if.

No file is opened and no I/O is done. A `StorageModel` (spindles or flash channels
with a service time and its spread, an optional write cache, an optional IOPS
ceiling) serves the workload model's I/O mix; each sample interval is solved for
its steady state (the closed loop of transaction threads: more threads, more queueing, higher
latency, until throughput and latency agree) and then drawn with noise and a
warm-up ramp. A two-hour run takes about a second.

It runs the same configuration, settling rule, verdict and result document as a
real run; the document says `simulated: true` and `io_backend: simulated (...)`,
and the test log says so first. It is never a default: only `--simulate PROFILE`
selects it.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.io.platform import UnbufferedProbe
from engine.model.config import TestConfig
from engine.model.growth import growth_bytes_per_transaction
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.validation import Problem, check_rules
from engine.protocol import EmitFn, Phase, PhaseEvent
from engine.results.host_schema import HostFigures, HostInfo
from engine.results.note_schema import RunNote
from engine.results.schema import RunTimes
from engine.run.gate import StartGate, SweepLead, wait_at
from engine.run.measurement import Measurement
from engine.run.played import played_mix
from engine.run.played_log import LogPlay, played_log
from engine.run.run_end import RunEnd, stopped_reason
from engine.run.runner import Runner
from engine.run.settling import SettleRule
from engine.run.simulated_draws import fill_stream
from engine.run.simulated_windows import play, plays_windows
from engine.run.steps import at_load
from engine.run.streams import Mix, maintenance_reads_per_s
from engine.run.sweep import SweepPlan
from engine.workload.pacing import cycle_ms, rest_per_read_wait
from engine.workload.stats import (
    BDM_READ,
    CACHE_HITS,
    CACHE_MISSES,
    DB_READ,
    DB_WRITE,
    LOG_REPLICATION_READ,
    LOG_WRITE,
    InstanceInterval,
)

SIMULATED_HOST = HostInfo(machine_name="simulated device", operating_system="simulated")
CPU_MS_PER_TRANSACTION = 0.05
SEQUENTIAL_READ_COST = 0.35  # a 256 KiB sequential read costs this share of a random read's service time
LEAD_POLL_S = 0.02  # how often a simulated sweep in lockstep looks for its lead's word
LOG_ROUNDS = 2  # the log played at the point, and the point found again with its waits: twice agrees within 1 %
BUSY_HOST_CPU_PERCENT = 60.0  # a busy host's CPU with no test running; saturated (99 %) at its `host_iops`


@dataclass(frozen=True)
class StorageModel:
    name: str
    description: str
    servers: int  # spindles, or flash channels, serving random I/O in parallel
    service_ms: float  # one random 32 KiB I/O on one server
    service_cv: float  # spread of the service time (coefficient of variation)
    log_write_ms: float  # one sequential write-through log write, unloaded
    logs_share_servers: bool = True  # log writes queue behind database I/O
    write_cache_iops: float = 0.0  # writes absorbed by a write cache up to this rate
    iops_ceiling: float | None = None  # a controller or QoS limit on all I/O
    stream_mb_s: float = 140.0  # one server's sequential read rate (MB/s)
    host_iops: float | None = None  # a busy host: its CPU drives at most this many transactional IOPS


PROFILES: dict[str, StorageModel] = {
    m.name: m
    for m in (
        StorageModel("sata-2x7k", "two 7,200 rpm SATA disks without write cache; log writes land in the controller cache",
                     2, 10.0, 0.5, 1.0, logs_share_servers=False, stream_mb_s=110.0),
        StorageModel("sas-8x10k", "eight 10,000 rpm SAS disks behind a 512 MB write cache", 8, 6.5, 0.5, 0.6,
                     logs_share_servers=False, write_cache_iops=1500.0),
        StorageModel("array-24x10k-saturating", "24 x 10k disks behind a controller that tops out at 3,000 IOPS",
                     24, 6.0, 0.5, 0.5, logs_share_servers=False, write_cache_iops=2000.0, iops_ceiling=3000.0),
        StorageModel("flash-qos-1000", "flash behind a 1,000 IOPS quality-of-service limit (a cloud volume)",
                     16, 0.15, 0.3, 0.2, logs_share_servers=False, iops_ceiling=1000.0, stream_mb_s=100.0),
        StorageModel("flash", "an NVMe flash device", 32, 0.12, 0.3, 0.05, logs_share_servers=False, stream_mb_s=100.0),
        StorageModel("flash-busy-host", "an NVMe flash device on a host whose other work leaves its CPU room for about "
                     "2,000 transactional IOPS", 32, 0.12, 0.3, 0.05, logs_share_servers=False, stream_mb_s=100.0,
                     host_iops=2000.0))
}


@dataclass(frozen=True)
class OperatingPoint:
    """The steady state of one setting on one storage model, per second and per instance."""

    transactions_per_s: list[float]  # per instance
    read_ms: float
    write_ms: float
    log_ms: float
    utilisation: float
    cpu_percent: float = 0.0  # the host's CPU: saturated where a busy host's limit held the threads back
    logs: tuple[LogPlay, ...] = ()  # per instance, its log as its writer plays it at this point (`played_log`)


def _wait(utilisation: float, servers: int, service_ms: float, cv: float) -> float:
    """Mean queueing delay at a multi-server station (Sakasegawa's approximation)."""
    if utilisation <= 0:
        return 0.0
    rho = min(utilisation, 0.999)
    power = math.sqrt(2 * (servers + 1)) - 1
    return float(service_ms * rho**power / (servers * (1 - rho)) * (1 + cv * cv) / 2)


def solve(model: StorageModel, config: TestConfig) -> OperatingPoint:
    """The steady state where the threads' cycle, the storage's latency and the log's group commit agree: the point
    with the formula's commit waits, then each instance's log played there and the point found again with its waits,
    twice (`LOG_ROUNDS`)."""
    work = played_mix(config)
    threads = [config.threads_for_database(i) for i in range(config.database_count)]
    logs: tuple[LogPlay, ...] = ()
    point = _point(model, config, work, threads, logs)
    for _ in range(LOG_ROUNDS):
        commits = _commit_ms(model, work, logs, len(threads))
        logs = tuple(played_log(config, n, n * 1000.0 / max(tx, 1e-9) - commit, point.log_ms)
                     for n, tx, commit in zip(threads, point.transactions_per_s, commits, strict=True))
        point = _point(model, config, work, threads, logs)
    return replace(point, logs=logs)


def _commit_ms(model: StorageModel, work: Mix, logs: tuple[LogPlay, ...], instances: int) -> list[float]:
    """What a transaction waits for its commit, per instance: the formula's log write per forced commit until the log
    is played, then the played wait."""
    if not logs:
        return [work.commit_waits * model.log_write_ms] * instances
    return [work.commit_waits * log.commit_wait_ms for log in logs]


def _point(model: StorageModel, config: TestConfig, work: Mix, threads: list[int],
           logs: tuple[LogPlay, ...]) -> OperatingPoint:
    """The fixed point of the threads' cycle and the storage's latency, each instance's commit wait and log writes
    per transaction given (`logs`; none: the formula's)."""
    sluggish = config.sluggish_sessions
    rest = rest_per_read_wait(config.thread_weight)
    commits = _commit_ms(model, work, logs, len(threads))
    log_writes = [log.writes for log in logs] if logs else [work.log_writes] * len(threads)

    def at(read_ms: float) -> OperatingPoint:
        # latency -> throughput (the threads' side)
        log_ms = model.log_write_ms
        per_instance = [t * 1000.0 / cycle_ms(work.reads * read_ms, commit + CPU_MS_PER_TRANSACTION, rest, sluggish)
                        for t, commit in zip(threads, commits, strict=True)]
        tx = sum(per_instance)
        cpu = 0.0
        if model.host_iops:  # the host's CPU, busy with other work, drives no more than its limit
            share = tx * (work.reads + work.writes) / model.host_iops
            cpu = BUSY_HOST_CPU_PERCENT + (99.0 - BUSY_HOST_CPU_PERCENT) * min(1.0, share)
            if share > 1.0:
                per_instance = [t / share for t in per_instance]
                tx /= share
        # throughput -> latency (the storage's side)
        reads, writes = tx * work.reads, tx * work.writes
        cached = min(writes, model.write_cache_iops)
        disk_writes = (writes - cached) + 0.5 * cached  # destaged writes coalesce
        logs_per_s = sum(t * each for t, each in zip(per_instance, log_writes, strict=True))
        # maintenance in 256 KiB reads, each `SEQUENTIAL_READ_COST`; ESE's pace (2013 and later) slows as reads do
        maintenance = config.maintenance_bytes_per_s(read_ms * 1.2) * config.database_count / 262_144
        demand = (reads + disk_writes + SEQUENTIAL_READ_COST * maintenance) * model.service_ms
        if model.logs_share_servers:
            demand += logs_per_s * model.log_write_ms
        utilisation = demand / 1000.0 / model.servers
        queue = _wait(utilisation, model.servers, model.service_ms, model.service_cv)
        implied = model.service_ms + queue
        if model.iops_ceiling:
            slot = 1000.0 / model.iops_ceiling
            load = (reads + writes + logs_per_s) / model.iops_ceiling
            implied += _wait(load, 1, slot, 0.0) * 2  # a token bucket queues every I/O
        write_ms = (0.3 if cached >= writes else implied)
        log_total = log_ms + (queue if model.logs_share_servers else 0.0)
        return OperatingPoint(per_instance, implied, write_ms, log_total, utilisation, cpu)

    low, high = model.service_ms, model.service_ms * 1e4
    for _ in range(80):  # the implied latency falls as the assumed one rises: bisect to the fixed point
        mid = math.sqrt(low * high)
        if at(mid).read_ms > mid:
            low = mid
        else:
            high = mid
    point = at(high)
    return OperatingPoint(point.transactions_per_s, high, point.write_ms, point.log_ms, point.utilisation,
                          point.cpu_percent, logs)


class ModelSource:
    """Intervals from a storage model in virtual time: the same measurement, verdict and result as real I/O."""

    def __init__(self, model: StorageModel) -> None:
        self.model = model
        self.device = model.name
        self.name = f"simulated ({model.name}: {model.description})"  # the device a result names
        self.grown: dict[str, float] = {}  # bytes each database grew by in the run (engine.workload.growth)

    @property
    def note(self) -> RunNote:
        """What every simulated result says of its device."""
        return RunNote(what="simulated", device=self.model.name, about=self.model.description)

    def host(self) -> HostInfo:
        return SIMULATED_HOST

    def validate(self, config: TestConfig) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]:
        return check_rules(config), {}

    def lead(self) -> SweepLead | None:
        return None  # a sweep on this machine chooses its own steps

    def run(self, runner: Runner, measurement: Measurement, probes: dict[Path, UnbufferedProbe]) -> RunEnd:
        config, model = runner.config, self.model
        runner.log(f"SIMULATED DEVICE: {model.description}; no disk I/O is done and these figures come from a model")
        gone = False  # stopped at the gate: its test never started, and no phase of its work is said
        if runner.gate is not None:
            runner.log("The databases are ready; waiting for the other servers of the test")
            gone = not wait_at(runner.gate, lambda: runner.stop_reason is not None)
        if config.open_ended:  # a scan or a Soft Recovery: the model's sequential reads and replay play it
            from engine.run.simulated_work import OpenEndedWork  # it builds on this module

            return OpenEndedWork(self).run(runner, measurement)
        rng = random.Random(config.seed if config.seed is not None else 1)
        self.grown = {}
        if not gone:
            runner.emit(PhaseEvent(phase=Phase.WARMING_UP, message="Attaining prerequisites (simulated)"))
        point = solve(model, config if measurement.load is None else at_load(config, measurement.load))
        log = point.logs[0]
        runner.log(f"{config.instance_name(0)}'s log as its writer's rule plays it on this device (played, group "
                   f"commit): {log.writes:.3f} log writes per transaction of {log.bytes_per_write:,.0f} bytes, a waiting "
                   f"commit {log.commit_wait_ms:.2f} ms")
        work = played_mix(config)
        names = measurement.names
        interval_s = config.sample_interval_s
        start = datetime.now(UTC)
        host = HostFigures(cpu_percent=point.cpu_percent)  # a busy host's CPU; none otherwise (virtual time)
        index = 0
        measuring = False
        load = measurement.load
        if plays_windows(measurement):  # a long run: a window at a time
            def draw(name: str, i: int, ramp: float, seconds: float) -> InstanceInterval:
                return self.instance_interval(config, name, point, work, i, ramp, rng, seconds)

            index = play(runner, measurement, draw, rng, start, host)
        while index < measurement.total_intervals and not plays_windows(measurement):
            if runner.stop_reason is not None:
                break
            if measurement.load != load:  # a sweep's next step: the storage settles at the new load
                load = measurement.load
                point = solve(model, at_load(config, load)) if load is not None else point
                host = HostFigures(cpu_percent=point.cpu_percent)
            elapsed = (index + 1) * interval_s
            ramp = 1.0 - 0.35 * math.exp(-elapsed / 20.0)  # caches warming: latency climbs to its steady value
            parts = {name: self.instance_interval(config, name, point, work, i, ramp, rng) for i, name in enumerate(names)}
            if index >= measurement.warmup_intervals and not measuring:
                measuring = True
                runner.emit(PhaseEvent(phase=Phase.MEASURING, message="Measuring (simulated)"))
            measurement.add(index, parts, duration_s=interval_s, elapsed_s=elapsed,
                            time_utc=start + timedelta(seconds=elapsed), host=host)
            index += 1
            while measurement.steps is not None and measurement.steps.awaiting and runner.stop_reason is None:
                time.sleep(LEAD_POLL_S)  # virtual time: a sweep in lockstep waits for its lead's word, not plays on
        measured_s = max(0, index - measurement.warmup_intervals) * interval_s
        aborted = None
        if runner.stop_reason is not None:
            phase = Phase.MEASURING if measured_s > 0 else Phase.PREPARING if gone else Phase.WARMING_UP
            aborted = stopped_reason(runner.stop_reason, phase, measured_s)
        warm_s = measurement.warmup_intervals * interval_s
        end = start + timedelta(seconds=index * interval_s)
        return RunEnd(
            measured_s=measured_s,
            aborted_reason=aborted,
            host=SIMULATED_HOST,
            times=RunTimes(test_start_utc=start, test_end_utc=end,
                           collection_start_utc=start + timedelta(seconds=warm_s), collection_end_utc=end),
            unbuffered_io=True,
            io_detail="simulated device",
            notes=[self.note],
            database_bytes={name: (config.database_size_bytes, config.database_size_bytes + round(self.grown.get(name, 0.0)))
                            for name in names})

    def instance_interval(
        self, config: TestConfig, name: str, point: OperatingPoint, work: Mix, index: int, ramp: float,
        rng: random.Random, seconds: float | None = None,
    ) -> InstanceInterval:
        """One instance's I/O over `seconds` (a sample interval by default)."""
        model = self.model
        seconds = config.sample_interval_s if seconds is None else seconds
        spans = max(1, round(seconds / config.sample_interval_s))  # sample intervals drawn at once
        noise = math.exp(rng.gauss(0.0, 0.04))
        read_ms = point.read_ms * ramp * noise
        tx = point.transactions_per_s[index] * (point.read_ms / read_ms) ** 0.8 * seconds
        part = InstanceInterval(name)
        spread = max(model.service_cv, 1.0 - model.service_ms / max(point.read_ms, model.service_ms) * 0.5)
        fill_stream(rng, part.stream(DB_READ), tx * work.reads, PAGE_SIZE_BYTES * 1.01, read_ms, spread, spans)
        fill_stream(rng, part.stream(DB_WRITE), tx * work.writes, PAGE_SIZE_BYTES * work.pages_per_write,
                    point.write_ms * ramp * noise, spread, spans)
        log = point.logs[index]
        fill_stream(rng, part.stream(LOG_WRITE), tx * log.writes, log.bytes_per_write, point.log_ms * noise, 0.4, spans)
        if config.background_maintenance:
            fill_stream(rng, part.stream(BDM_READ), maintenance_reads_per_s(config, read_ms * 1.2) * seconds,
                        config.generation.maintenance_batch_bytes, read_ms * 1.2, spread, spans)
        if config.copies_per_database > 1:
            log_bytes = tx * log.writes * log.bytes_per_write * (config.copies_per_database - 1)
            fill_stream(rng, part.stream(LOG_REPLICATION_READ), log_bytes / 262_144, 262_144, point.log_ms * 2, 0.4, spans)
        part.cache[CACHE_HITS] = round(tx * work.hits)
        part.cache[CACHE_MISSES] = round(tx * work.misses)
        self.grown[name] = self.grown.get(name, 0.0) + tx * growth_bytes_per_transaction(config)
        return part


def runner_for(model: StorageModel | None, config: TestConfig, output_dir: Path, emit: EmitFn, *,
               run_id: str | None = None, settle: SettleRule | None = None, session: str | None = None,
               sweep: SweepPlan | None = None, gate: StartGate | None = None, lead: SweepLead | None = None) -> Runner:
    """A runner on the simulated device when `model` is given, else on the configured disks."""
    source = ModelSource(model) if model is not None else None
    return Runner(config, output_dir, emit, source=source, run_id=run_id, settle=settle, session=session, sweep=sweep,
                  gate=gate, lead=lead)
