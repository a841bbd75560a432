"""Flat figures (rates, latencies, sizes) of an instance or a server over a time span.

Names follow one rule so every document, sample file and report column agrees:
`<stream>s_per_s`, `<stream>_avg_latency_ms`, `<stream>_max_latency_ms`,
`<stream>_avg_bytes`, e.g. `db_reads_per_s`, `log_write_avg_latency_ms`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.results.counters import Counters
from engine.results.schema import FIRST_GROWING_DATABASES, RunResult
from engine.workload.stats import InstanceInterval, StreamStats


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


def interval_counters(parts: Mapping[str, InstanceInterval],
                      span_s: float | None = None) -> tuple[dict[str, Counters], Counters, dict[str, StreamStats]]:
    """One sample's counters: each instance's (over `span_s` when not the sample's interval), the server's (no
    histograms) and the server's streams, histograms included."""
    server = InstanceInterval("server")
    instances = {}
    for name, part in parts.items():
        instances[name] = Counters.of(part, span_s=span_s)
        server.merge(part)
    return instances, Counters.of(server, details=False), server.streams
