"""Preflight: a valid configuration checked against the machine before a run touches it.

Folders, writability, free space per volume, unbuffered I/O, and files Jetwise must not
touch, each problem tied to its field like the model's own validation.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

from engine.io.file_names import backup_file_path, database_file_path, database_files, log_file_path
from engine.io.files import FileSafetyError
from engine.io.flush_file import foreign_flush_map
from engine.io.locks import folder_problem
from engine.io.log_files import existing_logs
from engine.io.pages import DamagedHeaderError, DatabaseHeader, FormatError, read_database_header, read_log_header
from engine.io.platform import IoBackend, UnbufferedProbe, default_backend
from engine.io.safety import destination_problem, file_in_the_way, link_problem, make_folders, system_folder_problem
from engine.model.config import DatabaseSource, DatabaseSpec, TestConfig, TestType
from engine.model.growth import growth_bound_bytes, growth_words
from engine.model.sizing import LOG_FILE_SIZE_BYTES, LOG_FILES_PER_DATABASE, PAGE_SIZE_BYTES
from engine.model.units import format_bytes
from engine.model.validation import Problem, Severity, check_rules

SPACE_KINDS = ("databases", "logs", "backups", "growth")  # what a volume's space goes to, in the words that say it


def missing_root(path: Path, platform: str = sys.platform) -> str | None:
    """Why the drive or share `path` names is not there (no folder below it can be made), or None.

    A Windows path (E:\\DB1, \\\\filer\\share\\DB1) elsewhere is a file name in the current folder, never a
    drive: said as such, as a JetstressConfig.xml brought from a Windows server gives them."""
    drive = PureWindowsPath(str(path)).drive
    if not drive:
        return None
    if platform != "win32":
        if str(path).startswith("/"):
            return None  # //host/share is an absolute path of this machine
        return f"{path} is a Windows path (on {drive}); give a folder of this machine's file system"
    if Path(drive + "\\").exists():
        return None
    if drive[1:] == ":":
        return f"{path}: there is no drive {drive} on this server"
    return f"{path}: the share {drive} cannot be reached from this server"


def existing_folder(path: Path) -> tuple[Path | None, str | None]:
    """The folder to check for `path`: itself, or its parent when only the leaf is missing."""
    if path.is_dir():
        return path, None
    if (blocked := file_in_the_way(path)) is not None:
        return None, blocked
    unreachable = missing_root(path)
    if unreachable is not None:
        return None, unreachable
    parent = path.parent
    if parent.is_dir():
        return parent, None
    return None, f"{path} does not exist (nor does {parent})"


@dataclass(frozen=True)
class FolderFacts:
    """What preflight found of a folder a run works in: the folder it checked (the folder, or the one it will be made
    in), whether it exists yet, its volume, the volume's free space and what unbuffered I/O does there."""

    checked: Path
    exists: bool
    device: int
    free_bytes: int
    probe: UnbufferedProbe


@dataclass(frozen=True)
class Preflight:
    """Preflight's answer: the problems in words, and the facts they were found from (each usable folder by its
    field path, each probe by its folder), for a front end to show without looking again."""

    problems: list[Problem]
    probes: dict[Path, UnbufferedProbe]
    folders: dict[str, FolderFacts]


