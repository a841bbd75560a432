"""Soft recovery: an instance's log files replayed against its database after a crash.

A Soft Recovery test first generates log files under the transactional load
(`engine.workload.instance`, with a log that is not circular), then stops without
flushing the database cache, as a crash does: the updates of the last few megabytes of
log are on no page on disk. Replay then does what ESE's recovery does:

- it reads each log file in order, in sequential reads, and verifies every sector;
- each update record names the page it changed and the write sequence it gave it (ESE's
  dbtime). The page is looked up in a database cache of the test's size (the same model as
  the load's); one that is not resident is read from the database (random 32 KiB reads,
  several in flight, as recovery prefetches the pages its next records touch) and verified;
- a page whose sequence on disk is older than the record's is redone: dirtied in the
  cache, and written back by flushers as the cache asks (eviction, checkpoint depth).
  A page already as new is left alone;
- at the end every dirty page is written, as the clean shutdown that ends recovery.

Then, outside the replay's time, every page the replay wrote is read back and must hold
what was written.

A page read back that is older than a sequence this replay already wrote or read for it
is a lost flush (ESE -1119): the storage acknowledged a write it did not keep. A damaged
log sector or page stops the instance's replay, as it stops ESE's, and says where.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from engine.io.pages import (
    BlockWriter,
    ErrorKind,
    log_header_fault,
    log_records,
    log_sector_fault,
    page_fault,
    page_sequence,
)
from engine.io.parts import open_database, split_page
from engine.io.platform import AlignedBuffer, IoBackend, IoFile
from engine.model.config import TestConfig
from engine.model.sizing import LOG_DATA_BYTES, LOG_FILE_SIZE_BYTES, PAGE_SIZE_BYTES
from engine.workload.cache import HIT, MAX_COALESCED_PAGES, DatabaseCache
from engine.workload.context import Say, read_failure
from engine.workload.errors import LOG_SECTOR, PAGE, Unit, ese_error
from engine.workload.instance import InstancePlan
from engine.workload.logstream import LOG_DATA_START
from engine.workload.scan import ProgressFn

REPLAY_LOG_READ_BYTES = 256 * 1024  # log files are read whole, in reads of this size
PREFETCH_DEPTH = 8  # page reads recovery keeps in flight, and flushers writing
LOST_FLUSHES_NAMED = 10  # lost flushes the test log names one by one

StopFn = Callable[[], bool]


@dataclass
class RecoveryTally:
    """One instance's soft recovery: what it generated, what replay did, and how long each took."""

    log_files: int = 0  # log files the instance was to generate and replay
    log_files_generated: int = 0
    log_files_replayed: int = 0
    generation_seconds: float = 0.0
    replay_seconds: float = 0.0
    records: int = 0
    pages_redone: int = 0  # records applied: the page on disk was older
    pages_current: int = 0  # records the page on disk already held
    log_reads: int = 0
    log_bytes_read: int = 0
    log_read_ns: int = 0
    page_reads: int = 0
    page_read_ns: int = 0
    page_writes: int = 0
    pages_written: int = 0
    page_write_ns: int = 0
    pages_verified: int = 0  # pages the replay wrote, read back after it
    damaged: int = 0  # damaged log sectors or pages met (the first stops the replay)
    lost_flushes: int = 0  # pages read back older than this replay knew them
    complete: bool = False  # every generated log file was replayed and every redone page written
    failure: str = ""  # what ended the replay before its end, other than a stop


