"""The wizard's services on the real store and the real machine: sessions from the run store, the preflight checks.

`check_machine` runs the engine's own preflight (`engine.io.preflight`) and words it per
database row for the Databases page: where the database goes, whether the folder takes
unbuffered I/O, the free space against the need, and rows that share a volume. It blocks
(an unbuffered-I/O probe per folder), so the wizard calls it off the GUI thread.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from engine.hosts.port import bundle_port
from engine.hosts.roster import Roster, RosterError
from engine.io.file_names import database_file_path
from engine.io.preflight import check_environment, make_run_folders
from engine.model.config import DatabaseSource, TestConfig
from engine.model.units import format_bytes
from engine.model.validation import Severity
from engine.run.suite import FoundSuite, unfinished_suites
from engine.store.paths import hosts_folder
from engine.store.sqlite import Store, StoreError
from ui.servers import ServersDialog
from ui.wizard.problems import rows_words
from ui.wizard.services import MachineCheck, ServiceError, SessionSummary


class TuningModes:
    """The tuning mode (auto-tune or manual) each session's runs were started in from the window, kept in the window's
    settings, so a session continued later comes back in it. The run store does not record it."""

    KEY = "tuning_modes"

    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings or QSettings()

    def _all(self) -> dict[str, str]:
        try:
            found = json.loads(str(self._settings.value(self.KEY, "{}")))
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}

    def remember(self, session: str, auto_tune: bool) -> None:
        modes = self._all()
        modes[session] = "auto" if auto_tune else "manual"
        self._settings.setValue(self.KEY, json.dumps(modes))

    def of(self, session: str) -> bool | None:
        """True for auto-tune, False for manual; None for a session the window never ran (one from the command line)."""
        mode = self._all().get(session)
        return None if mode not in ("auto", "manual") else mode == "auto"


class StoreServices:
    """What the wizard asks for, answered from the window's store and this machine's disks."""

    def __init__(self, store: Store, runs_root: Path, modes: TuningModes | None = None) -> None:
        self._store = store
        self._runs_root = runs_root
        self._modes = modes or TuningModes()

    def recent_sessions(self) -> list[SessionSummary]:
        try:
            found = []
            for session in reversed(self._store.sessions()):
                runs = self._store.runs(session.name)
                last = runs[-1] if runs else None
                result = self._store.result(last.run_id) if last else None
                found.append(SessionSummary(
                    session.name, session.target_iops, len(runs), last.status if last else None,
                    last.config if last else None, result is not None and result.summary.host_bound,
                    self._modes.of(session.name),
                ))
            return found
        except (sqlite3.Error, StoreError) as exc:
            raise ServiceError(str(exc)) from exc

    def last_config(self, session: str) -> TestConfig | None:
        try:
            runs = self._store.runs(session)
        except (sqlite3.Error, StoreError) as exc:
            raise ServiceError(str(exc)) from exc
        return runs[-1].config if runs else None

    def check_machine(self, config: TestConfig) -> MachineCheck:
        return check_machine(config)

    def make_folders(self, config: TestConfig) -> list[str]:
        return make_folders(config)

    def unfinished_suites(self) -> list[FoundSuite]:
        return unfinished_suites(self._runs_root)

    def enrolled_servers(self) -> dict[str, int | None]:
        try:
            kept = Roster.file_in(hosts_folder())
        except (RosterError, OSError, ValueError) as exc:
            raise ServiceError(f"the servers cannot be read: {exc}") from exc
        return {} if kept is None else {entry.name: bundle_port(entry.controller) for entry in kept.hosts
                                        if entry.removed_utc is None}

    def manage_servers(self, parent: QWidget) -> None:
        ServersDialog(parent).exec()


def make_folders(config: TestConfig) -> list[str]:
    """Each database and log folder of `config`, made with the folders above it when missing (a folder is all Jetwise
    makes here: no file is touched); what could not be made, each with the system's words."""
    return [problem.message for problem in make_run_folders(config)]


def check_machine(config: TestConfig) -> MachineCheck:
    """The per-row checks: folder, writable, free space against need, shared volume, unbuffered I/O."""
    attach = config.database_source == DatabaseSource.ATTACH
    found = check_environment(config)
    problems = found.problems
    rows: dict[int, list[tuple[str, str]]] = {}
    devices: dict[int, list[int]] = {}
    for row, spec in enumerate(config.databases):
        messages: list[tuple[str, str]] = []
        for problem in problems:
            if problem.field.startswith(f"databases[{row}]."):
                messages.append((problem.message, "error" if problem.severity == Severity.ERROR else "warning"))
        facts = found.folders.get(f"databases[{row}].database_path")  # preflight's own findings, not looked up again
        if facts is not None:
            devices.setdefault(facts.device, []).append(row)
            if not any(kind == "error" for _m, kind in messages):
                if attach:
                    where = f"attaches {database_file_path(spec.database_path, row).name}"
                else:
                    where = "exists" if facts.exists else "will be created"
                unbuffered = "unbuffered I/O" if facts.probe.representative else "buffered only"
                files = len(spec.database_paths)
                more = f" (and {files - 1} more file{'s' if files > 2 else ''} of this size)" if files > 1 else ""
                messages.insert(0, (f"✓ {where}, writable, {unbuffered}; {format_bytes(facts.free_bytes)} free for "
                                    f"{format_bytes(config.database_size_bytes)}{more}", "ok"))
        rows[row] = messages
    for shared in devices.values():
        for row in shared:
            others = [r + 1 for r in shared if r != row]
            if others:
                rows[row].append((same_volume_words(others), "ok"))
    return MachineCheck(problems, rows)


ROWS_NAMED = 3  # past this, the other rows on a volume are counted, not listed


def same_volume_words(others: list[int]) -> str:
    """"same volume as row 2", "… as rows 1, 3", or with many rows "… as 98 other rows": one line, however many."""
    if len(others) > ROWS_NAMED:
        return f"same volume as {len(others)} other rows"
    return f"same volume as {rows_words(others, ROWS_NAMED)}"
