"""First-version workload: sessions doing random 32 KiB database I/O and a log writer.

Each session thread runs transactions drawn from the operation mix: it reads a
random database page (32 KiB, unbuffered), and for an update writes the page back
with a new sequence number and appends a log record to its instance's log buffer.
A non-lazy commit waits until the log writer has written the record through.

Seams for the ESE model: `Instance` owns the per-database pieces (file, log,
meters) and `run_instance_threads` starts whatever streams an instance has; a
database cache, background maintenance and log replication plug in there.
"""

from __future__ import annotations

import itertools
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.config import LOG_FILE_SIZE_BYTES, PAGE_SIZE_BYTES, TestConfig
from engine.histogram import bucket_index
from engine.metrics import DB_READ, DB_WRITE, LOG_WRITE, StreamStats, ThreadMeter
from engine.pages import SECTOR_BYTES, BlockWriter, check_page_identity
from engine.platform import AlignedBuffer, IoBackend, IoFile

LOG_RECORD_BYTES = 2560  # log bytes one page update appends (placeholder until the ESE model)
LOG_BUFFER_BYTES = 64 * 1024  # a full buffer forces a write even without a commit
LOG_MAX_WRITE_BYTES = 64 * 1024
LAZY_FLUSH_S = 0.1  # lazily committed records reach the disk within this time

perf_ns = time.perf_counter_ns


@dataclass
class RunClock:
    """Shared timing of a run inside one worker process.

    `stop_at_ns` is the planned end; a stop request moves it earlier. Completions at
    or after it are not counted.
    """

    t0_ns: int
    interval_ns: int
    stop_at_ns: int
    stop: threading.Event = field(default_factory=threading.Event)


ErrorSink = Callable[[str, str, OSError | str], None]  # instance, stream, error


def record(meter: ThreadMeter, stream: str, nbytes: int, latency_ns: int, done_ns: int) -> None:
    """Count one completed I/O in its interval. Hot path: no lock."""
    stats = meter.bucket_for(done_ns).stream(stream)
    stats.count += 1
    stats.bytes += nbytes
    stats.sum_ns += latency_ns
    if latency_ns > stats.max_ns:
        stats.max_ns = latency_ns
    stats.hist[bucket_index(latency_ns)] += 1


def record_error(meter: ThreadMeter, stream: str) -> None:
    meter.bucket_for(perf_ns()).stream(stream).errors += 1


