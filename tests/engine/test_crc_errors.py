"""A read the operating system fails for a data error is a CRC error (ESE -1021), named at the page or sector that
holds it; any other failure an I/O error (-1022)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from engine.io.files import prepare_database
from engine.io.pages import ErrorKind
from engine.io.platform import AlignedBuffer, IoFile, default_backend
from engine.model.config import PAGE_SIZE_BYTES, DatabaseSource
from engine.workload.context import failed_io
from engine.workload.stats import DB_READ, DB_WRITE, LOG_REPLICATION_READ
from tests.faults.pass_through import PassThroughFile

PAGE = PAGE_SIZE_BYTES
PAGES = 64


def _error(code: int, winerror: int | None = None) -> OSError:
    error = OSError(code, os.strerror(code))
    if winerror is not None:
        error.winerror = winerror  # type: ignore[attr-defined]
    return error


class _Surface(PassThroughFile):
    """A real file whose reads of the pages `bad` fail with `error`, whose writes fail with `write_error`, or are
    acknowledged and never made (`drops`); a write of a bad page mends it unless the drive is `stuck`."""

    def __init__(self, inner: IoFile, bad: set[int], error: OSError, *, stuck: bool = False,
                 write_error: OSError | None = None, drops: bool = False) -> None:
        super().__init__(inner)
        self.bad, self.error, self.stuck, self.write_error, self.drops = bad, error, stuck, write_error, drops
        self.reads: list[tuple[int, int]] = []

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        size = buffer.size if length is None else length
        self.reads.append((offset, size))
        if self.bad.intersection(range(offset // PAGE, (offset + size + PAGE - 1) // PAGE)):
            raise self.error
        return super().read_into(buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        if self.write_error is not None:
            raise self.write_error
        if not self.stuck:
            self.bad.discard(offset // PAGE)
        return (buffer.size if length is None else length) if self.drops else super().write_from(buffer, offset, length)


@pytest.fixture
def database(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "Jetwise001.jwdb"
    header = prepare_database(default_backend(), path, PAGES, DatabaseSource.CREATE, unbuffered=False)
    return path, header.db_id


def _open(path: Path) -> IoFile:
    return default_backend().open_file(path, create=False, writable=True, unbuffered=False, write_through=False)


def test_a_data_error_is_a_crc_error_at_the_page_that_holds_it_and_any_other_failure_an_io_error(database):
    path, _db_id = database
    with _open(path) as inner:
        surface = _Surface(inner, {11}, _error(errno.EBADMSG))
        crc = failed_io(DB_READ, surface, 10 * PAGE, 2 * PAGE, "page", PAGE, _error(errno.EBADMSG))
        assert (crc.kind, crc.number, crc.offset) == (ErrorKind.CRC_ERROR, 11, 11 * PAGE)  # the page read alone that fails
        assert surface.reads == [(10 * PAGE, PAGE), (11 * PAGE, PAGE)]
        assert str(crc).startswith(f"CRC error (ESE -1021 JET_errDiskReadVerificationFailure) reading page 11 of {path} "
                                   "at byte offset 360,448: the operating system failed the read for a data error")
        windows = failed_io(DB_READ, surface, 11 * PAGE, PAGE, "page", PAGE, _error(errno.EIO, winerror=23))
        assert windows.kind == ErrorKind.CRC_ERROR  # ERROR_CRC, whatever errno it maps to
        other = failed_io(DB_READ, surface, 11 * PAGE, PAGE, "page", PAGE, _error(errno.EIO))
        assert (other.kind, other.number) == (ErrorKind.DISK_IO, 11)
        written = failed_io(DB_WRITE, surface, 11 * PAGE, PAGE, "page", PAGE, _error(errno.EBADMSG))
        assert written.kind == ErrorKind.DISK_IO  # a write verifies no read: -1022 writing
        sector = failed_io(LOG_REPLICATION_READ, surface, 10 * PAGE, 2 * PAGE, "log sector", 4096, _error(errno.EBADMSG))
        assert (sector.kind, sector.number, sector.offset) == (ErrorKind.CRC_ERROR, 11 * PAGE // 4096, 11 * PAGE)
