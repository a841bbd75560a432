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
reads as counters as far as its figures tell (`engine.results.sample_read` reads them back). A file is Jetwise's by its
SQLite application id.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
import time
from datetime import datetime
from pathlib import Path

from pydantic_core import to_json

from engine.results.counters import Counters, StreamCounters, window_of
from engine.results.sample_schema import Figures, IntervalSample, SamplePhase
from engine.workload.histogram import packed
from engine.workload.stats import CACHE_COUNTERS, STREAMS, InstanceInterval

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

SERVER_HEAD = ("interval", "phase", "time_utc", "elapsed_s", "duration_s", "remaining_s", "cpu_percent",
                "available_memory_mb", "step", "threads", "sluggish_sessions")
HOST_COUNTERS = ("free_system_ptes", "transition_pages_repurposed_per_s", "pool_nonpaged_bytes", "pool_paged_bytes")
_HOST_TABLE = f"CREATE TABLE IF NOT EXISTS host (interval INTEGER PRIMARY KEY, {', '.join(HOST_COUNTERS)})"
_HOST_ROW = f"INSERT OR REPLACE INTO host VALUES ({', '.join('?' * (1 + len(HOST_COUNTERS)))})"
_INSTANCE_HEAD = ("window", "instance", "first_interval", "last_interval", "phase", "step", "span_s")
STREAM_FIELDS = tuple(StreamCounters.model_fields)[:-1]  # count, bytes, sum_ns, max_ns, errors: not the histogram
COUNTERS = (*(f"{stream}_{item}" for stream in STREAMS for item in STREAM_FIELDS), *CACHE_COUNTERS)
_HISTOGRAMS = tuple(f"{stream}_hist" for stream in STREAMS)
INSTANCE_MORE = ("cache_pages", "errors", *_HISTOGRAMS)
SPREAD = ("transactional_iops", "db_read_avg_latency_ms")  # an instance window's lowest and highest second
_SPREAD_COLUMNS = tuple(f"{edge}_{name}" for name in SPREAD for edge in ("min", "max"))


def _schema() -> str:
    counters = ", ".join(COUNTERS)
    return f"""
    CREATE TABLE names (instance INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE server ({", ".join(SERVER_HEAD)}, {counters}, PRIMARY KEY (interval)) WITHOUT ROWID;
    CREATE TABLE instances ({", ".join(_INSTANCE_HEAD)}, {counters}, {", ".join(INSTANCE_MORE)},
                            {", ".join(_SPREAD_COLUMNS)}, PRIMARY KEY (window, instance)) WITHOUT ROWID;
    """


def _counter_values(counters: Counters) -> list[int | None]:
    """A row's counter columns: a stream without I/O or errors is NULL (a byte), as a cache that saw nothing."""
    values: list[int | None] = []
    for stream in STREAMS:
        stats = counters.streams.get(stream)
        values += [None] * len(STREAM_FIELDS) if stats is None else [getattr(stats, item) for item in STREAM_FIELDS]
    return values + [value or None for value in counters.cache]


def _stamp(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


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
        self._server = f"INSERT OR REPLACE INTO server VALUES ({', '.join('?' * (len(SERVER_HEAD) + len(COUNTERS)))})"
        width = len(_INSTANCE_HEAD) + len(COUNTERS) + len(INSTANCE_MORE) + len(_SPREAD_COLUMNS)
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
            counters_of_host = [getattr(sample.host, name) for name in HOST_COUNTERS]
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
        errors = to_json(counters.errors).decode() if counters.errors else None
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
