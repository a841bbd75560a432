"""Hung I/O: an I/O the storage has not completed within the hung I/O threshold, found while it hangs.

ESE's I/O manager patrols the I/Os it has issued every 4 s (`IOMgrIOPatrolDogThread`, osdisk.cxx) and, for each one
older than JET_paramHungIOThreshold (30 s by default, 11 s to 30 min), logs event 532 for a read or 533 for a write;
it does not fail the I/O (docs/ese-source.md, section 3). Jetstress 2013 fails the test on a hung I/O.

Here every I/O thread leaves on its own counters what it has issued and not yet seen complete (`timed_io`: the time it
was issued, the stream, the file, offset and length). The worker's patrol looks at them every second from its own
thread, so a hung I/O is said within a second of the threshold while the thread that issued it still waits on it, and
the test fails without waiting for the I/O. The patrol counts what it finds in counters of its own: the waiting thread
may complete its I/O at any moment and go on writing its own, so nobody else writes into them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.io.pages import ErrorKind
from engine.io.platform import IoFile
from engine.workload.context import count
from engine.workload.errors import IoProblem, Unit
from engine.workload.stats import IntervalBucket, ThreadMeter

PATROL_S = 1.0  # how often the patrol looks (ESE's, in a retail build: 4 s)

Issued = tuple[int, str, IoFile, int, int, Unit, int]  # issued at (ns), stream, file, offset, length, unit, block size


class HungPatrol:
    """Finds each I/O of the given instances' threads that has been outstanding longer than `threshold_s`, once."""

    def __init__(self, threshold_s: float, t0_ns: int, interval_ns: int,
                 instances: Iterable[tuple[str, Sequence[ThreadMeter]]]) -> None:
        self.threshold_s = threshold_s
        self._threshold_ns = int(threshold_s * 1e9)
        self._watched = [(name, tuple(meters)) for name, meters in instances]
        self._counters = {name: ThreadMeter(name, t0_ns, interval_ns) for name, _meters in self._watched}
        self._said: dict[ThreadMeter, Issued] = {}  # the I/O of each thread already found hung

    def patrol(self, now_ns: int) -> list[tuple[str, IoProblem]]:
        """Every I/O newly found hung at `now_ns`, by instance: counted in the patrol's counters."""
        found: list[tuple[str, IoProblem]] = []
        for name, meters in self._watched:
            for meter in meters:
                issued: Issued | None = meter.pending
                if issued is None or now_ns - issued[0] < self._threshold_ns or self._said.get(meter) is issued:
                    continue
                self._said[meter] = issued
                problem = hung_problem(issued, now_ns, self.threshold_s)
                count(self._counters[name], problem, now_ns)
                found.append((name, problem))
        return found

    def take(self, name: str, index: int) -> list[IntervalBucket]:
        """Collector side: the patrol's counters of instance `name` up to interval `index` (`ThreadMeter.take`)."""
        counters = self._counters.get(name)
        return counters.take(index) if counters is not None else []


def hung_problem(issued: Issued, now_ns: int, threshold_s: float) -> IoProblem:
    """A hung I/O in the words of an I/O error: its file (one of an instance's database files, as itself), its first
    page or log sector and byte offset, and how long it has been outstanding."""
    since_ns, stream, handle, offset, length, unit, block_bytes = issued
    handle, local = handle.part_at(offset)
    writing = stream.endswith("write")
    kind = ErrorKind.HUNG_WRITE if writing else ErrorKind.HUNG_READ
    what = "write" if writing else "read"
    detail = (f"the {what} of {length:,} bytes has not completed {(now_ns - since_ns) / 1e9:.0f} s after it was issued, "
              f"past the hung I/O threshold of {threshold_s:g} s: the storage is holding it")
    return IoProblem(kind, stream, str(handle.path), unit, local // block_bytes, local, detail=detail)
