"""Background I/O of an instance: database maintenance and log replication.

Background database maintenance reads the whole database sequentially, over and over, and checks every page it
reads is the page it should be, paced as the Exchange generation's (`engine.model.exchange`):
- Exchange 2010: 256 KiB reads held at its rate per database (4.53 MB/s, measured in the reference report). A read
  that completes late moves the schedule instead of bursting to catch up, so on a disk that falls behind,
  maintenance backs off rather than adding to the queue.
- Exchange 2013 and later: as ESE's database scan paces itself (`dbscan.cxx`, `DBMScan::DoOnePass_`): a sleep of the
  throttle (DBMThrottling, ms), then one batch of 512 KiB read, then again; as its reads slow, so does it.

Log replication stands in for the database copies: each log file the instance
closes is read back sequentially in 256 KiB reads, once per extra copy, as a copy
would ship it, and every log sector read is checked (its header, and its checksum
when the configuration verifies checksums). A file the circular log is about to
recycle before it was read is skipped and counted; so is a read the log caught up
with while it was under way (what it read is not judged).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path

from engine.io.parts import open_database, part_base
from engine.model.sizing import LOG_FILE_SIZE_BYTES, PAGE_SIZE_BYTES
from engine.workload.context import InstanceContext, check_log_sectors, check_pages, perf_ns, timed_io
from engine.workload.errors import LOG_SECTOR
from engine.workload.stats import BDM_READ, LOG_REPLICATION_READ, ThreadMeter

REPLICATION_READ_BYTES = 256 * 1024


class Maintenance:
    """Sequential, paced reads through an instance's database files, one after another."""

    def __init__(self, ctx: InstanceContext, meter: ThreadMeter, db_paths: list[Path], db_id: bytes,
                 part_pages: list[int], pace: tuple[float | None, int, int]) -> None:
        self.name = ctx.name
        self._ctx = ctx
        self._file = open_database(ctx.backend, db_paths, writable=False, unbuffered=ctx.unbuffered)
        self._meter = meter
        self._db_id = db_id
        self._part_pages = part_pages
        self._rate, self._batch, self._throttle_ms = pace  # a held byte rate (or None: ESE's sleep), batch, sleep
        self.thread = threading.Thread(target=self._run, name=f"{ctx.name} maintenance", daemon=True)

    def _run(self) -> None:
        clock = self._ctx.clock
        stop = clock.stop
        chunk = self._batch // PAGE_SIZE_BYTES
        buffer = self._ctx.backend.allocate(self._batch)
        view = buffer.view
        ns_per_byte = None if self._rate is None else 1e9 / self._rate
        part, page = 0, 1  # page 0 of each file is its header
        due = perf_ns()
        passes = 0
        pass_started = due
        try:
            while not stop.is_set():
                now = perf_ns()
                if ns_per_byte is None:  # ESE's scan: its sleep before each batch, however long its reads took
                    if stop.wait(self._throttle_ms / 1000.0):
                        break
                elif now < due and stop.wait((due - now) / 1e9):
                    break
                count = min(chunk, self._part_pages[part] - page)
                length = count * PAGE_SIZE_BYTES
                first = part_base(part) + page
                done = timed_io(self._ctx, self._meter, BDM_READ, self._file, buffer, first * PAGE_SIZE_BYTES, length)
                if done is not None:
                    if done >= clock.stop_at_ns:
                        break
                    check_pages(self._ctx, self._meter, BDM_READ, view, self._db_id, first, count)
                if ns_per_byte is not None:
                    slot = int(length * ns_per_byte)
                    due += slot
                    now = perf_ns()
                    if due < now:
                        due = now + slot  # fell behind: back off a slot rather than burst to catch up
                page += count
                if page >= self._part_pages[part]:
                    part, page = (part + 1) % len(self._part_pages), 1
                if part == 0 and page == 1:
                    passes += 1
                    if passes == 1:
                        seconds = (perf_ns() - pass_started) / 1e9
                        self._ctx.say(f"{self.name}: background maintenance read the whole database in {seconds:.1f} s", "info")
        finally:
            buffer.release()

    def close(self) -> None:
        self._file.close()


class Replication:
    """Reads each closed log file back once per extra copy, and checks every sector it reads."""

    def __init__(self, ctx: InstanceContext, meter: ThreadMeter, log_paths: list[Path], db_id: bytes, sector_bytes: int,
                 extra_copies: int, newest_generation: Callable[[], int]) -> None:
        self.name = ctx.name
        self._ctx = ctx
        self._files = [
            ctx.backend.open_file(p, create=False, writable=False, unbuffered=ctx.unbuffered, write_through=False)
            for p in log_paths
        ]
        self._meter = meter
        self._db_id = db_id
        self._sector_bytes = sector_bytes
        self._extra_copies = extra_copies
        self._newest_generation = newest_generation
        self._closed: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._buffer = ctx.backend.allocate(REPLICATION_READ_BYTES)
        self.skipped = 0
        self.thread = threading.Thread(target=self._run, name=f"{ctx.name} log replication", daemon=True)

    def log_closed(self, generation: int) -> None:
        """Called by the log writer when the stream leaves a file."""
        self._closed.put(generation)

    def _run(self) -> None:
        stop = self._ctx.clock.stop
        while not stop.is_set():
            try:
                generation = self._closed.get(timeout=0.05)
            except queue.Empty:
                continue
            if not self.ship(generation):
                return

    def ship(self, generation: int) -> bool:
        """Read the closed log file of `generation` once per extra copy and check what was read.

        False when the run's end came first.
        """
        clock = self._ctx.clock
        buffer = self._buffer
        handle = self._files[generation % len(self._files)]
        path = str(handle.path)
        for _copy in range(self._extra_copies):
            for offset in range(0, LOG_FILE_SIZE_BYTES, REPLICATION_READ_BYTES):
                if clock.stop.is_set():
                    return False
                if self._recycled(generation):
                    break
                done = timed_io(
                    self._ctx, self._meter, LOG_REPLICATION_READ, handle, buffer, offset, REPLICATION_READ_BYTES,
                    unit=LOG_SECTOR, block_bytes=self._sector_bytes)
                if done is None:
                    break
                if done >= clock.stop_at_ns:
                    return False
                if self._recycled(generation):  # the log came round to this file during the read
                    break
                check_log_sectors(
                    self._ctx, self._meter, LOG_REPLICATION_READ, buffer.view, path, self._db_id, generation, offset,
                    REPLICATION_READ_BYTES, self._sector_bytes)
        return True

    def _recycled(self, generation: int) -> bool:
        """True once the circular log may be writing this file again: it is skipped (and said once)."""
        if self._newest_generation() - generation < len(self._files) - 1:
            return False
        self.skipped += 1
        if self.skipped == 1:
            self._ctx.say(
                f"{self.name}: log replication fell behind the circular log; files it could not read in time are skipped",
                "warning",
            )
        return True

    def close(self) -> None:
        for handle in self._files:
            handle.close()
        self._buffer.release()
