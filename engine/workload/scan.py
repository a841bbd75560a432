"""Sequential scans of a database and its logs: the Database Checksum and Database Backup tests.

A scan reads a database file from its first page to its last in large unbuffered reads
(64 KiB for a checksum, 256 KiB for a backup, as Jetstress reads), and checks every page
as `engine.io.pages` defines it: the file header on page 0, then each page's number,
database and CRC-32. A checksum pass goes on through the instance's log files, sector by
sector. A backup may write what it read to a copy of the database (`copies`).

Reader threads keep `depth` reads in flight while the scan thread checks the buffers read
before (both release the interpreter's lock in the read and in the CRC), so checking
costs the disk almost nothing; reads are checked, and their errors reported, in the file's
order, whatever order they complete in. Each database has its own scan. A scan given another (`after`) starts when that one
ends: a checksum checks the databases of one volume one after another, as Jetstress does
(`engine.run.scanning`). A damaged page is counted by kind (`ScanTally`),
in the interval's I/O errors (so the samples and the report's error table carry it) and
logged like any I/O error, and the scan goes on: a checksum pass wants every bad page. A read the operating system
fails for a data error (a CRC error, -1021) fails for a page of it: each of its pages is read again alone. A scan
never patches a page (`engine.workload.patching`): it never writes into the database it reads.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from engine.io.flush_file import clean_states, flush_map_path
from engine.io.pages import (
    FLUSH_STATE_AT,
    SECTOR_BYTES,
    ErrorKind,
    database_header_fault,
    log_header_fault,
    log_scan_fault,
    page_fault,
)
from engine.io.parts import part_base
from engine.io.platform import AlignedBuffer, IoBackend, IoFile
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.workload.context import ErrorSink, InstanceContext, RunClock, Say, failed_io, timed_io
from engine.workload.context import report as report_problem
from engine.workload.errors import LOG_SECTOR, PAGE, IoProblem
from engine.workload.flushmap import FlushMap
from engine.workload.stats import DB_READ, LOG_READ, ThreadMeter

CHECK_LAG_BUFFERS = 2  # buffers read and waiting for the checker, beyond those being read
NEVER_WRITES = "a Database checksum or backup reads the database and never writes into it"
FIRST_DAMAGED_SHOWN = 20  # damaged pages a scan lists by number, beyond its counts by kind
PROGRESS_EVERY_S = 0.5

ProgressFn = Callable[[int, int], None]  # bytes done, bytes in all


@dataclass(frozen=True)
class ScanTarget:
    """One database instance to scan: its database files, and the log files a checksum pass reads after them."""

    index: int
    name: str
    db_files: tuple[tuple[Path, int], ...]  # each database file with the pages it holds (its header's included)
    db_id: bytes
    log_paths: tuple[tuple[Path, int], ...] = ()  # each log file with its sector size
    copies: tuple[Path, ...] = ()  # a backup's copy of each database file

    @property
    def db_path(self) -> Path:
        return self.db_files[0][0]

    @property
    def pages(self) -> int:
        return sum(pages for _, pages in self.db_files)

    @property
    def total_bytes(self) -> int:
        return self.pages * PAGE_SIZE_BYTES + sum(path.stat().st_size for path, _ in self.log_paths)


@dataclass
class ScanTally:
    """What a scan of one database found, and how long it took: sent to the runner when it ends."""

    pages_total: int = 0  # pages in the file, its header page included
    pages_seen: int = 0
    pages_damaged: dict[str, int] = field(default_factory=dict)  # by ErrorKind
    first_damaged: list[tuple[int, int, str]] = field(default_factory=list)  # page, byte offset, ErrorKind; in page order
    bytes_read: int = 0
    log_files: int = 0
    log_sectors_seen: int = 0
    log_sectors_damaged: dict[str, int] = field(default_factory=dict)
    bytes_written: int = 0
    database_seconds: float = 0.0
    seconds: float = 0.0
    began_s: float = 0.0  # when its reading began, from the run's clock (after the scan before it on its volume)
    complete: bool = False
    failure: str = ""  # what ended the scan before its end, other than a stop
    flush_map: str = ""  # why a database file was read without its flush map ("": each was read against its own)

    def damaged(self, kind: ErrorKind, page: int, offset: int) -> None:
        self.pages_damaged[kind.value] = self.pages_damaged.get(kind.value, 0) + 1
        if len(self.first_damaged) < FIRST_DAMAGED_SHOWN:
            self.first_damaged.append((page, offset, kind.value))


class Read(NamedTuple):
    """A read of a scan, as it completed: its error, if it failed."""

    buffer: AlignedBuffer
    offset: int
    length: int
    failure: IoProblem | None


class Scan:
    """The scan of one database (and, for a checksum, its logs), on a thread of its own."""

    def __init__(self, backend: IoBackend, target: ScanTarget, clock: RunClock, read_bytes: int, *, unbuffered: bool,
                 errors: ErrorSink, say: Say, progress: ProgressFn, depth: int = 1, after: Scan | None = None) -> None:
        if read_bytes % PAGE_SIZE_BYTES:
            raise ValueError(f"a scan reads whole pages: {read_bytes} is not a multiple of {PAGE_SIZE_BYTES}")
        self.target = target
        self.name = target.name
        self.read_bytes = read_bytes
        self.depth = max(1, depth)  # reads in flight
        self.after = after  # the scan this one waits for (the one before it on its volume)
        # the byte offsets in the file being read where a read met a CRC error: added and looked up by the checker, which
        # reports each failed read's error before it checks the read's pages
        self._data_errors: set[int] = set()
        self.ctx = InstanceContext(backend, target.name, clock, errors, say, unbuffered, True, str(target.db_path),
                                   patch=self._not_patched)
        # each reader thread's counters, and the scan's own thread's (its checks and its log reads): each thread owns
        # its counters, and a hung I/O is told by the thread that issued it (`engine.workload.hung`)
        self.read_meters = [ThreadMeter(target.name, clock.t0_ns, clock.interval_ns) for _ in range(self.depth)]
        self.check_meter = ThreadMeter(target.name, clock.t0_ns, clock.interval_ns)
        self.meters = (*self.read_meters, self.check_meter)
        self.tally = ScanTally(pages_total=target.pages)
        self._progress = progress
        self._total = target.total_bytes
        self._done = 0
        self._reported = 0.0
        self._file_bytes = 0
        self._flushes: FlushMap | None = None  # the flush states of the database file being read, when kept clean
        self.ended_ns = 0  # when the scan ended (perf_counter_ns, the run's clock)
        self._thread = threading.Thread(target=self._run, name=f"scan-{target.name}", daemon=True)

    # the thread ------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def finished(self) -> bool:
        return self.ended_ns != 0

    def close(self) -> None:
        """Nothing stays open between reads: each file is closed as its scan leaves it."""

    def _stopped(self) -> bool:
        return self.ctx.clock.stop.is_set()

    def _not_patched(self, problem: IoProblem) -> IoProblem:
        """A CRC error the scan met: never patched, as a scan never writes into the database; where it was, kept so
        that the other pages of its read are read again alone (`_check_alone`)."""
        if problem.unit == PAGE:
            self._data_errors.add(problem.offset)
        return replace(problem, not_patched=NEVER_WRITES)

    def _run(self) -> None:
        self._progress(0, self._total)
        while self.after is not None and not self.after.join(0.1) and not self._stopped():
            pass  # its volume's scan before it is still reading
        started = time.perf_counter()
        self.tally.began_s = max(0.0, (time.perf_counter_ns() - self.ctx.clock.t0_ns) / 1e9)
        try:
            self._scan_database()
            self.tally.database_seconds = time.perf_counter() - started
            for path, sector_bytes in self.target.log_paths:
                if self._stopped():
                    break
                self._scan_log(path, sector_bytes)
            self.tally.complete = not self._stopped()
        except Exception as exc:  # the scan cannot go on (a file vanished, a read of a header failed): say so, keep the rest
            self.tally.failure = f"{type(exc).__name__}: {exc}"
            self.ctx.say(f"{self.name}: the scan ended at byte {self._done:,}: {self.tally.failure}", "error")
        finally:
            self.tally.seconds = time.perf_counter() - started
            self._progress(self._done, self._total)
            self.ended_ns = time.perf_counter_ns()  # last: a finished scan's tally is whole

    def _advance(self, nbytes: int) -> None:
        self._done += nbytes
        now = time.monotonic()
        if now - self._reported >= PROGRESS_EVERY_S:
            self._reported = now
            self._progress(self._done, self._total)

    # the database ----------------------------------------------------------------------

    def _scan_database(self) -> None:
        for part, (path, pages) in enumerate(self.target.db_files):
            if self._stopped():
                break
            self._scan_file(part, path, pages)

    def _scan_file(self, part: int, path: Path, pages: int) -> None:
        """Read one of the instance's database files through (its `part`), and copy it for a backup that asks; each
        page against the flush state its flush map kept, when a run that ended cleanly kept one."""
        target, ctx = self.target, self.ctx
        states, why = clean_states(flush_map_path(path), target.db_id, part)
        self._flushes = FlushMap([pages], [states]) if states is not None else None
        self._data_errors.clear()
        if states is None:
            self.tally.flush_map = self.tally.flush_map or f"{path.name}: {why}"
            ctx.say(f"{self.name}: {path} is read without its flush map, so a lost flush cannot be told: {why}", "info")
        backend = ctx.backend
        total = pages * PAGE_SIZE_BYTES
        buffers = [backend.allocate(self.read_bytes) for _ in range(self.depth + CHECK_LAG_BUFFERS)]
        copy = None
        headed = False  # the copy holds its header (the first page): without it, it is no Jetwise file
        try:
            with backend.open_file(path, create=False, writable=False, unbuffered=ctx.unbuffered,
                                   write_through=False) as handle:
                if target.copies:
                    copy = backend.open_file(target.copies[part], create=True, writable=True,
                                             unbuffered=ctx.unbuffered, write_through=False)
                self._file_bytes = handle.size_bytes()
                for buffer, offset, length, failure in self._pipeline(handle, buffers, total):
                    read = failure is None
                    if failure is not None:
                        report_problem(ctx, self.check_meter, failure)
                    self._check_pages(buffer.view, offset, length, read, part, path, handle)
                    if copy is not None and read:
                        copy.write_from(buffer, offset, length)
                        self.tally.bytes_written += length
                        headed = headed or offset == 0
                    self._advance(length)
                if copy is not None:
                    copy.flush()
        finally:
            if copy is not None:
                copy.close()
                if not headed:  # made by this scan, never given its header (a full volume, an unreadable first page):
                    target.copies[part].unlink(missing_ok=True)  # left, it would block the next backup unrecognised
            for buffer in buffers:
                buffer.release()

    def _pipeline(self, handle: IoFile, buffers: list[AlignedBuffer], total: int) -> Iterator[Read]:
        """Yield each read of `handle` in file order, with `depth` reads in flight: each reader thread takes the next
        offset in the file, and a read that completes before one issued ahead of it waits for it. A read that failed
        carries its error, which the checker reports: the errors of a scan are met in the file's order."""
        free: queue.Queue[AlignedBuffer] = queue.Queue()
        for buffer in buffers:
            free.put(buffer)
        full: queue.Queue[Read | None] = queue.Queue()
        abandoned = threading.Event()
        offsets = iter(range(0, total, self.read_bytes))
        taking = threading.Lock()

        def read_some(meter: ThreadMeter) -> None:
            try:
                while True:
                    buffer = free.get()
                    if self._stopped() or abandoned.is_set():
                        break
                    with taking:
                        offset = next(offsets, None)
                    if offset is None:
                        free.put(buffer)
                        break
                    length = min(self.read_bytes, total - offset)
                    failures: list[IoProblem] = []
                    timed_io(self.ctx, meter, DB_READ, handle, buffer, offset, length, failed=failures.append)
                    full.put(Read(buffer, offset, length, failures[0] if failures else None))
            finally:
                full.put(None)

        readers = [threading.Thread(target=read_some, args=(meter,), name=f"scan-read-{self.name}-{n + 1}", daemon=True)
                   for n, meter in enumerate(self.read_meters)]
        for reader in readers:
            reader.start()
        ended = 0
        waiting: dict[int, Read] = {}  # reads completed before one issued ahead of them, by offset
        due = 0  # the offset of the next read to yield
        try:
            while ended < len(readers):
                item = full.get()
                if item is None:
                    ended += 1
                    continue
                waiting[item.offset] = item
                while due in waiting:
                    ready = waiting.pop(due)
                    due += self.read_bytes
                    yield ready
                    free.put(ready.buffer)
            for offset in sorted(waiting):  # beyond a read a reader never finished (it failed): still checked, in order
                yield waiting.pop(offset)
        finally:
            abandoned.set()
            for _ in readers:  # a reader waiting for a buffer gets one, sees it is abandoned, and ends
                free.put(buffers[0])
            for reader in readers:
                reader.join()

    def _check_pages(self, view: memoryview, offset: int, length: int, read: bool, part: int, path: Path,
                     handle: IoFile) -> None:
        tally = self.tally
        first = offset // PAGE_SIZE_BYTES
        count = length // PAGE_SIZE_BYTES
        tally.pages_seen += count
        tally.bytes_read += length if read else 0
        # a read failed for a data error: the error is the page's, so each of its pages is read again alone
        alone = not read and any(at in self._data_errors for at in range(offset, offset + length, PAGE_SIZE_BYTES))
        for i in range(count):
            page = first + i
            at = page * PAGE_SIZE_BYTES
            if alone:
                self._check_alone(handle, page, part, path)
            elif not read:  # the read failed: its error is counted once, and each of its pages is unreadable
                beyond = at + PAGE_SIZE_BYTES > self._file_bytes
                tally.damaged(ErrorKind.SHORT_READ if beyond else ErrorKind.DISK_IO, page, at)
            else:
                self._check_page(view[i * PAGE_SIZE_BYTES:], page, part, path)

    def _check_page(self, block: memoryview, page: int, part: int, path: Path) -> None:
        at = page * PAGE_SIZE_BYTES
        if page == 0:
            fault = database_header_fault(block, self.target.db_id)
        else:
            fault = page_fault(block, self.target.db_id, part_base(part) + page, PAGE_SIZE_BYTES, True)
            flushes = self._flushes
            if fault is None and flushes is not None and (want := flushes.expected(page)) and block[FLUSH_STATE_AT] != want:
                fault = ErrorKind.LOST_FLUSH, f"flush state {block[FLUSH_STATE_AT]} where its flush map says {want}"
        if fault is not None:
            kind, found = fault
            self.tally.damaged(kind, page, at)
            report_problem(self.ctx, self.check_meter, IoProblem(kind, DB_READ, str(path), PAGE, page, at, found=found))

    def _check_alone(self, handle: IoFile, page: int, part: int, path: Path) -> None:
        """A page of a read that failed for a data error, read again by itself: damaged by the CRC error where it
        fails for one (each such page its own error), by the read's failure where it fails otherwise, else checked as
        any page read."""
        at = page * PAGE_SIZE_BYTES
        if at in self._data_errors:  # the page the failed read's error names: counted already
            self.tally.damaged(ErrorKind.CRC_ERROR, page, at)
            return
        buffer = self.ctx.backend.allocate(PAGE_SIZE_BYTES)
        try:
            try:
                handle.read_into(buffer, at, PAGE_SIZE_BYTES)
            except OSError as exc:
                problem = failed_io(DB_READ, handle, at, PAGE_SIZE_BYTES, PAGE, PAGE_SIZE_BYTES, exc)
                self.tally.damaged(problem.kind, page, at)
                if problem.kind is ErrorKind.CRC_ERROR:
                    report_problem(self.ctx, self.check_meter, problem)
                return
            self.tally.bytes_read += PAGE_SIZE_BYTES
            self._check_page(buffer.view, page, part, path)
        finally:
            buffer.release()

    # the logs --------------------------------------------------------------------------

    def _scan_log(self, path: Path, sector_bytes: int) -> None:
        ctx, tally = self.ctx, self.tally
        size = path.stat().st_size
        buffer = ctx.backend.allocate(size)
        try:
            with ctx.backend.open_file(path, create=False, writable=False, unbuffered=ctx.unbuffered,
                                       write_through=False) as handle:
                done = timed_io(ctx, self.check_meter, LOG_READ, handle, buffer, 0, size, unit=LOG_SECTOR,
                                block_bytes=sector_bytes)
            tally.log_files += 1
            if done is not None:
                self._check_log(buffer.view, path, size, sector_bytes)
        finally:
            buffer.release()
        self._advance(size)

    def _check_log(self, view: memoryview, path: Path, size: int, sector_bytes: int) -> None:
        tally, db_id = self.tally, self.target.db_id
        faults = [(0, log_header_fault(view, db_id, True))]
        faults += [(at, log_scan_fault(view[at:], db_id, at, sector_bytes)) for at in range(SECTOR_BYTES, size, sector_bytes)]
        tally.log_sectors_seen += len(faults)
        for at, fault in faults:
            if fault is None:
                continue
            kind, found = fault
            tally.log_sectors_damaged[kind.value] = tally.log_sectors_damaged.get(kind.value, 0) + 1
            report_problem(self.ctx, self.check_meter,
                           IoProblem(kind, LOG_READ, str(path), LOG_SECTOR, at // sector_bytes, at, found=found))
