"""The ESE model of one database instance: transaction threads, cache, flushers, log and background I/O.

A transaction thread (ESE calls it a session) runs transactions drawn from the
operation mix. A transaction walks a B-tree: the upper levels are always cached
(counted as cache hits, never read), and it lands on a leaf page spread uniformly
over the whole database. A leaf that misses the database cache is read from disk
(random 32 KiB, unbuffered). Read transactions continue onto the next leaf now and
then; when both leaves miss, ESE reads them in one 64 KiB I/O. Inserts, deletes and
replaces dirty their leaf and append a log record; an insert sometimes splits its
leaf, dirtying a newly allocated neighbour page (no read). The commit is lazy or
waits for the log, by the lazy-commit share. Between transactions the thread spends what a
Jetstress thread spends besides its I/O, and SluggishSessions' pause (`engine.workload.pacing`). Flushers write dirty pages back as the
cache asks (`engine.workload.cache`), log replication and background maintenance run beside
(`engine.workload.background`), and the log is `engine.workload.logstream`.

See docs/workload.md for where each constant comes from.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engine.io.flush_file import close_clean, open_for_run
from engine.io.pages import BlockWriter
from engine.io.parts import open_database, part_base
from engine.io.platform import AlignedBuffer, IoBackend, IoFile
from engine.model.config import TestConfig
from engine.model.growth import INSERT_LOG_BYTES, SPLIT_CHANCE, end_share
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.workload.background import Maintenance, Replication
from engine.workload.cache import HIT, MAX_COALESCED_PAGES, MISS_STALLED, DatabaseCache
from engine.workload.context import (
    ErrorSink,
    InstanceContext,
    RunClock,
    Say,
    check_pages,
    failed_io,
    page_problem,
    perf_ns,
    report,
    timed_io,
)
from engine.workload.errors import PAGE
from engine.workload.flushmap import Written
from engine.workload.growth import Growth
from engine.workload.histogram import bucket_index
from engine.workload.load import LoadControl
from engine.workload.logstream import LogWriter
from engine.workload.pacing import MAX_CREDIT_NS, pause_ns, rest_per_read_wait
from engine.workload.patching import PagePatcher
from engine.workload.stats import CACHE_HITS, CACHE_MISSES, DB_READ, DB_WRITE, PAGE_FAULT_STALLS, StreamStats, ThreadMeter

# Log bytes one update appends, by kind (an insert carries the new record, a delete
# little more than the key; an insert's, `INSERT_LOG_BYTES`, bounds a Soft Recovery's growth). Weighted by the
# default mix: about 2,350 bytes per update.
DELETE_LOG_BYTES = 1200
REPLACE_LOG_BYTES = 2600
SPAN_CHANCE = 0.03  # read transactions that continue onto the next leaf: about 1 % of reads are 64 KiB
BTREE_FANOUT = 400  # keys per internal page: sets how many upper levels a lookup passes


def upper_levels(leaf_pages: int) -> int:
    """Internal B-tree levels above `leaf_pages` leaves (at least the root)."""
    return max(1, math.ceil(math.log(max(2, leaf_pages)) / math.log(BTREE_FANOUT)))


@dataclass
class InstancePlan:
    """What one worker needs to run one database instance."""

    index: int
    name: str
    db_paths: list[Path]  # its database files, the first first (`engine.io.parts`)
    log_paths: list[Path]
    db_id: bytes
    part_pages: list[int]  # the pages each file holds, its header page included
    threads: int
    log_sector_bytes: int

    @property
    def db_path(self) -> Path:
        return self.db_paths[0]

    @property
    def leaves(self) -> int:
        """The pages transactions land on: every file's pages but its header."""
        return sum(self.part_pages) - len(self.part_pages)


