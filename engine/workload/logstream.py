"""An instance's transaction log: a buffer of records written sequentially, write-through.

Every update appends a record to the log buffer. A non-lazy commit forces the buffer
to disk and waits for it (group commit: every record pending when the write starts
rides along). Lazily committed records are written once the buffer holds
`LAZY_FLUSH_BYTES`, or after `LAZY_FLUSH_S` at the latest.

Writes are whole sectors: a write starts at the sector holding the first unwritten
byte and ends at the sector holding the last record, so a partly filled sector is
written again by the next write, as ESE does. The log is one stream laid over a
circular set of 1 MiB files; the first 4 KiB of each file is its header. When the
stream passes the end of a file, that file is closed (`on_close(generation)`, which
is what log replication ships) and the stream continues in the next file; the
oldest file is recycled. Every sector written carries a header and a checksum
(`engine.io.pages`), so whatever reads the log back can verify each sector, and the
update records that end in it (page and sequence), so soft recovery can replay them.

A Soft Recovery's log is not circular: it has one file per generation it is to keep,
and the stream ends when the last is full (`full` is set); records appended after
that are lost, as the log buffer is in a crash.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from engine.io.pages import BlockWriter, LogRecord
from engine.io.platform import AlignedBuffer, IoFile
from engine.model.sizing import LOG_DATA_BYTES, LOG_HEADER_BYTES
from engine.workload.context import InstanceContext, timed_io
from engine.workload.errors import LOG_SECTOR
from engine.workload.stats import LOG_WRITE, ThreadMeter

LOG_DATA_START = LOG_HEADER_BYTES  # sector 0 of each log file is its header (`engine.model.config`)
LOG_MAX_WRITE_BYTES = 64 * 1024
# Calibrated against the reference report: with 70 % lazy commits these give about
# 0.21 log writes per database transfer and 4.8 KB log writes on 512-byte sectors.
LAZY_FLUSH_BYTES = 4096
LAZY_FLUSH_S = 0.1


class LogWriter:
    def __init__(self, ctx: InstanceContext, meter: ThreadMeter, paths: list[Path], db_id: bytes, sector_bytes: int,
                 on_close: Callable[[int], None] | None = None, *, circular: bool = True) -> None:
        if LOG_DATA_BYTES % sector_bytes or LOG_MAX_WRITE_BYTES % sector_bytes:
            raise ValueError(f"log sector size {sector_bytes} does not divide the log file")
        self.name = ctx.name
        self._ctx = ctx
        self.file_count = len(paths)
        self.sector_bytes = sector_bytes
        self._files: list[IoFile] = [
            ctx.backend.open_file(p, create=False, writable=True, unbuffered=ctx.unbuffered, write_through=True)
            for p in paths
        ]
        self._clock = ctx.clock
        self._meter = meter
        self._on_close = on_close
        self._writer = BlockWriter(db_id)
        self._buffer: AlignedBuffer = ctx.backend.allocate(LOG_MAX_WRITE_BYTES)
        self._cond = threading.Condition()
        self.appended = 0  # stream position after the last record (read without the lock)
        self._taken = 0  # stream position up to which a write has been started
        self._flushed = 0  # stream position up to which records are on disk
        self._closed_files = 0
        self._force = False
        self._records: deque[tuple[int, int, int]] = deque()  # (end position, page, sequence), oldest first
        # A log that is not circular ends when its last file is full.
        self.limit = None if circular else self.file_count * LOG_DATA_BYTES
        self.full = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"{ctx.name} log writer", daemon=True)

    @property
    def generation(self) -> int:
        """The log file generation being written."""
        return self._flushed // LOG_DATA_BYTES

    @property
    def newest_generation(self) -> int:
        """The newest generation a write may be touching: that of the last record appended (read without the lock)."""
        return self.appended // LOG_DATA_BYTES

    @property
    def flushed(self) -> int:
        """Stream bytes on disk."""
        return self._flushed

    def append(self, nbytes: int, *, commit: bool, page: int = 0, sequence: int = 0, also: int = 0) -> int:
        """Add a record of an update of `page` (and of `also`, a page a split allocated) that gave it write
        `sequence`; with `commit`, return once it is written through. Returns its end position."""
        with self._cond:
            self.appended += nbytes
            target = self.appended
            if page:
                self._records.append((target, page, sequence))
                if also:
                    self._records.append((target, also, sequence))
            if not commit:
                if target - self._taken >= LAZY_FLUSH_BYTES:
                    self._cond.notify_all()
                return target
            self._force = True
            self._cond.notify_all()
            stop = self._clock.stop
            while self._flushed < target and not stop.is_set():
                self._cond.wait(0.1)
        return target

    def _run(self) -> None:
        stop = self._clock.stop
        cond = self._cond
        while True:
            with cond:
                deadline = time.monotonic() + LAZY_FLUSH_S
                while not self._force and self.appended - self._taken < LAZY_FLUSH_BYTES and not stop.is_set():
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        if self.appended > self._taken:
                            break
                        deadline = time.monotonic() + LAZY_FLUSH_S
                        remaining = LAZY_FLUSH_S
                    cond.wait(remaining)
                if stop.is_set():
                    cond.notify_all()
                    return
                start, end = self._flushed, self.appended
                if self.limit is not None:
                    end = min(end, self.limit)
                self._taken = end
                self._force = False
                records = self._due_records(start, end)
            self._write(start, end, records)
            with cond:
                self._flushed = end
                cond.notify_all()
            while (self._closed_files + 1) * LOG_DATA_BYTES <= end:
                if self._on_close is not None:
                    self._on_close(self._closed_files)
                self._closed_files += 1
            if self.limit is not None and end >= self.limit:
                self.full.set()
                return

    def _due_records(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """The records the write of [start, end) carries: those ending from the sector holding `start` on
        (a partly written sector is written again whole). Called with the lock held."""
        records = self._records
        low = start // self.sector_bytes * self.sector_bytes
        while records and records[0][0] <= low:
            records.popleft()
        return [record for record in records if record[0] <= end]

    def _write(self, start: int, end: int, records: list[tuple[int, int, int]]) -> None:
        """Write stream bytes [start, end) in whole sectors, file by file, in bounded writes."""
        sector = self.sector_bytes
        low = start // sector * sector
        high = -(-end // sector) * sector
        taken = 0
        while low < high:
            generation, within = divmod(low, LOG_DATA_BYTES)
            length = min(high - low, LOG_DATA_BYTES - within, LOG_MAX_WRITE_BYTES)
            offset = LOG_DATA_START + within
            mine: list[LogRecord] = []
            while taken < len(records) and records[taken][0] - 1 < low + length:
                ends, page, sequence = records[taken]
                mine.append(((ends - 1 - low) // sector * sector, page, sequence))
                taken += 1
            self._writer.fill_log_write(self._buffer.view, length, generation, offset, sector, mine)
            handle = self._files[generation % self.file_count]
            timed_io(self._ctx, self._meter, LOG_WRITE, handle, self._buffer, offset, length, unit=LOG_SECTOR, block_bytes=sector)
            low += length

    def close(self) -> None:
        for handle in self._files:
            handle.close()
        self._buffer.release()