class LogWriter:
    """Sequential write-through writes to the instance's circular set of 1 MiB log files."""

    def __init__(
        self,
        backend: IoBackend,
        name: str,
        paths: list[Path],
        db_id: bytes,
        clock: RunClock,
        meter: ThreadMeter,
        errors: ErrorSink,
        *,
        unbuffered: bool,
    ) -> None:
        self.name = name
        self._files: list[IoFile] = [
            backend.open_file(p, create=False, writable=True, unbuffered=unbuffered, write_through=True)
            for p in paths
        ]
        self._clock = clock
        self._meter = meter
        self._errors = errors
        self._writer = BlockWriter(db_id)
        self._buffer: AlignedBuffer = backend.allocate(LOG_MAX_WRITE_BYTES)
        self._cond = threading.Condition()
        self._pending = 0
        self._appended = 0
        self._flushed = 0
        self._force = False
        self._generation = 0
        self._sector = 1  # sector 0 of each log file is its header
        self._sectors_per_file = LOG_FILE_SIZE_BYTES // SECTOR_BYTES
        self.thread = threading.Thread(target=self._run, name=f"{name} log writer", daemon=True)

    def append(self, nbytes: int, *, commit: bool) -> None:
        """Add a log record; with `commit`, wait until it is written through."""
        with self._cond:
            self._pending += nbytes
            self._appended += nbytes
            target = self._appended
            if not commit:
                if self._pending >= LOG_BUFFER_BYTES:
                    self._cond.notify_all()
                return
            self._force = True
            self._cond.notify_all()
            stop = self._clock.stop
            while self._flushed < target and not stop.is_set():
                self._cond.wait(0.1)

    def _run(self) -> None:
        stop = self._clock.stop
        while True:
            with self._cond:
                deadline = time.monotonic() + LAZY_FLUSH_S
                while not self._force and self._pending < LOG_BUFFER_BYTES and not stop.is_set():
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        if self._pending:
                            break
                        deadline = time.monotonic() + LAZY_FLUSH_S
                        remaining = LAZY_FLUSH_S
                    self._cond.wait(remaining)
                if stop.is_set():
                    self._cond.notify_all()
                    return
                take, target = self._pending, self._appended
                self._pending = 0
                self._force = False
            self._write(take)
            with self._cond:
                self._flushed = target
                self._cond.notify_all()

    def _write(self, nbytes: int) -> None:
        sectors = -(-nbytes // SECTOR_BYTES)
        max_sectors = LOG_MAX_WRITE_BYTES // SECTOR_BYTES
        while sectors > 0:
            room = self._sectors_per_file - self._sector
            count = min(sectors, room, max_sectors)
            slot = self._generation % len(self._files)
            self._writer.fill_log_sectors(self._buffer.view, self._sector, count, self._generation)
            length = count * SECTOR_BYTES
            start = perf_ns()
            try:
                self._files[slot].write_from(self._buffer, self._sector * SECTOR_BYTES, length)
            except OSError as exc:
                record_error(self._meter, LOG_WRITE)
                self._errors(self.name, LOG_WRITE, exc)
            else:
                done = perf_ns()
                if done < self._clock.stop_at_ns:
                    record(self._meter, LOG_WRITE, length, done - start, done)
            sectors -= count
            self._sector += count
            if self._sector >= self._sectors_per_file:
                self._generation += 1  # roll over to the next file; the oldest is recycled
                self._sector = 1

    def close(self) -> None:
        for handle in self._files:
            handle.close()
        self._buffer.release()


@dataclass
class InstancePlan:
    """What one worker needs to run one database instance."""

    index: int
    name: str
    db_path: Path
    log_paths: list[Path]
    db_id: bytes
    pages: int
    threads: int


class Instance:
    """One database instance in a worker process: its file, log writer and sessions."""

    def __init__(
        self,
        backend: IoBackend,
        plan: InstancePlan,
        config: TestConfig,
        clock: RunClock,
        errors: ErrorSink,
        *,
        unbuffered: bool,
    ) -> None:
        self.plan = plan
        self.name = plan.name
        self._backend = backend
        self._config = config
        self._clock = clock
        self._errors = errors
        self.db: IoFile = backend.open_file(
            plan.db_path, create=False, writable=True, unbuffered=unbuffered, write_through=False
        )
        self.meters: list[ThreadMeter] = []
        log_meter = self._meter()
        self.log = LogWriter(
            backend, plan.name, plan.log_paths, plan.db_id, clock, log_meter, errors, unbuffered=unbuffered
        )
        self._sequence = itertools.count(time.time_ns())
        base_seed = config.seed if config.seed is not None else int.from_bytes(os.urandom(8), "little")
        self.sessions = [
            threading.Thread(
                target=self._session,
                args=(self._meter(), base_seed * 1_000_003 + plan.index * 4099 + n),
                name=f"{plan.name} session {n + 1}",
                daemon=True,
            )
            for n in range(plan.threads)
        ]

    def _meter(self) -> ThreadMeter:
        meter = ThreadMeter(self.name, self._clock.t0_ns, self._clock.interval_ns)
        self.meters.append(meter)
        return meter

    def start(self) -> None:
        self.log.thread.start()
        for thread in self.sessions:
            thread.start()

    def join(self, timeout_s: float) -> bool:
        """Wait for every thread; False if one is still stuck in an I/O."""
        deadline = time.monotonic() + timeout_s
        for thread in [*self.sessions, self.log.thread]:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in [*self.sessions, self.log.thread])

    def close(self) -> None:
        self.db.close()
        self.log.close()

    def _session(self, meter: ThreadMeter, seed: int) -> None:
        """One session's transaction loop. Hot path: locals only, counters inline, no lock.

        The read and write counters are updated inline rather than through `record()`: the
        saved calls are what keeps one thread within 3 % of fio (bench/fio_compare.py).
        """
        clock = self._clock
        stop = clock.stop
        t0, interval = clock.t0_ns, clock.interval_ns
        mix = self._config.operation_mix
        update_fraction = mix.update_fraction
        lazy_fraction = mix.lazy_commit_percent / 100.0
        sluggish = self._config.sluggish_sessions
        rng = random.Random(seed)
        chance = rng.random
        span = self.plan.pages - 1  # pages 1 .. pages-1; page 0 is the file header
        db_id = self.plan.db_id
        read_buffer = self._backend.allocate(PAGE_SIZE_BYTES)
        write_buffer = self._backend.allocate(PAGE_SIZE_BYTES)
        read_at = self.db.reader(read_buffer)
        write_at = self.db.writer(write_buffer)
        write_view = write_buffer.view
        read_view = read_buffer.view
        blocks = BlockWriter(db_id, seed)
        sequence = self._sequence
        log = self.log
        read_index = write_index = -1
        reads = writes = StreamStats()  # placeholders until the first completion picks its bucket
        started = 0
        try:
            while not stop.is_set():
                if sluggish > 1:
                    started = perf_ns()
                page = 1 + int(chance() * span)
                offset = page * PAGE_SIZE_BYTES
                t1 = perf_ns()
                try:
                    read_at(offset)
                except OSError as exc:
                    record_error(meter, DB_READ)
                    self._errors(self.name, DB_READ, exc)
                    continue
                t2 = perf_ns()
                if t2 >= clock.stop_at_ns:
                    break
                index = (t2 - t0) // interval
                if index != read_index:
                    reads, read_index = meter.bucket_for(t2).stream(DB_READ), index
                latency = t2 - t1
                reads.count += 1
                reads.bytes += PAGE_SIZE_BYTES
                reads.sum_ns += latency
                if latency > reads.max_ns:
                    reads.max_ns = latency
                reads.hist[bucket_index(latency)] += 1
                problem = check_page_identity(read_view, db_id, page)
                if problem is not None:
                    record_error(meter, DB_READ)
                    self._errors(self.name, DB_READ, problem)
                if update_fraction and chance() < update_fraction:
                    blocks.fill_page(write_view, page, next(sequence), PAGE_SIZE_BYTES)
                    t1 = perf_ns()
                    try:
                        write_at(offset)
                    except OSError as exc:
                        record_error(meter, DB_WRITE)
                        self._errors(self.name, DB_WRITE, exc)
                        continue
                    t2 = perf_ns()
                    if t2 >= clock.stop_at_ns:
                        break
                    index = (t2 - t0) // interval
                    if index != write_index:
                        writes, write_index = meter.bucket_for(t2).stream(DB_WRITE), index
                    latency = t2 - t1
                    writes.count += 1
                    writes.bytes += PAGE_SIZE_BYTES
                    writes.sum_ns += latency
                    if latency > writes.max_ns:
                        writes.max_ns = latency
                    writes.hist[bucket_index(latency)] += 1
                    log.append(LOG_RECORD_BYTES, commit=chance() >= lazy_fraction)
                if sluggish > 1:
                    # Issue at most 1/s of the unthrottled I/O: pause (s - 1) times the busy time.
                    stop.wait((sluggish - 1) * (perf_ns() - started) / 1e9)
        finally:
            read_buffer.release()
            write_buffer.release()
