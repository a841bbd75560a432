"""A run's full sample series on demand, as CSV, JSON lines or Parquet, at its own interval or a coarser one.

Read sample by sample from the run's samples file and written as read, so a day-long run on 48 databases is
never held in memory. A coarser interval (`--interval 15s`) adds consecutive samples up, never across a
change of phase or sweep step, the same way an instance's window is added up in the samples file: at 15 s
or a multiple of it, each interval is whole windows, and the server's latency percentiles are exact.
Parquet needs pyarrow, an optional extra (`pip install "jetwise[parquet]"`): a 60 MB library most field
engineers never need, so the window and the CLI do not carry it.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.io.safety import replacing
from engine.results.counters import Counters, added, window_of
from engine.results.host_schema import HostFigures
from engine.results.sample_schema import IntervalSample
from engine.results.sums import LatencySum
from reporting.bundle import ReportError, RunBundle
from reporting.csv_export import CSV_COLUMNS, sample_rows

FORMATS = ("csv", "jsonl", "parquet")
PARQUET_BATCH = 20_000  # rows a Parquet row group takes: bounded memory whatever the run's length


def coarser(samples: Iterable[IntervalSample], seconds: float, sample_interval_s: float = 1.0) -> Iterator[IntervalSample]:
    """The samples added up over `seconds` each, at whole multiples of it from the run's start, by their interval
    numbers (a span ends early at a change of phase or sweep step)."""
    group: list[IntervalSample] = []
    key: tuple[str, int | None, int] | None = None
    per_group = max(1, round(seconds / sample_interval_s))
    for sample in samples:
        here = window_of(sample, per_group)
        if group and here != key:
            yield _added(group)
            group = []
        key = here
        group.append(sample)
    if group:
        yield _added(group)


def _added(group: list[IntervalSample]) -> IntervalSample:
    """A group of consecutive samples as one: their counters added up (each instance's over the spans that end in
    the group), the host's processors on average and its memory at its lowest."""
    seconds = sum(sample.duration_s for sample in group)
    spans: dict[str, list[Counters]] = {}
    for sample in group:
        for name, counters in sample.instances.items():
            spans.setdefault(name, []).append(counters)
    instances = {name: added(own, span_s=sum(c.seconds(group[0].duration_s) for c in own))
                 for name, own in spans.items()}
    hosts = [s.host for s in group]
    latency = LatencySum()
    for sample in group:
        if sample.latency is not None:
            latency.add(sample.latency)
    whole = math.isclose(latency.seconds, seconds, rel_tol=1e-6)  # no part of a window: exact percentiles
    return group[-1].model_copy(update={
        "latency": latency.histograms() if whole else None,
        "duration_s": seconds,
        "host": HostFigures(cpu_percent=sum(h.cpu_percent for h in hosts) / len(hosts),
                            available_memory_mb=min(h.available_memory_mb for h in hosts)),
        "server": added(sample.server for sample in group),
        "instances": instances,
    })


def export(bundle: RunBundle, path: Path, fmt: str, interval_s: float | None = None) -> int:
    """Write the run's samples to `path` in `fmt`; returns the rows (CSV, Parquet) or lines (JSON lines) written."""
    samples: Iterable[IntervalSample] = bundle.samples
    if interval_s is not None:
        samples = coarser(samples, interval_s, bundle.result.configuration.sample_interval_s)
    if fmt == "jsonl":
        lines = 0
        with replacing(path, "w", encoding="utf-8") as handle:
            for sample in samples:
                handle.write(sample.model_dump_json(exclude_defaults=True) + "\n")
                lines += 1
        return lines
    if fmt == "parquet":
        return _parquet(sample_rows(samples), path)
    rows = 0
    with replacing(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for values in sample_rows(samples):
            writer.writerow(values)
            rows += 1
    return rows


def _parquet(rows: Iterator[list[object]], path: Path) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ReportError('Parquet needs pyarrow, an optional extra: pip install "jetwise[parquet]" (or export '
                          "--format csv)") from None
    schema = pa.schema([(name, _arrow_type(pa, name)) for name in CSV_COLUMNS])
    written = 0
    with replacing(path, "wb") as handle, pq.ParquetWriter(handle, schema, compression="zstd") as writer:
        batch: list[list[object]] = []
        for values in rows:
            batch.append(values)
            if len(batch) == PARQUET_BATCH:
                writer.write_table(_table(pa, schema, batch))
                written += len(batch)
                batch = []
        if batch or not written:
            writer.write_table(_table(pa, schema, batch))
            written += len(batch)
    return written


def _arrow_type(pa: Any, name: str) -> Any:
    if name in ("phase", "time_utc", "instance"):
        return pa.string()
    if name in ("interval", "io_errors", "sweep_step", "threads", "sluggish_sessions"):
        return pa.int64()
    return pa.float64()


def _table(pa: Any, schema: Any, batch: list[list[object]]) -> Any:
    columns: list[Sequence[object]] = list(zip(*batch, strict=True)) if batch else [() for _ in CSV_COLUMNS]
    return pa.Table.from_arrays([pa.array(list(column), type=field.type) for column, field in zip(columns, schema, strict=True)],
                                schema=schema)
