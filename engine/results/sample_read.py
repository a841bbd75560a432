"""A run's samples read back: a samples file (`engine.results.sample_file`) column by column or sample by sample, an
earlier format's as counters as far as its figures tell, or samples held in memory; `Samples` is either."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.results.counters import Counters, StreamCounters
from engine.results.host_schema import HostFigures
from engine.results.sample_file import (
    COUNTERS,
    FIGURES,
    FIRST_COUNTERS,
    HOST_COUNTERS,
    INSTANCE_MORE,
    PHASES,
    SCALE,
    SERVER_HEAD,
    STREAM_FIELDS,
    is_sample_file,
)
from engine.results.sample_schema import IntervalSample, LatencyHistograms
from engine.workload.histogram import add_sparse, new_counts, to_sparse, unpacked
from engine.workload.stats import DB_READ, DB_WRITE, STREAMS


def _counters(values: Sequence[int | None], **more: Any) -> Counters:
    """The counters a row's columns (in `COUNTERS` order) hold."""
    streams = {}
    width = len(STREAM_FIELDS)
    for position, stream in enumerate(STREAMS):
        own = values[position * width:(position + 1) * width]
        if any(own):
            streams[stream] = StreamCounters.model_validate(
                {item: value or 0 for item, value in zip(STREAM_FIELDS, own, strict=True)})
    cache = [value or 0 for value in values[len(STREAMS) * width:]]
    return Counters.model_validate({"streams": streams, "cache": cache, **more})


def _figure_sql(name: str) -> str:
    """The server's figure `name` as SQL over a row's counters: the formulas of `engine.results.counters`, operation
    for operation, so a column is what the sample's figures give, to the last bit."""
    seconds = "NULLIF(duration_s, 0)"

    def rate(column: str) -> str:
        return f"COALESCE(IFNULL({column}, 0) * 1.0 / {seconds}, 0.0)"

    if name == "transactional_iops":
        return f"{rate(f'{DB_READ}_count')} + {rate(f'{DB_WRITE}_count')}"
    if name == "io_errors":
        return " + ".join(f"IFNULL({stream}_errors, 0)" for stream in STREAMS)
    if name == "db_cache_hit_ratio":
        return "IFNULL(cache_hits, 0) * 1.0 / NULLIF(IFNULL(cache_hits, 0) + IFNULL(cache_misses, 0), 0)"
    if name == "database_page_fault_stalls_per_s":
        return rate("page_fault_stalls")
    for stream in STREAMS:
        if name == f"{stream}s_per_s":
            return rate(f"{stream}_count")
        if name == f"{stream}_avg_latency_ms":
            return f"COALESCE({stream}_sum_ns * 1.0 / NULLIF({stream}_count, 0) / 1e6, 0.0)"
        if name == f"{stream}_max_latency_ms":
            return f"IFNULL({stream}_max_ns, 0) / 1e6"
        if name == f"{stream}_avg_bytes":
            return f"COALESCE({stream}_bytes * 1.0 / NULLIF({stream}_count, 0), 0.0)"
    raise ValueError(f"no figure {name}")


def _moment(stamp: float | None) -> datetime | None:
    return None if stamp is None else datetime.fromtimestamp(stamp, UTC)


def _column(sample: IntervalSample, name: str) -> float | None:
    if name in FIGURES:
        return getattr(sample.summary, name)  # type: ignore[no-any-return]
    if name in HostFigures.model_fields:
        return getattr(sample.host, name)  # type: ignore[no-any-return]
    return PHASES.index(sample.phase) if name == "phase" else getattr(sample, name)


class SampleList:
    """Samples held in memory: an older run folder's samples.jsonl, an older store's, a run's so far."""

    def __init__(self, samples: Sequence[IntervalSample] = ()) -> None:
        self._samples = list(samples)

    def __iter__(self) -> Iterator[IntervalSample]:
        return iter(self._samples)

    def __len__(self) -> int:
        return len(self._samples)

    def columns(self, *names: str) -> dict[str, list[Any]]:
        """Columns of the server's figures and each sample's head, in interval order."""
        return {name: [_column(sample, name) for sample in self._samples] for name in names}