def check_environment(config: TestConfig, backend: IoBackend | None = None) -> Preflight:
    """Check folders, writability, free space, unbuffered I/O (through `backend`, this platform's unless given) and
    existing files."""
    backend = backend or default_backend()
    facts: dict[str, FolderFacts] = {}
    problems: list[Problem] = []
    probes: dict[Path, UnbufferedProbe] = {}
    needs: dict[int, int] = defaultdict(int)  # device -> bytes still to allocate
    kinds: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # ... of them by kind (backups the rest)
    growth = growth_bound_bytes(config)  # what the test may add to each database file
    log_sets: dict[int, int] = defaultdict(int)  # device -> instances whose logs go there
    device_paths: dict[int, list[str]] = defaultdict(list)
    device_folder: dict[int, Path] = {}
    free_space: dict[int, int] = {}  # device -> bytes free, read once for the folders' facts and the space check

    for index, spec in enumerate(config.databases):
        for field, path, part in spec.folders(index):
            folder, missing = existing_folder(path)
            if folder is None:
                problems.append(Problem(field, missing or f"{path} is not usable"))
                continue
            if (system := system_folder_problem(path)) is not None:
                problems.append(Problem(field, system))
                continue
            if (resolved := Path(os.path.realpath(path))) != Path(os.path.abspath(path)):
                problems.append(Problem(field, f"{path} resolves through a link to {resolved}: the files go there",
                                        Severity.WARNING))
            if not os.access(folder, os.W_OK | os.X_OK):
                problems.append(Problem(field, f"{folder} is not writable for this user"))
                continue
            probe = probes.get(folder)
            if probe is None:
                try:
                    probe = probes[folder] = backend.probe_unbuffered(folder)
                except OSError as exc:
                    problems.append(Problem(field, f"cannot test unbuffered I/O in {folder}: {exc.strerror or exc}"))
                    continue
            if not probe.representative and not config.allow_buffered_io:
                if probe.supported:
                    words = f"{folder} is on a memory-backed file system ({probe.detail}); results would measure memory, not storage"
                else:
                    words = f"{folder}: {probe.detail}, so results would measure the file cache, not the disk"
                problems.append(
                    Problem(field, words + "; choose a folder on a disk volume, or allow buffered I/O to run with results marked")
                )
            device = os.stat(folder).st_dev
            device_folder.setdefault(device, folder)
            if device not in free_space:
                free_space[device] = shutil.disk_usage(folder).free
            facts[field] = FolderFacts(folder, path.is_dir(), device, free_space[device], probe)
            if part is not None:
                db_file = database_file_path(path, index, part)
                needed = config.database_size_bytes
                if (unsafe := link_problem(db_file)) is not None:
                    problems.append(Problem(field, f"{db_file} {unsafe}"))
                    continue
                if not config.scans and (foreign := foreign_flush_map(db_file)) is not None:
                    problems.append(Problem(field, foreign))
                    continue
                if db_file.exists():
                    header: DatabaseHeader | None = None
                    try:
                        header = read_database_header(db_file)
                    except DamagedHeaderError as exc:  # Jetwise's, damaged: a scan reports it, any other test refuses it
                        scan = "checksum" if config.test_type == TestType.DATABASE_CHECKSUM else "backup"
                        problems.append(Problem(field, f"{exc}: the {scan} reads it as it is and reports the damage"
                                                if config.scans else f"{exc}; a Database checksum reports the damage, and "
                                                "jetwise clean removes it", Severity.WARNING if config.scans else Severity.ERROR))
                        if not config.scans:
                            continue
                    except FormatError as exc:
                        problems.append(
                            Problem(field, f"{exc}; Jetwise does not write into files it did not create: move it or choose another folder")
                        )
                        continue
                    if header is None:
                        pass
                    elif config.database_source == DatabaseSource.ATTACH:
                        if not header.complete:
                            problems.append(Problem(field, f"{db_file} is incomplete; choose 'create' to resume it"))
                        elif header.pages_planned != config.database_pages:
                            problems.append(Problem(
                                field,
                                f"{db_file} is attached as it is ({format_bytes(header.pages_planned * PAGE_SIZE_BYTES)}); "
                                f"this profile sizes it at {format_bytes(config.database_size_bytes)}",
                                Severity.WARNING,
                            ))
                    elif config.scans:
                        if header.pages_planned != config.database_pages:
                            problems.append(Problem(
                                field,
                                f"{db_file} is {'checked' if config.test_type == TestType.DATABASE_CHECKSUM else 'backed up'} "
                                f"as it is ({format_bytes(header.pages_planned * PAGE_SIZE_BYTES)}); this profile sizes "
                                f"it at {format_bytes(config.database_size_bytes)}",
                                Severity.WARNING,
                            ))
                    elif header.pages_planned != config.database_pages:
                        problems.append(Problem(
                            field,
                            f"{db_file} is a Jetwise database of {format_bytes(header.pages_planned * PAGE_SIZE_BYTES)}; "
                            f"this profile needs {format_bytes(config.database_size_bytes)}, so it will be recreated "
                            "(choose 'attach' to keep it as it is)",
                            Severity.WARNING,
                        ))
                    needed = max(0, needed - db_file.stat().st_size)  # its space is reused
                elif config.database_source == DatabaseSource.ATTACH:
                    problems.append(Problem(field, f"{db_file} does not exist: there is no database to attach"))
                    needed = 0
                elif config.scans:
                    problems.append(Problem(
                        field,
                        f"{db_file} does not exist yet: the test creates it ({format_bytes(needed)}) and then reads a "
                        "database no load has touched; run it after a Performance or Stress test on these folders",
                        Severity.WARNING,
                    ))
                if config.database_source == DatabaseSource.ATTACH:
                    needed = 0
                needs[device] += needed + growth
                kinds[device]["databases"] += needed
                kinds[device]["growth"] += growth
                device_paths[device].append(f"database {index + 1}" + (f" file {part + 1}" if part else ""))
            else:
                needed, problem = _log_space(path, index, config.log_space_bytes_per_database)
                if problem is None and config.scans:
                    problem = _logs_without_their_database(config, spec, index)
                if problem is not None:
                    problems.append(Problem(field, problem))
                    continue
                needs[device] += needed
                kinds[device]["logs"] += needed
                log_sets[device] += 1
                device_paths[device].append(f"log {index + 1}")
    problems += _lock_problems(config)
    if config.test_type == TestType.DATABASE_BACKUP and config.backup_path is not None:
        problems += _backup_problems(config, needs, device_paths, device_folder)

    for device, needed in needs.items():
        folder = device_folder[device]
        free = free_space[device] if device in free_space else shutil.disk_usage(folder).free  # a backup folder's own
        if needed > free:
            what = ", ".join(device_paths[device])
            kind = kinds[device]
            kind["backups"] = needed - sum(kind.values())
            words = (f"the volume of {folder} has {format_bytes(free)} free; {what} need {format_bytes(needed)} there: "
                     + ", ".join(f"{name} {format_bytes(kind[name])}" for name in SPACE_KINDS if kind[name])
                     + (f" for {growth_words(config)}" if kind["growth"] else ""))
            circular = LOG_FILES_PER_DATABASE * LOG_FILE_SIZE_BYTES * log_sets[device]  # what any other test's logs take
            if config.recovers and kind["databases"] + circular <= free:  # the logs to replay (and their growth) are the excess
                problems.append(Problem("log_files_to_replay", f"{words}: {config.log_files_to_replay:,} log files to "
                                        f"replay per instance ({format_bytes(LOG_FILE_SIZE_BYTES)} each) do not fit"))
                continue
            problems.append(Problem(_first_field_on(config, device), words))
    return Preflight(problems, probes, facts)


