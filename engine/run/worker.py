"""A worker process: prepares its share of the database instances and runs them.

Databases are spread over worker processes so one interpreter's lock never caps
throughput. The parent (`engine.run.sources.pool`) starts each worker with one
`WorkerChannels` and hears from it only through the typed messages of
`engine.run.messages`: a hello first, a done last.

Every process uses time.perf_counter_ns (CLOCK_MONOTONIC / QueryPerformanceCounter,
both system-wide), so interval boundaries line up across processes.
"""

from __future__ import annotations

import contextlib
import errno
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import threading
import time
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Any

from engine.io.file_names import database_files
from engine.io.files import CreationInterruptedError, CreationProgress, prepare_database
from engine.io.pages import DatabaseHeader
from engine.io.platform import IoBackend, default_backend
from engine.io.safety import make_folders
from engine.io.watch import FileWatch
from engine.model.config import TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.units import format_bytes
from engine.run.cache_warmth import CacheWarmth
from engine.run.messages import (
    DatabaseProgress,
    IntervalCounters,
    RecoveryReport,
    ScanReport,
    WorkerChannels,
    WorkerCrash,
    WorkerDone,
    WorkerHello,
    WorkerIoError,
    WorkerLog,
    WorkerMessage,
    WorkerReady,
)
from engine.run.recovering import Generation, replay_instances
from engine.run.scanning import instance_logs, make_scans, pages_for
from engine.workload.context import RunClock
from engine.workload.errors import HUNG_SCAN_STOP_REASON, HUNG_STOP_REASON, STOP_REASON, ErrorLines, IoProblem
from engine.workload.hung import PATROL_S, HungPatrol
from engine.workload.instance import Instance, InstancePlan
from engine.workload.load import share
from engine.workload.scan import ProgressFn, Scan
from engine.workload.stats import InstanceInterval, IntervalBucket

COLLECT_GRACE_S = 0.25  # wait this long after an interval ends before collecting it
JOIN_TIMEOUT_S = 1.0
PARENT_GONE_EXIT = 70  # a worker whose runner died ends with this code