class Instance:
    """One database instance in a worker process and every thread that drives its I/O."""

    def __init__(self, backend: IoBackend, plan: InstancePlan, config: TestConfig, clock: RunClock, errors: ErrorSink,
                 say: Say, *, unbuffered: bool) -> None:
        self.plan = plan
        self.name = plan.name
        self._backend = backend
        self._config = config
        self._clock = clock
        self.db: IoFile = open_database(backend, plan.db_paths, writable=True, unbuffered=unbuffered)
        self.cache = DatabaseCache(*config.instance_cache_pages(plan.index), config.checkpoint_depth_bytes)
        self.levels = upper_levels(plan.leaves)
        self.meters: list[ThreadMeter] = []
        first_sequence = time.time_ns()
        self._sequence = itertools.count(first_sequence)
        # what a page read back is checked against, from the states the database files' maps kept when their last run
        # ended clean; each map is made "open" before any page is written
        kept = [open_for_run(backend, path, plan.db_id, part) for part, path in enumerate(plan.db_paths)]
        self.written = Written(plan.part_pages, first_sequence, kept)
        base_seed = config.seed if config.seed is not None else int.from_bytes(os.urandom(8), "little")
        seed = base_seed * 1_000_003 + plan.index * 4099
        db_paths = tuple(str(path) for path in plan.db_paths)
        patcher = PagePatcher(backend, self.db, db_paths, plan.db_id, self.written, self._sequence, seed + 6007)
        ctx = self._ctx = InstanceContext(
            backend, plan.name, clock, errors, say, unbuffered, config.verify_checksum, db_paths[0], db_paths[1:],
            patcher.patch)
        self.replication: Replication | None = None
        if config.copies_per_database > 1:
            self.replication = Replication(
                ctx, self._meter(), plan.log_paths, plan.db_id, plan.log_sector_bytes, config.copies_per_database - 1,
                lambda: self.log.newest_generation)
        self.log = LogWriter(
            ctx, self._meter(), plan.log_paths, plan.db_id, plan.log_sector_bytes,
            on_close=self.replication.log_closed if self.replication else None, circular=not config.recovers)
        growth_meter = self._meter()
        self.growths = [Growth(ctx, growth_meter, backend, self.db, part, plan.index * 7 + 1 + part)
                        for part in range(len(plan.db_paths))]
        self.maintenance: Maintenance | None = None
        if config.background_maintenance:
            self.maintenance = Maintenance(ctx, self._meter(), plan.db_paths, plan.db_id, plan.part_pages,
                                           (config.generation.maintenance_rate, config.generation.maintenance_batch_bytes,
                                            config.dbm_throttling_ms))
        self.load = LoadControl(plan.threads, config.sluggish_sessions)
        self.transaction_threads = [
            threading.Thread(
                target=self._transactions, args=(self._meter(), seed + n, n), name=f"{plan.name} thread {n + 1}",
                daemon=True)
            for n in range(plan.threads)
        ]
        # ESE issues flush writes asynchronously; one flusher per transaction thread gives it the same depth.
        self.flushers = [
            threading.Thread(
                target=self._flusher, args=(self._meter(), seed + 7919 + n), name=f"{plan.name} flusher {n + 1}", daemon=True
            )
            for n in range(plan.threads)
        ]

    def _meter(self) -> ThreadMeter:
        meter = ThreadMeter(self.name, self._clock.t0_ns, self._clock.interval_ns)
        self.meters.append(meter)
        return meter

    @property
    def threads(self) -> list[threading.Thread]:
        extra = [x.thread for x in (self.replication, self.maintenance) if x is not None]
        return [*self.transaction_threads, *self.flushers, self.log.thread, *extra]

    @property
    def cache_target_pages(self) -> int:
        """Pages the cache holds once warm: all of it but the buffers kept available, or the
        whole database if smaller."""
        return min(self.cache.capacity - self.cache.flush_stop, self.plan.leaves)

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def join(self, timeout_s: float) -> bool:
        """Wait for every thread (the clock's stop is set); False if one is stuck in an I/O."""
        self.cache.close()
        deadline = time.monotonic() + timeout_s
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self.threads)

    def close(self) -> None:
        """Close the files once every write of the run completed (the worker closes no instance an I/O held): its
        flush states kept for the next run and the Database checksum, unless a Soft Recovery's replay, which writes
        pages the map does not follow, comes next (the map stays open)."""
        if not self._config.recovers:
            for number, path in enumerate(self.plan.db_paths):
                close_clean(self._backend, path, self.plan.db_id, number, self.written.map.states(number))
        self.db.close()
        self.log.close()
        for part in (self.replication, self.maintenance):
            if part is not None:
                part.close()

    # transaction threads -----------------------------------------------------------

    def _transactions(self, meter: ThreadMeter, seed: int, number: int) -> None:
        """One transaction thread's loop. Hot path: locals only, read counters inline, no lock
        held across an I/O."""
        clock = self._clock
        stop = clock.stop
        t0, interval = clock.t0_ns, clock.interval_ns
        mix = self._config.operation_mix
        insert_cut = mix.insert_percent / 100.0
        delete_cut = insert_cut + mix.delete_percent / 100.0
        update_cut = delete_cut + mix.replace_percent / 100.0
        lazy_fraction = mix.lazy_commit_percent / 100.0
        load = self.load
        rest = rest_per_read_wait(self._config.thread_weight)
        owed = 0.0  # pause still to take (ns); below zero, slept past earlier pauses
        rng = random.Random(seed)
        chance = rng.random
        growths = self.growths
        growth, base, parts = growths[0], 0, len(growths)
        at_end = end_share(self._config)
        db_id = self.plan.db_id
        ctx = self._ctx
        levels = self.levels
        cache = self.cache
        fault, dirty, allocate = cache.fault, cache.dirty, cache.allocate
        sequence = self._sequence
        written = self.written
        written_version = written.map.version
        log = self.log
        append = log.append
        buffer = self._backend.allocate(PAGE_SIZE_BYTES)
        span_buffer = self._backend.allocate(2 * PAGE_SIZE_BYTES)
        db_file = self.db
        read_at = db_file.reader(buffer)
        view = buffer.view
        read_index = counts_index = -1
        reads = StreamStats()  # placeholder until the first completion picks its bucket
        counts = [0, 0, 0]
        started = 0
        try:
            while not stop.is_set():
                if number >= load.active:  # beyond the load asked for now: wait for a heavier one
                    load.wait_turn(number, stop)
                    continue
                sluggish = load.sluggish
                started = perf_ns()
                read_wait = 0
                kind = chance()
                if parts > 1:  # one of the instance's database files, each alike (they are made the same size)
                    part = int(chance() * parts)
                    growth, base = growths[part], part_base(part)
                leaves = growth.used - 1  # leaves are pages 1 .. used-1 of a file; page 0 is its header
                last_page = base + leaves
                page = base + 1 + int(chance() * leaves)
                hits, misses, stalls = levels, 0, 0
                state = fault(page)
                if state == HIT:
                    hits += 1
                else:
                    misses += 1
                    if state == MISS_STALLED:
                        stalls += 1
                    if kind >= update_cut and page < last_page and chance() < SPAN_CHANCE:
                        # A read continuing onto the next leaf: one 64 KiB read when both miss.
                        t1 = perf_ns()
                        hits_more, stalled = self._read_span(meter, span_buffer, page)
                        read_wait = perf_ns() - t1
                        hits += hits_more
                        misses += 1 - hits_more
                        stalls += stalled
                    else:
                        offset = page * PAGE_SIZE_BYTES
                        version = written_version(page)  # judged only if no write of its pages met the read
                        t1 = perf_ns()
                        meter.pending = (t1, DB_READ, db_file, offset, PAGE_SIZE_BYTES, PAGE, PAGE_SIZE_BYTES)  # as timed_io's
                        try:
                            read_at(offset)
                        except OSError as exc:
                            meter.pending = None
                            report(ctx, meter, failed_io(DB_READ, db_file, offset, PAGE_SIZE_BYTES, PAGE, PAGE_SIZE_BYTES, exc))
                            continue
                        t2 = perf_ns()
                        meter.pending = None
                        if t2 >= clock.stop_at_ns:
                            break
                        index = (t2 - t0) // interval
                        if index != read_index:
                            reads, read_index = meter.bucket_for(t2).stream(DB_READ), index
                        latency = read_wait = t2 - t1
                        reads.count += 1
                        reads.bytes += PAGE_SIZE_BYTES
                        reads.sum_ns += latency
                        if latency > reads.max_ns:
                            reads.max_ns = latency
                        reads.hist[bucket_index(latency)] += 1
                        problem = page_problem(ctx, DB_READ, view, db_id, page, written, version)
                        if problem is not None:
                            report(ctx, meter, problem)
                if kind < update_cut:
                    position = log.appended
                    dirty(page, position)
                    split = 0
                    if kind < insert_cut:
                        size = INSERT_LOG_BYTES
                        if page < last_page and chance() < SPLIT_CHANCE:
                            # The new page: at the end of the database for some splits (it grows), else beside.
                            taken = growth.take() if chance() < at_end else None
                            split = base + taken if taken else page + 1
                            allocate(split, position)
                    else:
                        size = DELETE_LOG_BYTES if kind < delete_cut else REPLACE_LOG_BYTES
                    append(size, commit=chance() >= lazy_fraction, page=page, sequence=next(sequence), also=split)
                now = perf_ns()
                if now < clock.stop_at_ns:
                    index = (now - t0) // interval
                    if index != counts_index:
                        counts, counts_index = meter.bucket_for(now).cache, index
                    counts[CACHE_HITS] += hits
                    counts[CACHE_MISSES] += misses
                    counts[PAGE_FAULT_STALLS] += stalls
                if rest or sluggish > 1:
                    owed = max(owed + pause_ns(now - started, read_wait, rest, sluggish), -MAX_CREDIT_NS)
                    if owed > 0:
                        # Timed against the clock: a wait the platform rounds up is made up at the next pause.
                        stop.wait(owed / 1e9)
                        owed -= perf_ns() - now
        finally:
            buffer.release()
            span_buffer.release()

    def _read_span(self, meter: ThreadMeter, buffer: AlignedBuffer, page: int) -> tuple[int, int]:
        """Read `page` (already faulted) and, unless cached, `page + 1` with it.

        Returns (hits on the second page, stalls).
        """
        state = self.cache.fault(page + 1)
        hit = state == HIT
        self._read_pages(meter, buffer, page, 1 if hit else 2)
        return (1 if hit else 0), (1 if state == MISS_STALLED else 0)

    def _read_pages(self, meter: ThreadMeter, buffer: AlignedBuffer, first: int, count: int) -> None:
        length = count * PAGE_SIZE_BYTES
        written = self.written
        version = written.map.version
        versions = (version(first),) if count == 1 else (version(first), version(first + 1))  # a span: two pages at most
        if timed_io(self._ctx, meter, DB_READ, self.db, buffer, first * PAGE_SIZE_BYTES, length) is not None:
            check_pages(self._ctx, meter, DB_READ, buffer.view, self.plan.db_id, first, count, written, versions)

    # flushers ----------------------------------------------------------------------

    def _flusher(self, meter: ThreadMeter, seed: int) -> None:
        """Write back the runs of dirty pages the cache hands out."""
        stop = self._clock.stop
        cache = self.cache
        log = self.log
        buffer = self._backend.allocate(MAX_COALESCED_PAGES * PAGE_SIZE_BYTES)
        view = buffer.view
        blocks = BlockWriter(self.plan.db_id, seed)
        sequence = self._sequence
        flushes = self.written.map
        try:
            while not stop.is_set():
                run = cache.next_write(log.appended, 0.05)
                if run is None:
                    continue
                first, count, frees = run
                for i in range(count):
                    blocks.fill_page(view[i * PAGE_SIZE_BYTES :], first + i, next(sequence), PAGE_SIZE_BYTES,
                                     flushes.stamp(first + i))
                length = count * PAGE_SIZE_BYTES
                made = False
                try:
                    made = timed_io(self._ctx, meter, DB_WRITE, self.db, buffer, first * PAGE_SIZE_BYTES, length) is not None
                finally:
                    for i in range(count):
                        flushes.written(first + i, made)
                    cache.written(frees)
        finally:
            buffer.release()
