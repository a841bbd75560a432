"""Event sinks: where a run's events go besides the front end.

`RunFolderWriter` keeps the run folder (config.json, test.log, samples.sqlite,
result.json) from the events alone, so the CLI, the engine sub-command and the window
get the same artefacts; the store's `RunRecorder` sits beside it.

A sink that can no longer write (its volume is full, its disk failed) raises
`SinkFailedError` once, with the reason in the field's words; the runner stops the run
with it, and the sink keeps what it wrote. The run folder keeps a small reserve file
from the start, given back when its volume fills, so the aborted result still fits.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path
from typing import TextIO, assert_never

from engine.io.safety import append_text, make_folders, refuse_unsafe, write_text
from engine.model.config import TestConfig
from engine.model.units import format_bytes
from engine.model.validation import Problem, Severity
from engine.protocol import (
    EmitFn,
    HelloEvent,
    IntervalEvent,
    LogEvent,
    PhaseEvent,
    ProgressEvent,
    RefusalEvent,
    ResultEvent,
    RunEvent,
    StartEvent,
    SuiteEvent,
    WaitingEvent,
)
from engine.results.document import CONFIG_FILE, HOST_FILE, LOG_FILE, write_result
from engine.results.sample_file import SAMPLES_DB, SampleWriter

RESERVE_FILE = "jetwise-reserve.tmp"
RESERVE_BYTES = 1024 * 1024  # room for the result document and the last log lines of a run whose volume filled
SAMPLE_BYTES = 200  # what a sample takes in the samples file: about this much for the server...
SAMPLE_BYTES_PER_INSTANCE = 40  # ...and this much for each database instance (bench/day_long.py measures it)


def log_line(event: LogEvent) -> str:
    """A line of the test log as `test.log` keeps it (and Jetstress's log reads): the server's clock, then the words."""
    return f"{event.time.astimezone():%Y-%m-%d %H:%M:%S} -- {event.message}"


class SinkFailedError(Exception):
    """A sink cannot write any more; `reason` says why, for the run's aborted result."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def output_space_problem(config: TestConfig, folder: Path) -> Problem | None:
    """Too little room for the run folder: refused below twice the reserve, a warning below what its samples take."""
    existing = next((f for f in (folder, *folder.parents) if f.is_dir()), None)
    if existing is None:
        return None
    free = shutil.disk_usage(existing).free
    intervals = (config.warmup_s + config.duration_s) / config.sample_interval_s
    needed = int(intervals * (SAMPLE_BYTES + SAMPLE_BYTES_PER_INSTANCE * config.database_count)) + RESERVE_BYTES
    if free < 2 * RESERVE_BYTES:
        return Problem("output", f"the volume of {existing} has {format_bytes(free)} free; a run folder needs at least "
                                 f"{format_bytes(2 * RESERVE_BYTES)}")
    if free < needed:
        return Problem("output", f"the volume of {existing} has {format_bytes(free)} free and this run's samples take "
                                 f"about {format_bytes(needed)}; if it fills, the run stops there, aborted",
                       Severity.WARNING)
    return None


def _words(exc: OSError | sqlite3.Error) -> str:
    """The system's words for what failed (SQLite's full disk is the same full disk)."""
    if isinstance(exc, sqlite3.Error):
        return os.strerror(errno.ENOSPC) if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL else str(exc)
    return exc.strerror or str(exc)


class RunFolderWriter:
    """Writes one run's folder as its events arrive; files are flushed line by line."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._log: TextIO | None = None
        self._samples: SampleWriter | None = None
        self.failure: str | None = None

    def __call__(self, event: RunEvent) -> None:
        try:
            self._write(event)
        except (OSError, sqlite3.Error) as exc:
            self._failed(event, exc)

    def _write(self, event: RunEvent) -> None:
        if isinstance(event, StartEvent):
            make_folders(self.folder)
            write_text(self.folder / CONFIG_FILE, event.config.model_dump_json(indent=2) + "\n")
            if event.host is not None:  # the machine, from the start: a killed run's report names it
                write_text(self.folder / HOST_FILE, event.host.model_dump_json(indent=2) + "\n")
            self._log = append_text(self.folder / LOG_FILE)
            refuse_unsafe(self.folder / SAMPLES_DB)  # SQLite opens it by name: never a link planted there
            self._samples = SampleWriter(self.folder / SAMPLES_DB, event.config.sample_interval_s)
            with open(self.folder / RESERVE_FILE, "xb") as reserve:
                reserve.write(bytes(RESERVE_BYTES))
        elif isinstance(event, LogEvent) and self._log is not None:
            self._log.write(log_line(event) + "\n")
            self._log.flush()
        elif isinstance(event, IntervalEvent) and self._samples is not None:
            self._samples.add(event.sample)
        elif isinstance(event, ResultEvent):
            self._close_samples()
            self._give_back_reserve()
            write_result(event.result, self.folder)
        elif isinstance(event, LogEvent | IntervalEvent | HelloEvent | PhaseEvent | ProgressEvent | SuiteEvent | RefusalEvent):
            pass  # before the run's folder is made (a refused run has none); and what the log says of a phase is a log event of its own
        elif isinstance(event, WaitingEvent):
            pass  # a test across servers waits for its agents before its run begins
        else:
            assert_never(event)

    def _failed(self, event: RunEvent, exc: OSError | sqlite3.Error) -> None:
        """Stop writing samples (what was written stays), give back the reserve for the result and the log's last lines."""
        self._close_samples()
        self._give_back_reserve()
        if isinstance(event, LogEvent) and self._log is not None:
            _close_quietly(self._log)  # the line was cut short; the log cannot be trusted for more
            self._log = None
        if self.failure is not None:
            return
        self.failure = f"the run folder {self.folder} could not be written ({_words(exc)})"
        raise SinkFailedError(self.failure) from None

    def _give_back_reserve(self) -> None:
        try:
            (self.folder / RESERVE_FILE).unlink(missing_ok=True)
        except OSError:
            pass

    def _close_samples(self) -> None:
        """The window under way goes in and the file closes (what cannot be written stays unwritten)."""
        samples, self._samples = self._samples, None
        if samples is not None:
            try:
                samples.close()
            except (OSError, sqlite3.Error):
                pass

    def close(self) -> None:
        if self._log is not None:
            _close_quietly(self._log)
        self._log = None
        self._close_samples()
        self._give_back_reserve()


def _close_quietly(handle: TextIO) -> None:
    """Close a file whose last write failed: its buffered rest cannot be written either."""
    try:
        handle.close()
    except OSError:
        pass


def fan_out(*sinks: EmitFn) -> EmitFn:
    """One emit callback that hands every event to each sink in turn (e.g. the store, then the console)."""

    live = list(sinks)

    def emit(event: RunEvent) -> None:
        failed: SinkFailedError | None = None
        for sink in tuple(live):
            try:
                sink(event)
            except SinkFailedError as exc:  # the other sinks still get the event
                failed = failed or exc
            except OSError:
                # A front end whose output is gone (a terminal hung up, a closed pipe): the run goes
                # on to its result without it, so the run folder and the store still get everything.
                live.remove(sink)
        if failed is not None:
            raise failed

    return emit