class SampleFile:
    """A samples file, read column by column or sample by sample without holding the run in memory.

    Each read opens the file and closes it again, so no handle outlives it (Windows could not move the folder)."""

    def __init__(self, path: Path) -> None:
        if not is_sample_file(path):
            raise ValueError(f"{path} is not a Jetwise samples file")
        self.path = path
        self._copy: tempfile.TemporaryDirectory[str] | None = None  # where a file on read-only media is read from
        if path.with_name(path.name + "-wal").exists():
            self._checkpoint()

    def _checkpoint(self) -> None:
        """A run killed while writing left its last samples in the -wal file beside it: move them into the file
        itself, so the folder copied elsewhere still has them (when the file cannot be written, they are read
        from there)."""
        try:
            with closing(sqlite3.connect(self.path)) as db:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass

    def _connect(self) -> sqlite3.Connection:
        """The file, read-only. One SQLite cannot open where it is (a killed run's samples on read-only media, whose
        last samples are in the -wal file SQLite would need to write beside it) is read from a copy."""
        path = Path(self._copy.name) / self.path.name if self._copy is not None else self.path
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.OperationalError as exc:
            db.close()
            # only what read-only media gives, never a moment's lock: a copy would go stale as the run writes on
            if self._copy is not None or not (exc.sqlite_errorname or "").startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
                raise
        self._copy = tempfile.TemporaryDirectory(prefix="jetwise-samples-")
        for name in (self.path.name, self.path.name + "-wal"):
            if (self.path.parent / name).exists():
                shutil.copyfile(self.path.parent / name, Path(self._copy.name) / name)
        return self._connect()

    def __len__(self) -> int:
        with closing(self._connect()) as db:  # a file made a moment ago may have its header and no table yet
            return int(db.execute("SELECT COUNT(*) FROM server").fetchone()[0]) if _has(db, "server") else 0

    def columns(self, *names: str) -> dict[str, list[Any]]:
        """Columns of the server's rows in interval order, e.g. ("elapsed_s", "transactional_iops"): a figure is made
        from its counters (an earlier format's, unscaled)."""
        columns: dict[str, list[Any]] = {name: [] for name in names}
        with closing(self._connect()) as db:
            counters = _format(db) >= FIRST_COUNTERS
            select = [_figure_sql(name) if counters and name in FIGURES else name for name in names]
            scaled = [not counters and name in FIGURES for name in names]
            for row in db.execute(f"SELECT {', '.join(select)} FROM server ORDER BY interval"):
                for name, value, figure in zip(names, row, scaled, strict=True):
                    columns[name].append(None if value is None else value / SCALE if figure else value)
        return columns

    def __iter__(self) -> Iterator[IntervalSample]:
        """Every sample in interval order; an instance window's counters come with the sample that ends it."""
        with closing(self._connect()) as db:
            if not _has(db, "server"):
                return
            if _format(db) < FIRST_COUNTERS:
                yield from _figures_samples(db)
                return
            names = dict(db.execute("SELECT instance, name FROM names"))
            windows = db.execute(f"SELECT last_interval, instance, span_s, {', '.join(COUNTERS)}, "
                                 f"{', '.join(INSTANCE_MORE)} FROM instances ORDER BY last_interval, instance")
            pending = next(windows, None)
            counters = _host_counters(db)
            width = len(COUNTERS)
            for row in db.cursor().execute("SELECT * FROM server ORDER BY interval"):
                head = dict(zip(SERVER_HEAD, row[: len(SERVER_HEAD)], strict=True))
                instances = {}
                while pending is not None and pending[0] <= head["interval"]:
                    values = pending[3:3 + width]
                    pages, errors, *blobs = pending[3 + width:]
                    own = _counters(values, span_s=pending[2], cache_pages=pages,
                                    errors=json.loads(errors) if errors else [])
                    for stream, blob in zip(STREAMS, blobs, strict=True):
                        if blob is not None and stream in own.streams:
                            own.streams[stream].hist = to_sparse(unpacked(blob))
                    instances[names.get(pending[1], f"Instance {pending[1] + 1}")] = own
                    pending = next(windows, None)
                yield IntervalSample(
                    interval=head["interval"], phase=PHASES[head["phase"]], time_utc=_moment(head["time_utc"]),
                    elapsed_s=head["elapsed_s"], duration_s=head["duration_s"], remaining_s=head["remaining_s"],
                    host=_host(head, counters), server=_counters(row[len(SERVER_HEAD):]), instances=instances,
                    step=head["step"], threads=head["threads"], sluggish_sessions=head["sluggish_sessions"],
                    latency=_server_latency(instances))


