"""Database and log files: format, uniqueness, resume, attach, and refusal to touch foreign files."""

from __future__ import annotations

import errno
import hashlib
import os
import zlib

import pytest

from engine.io.file_names import log_file_path
from engine.io.files import CreationInterruptedError, FileSafetyError, creating_path, prepare_database, remove_jetwise_files
from engine.io.log_files import prepare_logs
from engine.io.pages import SECTOR_BYTES, page_fault, read_database_header, read_log_header, verify_checksum
from engine.io.platform import default_backend
from engine.model.config import DatabaseSource
from engine.model.sizing import LOG_FILE_SIZE_BYTES, PAGE_SIZE_BYTES

BACKEND = default_backend()
PAGES = 300  # more than two creation chunks


def _unbuffered(folder) -> bool:
    return BACKEND.probe_unbuffered(folder).supported


def _create(path, pages=PAGES, **kw):
    return prepare_database(BACKEND, path, pages, DatabaseSource.CREATE, unbuffered=_unbuffered(path.parent), **kw)


def test_created_pages_carry_header_and_valid_checksum(tmp_path):
    path = tmp_path / "Jetwise001.jwdb"
    header = _create(path)
    assert header.complete and header.pages_planned == PAGES
    assert path.stat().st_size == PAGES * PAGE_SIZE_BYTES
    data = path.read_bytes()
    for page in range(1, PAGES):
        block = memoryview(data)[page * PAGE_SIZE_BYTES : (page + 1) * PAGE_SIZE_BYTES]
        assert page_fault(block, header.db_id, page, PAGE_SIZE_BYTES, verify=True) is None
        assert verify_checksum(block, PAGE_SIZE_BYTES)


def test_every_4k_block_is_unique_and_incompressible(tmp_path):
    path = tmp_path / "Jetwise001.jwdb"
    _create(path)
    data = path.read_bytes()[PAGE_SIZE_BYTES:]
    digests = {hashlib.sha256(data[i : i + SECTOR_BYTES]).digest() for i in range(0, len(data), SECTOR_BYTES)}
    assert len(digests) == len(data) // SECTOR_BYTES  # nothing for a dedup array to fold
    assert len(zlib.compress(data, 6)) > 0.99 * len(data)  # nothing for a compressing array to shrink


def test_creation_reports_progress_and_resumes_after_interruption(tmp_path):
    path = tmp_path / "Jetwise001.jwdb"
    reports = []
    calls = iter([False, False, True])
    with pytest.raises(CreationInterruptedError):
        _create(path, progress=reports.append, should_stop=lambda: next(calls, True))
    partial = read_database_header(path)
    assert 1 < partial.pages_created < PAGES
    header = _create(path, progress=reports.append)
    assert header.complete and header.db_id == partial.db_id
    assert reports[-1].bytes_done == reports[-1].bytes_total == PAGES * PAGE_SIZE_BYTES
    data = path.read_bytes()
    for page in range(1, PAGES):
        assert page_fault(memoryview(data)[page * PAGE_SIZE_BYTES :], header.db_id, page, PAGE_SIZE_BYTES, verify=True) is None


def test_attach_checks_the_header_and_keeps_the_file(tmp_path):
    path = tmp_path / "Jetwise001.jwdb"
    created = _create(path)
    before = path.stat().st_mtime_ns
    attached = prepare_database(BACKEND, path, 999, DatabaseSource.ATTACH, unbuffered=False)
    assert attached.db_id == created.db_id and attached.pages_planned == PAGES
    assert path.stat().st_mtime_ns == before


def test_create_recreates_our_own_database_of_another_size(tmp_path):
    """A profile edit changes the database size: Jetwise's own file (its header says so) is recreated."""
    path = tmp_path / "Jetwise001.jwdb"
    first = _create(path)
    lines: list[str] = []
    second = prepare_database(BACKEND, path, 400, DatabaseSource.CREATE, unbuffered=_unbuffered(tmp_path), log=lines.append)
    assert second.pages_planned == 400 and second.complete and second.db_id != first.db_id
    assert path.stat().st_size == 400 * PAGE_SIZE_BYTES
    assert any("holds 300 pages and this test needs 400; recreating it" in line for line in lines)


