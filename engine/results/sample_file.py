"""A run's interval samples on disk, compact enough for a day on 48 databases: `samples.sqlite` in the run folder.

SQLite (the standard library's) because it appends a row a second and survives a kill with every
committed row, reads back one column at a time for a chart or an export without loading the rest, and
opens on any machine the run folder is copied to. The file is the run's only copy of its samples.

- `server`: one row per sample interval: phase, times, the host, a sweep's step and the server's
  figures (the live view's one-second resolution).
- `instances`: each database instance's figures per window of `WINDOW_S` seconds (Jetstress logs
  every 15 s), the window's totals as rates and averages plus the lowest and highest one-second
  IOPS and read latency in it. Windows fall at whole multiples of `WINDOW_S` from the run's start and
  never span a change of phase or sweep step, so a verdict over measured samples (a killed run's
  rebuilt result) takes whole windows, and so does an export at a coarser interval of 15 s or more.
- `host`: Windows's memory counters per sample interval, where the system gives them.
- `latency`: the server's latency histogram per stream and window, packed (a few hundred bytes):
  windows add up, so percentiles over any of them together (the measured time, an export's
  minute) are exact.

Figures are kept as integers in ten-thousandths (SQLite writes a small integer in one to four
bytes, a float in eight). A file is Jetwise's by its SQLite application id.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.results.schema import Figures, HostFigures, InstanceFigures, IntervalSample, LatencyHistograms, SamplePhase
from engine.results.sums import SPREAD, FigureSum, LatencySum
from engine.workload.histogram import packed, to_sparse, unpacked
from engine.workload.stats import STREAMS

SAMPLES_DB = "samples.sqlite"
APPLICATION_ID = 0x4A775331  # "JwS1"
FORMAT_VERSION = 3  # 2: the latency table, windows at multiples of WINDOW_S; 3: the host table
WINDOW_S = 15.0
SCALE = 10_000
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
_SPREAD_COLUMNS = tuple(f"{edge}_{name}" for name in SPREAD for edge in ("min", "max"))


def _schema() -> str:
    figures = ", ".join(FIGURES)
    return f"""
    CREATE TABLE names (instance INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE server ({", ".join(_SERVER_HEAD)}, {figures}, PRIMARY KEY (interval)) WITHOUT ROWID;
    CREATE TABLE instances ({", ".join(_INSTANCE_HEAD)}, {figures}, {", ".join(_SPREAD_COLUMNS)},
                            PRIMARY KEY (window, instance)) WITHOUT ROWID;
    CREATE TABLE latency (window INTEGER PRIMARY KEY, last_interval INTEGER NOT NULL, span_s REAL NOT NULL,
                          {", ".join(f"{name} BLOB" for name in STREAMS)});
    """


def _scaled(value: float | None) -> int | None:
    return None if value is None else round(value * SCALE)


def _unscaled(value: int | None) -> float | None:
    return None if value is None else value / SCALE


def _stamp(text: str | None) -> float | None:
    return None if text is None else datetime.fromisoformat(text).timestamp()


def _text(stamp: float | None) -> str | None:
    return None if stamp is None else datetime.fromtimestamp(stamp, UTC).isoformat()


def is_sample_file(path: Path) -> bool:
    """A Jetwise samples file (by its SQLite application id), not someone else's database."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(72)
    except OSError:
        return False
    return len(head) == 72 and head.startswith(b"SQLite format 3\0") and int.from_bytes(head[68:72], "big") == APPLICATION_ID


class SampleWriter:
    """Appends a run's samples as they come, each with its instances' window so far, committed at least every
    `commit_s` (every sample of a run in real time), so a kill keeps all but the last moment's."""

    def __init__(self, path: Path, sample_interval_s: float = 1.0, *, commit_s: float = COMMIT_S) -> None:
        self.path = path
        self.commit_s = commit_s
        self.window_intervals = max(1, round(WINDOW_S / sample_interval_s))
        fresh = not path.exists()
        self._db = sqlite3.connect(path, isolation_level=None)
        if fresh:  # the header first, in the file itself: it is Jetwise's from its first byte, even if killed next
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._db.execute(f"PRAGMA user_version = {FORMAT_VERSION}")
            self._db.executescript(_schema())
        self._db.execute("PRAGMA journal_mode = WAL")  # a sample appends to the log, no journal file per second
        self._db.execute("PRAGMA synchronous = NORMAL")  # a kill loses nothing committed; only a power cut may
        self._db.execute(f"PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES}")
        self._db.execute(_HOST_TABLE)  # also in a file of the format before it, were one appended to
        self._names: dict[str, int] = {}
        self._open: dict[str, FigureSum] = {}
        self._latency = LatencySum()
        self._key: tuple[str, int | None, int] | None = None  # the phase, step and place of the window under way
        self._window = 0
        self._committed = -math.inf
        self._server = f"INSERT OR REPLACE INTO server VALUES ({', '.join('?' * (len(_SERVER_HEAD) + len(FIGURES)))})"
        width = len(_INSTANCE_HEAD) + len(FIGURES) + len(_SPREAD_COLUMNS)
        self._instance = f"INSERT OR REPLACE INTO instances VALUES ({', '.join('?' * width)})"
        self._latency_row = f"INSERT OR REPLACE INTO latency VALUES ({', '.join('?' * (3 + len(STREAMS)))})"

    def add(self, sample: IntervalSample) -> None:
        key = (sample.phase, sample.step, sample.interval // self.window_intervals)
        if self._key is not None and key != self._key:
            self._open.clear()  # the window is complete (its rows are written): the next begins
            self._latency = LatencySum()
            self._window += 1
        self._key = key
        summary = sample.summary
        head = (sample.interval, PHASES.index(sample.phase), _stamp(sample.time_utc), sample.elapsed_s, sample.duration_s,
                sample.remaining_s, sample.host.cpu_percent, sample.host.available_memory_mb, sample.step, sample.threads,
                sample.sluggish_sessions)
        db = self._db
        if not db.in_transaction:
            db.execute("BEGIN")
        try:
            db.execute(self._server, (*head, *(_scaled(getattr(summary, name)) for name in FIGURES)))
            for row in sample.instances:
                if row.name not in self._names:
                    self._names[row.name] = len(self._names)
                    db.execute("INSERT OR REPLACE INTO names VALUES (?, ?)", (self._names[row.name], row.name))
                if row.span_s is not None:  # figures over a window already (a simulated day): kept as they are
                    db.execute(self._instance, self._window_row(row, sample))
                    continue
                window = self._open.setdefault(row.name, FigureSum(sample.interval))
                window.add(row, sample.duration_s)
                # The window so far replaces its row each second, so a kill loses no instance's figures.
                db.execute(self._instance, self._instance_row(row.name, window, sample))
            if sample.latency is not None:
                db.execute(self._latency_row, self._latency_values(sample.latency, sample.interval))
            counters = [getattr(sample.host, name) for name in _HOST_COUNTERS]
            if any(value is not None for value in counters):
                db.execute(_HOST_ROW, (sample.interval, *counters))
        except BaseException:
            db.rollback()
            raise
        now = time.monotonic()
        if now - self._committed >= self.commit_s:  # a real run: every sample; a simulated one, far faster: each second
            db.commit()
            self._committed = now

    def _latency_values(self, latency: LatencyHistograms, interval: int) -> tuple[object, ...]:
        """The window's histograms so far, with this sample's added."""
        window = self._latency
        window.add(latency)
        blobs = [packed(window.streams[name]) if name in window.streams else None for name in STREAMS]
        return (self._window, interval, window.seconds, *blobs)

    def _instance_row(self, name: str, window: FigureSum, sample: IntervalSample) -> tuple[object, ...]:
        figures = window.figures()
        spread = [_scaled(edge[item]) for item in SPREAD for edge in (window.lowest, window.highest)]
        return (self._window, self._names[name], window.first, sample.interval, PHASES.index(sample.phase), sample.step,
                window.seconds, *(_scaled(figures[item]) for item in FIGURES), *spread)

    def _window_row(self, row: InstanceFigures, sample: IntervalSample) -> tuple[object, ...]:
        span = row.span_s or sample.duration_s
        first = sample.interval - max(0, round(span / sample.duration_s) - 1)
        spread = [_scaled(float(getattr(row, item))) for item in SPREAD for _edge in (0, 1)]
        return (self._window, self._names[row.name], first, sample.interval, PHASES.index(sample.phase), sample.step,
                span, *(_scaled(getattr(row, item)) for item in FIGURES), *spread)

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
        """Columns of the server's rows in interval order (figures unscaled), e.g. ("elapsed_s", "transactional_iops")."""
        columns: dict[str, list[Any]] = {name: [] for name in names}
        scaled = [name in FIGURES for name in names]
        with closing(self._connect()) as db:
            for row in db.execute(f"SELECT {', '.join(names)} FROM server ORDER BY interval"):
                for name, value, figure in zip(names, row, scaled, strict=True):
                    columns[name].append(_unscaled(value) if figure else value)
        return columns

    def __iter__(self) -> Iterator[IntervalSample]:
        """Every sample in interval order; an instance window's figures come with the sample that ends it."""
        with closing(self._connect()) as db:
            if not _has(db, "server"):
                return
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
                    instances.append(InstanceFigures.model_validate(
                        {"name": names.get(pending[1], f"Instance {pending[1] + 1}"), "span_s": pending[2], **values}))
                    pending = next(windows, None)
                summary = {name: _unscaled(value) for name, value in zip(FIGURES, row[len(_SERVER_HEAD):], strict=True)}
                histogram = None
                while latency is not None and latency[0] <= head["interval"]:
                    histogram, latency = latency[1], next(histograms, None)
                yield IntervalSample(
                    interval=head["interval"], phase=PHASES[head["phase"]], time_utc=_text(head["time_utc"]),
                    elapsed_s=head["elapsed_s"], duration_s=head["duration_s"], remaining_s=head["remaining_s"],
                    host=HostFigures.model_validate({"cpu_percent": head["cpu_percent"],
                                                     "available_memory_mb": head["available_memory_mb"],
                                                     **counters.get(head["interval"], {})}),
                    summary=Figures.model_validate(summary), instances=instances, step=head["step"], threads=head["threads"],
                    sluggish_sessions=head["sluggish_sessions"], latency=histogram)


def _host_counters(db: sqlite3.Connection) -> dict[int, dict[str, float | None]]:
    """Each sample's Windows memory counters (a file of an earlier format, or of another system, has none)."""
    rows = db.execute(f"SELECT interval, {', '.join(_HOST_COUNTERS)} FROM host") if _has(db, "host") else []
    return {row[0]: dict(zip(_HOST_COUNTERS, row[1:], strict=True)) for row in rows}


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def _latency(db: sqlite3.Connection) -> Iterator[tuple[int, LatencyHistograms]]:
    """Each window's histograms with the interval that ends it (none in a file of the first format)."""
    if not _has(db, "latency"):
        return
    for last, span, *blobs in db.execute(f"SELECT last_interval, span_s, {', '.join(STREAMS)} FROM latency "
                                         "ORDER BY last_interval"):
        streams = {name: to_sparse(unpacked(blob)) for name, blob in zip(STREAMS, blobs, strict=True) if blob is not None}
        yield last, LatencyHistograms(span_s=span, streams=streams)


Samples = SampleFile | SampleList
