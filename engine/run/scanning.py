"""A worker's side of a Checksum or Backup test: which pages and logs it reads, and its scans.

A scan reads a Jetwise database as it is on disk, whatever size the test that made it gave it,
and the log files a test left, never rewriting them; a backup to disk first makes room for its
copy (an earlier Jetwise copy is replaced, anything else refused).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.io.file_names import backup_file_path
from engine.io.files import prepare_backup_file
from engine.io.log_files import existing_logs, log_sector_bytes, prepare_logs
from engine.io.pages import SECTOR_BYTES, FormatError, read_database_header
from engine.io.platform import IoBackend
from engine.io.safety import make_folders
from engine.model.config import TestConfig, TestType
from engine.run.scan_plan import scan_plan
from engine.workload.context import ErrorSink, RunClock, Say
from engine.workload.instance import InstancePlan
from engine.workload.scan import ProgressFn, Scan, ScanTarget


def pages_for(config: TestConfig, path: Path) -> int:
    """A test of transactions needs the databases at the size the configuration gives; a scan checks or
    backs up a Jetwise database as it is, whatever size the test that made it gave it."""
    if config.scans and path.exists():
        try:
            return read_database_header(path).pages_planned
        except FormatError:
            pass  # prepare_database refuses it, and says why
    return config.database_pages


def instance_logs(
    backend: IoBackend, config: TestConfig, folder: Path, index: int, db_id: bytes, *, unbuffered: bool
) -> tuple[list[Path], int]:
    """The instance's log files and the sector size they are written in.

    A scan reads back the logs a test left (it never writes them); other tests preformat them in the
    sector size the device takes for unbuffered writes, probed in the first file.
    """
    if config.scans:
        found = existing_logs(folder, index, db_id, max(1, config.log_files_to_checksum))
        if found:
            return [path for path, _ in found], found[0][1].sector_bytes
    count = config.log_files_per_database
    if config.scans:
        return prepare_logs(backend, folder, index, db_id, unbuffered=unbuffered, count=count), SECTOR_BYTES
    paths = prepare_logs(backend, folder, index, db_id, unbuffered=unbuffered, count=1)
    sector = log_sector_bytes(backend, paths[0], unbuffered=unbuffered)
    # sealed in the sector size the log stream writes, which the header records
    paths = prepare_logs(backend, folder, index, db_id, unbuffered=unbuffered, sector_bytes=sector, count=count)
    return paths, sector


def make_scans(backend: IoBackend, config: TestConfig, plans: list[InstancePlan], clock: RunClock, *, unbuffered: bool,
               errors: ErrorSink, say: Say, progress_of: Callable[[int], ProgressFn]) -> list[Scan]:
    """A scan for each of the worker's databases: a checksum reads its logs after it, a backup may copy it."""
    checksum = config.test_type == TestType.DATABASE_CHECKSUM
    groups, depth = scan_plan(config)
    group_of = {index: number for number, group in enumerate(groups) for index in group}
    last: dict[int, Scan] = {}  # each group's latest scan: the next of its group waits for it
    scans = []
    for plan in sorted(plans, key=lambda plan: plan.index):
        copies: tuple[Path, ...] = ()
        if config.test_type == TestType.DATABASE_BACKUP and config.backup_path is not None:
            make_folders(config.backup_path)
            copies = tuple(backup_file_path(config.backup_path, plan.index, part) for part in range(len(plan.db_paths)))
            for copy in copies:
                prepare_backup_file(copy)
        logs = tuple((path, plan.log_sector_bytes) for path in plan.log_paths[: config.log_files_to_checksum]) if checksum else ()
        files = tuple(zip(plan.db_paths, plan.part_pages, strict=True))
        target = ScanTarget(plan.index, plan.name, files, plan.db_id, logs, copies)
        group = group_of[plan.index]
        scan = Scan(backend, target, clock, config.scan_read_bytes, unbuffered=unbuffered, errors=errors, say=say,
                    progress=progress_of(plan.index), depth=depth, after=last.get(group))
        last[group] = scan
        scans.append(scan)
    return scans
