"""The interval samples as CSV: a row per interval for the server (instance `_Total`, as Jetstress's counters
name it), and a row per instance where its figures end (every 15 s, covering the 15 s before).

A load sweep's samples also name their step (numbered from 1, as the report and the run's log
number them) and the setting it ran; outside a sweep those cells are empty. A Database Checksum
or Backup run adds the scan's columns and, after its samples, a row per database (phase "scan")
with what its scan found; a Soft Recovery run likewise adds its replay's columns and a row per
instance (phase "recovery"). Their sample rows leave those cells empty, and the other tests' CSV
has no such columns. An ESRP suite's CSV holds its stages' runs one after another, each row led by its
stage, with both the scan's and the recovery's columns.
"""
from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from engine.io.safety import replacing
from engine.results.recovery_schema import InstanceRecovery
from engine.results.sample_schema import Figures, IntervalSample
from engine.results.scan_schema import DatabaseScan
from engine.results.scans import megabytes
from engine.results.schema import RunResult
from engine.workload.histogram import percentiles_ms
from reporting.bundle import RunBundle

CSV_COLUMNS = [
    "interval", "phase", "time_utc", "elapsed_s", "duration_s", "instance", "transactional_iops",
    "db_reads_per_s", "db_read_avg_latency_ms", "db_read_max_latency_ms", "db_read_avg_bytes",
    "db_writes_per_s", "db_write_avg_latency_ms", "db_write_avg_bytes",
    "log_writes_per_s", "log_write_avg_latency_ms", "log_write_max_latency_ms", "log_write_avg_bytes",
    "bdm_reads_per_s", "bdm_read_avg_bytes", "log_replication_reads_per_s", "log_replication_read_avg_bytes",
    "db_cache_hit_ratio", "database_page_fault_stalls_per_s", "cpu_percent", "available_memory_mb",
    "sweep_step", "threads", "sluggish_sessions",
    *(f"{stream}_{label}_latency_ms" for stream in ("db_read", "db_write", "log_write") for label in ("p50", "p99")),
]
PERCENTILE_COLUMNS = CSV_COLUMNS[29:]  # where the row's histograms cover its span (an instance's, 15 s windows)
TOTAL = "_Total"  # the server's row: every instance together
STAGE_CSV_COLUMNS = ["stage", "test_type", "run_folder"]  # a suite's CSV: which stage's run each row is of
SCAN_PHASE = "scan"
SCAN_CSV_COLUMNS = [  # DatabaseScan's own names, and its figures in Jetstress's Mbytes (MiB)
    "database_file", "pages", "seen_pages", "complete", "bad_pages", "correctable_pages", "wrong_page_number_pages",
    "uninitialised_pages", "unreadable_pages", "crc_error_pages", "lost_flush_pages", "damaged_pages", "first_damaged",
    "bytes_read", "seconds", "mbytes_per_s", "log_files", "log_sectors_seen", "log_sectors_damaged", "backup_file",
    "bytes_written", "flush_map",
]

RECOVERY_PHASE = "recovery"
RECOVERY_CSV_COLUMNS = [  # InstanceRecovery's own names and properties, and its log reads in Jetstress's Mbytes (MiB)
    "log_path", "log_files", "log_files_generated", "log_files_replayed", "generation_seconds", "replay_seconds",
    "seconds_per_log_file", "records", "pages_redone", "pages_current", "log_reads", "log_bytes_read", "log_read_avg_ms",
    "log_read_mbytes_per_s", "page_reads", "page_reads_per_s", "page_read_avg_ms", "page_writes", "page_writes_per_s",
    "page_write_avg_ms", "pages_written", "pages_verified", "damaged", "lost_flushes", "complete", "failure",
]


def _after_samples(result: RunResult) -> tuple[list[str], list[list[Any]]]:
    """The columns a scan or a soft recovery adds, and its rows after the samples (none for the other tests)."""
    if result.scan is not None:
        return SCAN_CSV_COLUMNS, [_scan_row(database) for database in result.scan.databases]
    if result.recovery is not None:
        return RECOVERY_CSV_COLUMNS, [_recovery_row(instance) for instance in result.recovery.instances]
    return [], []


def _percentiles(histograms: Mapping[str, Mapping[int, int]] | None) -> list[float | None]:
    """Latency percentiles of the histograms that cover a row's span (none where they do not)."""
    if histograms is None:
        return [None] * len(PERCENTILE_COLUMNS)
    values: list[float | None] = []
    for column in PERCENTILE_COLUMNS:
        stream, label = column.removesuffix("_latency_ms").rsplit("_", 1)
        counts = histograms.get(stream)
        values.append(percentiles_ms(counts, (int(label[1:]) / 100,))[label] if counts else None)
    return values


def _server_histograms(sample: IntervalSample) -> Mapping[str, Mapping[int, int]] | None:
    latency = sample.latency
    return latency.streams if latency is not None and math.isclose(latency.span_s, sample.duration_s, rel_tol=1e-6) \
        else None


