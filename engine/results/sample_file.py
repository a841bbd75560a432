"""A run's interval samples on disk, compact enough for a day on 48 databases: `samples.sqlite` in the run folder.

SQLite (the standard library's) because it appends a row a second and survives a kill with every
committed row, reads back one column at a time for a chart or an export without loading the rest, and
opens on any machine the run folder is copied to. The file is the run's only copy of its samples.

It holds counters (`engine.results.counters`), never averages, as integers: a window's or an export's
figures, a rebuilt result's totals and percentiles are exactly what the run counted.
- `server`: one row per sample interval: phase, times, the host, a sweep's step and the server's
  counters (the live view's one-second resolution).
- `instances`: each database instance's counters per window of `WINDOW_S` seconds (Jetstress logs
  every 15 s), latency histograms (packed, a few hundred bytes) and I/O errors by kind included, with
  the lowest and highest one-second IOPS and read latency in it. Windows fall at whole multiples of
  `WINDOW_S` from the run's start and never span a change of phase or sweep step (`window_of`), so a
  verdict over measured samples (a killed run's rebuilt result) takes whole windows, and so does an
  export at a coarser interval of 15 s or more. The server's histograms are its instances' added up.
- `host`: Windows's memory counters per sample interval, where the system gives them.

A file of an earlier format (figures in ten-thousandths, the server's histograms in a `latency` table)
reads as counters as far as its figures tell. A file is Jetwise's by its SQLite application id.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.results.counters import Counters, StreamCounters, window_of
from engine.results.schema import Figures, HostFigures, IntervalSample, LatencyHistograms, SamplePhase
from engine.workload.histogram import add_sparse, new_counts, packed, to_sparse, unpacked
from engine.workload.stats import CACHE_COUNTERS, DB_READ, DB_WRITE, STREAMS, InstanceInterval

SAMPLES_DB = "samples.sqlite"
APPLICATION_ID = 0x4A775331  # "JwS1"
# 2: the latency table, windows at multiples of WINDOW_S; 3: the host table; 4: counters, not figures
FORMAT_VERSION = 4
FIRST_COUNTERS = 4
WINDOW_S = 15.0
SCALE = 10_000  # an earlier format's figures, in ten-thousandths
FIGURES = tuple(Figures.model_fields)
PHASES: tuple[SamplePhase, ...] = ("warmup", "measure")
COMMIT_S = 0.5  # samples are committed at least this often (every sample of a run in real time)
CHECKPOINT_PAGES = 64  # what lives only in the -wal file beside it: a few minutes of a run

_SERVER_HEAD = ("interval", "phase", "time_utc", "elapsed_s", "duration_s", "remaining_s", "cpu_percent",
                "available_memory_mb", "step", "threads", "sluggish_sessions")
_HOST_COUNTERS = ("free_system_ptes", "transition_pages_repurposed_per_s", "pool_nonpaged_bytes", "pool_paged_bytes")
_HOST_TABLE = f"CREATE TABLE IF NOT EXISTS host (interval INTEGER PRIMARY KEY, {', '.join(_HOST_COUNTERS)})"
_HOST_ROW = f"INSERT OR REPLACE INTO host VALUES ({', '.join('?' * (1 + len(_HOST_COUNTERS)))})"
_INSTANCE_HEAD = ("window", "instance", "first_interval", "last_interval", "phase", "step", "span_s")
_STREAM_FIELDS = tuple(StreamCounters.model_fields)[:-1]  # count, bytes, sum_ns, max_ns, errors: not the histogram
_COUNTERS = (*(f"{stream}_{item}" for stream in STREAMS for item in _STREAM_FIELDS), *CACHE_COUNTERS)
_HISTOGRAMS = tuple(f"{stream}_hist" for stream in STREAMS)
_INSTANCE_MORE = ("cache_pages", "errors", *_HISTOGRAMS)
SPREAD = ("transactional_iops", "db_read_avg_latency_ms")  # an instance window's lowest and highest second
_SPREAD_COLUMNS = tuple(f"{edge}_{name}" for name in SPREAD for edge in ("min", "max"))


def _schema() -> str:
    counters = ", ".join(_COUNTERS)
    return f"""
    CREATE TABLE names (instance INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE server ({", ".join(_SERVER_HEAD)}, {counters}, PRIMARY KEY (interval)) WITHOUT ROWID;
    CREATE TABLE instances ({", ".join(_INSTANCE_HEAD)}, {counters}, {", ".join(_INSTANCE_MORE)},
                            {", ".join(_SPREAD_COLUMNS)}, PRIMARY KEY (window, instance)) WITHOUT ROWID;
    """


def _counter_values(counters: Counters) -> list[int | None]:
    """A row's counter columns: a stream without I/O or errors is NULL (a byte), as a cache that saw nothing."""
    values: list[int | None] = []
    for stream in STREAMS:
        stats = counters.streams.get(stream)
        values += [None] * len(_STREAM_FIELDS) if stats is None else [getattr(stats, item) for item in _STREAM_FIELDS]
    return values + [value or None for value in counters.cache]


def _counters(values: Sequence[int | None], **more: Any) -> Counters:
    """The counters a row's columns (in `_COUNTERS` order) hold."""
    streams = {}
    width = len(_STREAM_FIELDS)
    for position, stream in enumerate(STREAMS):
        own = values[position * width:(position + 1) * width]
        if any(own):
            streams[stream] = StreamCounters.model_validate(
                {item: value or 0 for item, value in zip(_STREAM_FIELDS, own, strict=True)})
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


def _stamp(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def _moment(stamp: float | None) -> datetime | None:
    return None if stamp is None else datetime.fromtimestamp(stamp, UTC)


def is_sample_file(path: Path) -> bool:
    """A Jetwise samples file (by its SQLite application id), not someone else's database."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(72)
    except OSError:
        return False
    return len(head) == 72 and head.startswith(b"SQLite format 3\0") and int.from_bytes(head[68:72], "big") == APPLICATION_ID


class _Window:
    """An instance's counters over the window under way, and its lowest and highest second."""

    def __init__(self, first: int) -> None:
        self.first = first
        self.seconds = 0.0
        self.part = InstanceInterval("")
        self.lowest: dict[str, float] = {}
        self.highest: dict[str, float] = {}

    def add(self, counters: Counters, seconds: float) -> None:
        self.seconds += seconds
        self.part.merge(counters.part())
        figures = counters.figures(seconds)
        for name in SPREAD:
            value = float(figures[name])
            self.lowest[name] = min(self.lowest.get(name, value), value)
            self.highest[name] = max(self.highest.get(name, value), value)


class SampleWriter:
    """Appends a run's samples as they come, each with its instances' window so far, committed at least every
    `commit_s` (every sample of a run in real time), so a kill keeps all but the last moment's."""

    def __init__(self, path: Path, sample_interval_s: float = 1.0, *, commit_s: float = COMMIT_S) -> None:
        if path.exists():
            raise FileExistsError(f"{path} exists: a run's samples go to a file of their own")
        self.path = path
        self.commit_s = commit_s
        self.window_intervals = max(1, round(WINDOW_S / sample_interval_s))
        self._db = sqlite3.connect(path, isolation_level=None)
        # the header first, in the file itself: it is Jetwise's from its first byte, even if killed next
        self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        self._db.execute(f"PRAGMA user_version = {FORMAT_VERSION}")
        self._db.executescript(_schema())
        self._db.execute(_HOST_TABLE)
        self._db.execute("PRAGMA journal_mode = WAL")  # a sample appends to the log, no journal file per second
        self._db.execute("PRAGMA synchronous = NORMAL")  # a kill loses nothing committed; only a power cut may
        self._db.execute(f"PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES}")
        self._names: dict[str, int] = {}
        self._open: dict[str, _Window] = {}
        self._key: tuple[str, int | None, int] | None = None  # the window under way
        self._window = 0
        self._committed = -math.inf
        self._server = f"INSERT OR REPLACE INTO server VALUES ({', '.join('?' * (len(_SERVER_HEAD) + len(_COUNTERS)))})"
        width = len(_INSTANCE_HEAD) + len(_COUNTERS) + len(_INSTANCE_MORE) + len(_SPREAD_COLUMNS)
        self._instance = f"INSERT OR REPLACE INTO instances VALUES ({', '.join('?' * width)})"

    def add(self, sample: IntervalSample) -> None:
        key = window_of(sample, self.window_intervals)
        if self._key is not None and key != self._key:
            self._open.clear()  # the window is complete (its rows are written): the next begins
            self._window += 1
        self._key = key
        head = (sample.interval, PHASES.index(sample.phase), _stamp(sample.time_utc), sample.elapsed_s, sample.duration_s,
                sample.remaining_s, sample.host.cpu_percent, sample.host.available_memory_mb, sample.step, sample.threads,
                sample.sluggish_sessions)
        db = self._db
        if not db.in_transaction:
            db.execute("BEGIN")
        try:
            db.execute(self._server, (*head, *_counter_values(sample.server)))
            for name, counters in sample.instances.items():
                if name not in self._names:
                    self._names[name] = len(self._names)
                    db.execute("INSERT OR REPLACE INTO names VALUES (?, ?)", (self._names[name], name))
                if counters.span_s is not None:  # counters over a window already (a simulated day): kept as they are
                    first = sample.interval - max(0, round(counters.span_s / sample.duration_s) - 1)
                    figures = counters.figures(counters.span_s)
                    spread = [float(figures[item]) for item in SPREAD for _edge in (0, 1)]
                    db.execute(self._instance, self._instance_row(name, first, counters, counters.span_s, spread, sample))
                    continue
                window = self._open.setdefault(name, _Window(sample.interval))
                window.add(counters, sample.duration_s)
                # The window so far replaces its row each second, so a kill loses no instance's counters.
                spread = [edge[item] for item in SPREAD for edge in (window.lowest, window.highest)]
                db.execute(self._instance, self._instance_row(name, window.first, Counters.of(window.part), window.seconds,
                                                              spread, sample))
            counters_of_host = [getattr(sample.host, name) for name in _HOST_COUNTERS]
            if any(value is not None for value in counters_of_host):
                db.execute(_HOST_ROW, (sample.interval, *counters_of_host))
        except BaseException:
            db.rollback()
            raise
        now = time.monotonic()
        if now - self._committed >= self.commit_s:  # a real run: every sample; a simulated one, far faster: each second
            db.commit()
            self._committed = now

    def _instance_row(self, name: str, first: int, counters: Counters, seconds: float, spread: list[float],
                      sample: IntervalSample) -> tuple[object, ...]:
        blobs = [packed(stats.hist) if (stats := counters.streams.get(stream)) is not None and stats.hist else None
                 for stream in STREAMS]
        errors = json.dumps(counters.errors) if counters.errors else None
        return (self._window, self._names[name], first, sample.interval, PHASES.index(sample.phase), sample.step,
                seconds, *_counter_values(counters), counters.cache_pages, errors, *blobs, *spread)

    def close(self) -> None:
        try:
            if self._db.in_transaction:
                self._db.commit()
            with contextlib.suppress(sqlite3.Error):  # a full volume keeps it in WAL mode: readers recover it
                self._db.execute("PRAGMA journal_mode = DELETE")  # one file: read on read-only media, no -wal, -shm
        finally:
            self._db.close()


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
            windows = db.execute(f"SELECT last_interval, instance, span_s, {', '.join(_COUNTERS)}, "
                                 f"{', '.join(_INSTANCE_MORE)} FROM instances ORDER BY last_interval, instance")
            pending = next(windows, None)
            counters = _host_counters(db)
            width = len(_COUNTERS)
            for row in db.cursor().execute("SELECT * FROM server ORDER BY interval"):
                head = dict(zip(_SERVER_HEAD, row[: len(_SERVER_HEAD)], strict=True))
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
                    host=_host(head, counters), server=_counters(row[len(_SERVER_HEAD):]), instances=instances,
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
        head = dict(zip(_SERVER_HEAD, row[: len(_SERVER_HEAD)], strict=True))
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
            "summary": {name: _unscaled(value) for name, value in zip(FIGURES, row[len(_SERVER_HEAD):], strict=True)}})


def _unscaled(value: int | None) -> float | None:
    return None if value is None else value / SCALE


def _host_counters(db: sqlite3.Connection) -> dict[int, dict[str, float | None]]:
    """Each sample's Windows memory counters (a file of an earlier format, or of another system, has none)."""
    rows = db.execute(f"SELECT interval, {', '.join(_HOST_COUNTERS)} FROM host") if _has(db, "host") else []
    return {row[0]: dict(zip(_HOST_COUNTERS, row[1:], strict=True)) for row in rows}


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