def worker_main(channels: WorkerChannels) -> None:
    """Entry point of a worker process (spawned; must stay importable and picklable)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides how a Ctrl-C ends the run
    _end_with_parent()
    worker_id = channels.spec.worker_id
    channels.messages.put(WorkerHello(worker_id, os.getpid()))
    try:
        _Worker(channels, channels.spec.backend or default_backend()).run()
    except Exception as exc:  # report anything unexpected instead of dying silently
        channels.messages.put(WorkerCrash(worker_id, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
    finally:
        channels.messages.put(WorkerDone(worker_id))


def _end_with_parent() -> None:
    """A worker whose runner is gone (killed, crashed, its session closed) ends at once, on every platform.

    Nobody would read what it measures, and it must not go on loading a customer's disk. The
    runner's process sentinel (a pipe on POSIX, the process handle on Windows) becomes ready
    when the runner ends, however it ends; the files are closed by the operating system, and a
    database being created resumes where its header says on the next run.
    """
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(PARENT_GONE_EXIT)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class _Worker:
    def __init__(self, channels: WorkerChannels, backend: IoBackend) -> None:
        self.channels = channels
        self.spec = channels.spec
        self.worker_id = channels.spec.worker_id
        self.config = TestConfig.model_validate_json(channels.spec.config_json)
        self.backend = backend
        self._error_lines = ErrorLines(self.log)
        self.clock: RunClock | None = None
        self.patrol: HungPatrol | None = None  # the hung I/O patrol of the instances measuring
        self.collected = 0  # the first interval the collector has not sent

    # messages ----------------------------------------------------------------------

    def send(self, message: WorkerMessage) -> None:
        self.channels.messages.put(message)

    def log(self, text: str, level: str = "info") -> None:
        self.send(WorkerLog(self.worker_id, level, text))

    def say(self, text: str, level: str) -> None:
        self.log(text, level)

    def on_damage(self, instance: str, problem: IoProblem) -> None:
        """A damaged page or a failed read met by a scan: logged (each once, `ErrorLines`), counted; the scan goes on."""
        self._error_lines.note(instance, problem)

    def on_io_error(self, instance: str, problem: IoProblem) -> None:
        """Log an I/O error of a named kind (each bad block once, `ErrorLines`); its count travels with the
        interval counters. The first stops the run unless errors are to be tolerated."""
        first = self._error_lines.note(instance, problem)
        if first and not self.config.continue_on_errors and self.clock is not None and not self.clock.stop.is_set():
            self.send(WorkerIoError(self.worker_id, STOP_REASON))

    def on_hung(self, instance: str, problem: IoProblem) -> None:
        """An I/O found hung (`engine.workload.hung`), while it hangs: logged and, unless errors are to be tolerated,
        the test is stopped without waiting for it. A scan cannot go past a read that never completes: it always is."""
        self._error_lines.note(instance, problem)
        clock = self.clock
        if (self.config.scans or not self.config.continue_on_errors) and clock is not None and not clock.stop.is_set():
            self.send(WorkerIoError(self.worker_id, HUNG_SCAN_STOP_REASON if self.config.scans else HUNG_STOP_REASON))

    # phases ------------------------------------------------------------------------

    def run(self) -> None:
        plans = self.prepare()
        if plans is None:
            return
        self.send(WorkerReady(self.worker_id))
        while not self.channels.go.wait(0.1):
            if self.channels.stop.is_set():
                return
        self.measure(plans)

    def prepare(self) -> list[InstancePlan] | None:
        config = self.config
        plans: list[InstancePlan] = []
        for index in self.spec.instance_indexes:
            spec = config.databases[index]
            name = config.instance_name(index)
            for folder in (*spec.database_paths, spec.log_path):
                make_folders(folder)
            paths = database_files(spec, index)
            sizes = [pages_for(config, path) * PAGE_SIZE_BYTES for path in paths]
            headers: list[DatabaseHeader] = []
            for part, path in enumerate(paths):  # the first file, then any further ones with its id

                def progress(p: CreationProgress, index: int = index, before: int = sum(sizes[:part]),
                             after: int = sum(sizes[part + 1:])) -> None:  # over all the instance's files
                    self.send(DatabaseProgress(self.worker_id, index, before + p.bytes_done, before + p.bytes_total + after))

                try:
                    headers.append(prepare_database(
                        self.backend, path, sizes[part] // PAGE_SIZE_BYTES, config.database_source,
                        unbuffered=self.spec.unbuffered, progress=progress, should_stop=self.channels.stop.is_set,
                        log=self.log, first=headers[0] if headers else None, part=part, as_it_is=config.scans))
                except CreationInterruptedError as exc:
                    self.log(str(exc), "warning")
                    return None
                except OSError as exc:  # a full volume, a link at the name: one line naming the file, no traceback
                    self.send(WorkerCrash(self.worker_id, preparation_words(name, path, exc), ""))
                    return None
            header = headers[0]
            try:
                log_paths, sector = instance_logs(self.backend, self.config, spec.log_path, index, header.db_id,
                                                  unbuffered=self.spec.unbuffered)
            except OSError as exc:
                self.send(WorkerCrash(self.worker_id, preparation_words(name, Path(exc.filename or spec.log_path), exc), ""))
                return None
            self.log(f"{name}: log written in {sector}-byte sectors")
            plans.append(
                InstancePlan(
                    index=index,
                    name=name,
                    db_paths=paths,
                    log_paths=log_paths,
                    db_id=header.db_id,
                    part_pages=[h.pages_created for h in headers],  # as they stand: a database grows (engine.workload.growth)
                    threads=config.threads_for_database(index),
                    log_sector_bytes=sector,
                )
            )
        return plans

    def _scans(self, plans: list[InstancePlan], clock: RunClock) -> list[Scan]:
        def progress_of(index: int) -> ProgressFn:
            return lambda done, total: self.send(DatabaseProgress(self.worker_id, index, done, total))

        return make_scans(self.backend, self.config, plans, clock, unbuffered=self.spec.unbuffered,
                          errors=self.on_damage, say=self.say, progress_of=progress_of)

    def measure(self, plans: list[InstancePlan]) -> None:
        interval_ns = int(self.config.sample_interval_s * 1e9)
        channels = self.channels
        t0 = int(channels.t0_ns.value)
        planned_end = t0 + self.spec.total_intervals * interval_ns
        clock = self.clock = RunClock(t0_ns=t0, interval_ns=interval_ns, stop_at_ns=planned_end)
        instances: list[Any] = [
            Instance(self.backend, plan, self.config, clock, self.on_io_error, self.say, unbuffered=self.spec.unbuffered)
            for plan in plans
        ] if not self.config.scans else self._scans(plans, clock)
        while time.perf_counter_ns() < t0:
            time.sleep(min(0.05, max(0.0, (t0 - time.perf_counter_ns()) / 1e9)))
        load = self._follow_load(instances, (0, 0))  # a sweep's first load, before any thread runs
        generation = Generation(self.worker_id, instances, t0, self.send) if self.config.recovers else None
        watch: FileWatch | None = FileWatch((plan.name, path) for plan in plans for path in (*plan.db_paths, *plan.log_paths))
        patrol = self.patrol = HungPatrol(self.config.hung_io_threshold_s, t0, interval_ns,
                                          ((i.name, i.meters) for i in instances))
        next_check_ns = next_patrol_ns = t0 + interval_ns
        for instance in instances:
            instance.start()
        collector = threading.Thread(target=self._collect_loop, args=(instances,), name="collector", daemon=True)
        collector.start()
        reported: set[str] = set()
        while (now := time.perf_counter_ns()) < clock.stop_at_ns:
            if now >= next_patrol_ns:
                next_patrol_ns = now + int(PATROL_S * 1e9)
                for name, problem in patrol.patrol(now):
                    self.on_hung(name, problem)
            if watch is not None and now >= next_check_ns:
                next_check_ns += interval_ns
                if (gone := watch.changed()) is not None:  # said once: the runner stops the test as for a crash
                    self.send(WorkerCrash(self.worker_id, gone, ""))
                    watch = None
            load = self._follow_load(instances, load)
            self._report_scans(instances, reported)
            if generation is not None:
                generation.watch()
            end_at = int(channels.end_at_ns.value)
            if end_at:
                clock.stop_at_ns = min(clock.stop_at_ns, end_at)
            if channels.stop.wait(0.05):
                clock.stop_at_ns = min(clock.stop_at_ns, int(channels.stop_at_ns.value) or time.perf_counter_ns())
                break
        clock.stop.set()
        stuck = [i.name for i in instances if not i.join(JOIN_TIMEOUT_S)]
        if stuck:
            self.log(f"{', '.join(stuck)}: an I/O did not complete within {JOIN_TIMEOUT_S:g} s of the stop", "warning")
        collector.join()
        self._report_scans(instances, reported, everyone=True)
        self._send_remaining(instances)
        if not stuck:
            for instance in instances:
                instance.close()
        if generation is not None:  # the instances stopped as a crash stops them: their logs are replayed now
            tallies = {instance.plan.index: generation.tally(instance) for instance in instances}
            if not stuck:
                replay_instances(self.backend, self.config, plans, tallies, worker_id=self.worker_id,
                                 unbuffered=self.spec.unbuffered, should_stop=channels.stop.is_set, send=self.send,
                                 say=self.say)
            for index, tally in tallies.items() if stuck else ():
                tally.failure = "an I/O of the log generation did not complete, so the logs were not replayed"
                self.send(RecoveryReport(self.worker_id, index, tally))

    def _report_scans(self, instances: list[Any], reported: set[str], everyone: bool = False) -> None:
        """Tell the runner of each scan that ended (all of them at the end of the run, however far they got):
        when every database is scanned, the runner ends the run."""
        for scan in instances:
            if isinstance(scan, Scan) and scan.name not in reported and (everyone or scan.finished):
                reported.add(scan.name)
                self.send(ScanReport(self.worker_id, scan.target.index, scan.tally, scan.ended_ns or time.perf_counter_ns()))

    def _follow_load(self, instances: list[Instance], current: tuple[int, ...]) -> tuple[int, ...]:
        """Apply the load the runner asks for now (a load sweep's step), if it changed."""
        with self.channels.load.get_lock():
            asked = tuple(self.channels.load[:])
        if asked == current or not asked[0]:
            return asked
        threads, sluggish = asked
        for instance in instances:
            mine = share(threads, self.config.database_count, instance.plan.index)
            instance.load.set(max(1, min(mine, instance.plan.threads)), max(1, sluggish))
        return asked

    # collection ----------------------------------------------------------------------

    def _collect_loop(self, instances: list[Any]) -> None:
        clock = self.clock
        assert clock is not None
        warming = None if self.config.scans else CacheWarmth(instances, self.spec.warmup_intervals,
                                                               clock.interval_ns / 1e9, self.log)
        while True:
            index = self.collected
            due = clock.t0_ns + (index + 1) * clock.interval_ns + int(COLLECT_GRACE_S * 1e9)
            while time.perf_counter_ns() < due:
                if clock.stop.wait(min(0.05, max(0.0, (due - time.perf_counter_ns()) / 1e9))):
                    return
            if clock.t0_ns + index * clock.interval_ns >= clock.stop_at_ns:
                return
            self._send_interval(index, {i.name: self._take(i, index) for i in instances},
                                {i.name: i.cache.resident_pages for i in instances if isinstance(i, Instance)})
            self.collected = index + 1
            if warming is not None:
                warming.report(self.collected)

    def _send_remaining(self, instances: list[Any]) -> None:
        """Once the instances have stopped: every interval the collector did not send, up to the run's end, each
        once, an interval in which this worker's instances did nothing included (a Soft Recovery's instance that
        wrote its logs early waits idle). The runner shows an interval when every worker's part of it has come, and
        a Soft Recovery's replay once the log generation's last interval is shown."""
        clock = self.clock
        assert clock is not None
        by_index: dict[int, dict[str, list[IntervalBucket]]] = defaultdict(lambda: defaultdict(list))
        reached = -(-(clock.stop_at_ns - clock.t0_ns) // clock.interval_ns)  # the intervals the run began
        for index in range(self.collected, reached):
            by_index[index] = {instance.name: [] for instance in instances}
        for instance in instances:
            for bucket in self._take(instance, 1 << 62):
                by_index[bucket.index][instance.name].append(bucket)
        for index in sorted(by_index):
            self._send_interval(index, by_index[index])

    def _take(self, instance: Any, index: int) -> list[IntervalBucket]:
        """An instance's counters up to interval `index`, each bucket once: its threads', and the hung I/O patrol's."""
        taken = [bucket for meter in instance.meters for bucket in meter.take(index)]
        return taken + self.patrol.take(instance.name, index) if self.patrol is not None else taken

    def _send_interval(self, index: int, buckets: dict[str, list[IntervalBucket]],
                       cache_pages: dict[str, int] | None = None) -> None:
        payload: dict[str, InstanceInterval] = {}
        for name, items in buckets.items():
            merged = payload[name] = InstanceInterval(name, cache_pages=(cache_pages or {}).get(name))
            merged.add_buckets(items)
        self.send(IntervalCounters(self.worker_id, index, payload))


def preparation_words(name: str, path: Path, exc: OSError) -> str:
    """Why an instance's file could not be made ready, with its volume's free space when that is why."""
    words = f"{name}: {path} could not be prepared: {exc.strerror or exc}"
    if exc.errno == errno.ENOSPC:
        with contextlib.suppress(OSError):
            words += f" (the volume of {path.parent} has {format_bytes(shutil.disk_usage(path.parent).free)} free)"
    return words


def assign_groups(groups: list[tuple[int, ...]], workers: int) -> list[tuple[int, ...]]:
    """Spread groups of instances round-robin over `workers` processes, each group whole in one (a checksum's volume)."""
    count = max(1, min(workers, len(groups)))
    return [tuple(sorted(index for group in groups[w::count] for index in group)) for w in range(count)]

