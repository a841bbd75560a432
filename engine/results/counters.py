"""An interval's counters, the one shape a sample carries: per stream its operations, bytes, latency sum and maximum
(ns), errors and latency histogram; the database cache's hits, misses and page fault stalls; I/O errors by kind.

Counters add up exactly over any spans (a samples file's window, an export's minute, the measured time, and one day
the servers of a test), where averages do not: rates, averages and percentiles are made from them only where they
are shown (`figures`). A sample made before counters (an older samples file, samples.jsonl, an older store) had its
figures only; `from_figures` turns them into counters as far as they tell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field

from engine.results.base import Schema
from engine.workload.errors import ErrorTally, KindCount
from engine.workload.histogram import to_sparse
from engine.workload.stats import (
    CACHE_HITS,
    CACHE_MISSES,
    DB_READ,
    DB_WRITE,
    PAGE_FAULT_STALLS,
    STREAMS,
    Counted,
    InstanceInterval,
    StreamStats,
    avg_bytes,
    avg_latency_ms,
    max_latency_ms,
)

RATIO_WEIGHT = 10_000  # references an older sample's cache hit ratio stands for

if TYPE_CHECKING:
    from engine.results.sample_schema import Figures


class StreamCounters(Schema):
    """One stream's I/O over a span."""

    count: int = 0
    bytes: int = 0
    sum_ns: int = 0
    max_ns: int = 0
    errors: int = 0
    hist: dict[int, int] = Field(default_factory=dict, description=(
        "Latency histogram, bucket -> operations (engine.workload.histogram), held buckets only; empty where the "
        "span keeps none (a server's second in a samples file: its instances' windows hold them)."))


class Counters(Schema):
    """An instance's (or the server's) counters over a span: the sample's own interval unless `span_s` says more."""

    streams: dict[str, StreamCounters] = Field(default_factory=dict, description="The streams that saw any I/O.")
    cache: list[int] = Field(default_factory=lambda: [0, 0, 0],
                             description="Database cache hits, misses and page fault stalls.")
    errors: list[KindCount] = Field(default_factory=list, description=(
        "I/O errors by kind: each kind's count, when the first was met (ns) and where (engine.workload.errors)."))
    cache_pages: int | None = Field(None, description="Pages the database cache held as the span ended.")
    span_s: float | None = Field(None, description=(
        "Seconds these counters cover when not their sample's interval: an instance's window in a samples file, "
        "ending with that sample."))

    @classmethod
    def of(cls, part: InstanceInterval, *, span_s: float | None = None, details: bool = True) -> Counters:
        """`part`'s counters; without `details` (the server's seconds) no histograms, errors by kind or cache size."""
        streams = {name: StreamCounters(count=s.count, bytes=s.bytes, sum_ns=s.sum_ns, max_ns=s.max_ns, errors=s.errors,
                                        hist=to_sparse(s.hist) if details else {})
                   for name, s in part.streams.items() if s.count or s.errors}
        return cls(streams=streams, cache=list(part.cache), errors=part.errors.copied() if details else [],
                   cache_pages=part.cache_pages if details else None, span_s=span_s)

    def part(self, name: str = "") -> InstanceInterval:
        """The counters to add up (`InstanceInterval.merge`)."""
        streams = {stream: StreamStats.of(counters, counters.hist) for stream, counters in self.streams.items()}
        return InstanceInterval(name, streams, list(self.cache), ErrorTally.of(self.errors), self.cache_pages)

    def seconds(self, interval_s: float) -> float:
        return interval_s if self.span_s is None else self.span_s

    def figures(self, seconds: float) -> dict[str, Any]:
        """Rates, averages and the cache's ratio over `seconds`, by the figure names (`engine.results.figures`)."""
        return {**stream_figures(self.streams, seconds), **cache_figures(self.cache, seconds)}


_NO_IO = StreamCounters()  # a stream that saw no I/O (never changed)


def stream_figures(streams: Mapping[str, Counted], seconds: float) -> dict[str, Any]:
    """Each stream's rate, average and maximum latency and average size over `seconds`, from a run's counters or a
    sample's alike."""
    out: dict[str, Any] = {}
    errors = 0
    for name in STREAMS:
        stats = streams.get(name) or _NO_IO
        out[f"{name}s_per_s"] = stats.count / seconds if seconds > 0 else 0.0
        out[f"{name}_avg_latency_ms"] = avg_latency_ms(stats)
        out[f"{name}_max_latency_ms"] = max_latency_ms(stats)
        out[f"{name}_avg_bytes"] = avg_bytes(stats)
        errors += stats.errors
    out["transactional_iops"] = out[f"{DB_READ}s_per_s"] + out[f"{DB_WRITE}s_per_s"]
    out["io_errors"] = errors
    return out


def cache_figures(counts: Sequence[int], seconds: float) -> dict[str, Any]:
    """The model's database cache hit ratio (None before any page was referenced) and stalls."""
    references = counts[CACHE_HITS] + counts[CACHE_MISSES]
    return {
        "db_cache_hit_ratio": counts[CACHE_HITS] / references if references else None,
        "database_page_fault_stalls_per_s": counts[PAGE_FAULT_STALLS] / seconds if seconds > 0 else 0.0,
    }


def added(spans: Iterable[Counters], *, span_s: float | None = None) -> Counters:
    """Counters of consecutive spans added up."""
    total = InstanceInterval("")
    for counters in spans:
        total.merge(counters.part())
    return Counters.of(total, span_s=span_s)


def from_figures(row: Figures, seconds: float, *, span_s: float | None = None) -> Counters:
    """An older sample's figures over `seconds` as counters, as far as they tell: counts, latency sums and bytes from
    rates and averages, no histogram, no error kinds; of the cache, its stalls and whether it was ever hit."""
    part = InstanceInterval("")
    for stream in STREAMS:
        count = round(row.rate(stream) * seconds)
        if not count:
            continue
        stats = part.stream(stream)
        stats.count = count
        stats.sum_ns = int(row.stream_value(stream, "avg_latency_ms") * 1e6 * count)
        stats.max_ns = int(row.stream_value(stream, "max_latency_ms") * 1e6)
        stats.bytes = int(row.stream_value(stream, "avg_bytes") * count)
    if row.io_errors:  # their stream unknown: the first that did I/O, or the database's reads
        part.stream(next(iter(part.streams), DB_READ)).errors = row.io_errors
    part.cache[PAGE_FAULT_STALLS] = round(row.database_page_fault_stalls_per_s * seconds)
    if row.db_cache_hit_ratio is not None:  # a ratio of RATIO_WEIGHT references: spans add up to their mean
        part.cache[CACHE_HITS] = round(row.db_cache_hit_ratio * RATIO_WEIGHT)
        part.cache[CACHE_MISSES] = RATIO_WEIGHT - part.cache[CACHE_HITS]
    return Counters.of(part, span_s=span_s)


def histograms_of(streams: Mapping[str, StreamStats]) -> dict[str, dict[int, int]]:
    """Each stream's histogram that holds any operation."""
    return {name: to_sparse(stats.hist) for name, stats in streams.items() if stats.count}


class Windowed(Protocol):
    @property
    def phase(self) -> str: ...
    @property
    def step(self) -> int | None: ...
    @property
    def interval(self) -> int: ...


def window_of(sample: Windowed, intervals: int) -> tuple[str, int | None, int]:
    """Which window of `intervals` samples a sample falls in: windows lie at whole multiples of their length from
    the run's start and never span a change of phase or sweep step (a samples file's, an export's coarser interval)."""
    return sample.phase, sample.step, sample.interval // intervals