def _backup_problems(
    config: TestConfig, needs: dict[int, int], device_paths: dict[int, list[str]], device_folder: dict[int, Path]
) -> list[Problem]:
    """The backup folder of a Database Backup to disk: usable, free of foreign files where a copy goes, and its
    volume's share of the space (each database's copy, less the copies an earlier backup left to be replaced)."""
    folder_path = config.backup_path
    assert folder_path is not None
    folder, missing = existing_folder(folder_path)
    if folder is None:
        return [Problem("backup_path", missing or f"{folder_path} is not usable")]
    if (system := system_folder_problem(folder_path)) is not None:
        return [Problem("backup_path", system)]
    if not os.access(folder, os.W_OK | os.X_OK):
        return [Problem("backup_path", f"{folder} is not writable for this user")]
    problems = []
    device = os.stat(folder).st_dev
    device_folder.setdefault(device, folder)
    for index, part, db_file in ((i, part, path) for i, spec in enumerate(config.databases)
                                 for part, path in enumerate(database_files(spec, i))):
        copy = backup_file_path(folder_path, index, part)
        size = config.database_size_bytes
        with contextlib.suppress(FormatError, OSError):
            size = read_database_header(db_file).pages_created * PAGE_SIZE_BYTES  # as it stands: databases grow
        if (unsafe := link_problem(copy)) is not None:
            problems.append(Problem("backup_path", f"{copy} {unsafe}"))
            continue
        if copy.exists():
            try:
                read_database_header(copy)
            except FormatError as exc:
                problems.append(Problem("backup_path", f"{exc}; Jetwise does not replace files it did not create: "
                                                       "move it or choose another backup folder"))
                continue
            size = max(0, size - copy.stat().st_size)
        needs[device] += size
        device_paths[device].append(f"backup {index + 1}")
    return problems


