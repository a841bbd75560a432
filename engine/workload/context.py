"""What every I/O thread shares: the run's clock, and how a completion is counted."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.io.pages import check_page_identity, verify_checksum
from engine.io.platform import IoBackend
from engine.model.config import PAGE_SIZE_BYTES
from engine.workload.histogram import bucket_index
from engine.workload.stats import ThreadMeter

perf_ns = time.perf_counter_ns

ErrorSink = Callable[[str, str, OSError | str], None]  # instance, stream, error
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


def timed_io(
    ctx: InstanceContext, meter: ThreadMeter, stream: str, length: int, io: Callable[..., object], *args: object
) -> int | None:
    """Do one I/O, `io(*args)`, and count it in its interval.

    Returns its completion time, or None when it failed (the error is counted and
    reported). A completion at or after the run's end is returned but not counted.
    """
    t1 = perf_ns()
    try:
        io(*args)
    except OSError as exc:
        record_error(meter, stream)
        ctx.errors(ctx.name, stream, exc)
        return None
    t2 = perf_ns()
    if t2 < ctx.clock.stop_at_ns:
        record(meter, stream, length, t2 - t1, t2)
    return t2


def page_problem(ctx: InstanceContext, page: memoryview, db_id: bytes, page_no: int) -> str | None:
    """What is wrong with a page just read, if anything: not the page asked for or, when the
    configuration asks (the default), a checksum that does not hold (ESE -1018)."""
    problem = check_page_identity(page, db_id, page_no)
    if problem is None and ctx.verify_checksum and not verify_checksum(page, PAGE_SIZE_BYTES):
        problem = f"page {page_no} fails its checksum (ESE -1018): its contents changed on the way to or from the disk"
    return problem


def check_pages(
    ctx: InstanceContext, meter: ThreadMeter, stream: str, view: memoryview, db_id: bytes, first: int, count: int
) -> None:
    """Check each page read into `view` (`page_problem`); count and report any page that fails."""
    for i in range(count):
        problem = page_problem(ctx, view[i * PAGE_SIZE_BYTES :], db_id, first + i)
        if problem is not None:
            record_error(meter, stream)
            ctx.errors(ctx.name, stream, problem)
