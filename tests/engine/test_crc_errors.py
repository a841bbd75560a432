"""A read the operating system fails for a data error is a CRC error (ESE -1021), named at the page or sector that
holds it; any other failure an I/O error (-1022). Page patching writes such a page again and reads it back: patched,
or not patched and why, in the error's own words, its count carried with the error's kind."""

from __future__ import annotations

import errno
import itertools
import os
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from engine.io.files import prepare_database
from engine.io.pages import FLUSH_STATE_AT, ErrorKind, page_fault
from engine.io.platform import AlignedBuffer, IoFile, default_backend
from engine.model.config import DatabaseSource
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.counters import Counters
from engine.workload.context import failed_io
from engine.workload.errors import PATCHED, ErrorTally, IoProblem, describe
from engine.workload.flushmap import Written
from engine.workload.patching import PagePatcher
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


def _patcher(surface: IoFile, path: Path, db_id: bytes) -> tuple[PagePatcher, Written]:
    first = time.time_ns()
    written = Written([PAGES], first)
    return PagePatcher(default_backend(), surface, [str(path)], db_id, written, itertools.count(first), 1), written


def _met(path: Path, page: int, unit: str = "page") -> IoProblem:
    return IoProblem(ErrorKind.CRC_ERROR, DB_READ, str(path), unit, page, page * PAGE, detail="Bad message")  # type: ignore[arg-type]


def test_a_crc_errors_page_is_written_again_whole_stamped_in_the_flush_map_and_read_back_good(database):
    path, db_id = database
    with _open(path) as inner:
        surface = _Surface(inner, {20}, _error(errno.EBADMSG))
        patcher, written = _patcher(surface, path, db_id)
        patched = patcher.patch(_met(path, 20))
        assert patched.patched and patched.patch == PATCHED and not surface.bad
        assert str(patched).endswith(f"Bad message; {PATCHED}")
        buffer = AlignedBuffer(PAGE)
        try:
            inner.read_into(buffer, 20 * PAGE)
            assert page_fault(buffer.view, db_id, 20, PAGE, True) is None  # whole and valid, of its own number
            assert buffer.view[FLUSH_STATE_AT] == written.map.expected(20) == 1  # as any flush stamps it
        finally:
            buffer.release()


@pytest.mark.parametrize(("surface", "page", "unit", "why"), [
    ({"stuck": True}, 20, "page", "written again, it still could not be read back: Bad message"),
    ({"write_error": _error(errno.EIO)}, 20, "page", "writing it again failed: Input/output error"),
    ({"drops": True}, 20, "page", "written again, it read back wrong: "),
    ({}, 0, "page", "it is its file's header, which only the database's creation writes"),
    ({}, 20, "log sector", "page patching mends database pages, and a log file has no good copy to take"),
])
def test_a_page_that_cannot_be_patched_says_why(database, surface, page, unit, why):
    path, db_id = database
    with _open(path) as inner:
        drive = _Surface(inner, {page}, _error(errno.EBADMSG), **surface)
        patcher, _written = _patcher(drive, path, db_id)
        problem = patcher.patch(_met(path, page, unit))
    assert not problem.patched and problem.not_patched.startswith(why) and problem.patch == f"not patched: {problem.not_patched}"
    if surface.get("drops"):
        assert problem.not_patched == ("written again, it read back wrong: lost flush (flush state 0 where its last "
                                       "write carried 1)")


def test_patched_counts_go_with_their_kind_across_the_wire_and_into_its_words():
    path = "/data/Jetwise001.jwdb"
    good = IoProblem(ErrorKind.CRC_ERROR, DB_READ, path, "page", 7, 7 * PAGE, patched=True)
    bad = IoProblem(ErrorKind.CRC_ERROR, DB_READ, path, "page", 9, 9 * PAGE, not_patched="writing it again failed: x")
    early, late = ErrorTally(), ErrorTally()
    early.add(good, t_ns=1)
    late.add(bad, t_ns=2)
    late.add(good, t_ns=3)
    early.merge(ErrorTally.of(Counters.model_validate_json(Counters(errors=late.copied()).model_dump_json()).errors))
    [group] = early.ordered()
    assert (group.count, group.patched, group.first.number, group.first.patched) == (3, 2, 7, True)
    assert describe(group).startswith("3 CRC errors (ESE -1021 JET_errDiskReadVerificationFailure) in database pages, "
                                      f"2 of them {PATCHED}; the first at page 7 of {path}")
    only = ErrorTally()
    only.add(bad, t_ns=1)
    assert ", not patched: writing it again failed: x; the first at page 9" in describe(only.ordered()[0])
    older = {"count": 1, "first_ns": 1, "first": {k: v for k, v in asdict(good).items() if "patch" not in k}}
    assert Counters.model_validate({"errors": [older]}).errors[0].first.patched is False  # an older sample
