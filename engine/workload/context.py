"""What every I/O thread shares: the run's clock, how a completion is counted, how a read is checked
and how an I/O error of a named kind (`engine.workload.errors`) is counted and reported."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.io.pages import SECTOR_BYTES, ErrorKind, Fault, log_header_fault, log_sector_fault, page_fault
from engine.io.parts import split_page
from engine.io.platform import DEFAULT_ALIGNMENT, AlignedBuffer, IoBackend, IoFile, is_data_error
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.workload.errors import LOG_SECTOR, PAGE, IoProblem, Unit
from engine.workload.flushmap import Written
from engine.workload.histogram import bucket_index
from engine.workload.stats import ThreadMeter

perf_ns = time.perf_counter_ns

ErrorSink = Callable[[str, IoProblem], None]  # instance, what went wrong
Patcher = Callable[[IoProblem], IoProblem]  # a CRC error met, and what page patching made of it
Say = Callable[[str, str], None]  # a line for the test log: text, level


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


@dataclass(frozen=True)
class InstanceContext:
    """What every I/O thread of one instance shares."""

    backend: IoBackend
    name: str
    clock: RunClock
    errors: ErrorSink
    say: Say
    unbuffered: bool
    verify_checksum: bool = True
    db_path: str = ""  # the database file, as errors name it
    more_db_paths: tuple[str, ...] = ()  # the instance's further database files (`engine.io.parts`)
    patch: Patcher | None = None  # page patching of a CRC error before it is counted (`engine.workload.patching`)


def record(meter: ThreadMeter, stream: str, nbytes: int, latency_ns: int, done_ns: int) -> None:
    """Count one completed I/O in its interval. Hot path: no lock."""
    stats = meter.bucket_for(done_ns).stream(stream)
    stats.count += 1
    stats.bytes += nbytes
    stats.sum_ns += latency_ns
    if latency_ns > stats.max_ns:
        stats.max_ns = latency_ns
    stats.hist[bucket_index(latency_ns)] += 1


def report(ctx: InstanceContext, meter: ThreadMeter, problem: IoProblem) -> None:
    """Count an I/O error in its interval, by stream and by kind, and tell the worker (which logs it); a CRC error
    first goes to the instance's page patching (`ctx.patch`), which mends the page if it can and says how it went."""
    if problem.kind is ErrorKind.CRC_ERROR and ctx.patch is not None:
        problem = ctx.patch(problem)
    count(meter, problem, perf_ns())
    ctx.errors(ctx.name, problem)


def count(meter: ThreadMeter, problem: IoProblem, now_ns: int) -> None:
    """Count an I/O error met at `now_ns` in its interval, by stream and by kind."""
    bucket = meter.bucket_for(now_ns)
    bucket.stream(problem.stream).errors += 1
    bucket.errors.add(problem, now_ns)