def _format(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def _host(head: Mapping[str, Any], counters: Mapping[int, Mapping[str, float | None]]) -> HostFigures:
    return HostFigures.model_validate({"cpu_percent": head["cpu_percent"],
                                       "available_memory_mb": head["available_memory_mb"],
                                       **counters.get(head["interval"], {})})


def _server_latency(instances: Mapping[str, Counters]) -> LatencyHistograms | None:
    """The server's histograms over a window: its instances' added up (None where no window ends)."""
    spans = [counters.span_s for counters in instances.values() if counters.span_s is not None]
    if not spans:
        return None
    streams: dict[str, Any] = {}
    for counters in instances.values():
        for name, stats in counters.streams.items():
            if stats.hist:
                add_sparse(streams.setdefault(name, new_counts()), stats.hist)
    return LatencyHistograms(span_s=max(spans), streams={name: to_sparse(c) for name, c in streams.items()})


def _figures_samples(db: sqlite3.Connection) -> Iterator[IntervalSample]:
    """The samples of a file of an earlier format, which held figures (in ten-thousandths): as counters, as far
    as the figures tell."""
    names = dict(db.execute("SELECT instance, name FROM names"))
    windows = db.execute(f"SELECT last_interval, instance, span_s, {', '.join(FIGURES)} FROM instances "
                         "ORDER BY last_interval, instance")
    pending = next(windows, None)
    histograms = _latency(db)
    latency = next(histograms, None)
    counters = _host_counters(db)
    for row in db.cursor().execute("SELECT * FROM server ORDER BY interval"):
        head = dict(zip(SERVER_HEAD, row[: len(SERVER_HEAD)], strict=True))
        instances = []
        while pending is not None and pending[0] <= head["interval"]:
            values = {name: _unscaled(value) for name, value in zip(FIGURES, pending[3:], strict=True)}
            instances.append({"name": names.get(pending[1], f"Instance {pending[1] + 1}"), "span_s": pending[2],
                              **values})
            pending = next(windows, None)
        histogram = None
        while latency is not None and latency[0] <= head["interval"]:
            histogram, latency = latency[1], next(histograms, None)
        yield IntervalSample.model_validate({
            "interval": head["interval"], "phase": PHASES[head["phase"]], "time_utc": _moment(head["time_utc"]),
            "elapsed_s": head["elapsed_s"], "duration_s": head["duration_s"], "remaining_s": head["remaining_s"],
            "host": _host(head, counters), "step": head["step"], "threads": head["threads"],
            "sluggish_sessions": head["sluggish_sessions"], "latency": histogram, "instances": instances,
            "summary": {name: _unscaled(value) for name, value in zip(FIGURES, row[len(SERVER_HEAD):], strict=True)}})


def _unscaled(value: int | None) -> float | None:
    return None if value is None else value / SCALE


def _host_counters(db: sqlite3.Connection) -> dict[int, dict[str, float | None]]:
    """Each sample's Windows memory counters (a file of an earlier format, or of another system, has none)."""
    rows = db.execute(f"SELECT interval, {', '.join(HOST_COUNTERS)} FROM host") if _has(db, "host") else []
    return {row[0]: dict(zip(HOST_COUNTERS, row[1:], strict=True)) for row in rows}


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def _latency(db: sqlite3.Connection) -> Iterator[tuple[int, LatencyHistograms]]:
    """An earlier format's server histograms per window, with the interval that ends each (none in the first)."""
    if not _has(db, "latency"):
        return
    for last, span, *blobs in db.execute(f"SELECT last_interval, span_s, {', '.join(STREAMS)} FROM latency "
                                         "ORDER BY last_interval"):
        streams = {name: to_sparse(unpacked(blob)) for name, blob in zip(STREAMS, blobs, strict=True) if blob is not None}
        yield last, LatencyHistograms(span_s=span, streams=streams)


Samples = SampleFile | SampleList
