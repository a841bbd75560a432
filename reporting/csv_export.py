"""The interval samples as CSV, one row per interval per instance.

A load sweep's samples also name their step (numbered from 1, as the report and the run's log
number them) and the setting it ran; outside a sweep those cells are empty.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from reporting.bundle import RunBundle

CSV_COLUMNS = [
    "interval", "phase", "time_utc", "elapsed_s", "duration_s", "instance", "transactional_iops",
    "db_reads_per_s", "db_read_avg_latency_ms", "db_read_max_latency_ms", "db_read_avg_bytes",
    "db_writes_per_s", "db_write_avg_latency_ms", "db_write_avg_bytes",
    "log_writes_per_s", "log_write_avg_latency_ms", "log_write_max_latency_ms", "log_write_avg_bytes",
    "bdm_reads_per_s", "bdm_read_avg_bytes", "log_replication_reads_per_s", "log_replication_read_avg_bytes",
    "db_cache_hit_ratio", "database_page_fault_stalls_per_s", "cpu_percent", "available_memory_mb",
    "sweep_step", "threads", "sluggish_sessions",
]


def write_csv(bundle: RunBundle, path: Path) -> int:
    """The interval samples, one row per interval per instance; returns the rows written."""
    rows = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for sample in bundle.samples:
            for row in sample.instances:
                values: list[Any] = [sample.interval, sample.phase, sample.time_utc, sample.elapsed_s, sample.duration_s,
                                     row.name]
                values += [getattr(row, key) for key in CSV_COLUMNS[6:24]]
                values += [sample.host.cpu_percent, sample.host.available_memory_mb]
                values += [None if sample.step is None else sample.step + 1, sample.threads, sample.sluggish_sessions]
                writer.writerow(values)
                rows += 1
    return rows