def sample_rows(samples: Iterable[IntervalSample]) -> Iterator[list[Any]]:
    """Rows of the CSV_COLUMNS: the server's (instance `_Total`) per interval, and each instance's where its
    counters end (its duration is then the span they cover: a window of 15 s in a samples file). Latency
    percentiles are given where exact: an instance's over its span, the server's over a row of whole windows (an
    export at 15 s or a multiple of it)."""
    for sample in samples:
        rows: list[tuple[Figures, str, float, Mapping[str, Mapping[int, int]] | None]] = [
            (sample.summary, TOTAL, sample.duration_s, _server_histograms(sample))]
        for row in sample.instance_figures():
            own = {stream: stats.hist for stream, stats in sample.instances[row.name].streams.items() if stats.hist}
            rows.append((row, row.name, sample.duration_s if row.span_s is None else row.span_s, own or None))
        for figures, name, seconds, histograms in rows:
            when = sample.time_utc.isoformat() if sample.time_utc is not None else None
            values: list[Any] = [sample.interval, sample.phase, when, sample.elapsed_s, seconds, name]
            values += [getattr(figures, key) for key in CSV_COLUMNS[6:24]]
            values += [sample.host.cpu_percent, sample.host.available_memory_mb]
            values += [None if sample.step is None else sample.step + 1, sample.threads, sample.sluggish_sessions]
            values += _percentiles(histograms)
            yield values


def _sample_rows(bundle: RunBundle) -> Iterator[list[Any]]:
    return sample_rows(bundle.samples)


def write_csv(bundle: RunBundle, path: Path) -> int:
    """The interval samples (`sample_rows`), then a scan's databases or a soft recovery's
    instances; returns the rows written."""
    extra, after = _after_samples(bundle.result)
    blank: list[Any] = [None] * len(extra)  # a sample row's scan or recovery cells
    rows = 0
    with replacing(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS + extra)
        for values in _sample_rows(bundle):
            writer.writerow(values + blank)
            rows += 1
        writer.writerows(after)
    return rows + len(after)


def write_stages_csv(stages: list[tuple[int, str, RunBundle]], path: Path) -> int:
    """Several runs in one file, each row led by its stage (number, test type, run folder): an ESRP suite's stages.
    Every row has the scan's and the soft recovery's columns, empty where they are not the row's (the two share
    `log_files` and `complete`, told apart by the row's phase); returns the rows."""
    extra = SCAN_CSV_COLUMNS + [c for c in RECOVERY_CSV_COLUMNS if c not in SCAN_CSV_COLUMNS]
    rows = 0
    with replacing(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(STAGE_CSV_COLUMNS + CSV_COLUMNS + extra)
        for number, folder, bundle in stages:
            lead: list[Any] = [number, bundle.result.configuration.test_type.value, folder]
            own, after = _after_samples(bundle.result)
            for values in _sample_rows(bundle):
                writer.writerow(lead + values + [None] * len(extra))
                rows += 1
            for row in after:
                cells = dict(zip(own, row[len(CSV_COLUMNS):], strict=True))
                writer.writerow(lead + row[:len(CSV_COLUMNS)] + [cells.get(column) for column in extra])
                rows += 1
    return rows


def _leading(phase: str, instance: str) -> list[Any]:
    """A row after the samples: its sample cells empty but its phase and instance."""
    cells: list[Any] = [None] * len(CSV_COLUMNS)
    cells[CSV_COLUMNS.index("phase")] = phase
    cells[CSV_COLUMNS.index("instance")] = instance
    return cells


def _scan_row(database: DatabaseScan) -> list[Any]:
    """A database's scan: the sample cells empty but its phase and instance, then the scan's cells.

    `first_damaged` lists the first damaged pages as page@byte offset:kind, separated by spaces."""
    figures = {
        **database.model_dump(include=set(SCAN_CSV_COLUMNS)),
        "damaged_pages": database.damaged_pages,
        "mbytes_per_s": round(megabytes(database.bytes_per_s), 3),
        "first_damaged": " ".join(f"{p.page}@{p.offset}:{p.kind.value}" for p in database.first_damaged),
    }
    return _leading(SCAN_PHASE, database.instance) + [figures[key] for key in SCAN_CSV_COLUMNS]


def _recovery_row(instance: InstanceRecovery) -> list[Any]:
    """An instance's soft recovery: the sample cells empty but its phase and instance, then the replay's cells."""
    figures = {
        **instance.model_dump(include=set(RECOVERY_CSV_COLUMNS)),
        **{key: getattr(instance, key) for key in ("seconds_per_log_file", "page_reads_per_s", "page_writes_per_s")},
        "log_read_mbytes_per_s": round(megabytes(instance.log_bytes_per_s), 3),
    }
    return _leading(RECOVERY_PHASE, instance.instance) + [figures[key] for key in RECOVERY_CSV_COLUMNS]
