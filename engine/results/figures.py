"""Flat figures (rates, latencies, sizes) of an instance or a server over a time span.

Names follow one rule so every document, sample file and report column agrees:
`<stream>s_per_s`, `<stream>_avg_latency_ms`, `<stream>_max_latency_ms`,
`<stream>_avg_bytes`, e.g. `db_reads_per_s`, `log_write_avg_latency_ms`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.results.schema import FIRST_GROWING_DATABASES, Figures, InstanceFigures, LatencyHistograms, RunResult
from engine.workload.histogram import to_sparse
from engine.workload.stats import CACHE_HITS, CACHE_MISSES, DB_READ, DB_WRITE, PAGE_FAULT_STALLS, STREAMS, InstanceInterval, StreamStats


def stream_figures(streams: Mapping[str, StreamStats], seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    errors = 0
    for name in STREAMS:
        stats = streams.get(name) or StreamStats()
        out[f"{name}s_per_s"] = stats.count / seconds if seconds > 0 else 0.0
        out[f"{name}_avg_latency_ms"] = stats.avg_latency_ms()
        out[f"{name}_max_latency_ms"] = stats.max_latency_ms()
        out[f"{name}_avg_bytes"] = stats.avg_bytes()
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


def database_bytes(result: RunResult) -> tuple[int | None, int | None]:
    """The databases' total length as the test began and as it ended; None where a length was not recorded (a run
    rebuilt after a kill has the end only). Before schema 12 databases did not grow: both are the configured size."""
    config = result.configuration
    if result.schema_version < FIRST_GROWING_DATABASES:
        return (config.database_size_bytes * config.database_file_count,) * 2
    initial = [i.database_bytes_initial for i in result.instances]
    final = [i.database_bytes_final for i in result.instances]
    return (sum(initial) if initial and None not in initial else None,  # type: ignore[arg-type]
            sum(final) if final and None not in final else None)  # type: ignore[arg-type]


def percentile_figures(streams: Mapping[str, StreamStats]) -> dict[str, dict[str, float | None]]:
    """Latency percentiles (ms) per stream that saw any I/O."""
    return {name: stats.percentiles() for name, stats in streams.items() if stats.count}


def merge_streams(parts: Iterable[Mapping[str, StreamStats]]) -> dict[str, StreamStats]:
    merged: dict[str, StreamStats] = {}
    for part in parts:
        for name, stats in part.items():
            merged.setdefault(name, StreamStats()).merge(stats)
    return merged


def latency_histograms(streams: Mapping[str, StreamStats], seconds: float) -> LatencyHistograms:
    """The histograms of the streams that saw any I/O, as a sample carries them."""
    return LatencyHistograms(span_s=seconds, streams={name: to_sparse(stats.hist) for name, stats in streams.items()
                                                      if stats.count})


def interval_figures(parts: Mapping[str, InstanceInterval],
                     seconds: float) -> tuple[list[InstanceFigures], Figures, LatencyHistograms]:
    """One sample interval's figures per instance and the server's, and the server's latency histograms."""
    rows = []
    server = InstanceInterval("server")
    for name, part in parts.items():
        rows.append(
            InstanceFigures(
                name=name,
                **stream_figures(part.streams, seconds),
                **cache_figures(part.cache, seconds),
            )
        )
        server.merge(part)
    summary = Figures(**stream_figures(server.streams, seconds), **cache_figures(server.cache, seconds))
    return rows, summary, latency_histograms(server.streams, seconds)


def _stats_from(figures: Figures, stream: str, seconds: float) -> StreamStats:
    """A stream's counters as far as figures over `seconds` tell them (no histogram: no percentiles)."""
    stats = StreamStats()
    count = round(figures.rate(stream) * seconds)
    stats.count = count
    stats.sum_ns = int(figures.stream_value(stream, "avg_latency_ms") * 1e6 * count)
    stats.max_ns = int(figures.stream_value(stream, "max_latency_ms") * 1e6)
    stats.bytes = int(figures.stream_value(stream, "avg_bytes") * count)
    return stats


def part_from_figures(row: Figures, seconds: float) -> InstanceInterval:
    """An instance's (or the server's) counters as far as its figures over `seconds` tell them, to total and judge like
    live intervals (of the cache, its stalls and whether it was ever hit)."""
    part = InstanceInterval(row.name if isinstance(row, InstanceFigures) else "")
    for stream in STREAMS:
        stats = _stats_from(row, stream, seconds)
        if stats.count:
            part.streams[stream] = stats
    part.cache[PAGE_FAULT_STALLS] = round(row.database_page_fault_stalls_per_s * seconds)
    if row.db_cache_hit_ratio is not None:
        part.cache[CACHE_HITS] = 1 if row.db_cache_hit_ratio > 0 else 0
    return part
