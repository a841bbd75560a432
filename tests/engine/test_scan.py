"""A database scan on its own: reads that fail and files cut short are counted page by page and the scan goes on;
a scan's test is checked against the machine (missing or resized databases, the backup folder) before it runs."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from engine.io.file_names import backup_file_path, database_file_path
from engine.io.files import prepare_database
from engine.io.pages import ErrorKind
from engine.io.platform import AlignedBuffer, IoBackend, IoFile, UnbufferedProbe, default_backend
from engine.io.preflight import validate_config
from engine.model import config as model
from engine.model.config import DatabaseSource
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.validation import Severity
from engine.workload.context import RunClock
from engine.workload.errors import IoProblem
from engine.workload.scan import Scan, ScanTarget
from tests.conftest import small_config
from tests.faults.pass_through import PassThroughFile

PAGES = 256


class _FailingFile(PassThroughFile):
    def __init__(self, inner: IoFile, bad_offsets: set[int]) -> None:
        super().__init__(inner)
        self.bad = bad_offsets

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        if offset in self.bad:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return super().read_into(buffer, offset, length)


class _FailingDevice(IoBackend):
    """The platform's backend, with the reads at `bad_offsets` failing as a disk fails them (EIO)."""

    name = "failing"

    def __init__(self, bad_offsets: set[int]) -> None:
        self.inner, self.bad = default_backend(), bad_offsets

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        handle = self.inner.open_file(path, create=create, writable=writable, unbuffered=unbuffered, write_through=write_through)
        return _FailingFile(handle, self.bad)

    def probe_unbuffered(self, directory: Path) -> UnbufferedProbe:
        return self.inner.probe_unbuffered(directory)


def _scan(path: Path, db_id: bytes, backend: IoBackend) -> tuple[Scan, list[IoProblem]]:
    interval = 10**9
    clock = RunClock(t0_ns=time.perf_counter_ns(), interval_ns=interval, stop_at_ns=time.perf_counter_ns() + 3600 * interval)
    met: list[IoProblem] = []
    target = ScanTarget(0, "Instance 1", ((path, PAGES),), db_id)
    scan = Scan(backend, target, clock, 64 * 1024, unbuffered=False, errors=lambda _name, problem: met.append(problem),
                say=lambda _text, _level: None, progress=lambda _done, _total: None)
    scan.start()
    assert scan.join(60)
    return scan, met


def test_failed_reads_and_a_file_cut_short_are_counted_page_by_page_and_the_scan_goes_on(tmp_path):
    path = tmp_path / "Jetwise001.jwdb"
    header = prepare_database(default_backend(), path, PAGES, DatabaseSource.CREATE, unbuffered=False)
    scan, met = _scan(path, header.db_id, _FailingDevice({64 * PAGE_SIZE_BYTES, 130 * PAGE_SIZE_BYTES}))
    tally = scan.tally
    assert tally.complete and tally.pages_seen == PAGES
    assert tally.pages_damaged == {ErrorKind.DISK_IO.value: 4}  # two 64 KiB reads of two pages each
    assert [page for page, _offset, _kind in tally.first_damaged] == [64, 65, 130, 131]
    assert [(p.kind, p.number) for p in met] == [(ErrorKind.DISK_IO, 64), (ErrorKind.DISK_IO, 130)]  # one per failed read
    assert tally.bytes_read == (PAGES - 4) * PAGE_SIZE_BYTES

    os.truncate(path, 200 * PAGE_SIZE_BYTES + 1000)  # the header still says 256 pages
    scan, met = _scan(path, header.db_id, default_backend())
    assert scan.tally.pages_seen == PAGES and scan.tally.pages_damaged == {ErrorKind.SHORT_READ.value: 56}
    assert scan.tally.first_damaged[0][:2] == (200, 200 * PAGE_SIZE_BYTES)

    path.unlink()  # a database gone before its scan: the scan says why it ended, and nothing is counted as read
    scan, met = _scan(path, header.db_id, default_backend())
    assert not scan.tally.complete and scan.tally.pages_seen == 0 and "FileNotFoundError" in scan.tally.failure


def test_a_scans_databases_are_checked_as_they_are_and_the_backup_folder_before_the_run(tmp_path):
    base = tmp_path / "data"
    config = small_config(base, test_type=model.TestType.DATABASE_CHECKSUM)
    problems, _ = validate_config(config, default_backend())
    missing = [p for p in problems if "does not exist yet" in p.message]
    assert len(missing) == 2 and all(p.severity == Severity.WARNING for p in missing)
    for index, spec in enumerate(config.databases):
        spec.database_path.mkdir(parents=True)
        prepare_database(default_backend(), database_file_path(spec.database_path, index), config.database_pages // 2,
                         DatabaseSource.CREATE, unbuffered=False)
    problems, _ = validate_config(config, default_backend())
    resized = [p for p in problems if "is checked as it is" in p.message]
    assert len(resized) == 2 and all(p.severity == Severity.WARNING for p in resized)
    assert not [p for p in problems if p.severity == Severity.ERROR]

    backup = config.model_copy(update={"test_type": model.TestType.DATABASE_BACKUP, "backup_path": tmp_path / "no" / "such"})
    problems, _ = validate_config(backup, default_backend())
    assert [p.field for p in problems if p.severity == Severity.ERROR] == ["backup_path"]
    folder = tmp_path / "Backup"
    folder.mkdir()
    backup_file_path(folder, 1).write_text("not ours")
    problems, _ = validate_config(backup.model_copy(update={"backup_path": folder}), default_backend())
    errors = [p for p in problems if p.severity == Severity.ERROR]
    assert [p.field for p in errors] == ["backup_path"] and "Jetwise002.jwbak" in errors[0].message


class _FullCopyVolume(_FailingDevice):
    """The platform's backend on a volume that fills as a backup's copy begins: the copy's first write fails (ENOSPC)."""

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        handle = super().open_file(path, create=create, writable=writable, unbuffered=unbuffered, write_through=write_through)
        if path.suffix == ".jwbak":
            def full(*_args: object) -> int:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

            handle.write_from = full  # type: ignore[method-assign]
        return handle


def test_a_backup_copy_the_full_volume_stops_before_its_header_is_not_left_to_block_the_next_backup(tmp_path):
    path = tmp_path / "Jetwise001.jwdb"
    header = prepare_database(default_backend(), path, PAGES, DatabaseSource.CREATE, unbuffered=False)
    copy = backup_file_path(tmp_path / "backup", 0)
    copy.parent.mkdir()
    interval = 10**9
    clock = RunClock(t0_ns=time.perf_counter_ns(), interval_ns=interval, stop_at_ns=time.perf_counter_ns() + 3600 * interval)
    target = ScanTarget(0, "Instance 1", ((path, PAGES),), header.db_id, copies=(copy,))
    scan = Scan(_FullCopyVolume(set()), target, clock, 64 * 1024, unbuffered=False, errors=lambda _name, _problem: None,
                say=lambda _text, _level: None, progress=lambda _done, _total: None)
    scan.start()
    assert scan.join(60)
    assert not scan.tally.complete and os.strerror(errno.ENOSPC) in scan.tally.failure
    assert not copy.exists()  # an empty .jwbak would be refused as not Jetwise's by every later backup
