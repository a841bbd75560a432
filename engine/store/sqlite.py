"""The run store: tuning sessions and their runs (each with its result, the advice it ended with and where its folder
is), in SQLite.

One file in the user's data folder (platformdirs; `JETWISE_DATA_DIR` overrides it). Every write is its own
transaction. A run's interval samples and test log live in its run folder (`samples.sqlite`,
`engine.results.sample_file`; `test.log`), written as they come, so a run that dies half-way keeps every sample and
line up to that point; the store keeps only the samples and log lines an older version wrote into it. A run row is
opened as `running` with the process id that runs it; when the store is next opened and that process is gone, the
run is marked aborted.

The schema is versioned (`PRAGMA user_version`) and upgraded in place by the
migrations below, oldest first; a store made by a newer Jetwise is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from engine.io.safety import make_folders
from engine.model.config import TestConfig
from engine.results.document import read_result
from engine.results.sample_schema import IntervalSample
from engine.results.schema import RunResult
from engine.store.migrations import MIGRATIONS, SCHEMA_VERSION
from engine.store.paths import DATA_DIR_ENV, default_store_path
from engine.store.rows import RunRow, SessionRow, _storage, design_of, session_name_problem

RUNNING = "running"


ABORTED = "aborted"


class StoreError(Exception):
    """The store cannot be used; the message says why and what to do."""


def _volume_full(path: Path) -> bool:
    """The store's volume has no room for the pages SQLite needs to open it (its -wal and -shm files)."""
    try:
        return shutil.disk_usage(path.parent).free < 64 * 1024
    except OSError:
        return False


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _moment(text: str) -> datetime:
    """A time the store keeps as ISO 8601 text (UTC), as an aware datetime."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Store:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_store_path()
        try:
            make_folders(self.path.parent)
            self._db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the run store {self.path}: {exc}; set {DATA_DIR_ENV} to a folder Jetwise "
                             "can write") from exc
        try:
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA journal_mode = WAL")  # a crash never corrupts; readers never block the writer
            self._db.execute("PRAGMA synchronous = NORMAL")
            self.migrate()
            self.recover_abandoned()
        except BaseException as exc:  # the newer-schema refusal too: no connection is left open behind an error
            self._db.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreError(self._unusable(exc)) from exc
            raise

    def _unusable(self, error: sqlite3.Error) -> str:
        """Why the store file cannot be used as found, and what the engineer can do about it."""
        if error.sqlite_errorname in ("SQLITE_BUSY", "SQLITE_LOCKED"):
            return (f"the run store {self.path} is held by another Jetwise ({error}); wait for it to finish, "
                    f"or set {DATA_DIR_ENV} to another folder")
        if error.sqlite_errorname == "SQLITE_FULL" or _volume_full(self.path):
            return (f"the volume of the run store {self.path} is full ({error}); the store is as it was: free some "
                    f"space there, or set {DATA_DIR_ENV} to a folder on another volume")
        if error.sqlite_errorname in ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_IOERR"):
            return (f"the run store {self.path} cannot be written ({error}); the store is as it was: set "
                    f"{DATA_DIR_ENV} to a folder Jetwise can write")
        return (f"the run store {self.path} is damaged or is not a Jetwise store ({error}); rename it to keep it "
                f"and Jetwise starts a new one, or set {DATA_DIR_ENV} to another folder")

    # schema --------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        version = self.version
        if version > SCHEMA_VERSION:
            raise StoreError(f"the run store {self.path} was written by a newer Jetwise (schema {version}, this one "
                             f"reads up to {SCHEMA_VERSION}); update Jetwise or set {DATA_DIR_ENV} to another folder")
        for number in range(version, SCHEMA_VERSION):
            with self._transaction() as db:
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {number + 1}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        self._db.close()

    # sessions --------------------------------------------------------------------------

    def resolve_session(self, name: str, config: TestConfig) -> tuple[str, str | None]:
        """The session a run of `config` asked for as `name` goes into, and a line saying why if it moved.

        A session tests one storage design; a run of other folders or copies goes into the
        first of "name (2)", "name (3)", ... that is new or tests the same design, never refused.
        """
        wanted = design_of(config)
        candidate, number = name, 1
        while True:
            existing = self.session(candidate)
            if existing is None or _storage(existing.design) == wanted:
                break
            number += 1
            candidate = f"{name} ({number})"
        if candidate == name:
            return name, None
        return candidate, (f"tuning session '{name}' tests other database or log folders or another copy count; "
                           f"this run goes into tuning session '{candidate}'")

    def session_of_design(self, config: TestConfig) -> str | None:
        """The most recently created session that tests `config`'s storage design, if any."""
        wanted = design_of(config)
        matching = [s for s in self.sessions() if _storage(s.design) == wanted]
        return matching[-1].name if matching else None

    def session_for(self, name: str, config: TestConfig) -> SessionRow:
        """The session `name` (as `resolve_session` chose it), created if new; its target follows the latest run."""
        existing = self.session(name)
        design = design_of(config)
        with self._transaction() as db:
            if existing is None:
                db.execute("INSERT INTO sessions (name, created_utc, design_json, target_iops) VALUES (?, ?, ?, ?)",
                           (name, _now(), json.dumps(design), config.target_transactional_iops))
            else:
                db.execute("UPDATE sessions SET design_json = ?, target_iops = ? WHERE id = ?",
                           (json.dumps(design), config.target_transactional_iops, existing.id))
        session = self.session(name)
        assert session is not None
        return session

    def session(self, name: str) -> SessionRow | None:
        row = self._db.execute("SELECT * FROM sessions WHERE name = ?", (name,)).fetchone()
        return None if row is None else self._session_row(row)

    def sessions(self) -> list[SessionRow]:
        return [self._session_row(r) for r in self._db.execute("SELECT * FROM sessions ORDER BY created_utc, id")]

    @staticmethod
    def _session_row(row: sqlite3.Row) -> SessionRow:
        return SessionRow(row["id"], row["name"], _moment(row["created_utc"]), json.loads(row["design_json"]),
                          row["target_iops"])

    # runs ------------------------------------------------------------------------------

    def begin_run(self, session: SessionRow, run_id: str, config: TestConfig, output_dir: Path) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO runs (run_id, session_id, started_utc, status, threads, sluggish_sessions, config_json, "
                "output_dir, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, session.id, _now(), RUNNING, config.thread_count, config.sluggish_sessions,
                 config.model_dump_json(), str(output_dir), os.getpid(), socket.gethostname()))

    def _run_key(self, run_id: str) -> int:
        row = self._db.execute("SELECT id FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id} in the run store")
        return int(row["id"])

    def finish_run(self, run_id: str, result: RunResult) -> None:
        """Close the run with its result; its setting becomes the one its figures were measured at (a load
        sweep started at one setting and is judged at one of its steps)."""
        summary = result.summary
        with self._transaction() as db:
            db.execute(
                "UPDATE runs SET ended_utc = ?, status = ?, result_json = ?, achieved_iops = ?, "
                "db_read_avg_latency_ms = ?, log_write_avg_latency_ms = ?, reasons_json = ?, pid = NULL, "
                "threads = ?, sluggish_sessions = ?, device = ? WHERE run_id = ?",
                (_now(), summary.verdict.value, result.model_dump_json(), summary.achieved_transactional_iops,
                 summary.db_read_avg_latency_ms, summary.log_write_avg_latency_ms,
                 json.dumps(summary.reasons), summary.threads, summary.sluggish_sessions, result.device, run_id))

    def keep_advice(self, run_id: str, advice: dict[str, Any]) -> None:
        """The advisor's word on the run's session as the run ended (`Advice.to_dict`), kept with the run."""
        with self._transaction() as db:
            db.execute("UPDATE runs SET advice_json = ? WHERE run_id = ?", (json.dumps(advice), run_id))

    def advice(self, run_id: str) -> dict[str, Any] | None:
        """The advice kept with a run (None: none was, as for a run an older version recorded)."""
        row = self._db.execute("SELECT advice_json FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None or row[0] is None else dict(json.loads(row[0]))

    def recover_abandoned(self) -> list[str]:
        """Close the runs left `running` by a process of this host that no longer exists.

        A run whose store could not be written to the end (its volume filled) still wrote its
        result to its run folder: that result closes it. Any other is marked aborted.
        """
        host = socket.gethostname()
        rows = self._db.execute("SELECT run_id, pid, host, output_dir FROM runs WHERE status = ?", (RUNNING,)).fetchall()
        abandoned = [r for r in rows if r["host"] == host and not _alive(r["pid"])]
        reason = "the run ended without finishing (its process stopped: a crash, a kill or a power loss)"
        lost = []
        for row in abandoned:
            result = _folder_result(row["output_dir"], row["run_id"])
            if result is not None:
                self.finish_run(row["run_id"], result)
            else:
                lost.append(row["run_id"])
        with self._transaction() as db:
            for run_id in lost:
                db.execute("UPDATE runs SET status = ?, ended_utc = ?, reasons_json = ?, pid = NULL WHERE run_id = ?",
                           (ABORTED, _now(), json.dumps([reason]), run_id))
        return [r["run_id"] for r in abandoned]

    def runs(self, session: str | None = None) -> list[RunRow]:
        query = "SELECT runs.*, sessions.name AS session_name FROM runs JOIN sessions ON sessions.id = runs.session_id"
        args: tuple[Any, ...] = ()
        if session is not None:
            query += " WHERE sessions.name = ?"
            args = (session,)
        return [self._run_row(r) for r in self._db.execute(query + " ORDER BY runs.id", args)]

    def runs_through(self, session: str, run_id: str) -> tuple[list[RunRow], list[RunRow]]:
        """The session's runs up to and including `run_id`, as it stood when that run ended, and the runs since (all
        of them and none, where the run is not the session's)."""
        runs = self.runs(session)
        cut = next((i + 1 for i, run in enumerate(runs) if run.run_id == run_id), len(runs))
        return runs[:cut], runs[cut:]

    def run(self, run_id: str) -> RunRow | None:
        rows = [r for r in self.runs() if r.run_id == run_id]
        return rows[0] if rows else None

    def runs_named(self, typed: str) -> list[RunRow]:
        """The runs an engineer means by `typed`: the run with that id, else every run whose id starts or ends with it
        (`20261125-1405` or the id's last characters, `3fa9c1`), oldest first."""
        exact = self.run(typed)
        if exact is not None or not typed.strip():
            return [exact] if exact is not None else []
        return [r for r in self.runs() if r.run_id.startswith(typed) or r.run_id.endswith(typed)]

    def result(self, run_id: str) -> RunResult | None:
        row = self._db.execute("SELECT result_json FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None or row[0] is None else RunResult.model_validate_json(row[0])

    def results(self, session: str) -> list[RunResult]:
        """The results of a session's runs that have one, oldest first."""
        return [r for r in (self.result(run.run_id) for run in self.runs(session)) if r is not None]

    def samples(self, run_id: str) -> list[IntervalSample]:
        """The samples an older version kept in the store (a run now keeps them in its run folder alone)."""
        key = self._run_key(run_id)
        rows = self._db.execute("SELECT sample_json FROM samples WHERE run_id = ? ORDER BY interval", (key,))
        return [IntervalSample.model_validate_json(r[0]) for r in rows]

    # editing ---------------------------------------------------------------------------

    def rename_session(self, name: str, new: str) -> None:
        """Session `name` is called `new` from now on, its runs with it (refused when `new` is taken or no name)."""
        if (problem := session_name_problem(new)) is not None:
            raise StoreError(problem)
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM sessions WHERE name = ?", (new,)).fetchone() is not None:
                raise StoreError(f"there is a tuning session '{new}' already: choose another name")
            if db.execute("UPDATE sessions SET name = ? WHERE name = ?", (new, name)).rowcount == 0:
                raise StoreError(f"no tuning session '{name}' in the run store")

    def forget_run(self, run_id: str) -> None:
        """The run, its samples and its test log out of the store (its folder is left to `reporting.run_folders`);
        a session left with no run goes too."""
        key = self._run_key(run_id)
        with self._transaction() as db:
            session = db.execute("SELECT session_id FROM runs WHERE id = ?", (key,)).fetchone()["session_id"]
            for table in ("samples", "log_lines"):
                db.execute(f"DELETE FROM {table} WHERE run_id = ?", (key,))  # tables of ours, not input
            db.execute("DELETE FROM runs WHERE id = ?", (key,))
            if db.execute("SELECT 1 FROM runs WHERE session_id = ?", (session,)).fetchone() is None:
                db.execute("DELETE FROM sessions WHERE id = ?", (session,))

    def log_lines(self, run_id: str) -> list[tuple[str, str, str]]:
        """The test log an older version kept in the store beside the run folder's (UTC, level, text)."""
        key = self._run_key(run_id)
        rows = self._db.execute("SELECT time_utc, level, text FROM log_lines WHERE run_id = ? ORDER BY seq", (key,))
        return [(r[0], r[1], r[2]) for r in rows]

    @staticmethod
    def _run_row(row: sqlite3.Row) -> RunRow:
        return RunRow(id=row["id"], run_id=row["run_id"], session=row["session_name"],
                      started_utc=_moment(row["started_utc"]),
                      ended_utc=None if row["ended_utc"] is None else _moment(row["ended_utc"]), status=row["status"],
                      threads=row["threads"], sluggish_sessions=row["sluggish_sessions"], output_dir=row["output_dir"],
                      achieved_iops=row["achieved_iops"], db_read_avg_latency_ms=row["db_read_avg_latency_ms"],
                      log_write_avg_latency_ms=row["log_write_avg_latency_ms"],
                      reasons=json.loads(row["reasons_json"]) if row["reasons_json"] else [],
                      config=TestConfig.model_validate_json(row["config_json"]), device=row["device"])


def _folder_result(output_dir: str | None, run_id: str) -> RunResult | None:
    """The result a run wrote to its folder, when the store missed it."""
    if not output_dir:
        return None
    try:
        result = read_result(Path(output_dir))
    except (OSError, ValueError):
        return None
    return result if result.run_id == run_id else None


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        return bool(psutil.pid_exists(pid)) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