def run_folders(config: TestConfig) -> list[tuple[str, Path]]:
    """Each database, log and backup folder a run works in, with the field that names it, once each."""
    seen: dict[Path, str] = {}
    for index, spec in enumerate(config.databases):
        for field, path, _ in spec.folders(index):
            seen.setdefault(Path(os.path.abspath(path)), field)
    if config.test_type == TestType.DATABASE_BACKUP and config.backup_path is not None:
        seen.setdefault(Path(os.path.abspath(config.backup_path)), "backup_path")
    return [(field, folder) for folder, field in seen.items()]


def make_run_folders(config: TestConfig) -> list[Problem]:
    """Each database, log and backup folder of `config` that is missing, made with the folders above it (folders
    only: no file is touched), unless it would be a system folder; what could not be made, at its field, in the
    system's words. The window's Create folders, and an agent preparing its server's part of a test across servers."""
    problems = []
    for field, folder in run_folders(config):
        if folder.is_dir():
            continue
        if (unsafe := destination_problem(folder, folder=True)) is not None:
            problems.append(Problem(field, unsafe))
            continue
        try:
            make_folders(folder)
        except OSError as exc:
            problems.append(Problem(field, f"{folder} cannot be made ({exc.strerror or exc})"))
    return problems


def _lock_problems(config: TestConfig) -> list[Problem]:
    """A folder another run holds (`engine.io.locks`) is refused before anything touches it."""
    problems = []
    for field, folder in run_folders(config):
        problem = folder_problem(folder) if folder.is_dir() else None
        if problem is not None:
            problems.append(Problem(field, problem))
    return problems


def _log_space(folder: Path, index: int, total: int) -> tuple[int, str | None]:
    """Bytes the logs still need in `folder` (Jetwise's own log files are reused), or why they cannot go there."""
    needed = total
    for slot in range(LOG_FILES_PER_DATABASE):
        path = log_file_path(folder, index, slot)
        if (unsafe := link_problem(path)) is not None:
            return 0, f"{path} {unsafe}"
        if not path.exists():
            continue
        try:
            read_log_header(path)
        except FormatError as exc:
            return 0, f"{exc}; Jetwise does not write into files it did not create: move it or choose another folder"
        needed -= min(needed, path.stat().st_size)
    return needed, None


def _logs_without_their_database(config: TestConfig, spec: DatabaseSpec, index: int) -> str | None:
    """Why a scan cannot read back the logs of database `index`: a database of theirs removed (the scan would make a new
    one beside them) or another database's logs beside it; None when they are its own, or there are none."""
    db_file = database_file_path(spec.database_path, index)
    try:
        db_id = read_database_header(db_file).db_id if db_file.exists() else b""
        existing_logs(spec.log_path, index, db_id, max(1, config.log_files_to_checksum))
    except FormatError:
        return None  # a database Jetwise did not write is said at its own field
    except FileSafetyError as exc:
        if db_id:
            return f"{exc}: move them out of {spec.log_path}, or choose another log folder"
        return (f"{spec.log_path} holds the logs of a database that is no longer in {spec.database_path} ({db_file.name}): "
                "Jetwise checks a database's logs only with their own database; put the database back, or move its logs "
                "out of the folder")
    return None


def _first_field_on(config: TestConfig, device: int) -> str:
    for index, spec in enumerate(config.databases):
        for field, path, _ in spec.folders(index):
            folder, _ = existing_folder(path)
            if folder is not None and os.stat(folder).st_dev == device:
                return field
    return "backup_path" if config.backup_path is not None else "databases"


def validate_config(config: TestConfig, backend: IoBackend) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]:
    """All checks for a model: rules first, then the machine."""
    found = check_environment(config, backend)
    return check_rules(config) + found.problems, found.probes
