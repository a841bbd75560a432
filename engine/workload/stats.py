"""Per-stream I/O counters, per-thread interval buckets and their merging.

I/O errors are counted twice over: per stream (`StreamStats.errors`) and per kind
(`engine.workload.errors.ErrorTally`, with the first of each kind), in the same buckets.

Hot path: each thread owns its `IntervalBucket` for the interval its last I/O
completed in; when a completion falls in a later interval it hands the old bucket
over through a deque and starts a new one. No lock is taken per I/O. A collector
gathers, for interval k, each thread's bucket k once the interval is over.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.workload.errors import ErrorTally
from engine.workload.histogram import Counts, add_sparse, new_counts, percentiles_ms

DB_READ = "db_read"
DB_WRITE = "db_write"
LOG_WRITE = "log_write"
# Streams of the next workload version; they already have a place in every document.
BDM_READ = "bdm_read"
LOG_REPLICATION_READ = "log_replication_read"
LOG_READ = "log_read"
STREAMS = (DB_READ, DB_WRITE, LOG_WRITE, BDM_READ, LOG_REPLICATION_READ, LOG_READ)

# Database cache counters kept beside the streams, by position in `IntervalBucket.cache`.
CACHE_HITS = 0
CACHE_MISSES = 1
PAGE_FAULT_STALLS = 2
CACHE_COUNTERS = ("cache_hits", "cache_misses", "page_fault_stalls")


class Counted(Protocol):
    """A stream's counters, as a run counts them (`StreamStats`) and a sample carries them
    (`engine.results.counters.StreamCounters`)."""

    count: int
    bytes: int
    sum_ns: int
    max_ns: int
    errors: int


def avg_latency_ms(stats: Counted) -> float:
    return stats.sum_ns / stats.count / 1e6 if stats.count else 0.0


def max_latency_ms(stats: Counted) -> float:
    return stats.max_ns / 1e6


def avg_bytes(stats: Counted) -> float:
    return stats.bytes / stats.count if stats.count else 0.0


@dataclass(slots=True)
class StreamStats:
    """Operations, bytes, latency sum/max and histogram of one I/O stream."""

    count: int = 0
    bytes: int = 0
    sum_ns: int = 0
    max_ns: int = 0
    errors: int = 0
    hist: Counts = field(default_factory=new_counts)

    @classmethod
    def of(cls, counted: Counted, hist: Mapping[int, int]) -> StreamStats:
        """A stream's counters as a sample carries them (`engine.results.counters.StreamCounters`), to add up."""
        stats = cls()
        stats.merge_counts(counted)
        add_sparse(stats.hist, hist)
        return stats

    def merge(self, other: StreamStats) -> None:
        self.merge_counts(other)
        mine = self.hist
        for index, value in other.hist.items():
            mine[index] += value

    def merge_counts(self, other: Counted) -> None:
        """Add another's counts, latency sum and maximum, not its histogram (for figures that take no percentile)."""
        self.count += other.count
        self.bytes += other.bytes
        self.sum_ns += other.sum_ns
        self.errors += other.errors
        if other.max_ns > self.max_ns:
            self.max_ns = other.max_ns

    def avg_latency_ms(self) -> float:
        return avg_latency_ms(self)

    def max_latency_ms(self) -> float:
        return max_latency_ms(self)

    def percentiles(self) -> dict[str, float | None]:
        return percentiles_ms(self.hist, highest_ns=self.max_ns)


def new_cache_counts() -> list[int]:
    return [0] * len(CACHE_COUNTERS)


class IntervalBucket:
    """One thread's counters for one interval: its streams, the cache, and its I/O errors by kind."""

    __slots__ = ("cache", "collected", "errors", "index", "streams")

    def __init__(self, index: int) -> None:
        self.index = index
        self.streams: dict[str, StreamStats] = {}
        self.cache = new_cache_counts()
        self.errors = ErrorTally()
        self.collected = False

    @property
    def has_data(self) -> bool:
        return bool(self.streams) or any(self.cache)

    def stream(self, name: str) -> StreamStats:
        stats = self.streams.get(name)
        if stats is None:
            stats = self.streams[name] = StreamStats()
        return stats


class ThreadMeter:
    """The counters one thread owns; the thread alone writes to them.

    `record` places an operation in the interval of its completion time.
    """

    __slots__ = ("current", "handed_over", "instance", "interval_ns", "pending", "t0_ns")

    def __init__(self, instance: str, t0_ns: int, interval_ns: int) -> None:
        self.instance = instance
        self.t0_ns = t0_ns
        self.interval_ns = interval_ns
        self.current = IntervalBucket(-1)
        self.handed_over: deque[IntervalBucket] = deque()
        self.pending: Any = None  # the I/O the thread has issued and not seen complete (`engine.workload.hung`)

    def bucket_for(self, done_ns: int) -> IntervalBucket:
        index = (done_ns - self.t0_ns) // self.interval_ns
        current = self.current
        if index != current.index:
            if current.has_data and not current.collected:
                self.handed_over.append(current)
            current = self.current = IntervalBucket(index)
        return current

    def take(self, index: int) -> list[IntervalBucket]:
        """Collector side: this thread's buckets up to interval `index`, each exactly once.

        Called once the interval is over (plus a grace period), when no completion can
        fall in it any more. A bucket taken while still `current` is flagged, so the
        thread's later roll-over does not hand it over a second time.
        """
        taken: list[IntervalBucket] = []
        current = self.current
        if current.index <= index and current.has_data and not current.collected:
            current.collected = True
            taken.append(current)
        handed = self.handed_over
        while handed and handed[0].index <= index:
            bucket = handed.popleft()
            if not bucket.collected:
                bucket.collected = True
                taken.append(bucket)
        return taken


@dataclass
class InstanceInterval:
    """Merged counters of one instance over one interval (or over a whole window)."""

    instance: str
    streams: dict[str, StreamStats] = field(default_factory=dict)
    cache: list[int] = field(default_factory=new_cache_counts)
    errors: ErrorTally = field(default_factory=ErrorTally)
    cache_pages: int | None = None  # pages the database cache held as the interval ended (a gauge, not a count)

    def stream(self, name: str) -> StreamStats:
        stats = self.streams.get(name)
        if stats is None:
            stats = self.streams[name] = StreamStats()
        return stats

    def add_buckets(self, buckets: Iterable[IntervalBucket]) -> None:
        for bucket in buckets:
            for name, stats in bucket.streams.items():
                self.stream(name).merge(stats)
            self._add_cache(bucket.cache)
            self.errors.merge(bucket.errors)

    def merge(self, other: InstanceInterval) -> None:
        for name, stats in other.streams.items():
            self.stream(name).merge(stats)
        self._add_cache(other.cache)
        self.errors.merge(other.errors)
        if other.cache_pages is not None:  # the later interval's
            self.cache_pages = other.cache_pages

    def _add_cache(self, counts: list[int]) -> None:
        mine = self.cache
        for index, value in enumerate(counts):
            mine[index] += value


def split_totals(
    totals: Mapping[str, InstanceInterval],
) -> tuple[dict[str, dict[str, StreamStats]], dict[str, list[int]]]:
    """Each instance's streams and cache counters, as the verdict and the result document take them."""
    return {name: t.streams for name, t in totals.items()}, {name: t.cache for name, t in totals.items()}