@pytest.mark.parametrize("source", [DatabaseSource.CREATE, DatabaseSource.ATTACH])
def test_foreign_database_file_is_never_touched(tmp_path, source):
    path = tmp_path / "Jetwise001.jwdb"
    content = os.urandom(3 * PAGE_SIZE_BYTES)
    path.write_bytes(content)
    stamp = path.stat().st_mtime_ns
    with pytest.raises(FileSafetyError, match=r"not a Jetwise database.*did not create"):
        prepare_database(BACKEND, path, PAGES, source, unbuffered=False)
    assert path.read_bytes() == content and path.stat().st_mtime_ns == stamp


def test_foreign_log_file_is_never_touched(tmp_path):
    foreign = log_file_path(tmp_path, 0, 3)
    foreign.write_bytes(b"not ours")
    with pytest.raises(FileSafetyError, match="not a Jetwise log file"):
        prepare_logs(BACKEND, tmp_path, 0, b"\x01" * 16, unbuffered=_unbuffered(tmp_path))
    assert foreign.read_bytes() == b"not ours"


def test_logs_are_preformatted_1mib_files_and_reused(tmp_path):
    paths = prepare_logs(BACKEND, tmp_path, 0, b"\x02" * 16, unbuffered=_unbuffered(tmp_path))
    assert len(paths) == 16
    assert all(p.stat().st_size == LOG_FILE_SIZE_BYTES for p in paths)
    assert read_log_header(paths[5]).slot == 5
    again = prepare_logs(BACKEND, tmp_path, 0, b"\x03" * 16, unbuffered=_unbuffered(tmp_path))
    assert again == paths and read_log_header(paths[0]).db_id == b"\x03" * 16


def test_removal_deletes_only_jetwise_files(tmp_path):
    ours = tmp_path / "Jetwise001.jwdb"
    _create(ours, pages=70)
    theirs = tmp_path / "Jetwise002.jwdb"
    theirs.write_bytes(b"precious")
    kept = remove_jetwise_files([ours, theirs, tmp_path / "missing.jwdb"])
    assert kept == [theirs]
    assert not ours.exists() and theirs.read_bytes() == b"precious"


class _FullVolume(type(BACKEND)):  # type: ignore[misc]
    """The platform's backend on a volume that is full: a file is made, its first write fails with ENOSPC."""

    def open_file(self, path, **kw):
        handle = super().open_file(path, **kw)

        def full(*_args, **_kw):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))

        handle.write_from = full
        return handle


@pytest.mark.parametrize("what", ["database", "log"])
def test_a_creation_the_full_volume_fails_leaves_no_file_and_the_next_run_creates_it(tmp_path, what):
    path = tmp_path / "Jetwise001.jwdb" if what == "database" else log_file_path(tmp_path, 0, 0)

    def prepare(backend):
        if what == "database":
            return prepare_database(backend, path, PAGES, DatabaseSource.CREATE, unbuffered=False)
        return prepare_logs(backend, tmp_path, 0, b"\x04" * 16, unbuffered=False)

    with pytest.raises(OSError, match="No space left"):
        prepare(_FullVolume())
    assert os.listdir(tmp_path) == []  # neither an empty file at its name nor its creating file
    prepare(BACKEND)  # not refused as "not a Jetwise file": the volume has room again
    assert (read_database_header(path).complete if what == "database" else read_log_header(path).slot == 0)


def test_a_creating_file_a_kill_left_is_taken_over_and_a_foreign_one_at_that_name_refused(tmp_path):
    path = tmp_path / "Jetwise001.jwdb"
    creating_path(path).write_bytes(b"")  # a kill between the file's making and its header
    assert _create(path).complete and not creating_path(path).exists()
    other = tmp_path / "Jetwise002.jwdb"
    creating_path(other).write_bytes(b"someone's data")
    with pytest.raises(FileSafetyError, match="Jetwise did not create it"):
        _create(other)
    assert creating_path(other).read_bytes() == b"someone's data" and not other.exists()


def test_a_file_that_appears_at_the_name_during_creation_is_not_replaced(tmp_path, monkeypatch):
    path = tmp_path / "Jetwise001.jwdb"
    real_open = BACKEND.open_file

    def racing(target, **kw):
        handle = real_open(target, **kw)
        if target == creating_path(path):
            path.write_bytes(b"theirs")
        return handle

    monkeypatch.setattr(BACKEND, "open_file", racing)
    with pytest.raises(FileSafetyError, match="appeared while Jetwise was creating it"):
        prepare_database(BACKEND, path, PAGES, DatabaseSource.CREATE, unbuffered=False)
    assert path.read_bytes() == b"theirs" and not creating_path(path).exists()