def failed_io(stream: str, handle: IoFile, offset: int, length: int, unit: Unit, block_bytes: int, exc: OSError) -> IoProblem:
    """The kind of an I/O the operating system failed: a read past the end of the file is a short read
    (named at the first page or sector the file does not hold whole), a read failed for a data error a CRC error (named
    at the first page or sector that fails alone), anything else an I/O error."""
    handle, offset = handle.part_at(offset)  # one of an instance's database files: named as itself
    path = str(handle.path)
    if not stream.endswith("write"):
        try:
            size = handle.size_bytes()
        except OSError:
            size = offset + length
        if offset + length > size:
            at = max(offset, size // block_bytes * block_bytes)
            detail = f"the file ends at byte {size:,}, and the read of {length:,} bytes from byte {offset:,} goes past it"
            return IoProblem(ErrorKind.SHORT_READ, stream, path, unit, at // block_bytes, at, detail=detail)
        if read_failure(exc) is ErrorKind.CRC_ERROR:
            at = unreadable_block(handle, offset, length, block_bytes)
            return IoProblem(ErrorKind.CRC_ERROR, stream, path, unit, at // block_bytes, at, detail=exc.strerror or str(exc))
    return IoProblem(ErrorKind.DISK_IO, stream, path, unit, offset // block_bytes, offset, detail=exc.strerror or str(exc))


def read_failure(exc: OSError) -> ErrorKind:
    """The kind of a read the operating system failed: a CRC error for a data error (ESE -1021, as ESE maps Windows'
    ERROR_CRC), an I/O error for any other (-1022)."""
    return ErrorKind.CRC_ERROR if is_data_error(exc) else ErrorKind.DISK_IO


def unreadable_block(handle: IoFile, offset: int, length: int, block_bytes: int) -> int:
    """Where a read of several pages or sectors the operating system failed for a data error holds it: the first block
    that, read again alone, fails for one too (the read's own offset when none does). The drive says only that the
    read failed; the error is the page's or sector's, and the engineer is told which."""
    if length <= block_bytes:
        return offset
    buffer = AlignedBuffer(max(block_bytes, DEFAULT_ALIGNMENT))
    try:
        for at in range(offset, offset + length, block_bytes):
            try:
                handle.read_into(buffer, at, block_bytes)
            except OSError as exc:
                if is_data_error(exc):
                    return at
    finally:
        buffer.release()
    return offset


def timed_io(ctx: InstanceContext, meter: ThreadMeter, stream: str, handle: IoFile, buffer: AlignedBuffer, offset: int,
             length: int, *, unit: Unit = PAGE, block_bytes: int = PAGE_SIZE_BYTES,
             failed: Callable[[IoProblem], None] | None = None) -> int | None:
    """Read or write (by the stream) `length` bytes of `buffer` at `offset` and count it in its interval.

    Returns its completion time, or None when it failed (the error is counted by kind and
    reported, or handed to `failed` to report when its caller will). A completion at or after the run's end is
    returned but not counted.
    """
    io = handle.write_from if stream.endswith("write") else handle.read_into
    t1 = perf_ns()
    meter.pending = (t1, stream, handle, offset, length, unit, block_bytes)  # until it completes: `engine.workload.hung`
    try:
        io(buffer, offset, length)
    except OSError as exc:
        meter.pending = None
        problem = failed_io(stream, handle, offset, length, unit, block_bytes, exc)
        if failed is None:
            report(ctx, meter, problem)
        else:
            failed(problem)
        return None
    t2 = perf_ns()
    meter.pending = None
    if t2 < ctx.clock.stop_at_ns:
        record(meter, stream, length, t2 - t1, t2)
    return t2


def page_problem(ctx: InstanceContext, stream: str, page: memoryview, db_id: bytes, page_no: int,
                 written: Written | None = None, version: int = -1) -> IoProblem | None:
    """What is wrong with a page just read, if anything (`engine.io.pages.page_fault`): not the page
    asked for, blank, or, when the configuration asks (the default), a checksum that does not hold; against what the
    run `written` to it (`version`: its map's version taken before the read), older than its last write (a lost flush)
    or newer than any write."""
    fault = page_fault(page, db_id, page_no, PAGE_SIZE_BYTES, ctx.verify_checksum)
    if fault is None and written is not None:
        fault = written.fault(page, page_no, version)
    if fault is None:
        return None
    part, local = split_page(page_no)
    path = ctx.more_db_paths[part - 1] if part else ctx.db_path
    return _problem(fault, stream, path, PAGE, local, local * PAGE_SIZE_BYTES)


def check_pages(
    ctx: InstanceContext, meter: ThreadMeter, stream: str, view: memoryview, db_id: bytes, first: int, count: int,
    written: Written | None = None, versions: tuple[int, ...] = (),
) -> None:
    """Check each page read into `view` (`page_problem`), against `written` with its map's `versions` of them taken
    before the read; count and report any page that fails."""
    for i in range(count):
        version = versions[i] if i < len(versions) else -1
        problem = page_problem(ctx, stream, view[i * PAGE_SIZE_BYTES :], db_id, first + i, written, version)
        if problem is not None:
            report(ctx, meter, problem)


def check_log_sectors(ctx: InstanceContext, meter: ThreadMeter, stream: str, view: memoryview, path: str, db_id: bytes,
                      generation: int, file_offset: int, length: int, sector_bytes: int) -> None:
    """Check each log sector read into `view` from `file_offset` of a log file holding `generation`:
    the file's header sector when the read starts there, then every sector of log data."""
    verify = ctx.verify_checksum
    start = 0
    if file_offset == 0:
        fault = log_header_fault(view, db_id, verify)
        if fault is not None:
            report(ctx, meter, _problem(fault, stream, path, LOG_SECTOR, 0, 0))
        start = SECTOR_BYTES
    for at in range(start, length, sector_bytes):
        offset = file_offset + at
        fault = log_sector_fault(view[at:], db_id, generation, offset, sector_bytes, verify)
        if fault is not None:
            report(ctx, meter, _problem(fault, stream, path, LOG_SECTOR, offset // sector_bytes, offset))


def _problem(fault: Fault, stream: str, path: str, unit: Unit, number: int, offset: int) -> IoProblem:
    kind, found = fault
    return IoProblem(kind, stream, path, unit, number, offset, found=found)