class Replay:
    """The soft recovery of one instance, run on the caller's thread (`run`)."""

    def __init__(self, backend: IoBackend, plan: InstancePlan, config: TestConfig, tally: RecoveryTally, *,
                 unbuffered: bool, should_stop: StopFn, say: Say, progress: ProgressFn) -> None:
        self.backend = backend
        self.plan = plan
        self.tally = tally
        self.unbuffered = unbuffered
        self.should_stop = should_stop
        self.say = say
        self.progress = progress
        pages, start, stop = config.instance_cache_pages(plan.index)
        self.cache = DatabaseCache(pages, start, stop, config.checkpoint_depth_bytes)
        # Records go in batches small enough that a batch's pages cannot reach the cache's cold end before they are applied.
        self.batch = max(1, (self.cache.capacity - stop) // 2)
        self.current: dict[int, int] = {}  # page -> the newest sequence it holds, on disk or dirty in the cache
        self.written: dict[int, int] = {}  # page -> the newest sequence a completed write of this replay put on disk
        self.position = 0  # log bytes replayed: the checkpoint depth counts in it
        self._lock = threading.Lock()  # guards the tally's page figures, which reader and flusher threads add to
        self._local = threading.local()
        self._buffers: list[AlignedBuffer] = []  # every thread's, released at the end
        self._flushing = threading.Event()
        self.db: IoFile | None = None

    def run(self) -> RecoveryTally:
        tally = self.tally
        started = time.perf_counter_ns()
        self.db = open_database(self.backend, self.plan.db_paths, writable=True, unbuffered=self.unbuffered)
        self._flushing.set()
        flushers = [threading.Thread(target=self._flusher, name=f"{self.plan.name} recovery flusher {n + 1}", daemon=True)
                    for n in range(PREFETCH_DEPTH)]
        for thread in flushers:
            thread.start()
        try:
            with ThreadPoolExecutor(PREFETCH_DEPTH, thread_name_prefix=f"{self.plan.name} recovery read") as readers:
                log_buffer = self.backend.allocate(REPLAY_LOG_READ_BYTES)
                self._buffers.append(log_buffer)
                for generation in range(tally.log_files_generated):
                    if self.should_stop() or tally.failure:
                        break
                    records = self._read_log(generation, log_buffer)
                    if records is None:
                        break
                    for first in range(0, len(records), self.batch):
                        if not self._apply(records[first : first + self.batch], readers) or self.should_stop():
                            break
                    else:
                        tally.log_files_replayed += 1
                    self.progress(tally.log_files_replayed * LOG_FILE_SIZE_BYTES, tally.log_files * LOG_FILE_SIZE_BYTES)
                self._stop_flushers(flushers)
                if not self.should_stop():  # the clean shutdown that ends recovery: every redone page on disk
                    list(readers.map(self._write_run, self.cache.drain()))
                tally.replay_seconds = (time.perf_counter_ns() - started) / 1e9
                if not self.should_stop() and not tally.failure:  # then, untimed, every page it wrote is read back
                    list(readers.map(self._verify_page, sorted(self.written)))
        finally:
            self._stop_flushers(flushers)  # none writes to the database once it is closed
            for buffer in self._buffers:
                buffer.release()
            self.db.close()
        tally.replay_seconds = tally.replay_seconds or (time.perf_counter_ns() - started) / 1e9
        tally.complete = tally.log_files_replayed == tally.log_files and not tally.failure and not self.should_stop()
        return tally

    # the log ---------------------------------------------------------------------------

    def _read_log(self, generation: int, buffer: AlignedBuffer) -> list[tuple[int, int]] | None:
        """Every record of log file `generation`, in order, each sector verified; None when it cannot be replayed."""
        tally = self.tally
        path = self.plan.log_paths[generation]
        sector = self.plan.log_sector_bytes
        records: list[tuple[int, int]] = []
        view = buffer.view
        try:
            with self.backend.open_file(path, create=False, writable=False, unbuffered=self.unbuffered,
                                       write_through=False) as handle:
                for offset in range(0, LOG_FILE_SIZE_BYTES, REPLAY_LOG_READ_BYTES):
                    length = min(REPLAY_LOG_READ_BYTES, LOG_FILE_SIZE_BYTES - offset)
                    t1 = time.perf_counter_ns()
                    handle.read_into(buffer, offset, length)
                    tally.log_read_ns += time.perf_counter_ns() - t1
                    tally.log_reads += 1
                    tally.log_bytes_read += length
                    if offset == 0 and log_header_fault(view, self.plan.db_id, True) is not None:
                        self._fail(f"the header of log file {path} is damaged", ErrorKind.CHECKSUM, LOG_SECTOR)
                        return None
                    for at in range(LOG_DATA_START if offset == 0 else 0, length, sector):
                        fault = log_sector_fault(view[at:], self.plan.db_id, generation, offset + at, sector, True)
                        if fault is not None:
                            kind, holds = fault
                            instead = f" (it holds {holds})" if holds else ""
                            self._fail(f"log file {path} is damaged at byte {offset + at:,}{instead}", kind, LOG_SECTOR)
                            return None
                        records.extend(log_records(view[at:]))
        except OSError as exc:
            self._fail(f"log file {path} cannot be read ({exc.strerror or exc})", read_failure(exc), LOG_SECTOR)
            return None
        self.position = (generation + 1) * LOG_DATA_BYTES
        return records

    def _fail(self, words: str, kind: ErrorKind, unit: Unit) -> None:
        """Damage recovery cannot go past: counted, said, and the instance's replay ends."""
        code, name = ese_error(kind, unit)
        self.tally.damaged += 1
        self.tally.failure = f"{words}: {name} (ESE {code}); recovery cannot go past it"
        self.say(f"{self.plan.name}: {self.tally.failure}", "error")
        return None

    # the database ----------------------------------------------------------------------

    def _apply(self, records: list[tuple[int, int]], readers: ThreadPoolExecutor) -> bool:
        """Bring a batch's pages into the cache (reading those not resident, in parallel), then apply its records
        in log order. False when a page cannot be read."""
        cache = self.cache
        missing = [page for page in dict.fromkeys(page for page, _sequence in records) if cache.fault(page) != HIT]
        if not all(readers.map(self._read_page, missing)):
            return False
        tally, current = self.tally, self.current
        for page, sequence in records:
            tally.records += 1
            if sequence <= current.get(page, 0):
                tally.pages_current += 1
                continue
            current[page] = sequence
            tally.pages_redone += 1
            if not cache.dirty(page, self.position):  # evicted meanwhile (a tiny cache): written at once
                self._write_run((page, 1))
        return True

    def _buffer(self, pages: int) -> AlignedBuffer:
        mine = self._local.__dict__.setdefault("buffers", {})
        if pages not in mine:
            mine[pages] = self.backend.allocate(pages * PAGE_SIZE_BYTES)
            with self._lock:
                self._buffers.append(mine[pages])
        buffer: AlignedBuffer = mine[pages]
        return buffer

    def _named(self, page: int) -> str:
        """A page as the engineer finds it: its number in the database file that holds it."""
        part, local = split_page(page)
        return f"page {local:,} of {self.plan.db_paths[part]}"

    def _verify_page(self, page: int) -> bool:
        """Read back a page the replay wrote: it must hold what was written (after the replay, not timed in it)."""
        return self._read_page(page, verifying=True)

    def _read_page(self, page: int, verifying: bool = False) -> bool:
        assert self.db is not None
        buffer = self._buffer(1)
        t1 = time.perf_counter_ns()
        try:
            self.db.read_into(buffer, page * PAGE_SIZE_BYTES, PAGE_SIZE_BYTES)
        except OSError as exc:
            self._fail(f"{self._named(page)} cannot be read ({exc.strerror or exc})", read_failure(exc), PAGE)
            return False
        spent = time.perf_counter_ns() - t1
        fault = page_fault(buffer.view, self.plan.db_id, page, PAGE_SIZE_BYTES, True)
        with self._lock:
            if verifying:
                self.tally.pages_verified += 1
            else:
                self.tally.page_reads += 1
                self.tally.page_read_ns += spent
        if fault is not None:
            instead = f" (it holds {fault[1]})" if fault[1] else ""
            self._fail(f"{self._named(page)} is damaged{instead}", fault[0], PAGE)
            return False
        on_disk = page_sequence(buffer.view)
        if on_disk < self.written.get(page, 0):
            with self._lock:
                self.tally.lost_flushes += 1
                lost = self.tally.lost_flushes
            if lost <= LOST_FLUSHES_NAMED:
                more = "; further ones are counted, not named" if lost == LOST_FLUSHES_NAMED else ""
                self.say(f"{self.plan.name}: {self._named(page)} read back older than this replay's "
                         f"completed write of it: a lost flush (ESE -1119){more}", "error")
        # A write of a newer version may still be under way (an evicted dirty page): the newer one counts.
        self.current[page] = max(on_disk, self.current.get(page, 0))
        return True

    def _write_run(self, run: tuple[int, int]) -> None:
        """Write pages [first, first + count) as they now are (each at the newest sequence it holds)."""
        assert self.db is not None
        first, count = run
        blocks = self._local.__dict__.setdefault("blocks", BlockWriter(self.plan.db_id))
        buffer = self._buffer(MAX_COALESCED_PAGES)
        view = buffer.view
        sequences = [self.current.get(first + i, 0) for i in range(count)]
        for i, sequence in enumerate(sequences):
            blocks.fill_page(view[i * PAGE_SIZE_BYTES :], first + i, sequence, PAGE_SIZE_BYTES)
        t1 = time.perf_counter_ns()
        self.db.write_from(buffer, first * PAGE_SIZE_BYTES, count * PAGE_SIZE_BYTES)
        spent = time.perf_counter_ns() - t1
        with self._lock:
            written = self.written
            for i, sequence in enumerate(sequences):
                written[first + i] = max(sequence, written.get(first + i, 0))
            self.tally.page_writes += 1
            self.tally.pages_written += count
            self.tally.page_write_ns += spent

    def _stop_flushers(self, flushers: list[threading.Thread]) -> None:
        self._flushing.clear()
        self.cache.close()
        for thread in flushers:
            thread.join()

    def _flusher(self) -> None:
        cache = self.cache
        while self._flushing.is_set():
            run = cache.next_write(self.position, 0.05)
            if run is None:
                continue
            first, count, frees = run
            try:
                self._write_run((first, count))
            except OSError as exc:
                self.say(f"{self.plan.name}: a write of {count} page(s) at page {first:,} failed "
                         f"({exc.strerror or exc})", "error")
                self.tally.failure = self.tally.failure or f"a database write failed ({exc.strerror or exc})"
            finally:
                cache.written(frees)
