"""Storage that returns another page's content, fails an I/O with an operating system error, or cannot read a page
back for a data (CRC) error fails the test at that page, by its kind, ESE error, file, page and byte offset, as
Jetstress 2013 finds them (-1118, -1022, -1021); a Database checksum in another process finds each the same way. A
CRC error's page is patched, as Jetstress 2013 simulates Exchange's page patching: written again and read back good,
so a test that continues despite I/O errors runs to its end meeting each bad page once.

The faults are real: the devices (`tests.faults.wrong_page_device`, `failing_device`, `crc_device`) change what the
real files give back under real unbuffered I/O, and write down what they did; the same design through the platform's
own I/O, beside them, meets no I/O error.
"""

from __future__ import annotations

import csv
import hashlib
import sys
from pathlib import Path

import pytest

from engine.io.file_names import database_file_path
from engine.io.pages import ErrorKind
from engine.model import config as model
from engine.model.config import TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.schema import Outcome, RunResult
from engine.run.runner import Runner
from engine.workload.errors import PATCHED, STOP_REASON
from engine.workload.scan import NEVER_WRITES
from tests.conftest import small_config

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the faulty devices are built on the POSIX backend")

DURATION_S = 3.0
PAGE = PAGE_SIZE_BYTES


def _config(folder: Path, **overrides: object) -> TestConfig:
    return small_config(folder, duration_s=DURATION_S, background_maintenance=False, seed=11, **overrides)


def _run(config: TestConfig, folder: Path, backend: object) -> RunResult:
    return Runner(config, folder, lambda _event: None, backend=backend).run()  # type: ignore[arg-type]


def _checksum(base: Path, out: Path, backend: object) -> RunResult:
    return _run(small_config(base, test_type=model.TestType.DATABASE_CHECKSUM), out, backend)


def _no_io_error(result: RunResult) -> None:
    assert result.error_groups == [] and result.summary.io_errors == 0
    if result.scan is not None:
        assert [row.damaged_pages for row in result.scan.databases] == [0, 0]


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The design through the platform's own I/O, and a checksum of its databases: no I/O error in either; the
    databases the checksums below read through the faulty devices."""
    from tests.faults.pass_through import PassThroughBackend

    root = tmp_path_factory.mktemp("control")
    _no_io_error(_run(_config(root / "data"), root / "run", PassThroughBackend()))
    _no_io_error(_checksum(root / "data", root / "checksum", PassThroughBackend()))
    return root / "data"


def test_another_pages_content_is_a_wrong_page_number_at_its_page_in_a_test_and_in_a_checksum(tmp_path, control):
    from tests.faults.wrong_page_device import WrongPageDevice, wrong_pages

    ledger = tmp_path / "wrong.txt"
    result = _run(_config(tmp_path / "data"), tmp_path / "run", WrongPageDevice(ledger, every=50))
    returned = wrong_pages(ledger)
    assert result.verdict == Outcome.FAIL and returned
    assert result.error_groups and {g.kind for g in result.error_groups} == {ErrorKind.WRONG_NUMBER}
    for group in result.error_groups:  # one an instance that met it before the stop reached the other
        assert (group.ese_error, group.ese_name, group.title) == (-1118, "JET_errReadPgnoVerifyFailure", "wrong page number")
        other = returned[(group.first_file, group.first_number)]  # a page whose read the device gave another's
        assert group.first_offset == group.first_number * PAGE
        assert group.first_message.startswith(
            f"wrong page number (ESE -1118 JET_errReadPgnoVerifyFailure) reading page {group.first_number} of "
            f"{group.first_file} at byte offset {group.first_offset:,}: it holds page {other}: ")

    ledger = tmp_path / "checksum.txt"
    found = _checksum(control, tmp_path / "checksum", WrongPageDevice(ledger, every=7))
    returned = wrong_pages(ledger)
    assert found.verdict == Outcome.FAIL and found.scan is not None
    for row in found.scan.databases:
        mine = {page for path, page in returned if path == row.database_file}
        assert mine and row.wrong_page_number_pages == row.damaged_pages == len(mine)
        assert all(d.kind == ErrorKind.WRONG_NUMBER and d.page in mine and d.offset == d.page * PAGE
                   for d in row.first_damaged)
    assert all(g.ese_error == -1118 and (g.first_file, g.first_number) in returned for g in found.error_groups)


def test_an_io_the_operating_system_fails_is_an_io_error_reading_or_writing_at_its_page_and_in_a_checksum(tmp_path, control):
    from tests.faults.failing_device import FailingDevice, failed_ios

    for what, doing, device in (("read", "reading", {"reads_every": 50}), ("write", "writing", {"writes_every": 50})):
        ledger = tmp_path / f"{what}.txt"
        result = _run(_config(tmp_path / what), tmp_path / f"{what}-run", FailingDevice(ledger, **device))
        failed = {(path, offset) for path, offset, _size in failed_ios(ledger, what)}
        assert result.verdict == Outcome.FAIL and failed
        assert result.error_groups and {g.kind for g in result.error_groups} == {ErrorKind.DISK_IO}
        for group in result.error_groups:
            assert (group.ese_error, group.ese_name, group.title) == (-1022, "JET_errDiskIO", "I/O error")
            assert (group.first_file, group.first_offset) in failed and group.first_number == group.first_offset // PAGE
            assert group.first_stream == f"db_{what}"
            assert group.first_message == (
                f"I/O error (ESE -1022 JET_errDiskIO) {doing} page {group.first_number} of {group.first_file} at byte "
                f"offset {group.first_offset:,}: the operating system says: Input/output error")
        assert STOP_REASON in result.summary.reasons

    ledger = tmp_path / "checksum.txt"
    found = _checksum(control, tmp_path / "checksum", FailingDevice(ledger, reads_every=7))
    assert found.verdict == Outcome.FAIL and found.scan is not None
    reads = failed_ios(ledger, "read")
    for row in found.scan.databases:
        # each page of a failed read is unreadable, and the read's error is counted once, where it began
        pages = {offset // PAGE + i for path, offset, size in reads if path == row.database_file for i in range(size // PAGE)}
        assert pages and row.unreadable_pages == row.damaged_pages == len(pages)
        assert all(d.kind == ErrorKind.DISK_IO and d.page in pages for d in row.first_damaged)
    began = {(path, offset) for path, offset, _size in reads}
    assert all(g.ese_error == -1022 and (g.first_file, g.first_offset) in began for g in found.error_groups)


def test_a_crc_error_fails_the_test_at_its_page_which_is_patched_written_again_and_read_back_good(tmp_path):
    from tests.faults.crc_device import CrcDevice, CrcLedger

    ledger = tmp_path / "crc.txt"
    result = _run(_config(tmp_path / "data"), tmp_path / "run", CrcDevice(ledger, every=40, most=1))
    disk = CrcLedger(ledger)
    assert result.verdict == Outcome.FAIL and disk.bad
    assert result.error_groups and {g.kind for g in result.error_groups} == {ErrorKind.CRC_ERROR}
    for group in result.error_groups:
        assert (group.ese_error, group.ese_name, group.title) == (-1021, "JET_errDiskReadVerificationFailure", "CRC error")
        assert (group.first_file, group.first_number) in disk.bad and group.first_offset == group.first_number * PAGE
        assert (group.first_file, group.first_number) in disk.mended  # the patch wrote it, and the drive remapped it
        assert group.patched == group.count and group.patch == PATCHED
        assert group.first_message == (
            f"CRC error (ESE -1021 JET_errDiskReadVerificationFailure) reading page {group.first_number} of "
            f"{group.first_file} at byte offset {group.first_offset:,}: the operating system failed the read for a data "
            f"error, the drive could not read it back as written: Bad message; {PATCHED}")
        assert any(reason.startswith(f"{group.instance}: 1 CRC error (ESE -1021 JET_errDiskReadVerificationFailure) in "
                                     f"database pages, {PATCHED}; the first at page {group.first_number} of ")
                   for reason in result.summary.reasons)
    assert STOP_REASON in result.summary.reasons  # as any I/O error, it stops the test unless it continues


def test_a_test_that_continues_despite_errors_meets_each_crc_page_once_and_its_patches_keep_the_flush_map_right(tmp_path):
    from tests.faults.crc_device import CrcDevice, CrcLedger
    from tests.faults.pass_through import PassThroughBackend

    ledger = tmp_path / "crc.txt"
    result = _run(_config(tmp_path / "data", continue_on_errors=True), tmp_path / "run", CrcDevice(ledger, every=40, most=3))
    disk = CrcLedger(ledger)
    assert len(disk.bad) == 6  # three pages of each database went bad while the test ran
    assert result.summary.measured_s == pytest.approx(DURATION_S)  # to its planned end
    assert result.verdict == Outcome.FAIL and STOP_REASON not in result.summary.reasons
    assert result.summary.io_errors_by_kind == {"crc_error": 6}  # each bad page met once: none read bad again
    assert sorted((path, offset // PAGE) for path, offset, _size in disk.failed) == sorted(disk.bad)
    assert sorted(disk.mended) == sorted(disk.bad)
    assert {(g.kind, g.count, g.patched, g.patch) for g in result.error_groups} == {
        (ErrorKind.CRC_ERROR, 3, 3, f"each {PATCHED}")}

    # each patch was a flush as the flush map knows it: a checksum reads the run's map and every page good
    checked = _checksum(tmp_path / "data", tmp_path / "checksum", PassThroughBackend())
    _no_io_error(checked)
    assert checked.scan is not None and [row.flush_map for row in checked.scan.databases] == ["", ""]


def test_a_checksum_names_its_crc_errors_in_the_files_order_when_a_later_pages_read_fails_first(tmp_path, control):
    from tests.faults.crc_device import CrcDevice, CrcLedger

    config = small_config(control, test_type=model.TestType.DATABASE_CHECKSUM)
    ledger = tmp_path / "crc.txt"
    found = _checksum(control, tmp_path / "checksum", CrcDevice(ledger, pages=(17, 130), late=True))
    failed = [offset // PAGE for _path, offset, size in CrcLedger(ledger).failed if size > PAGE]
    assert len(failed) == 2 * config.database_count  # one read over each bad page of each database failed
    assert found.scan is not None
    for row in found.scan.databases:
        assert [(d.page, d.kind) for d in row.first_damaged] == [(17, ErrorKind.CRC_ERROR), (130, ErrorKind.CRC_ERROR)]
    assert [(group.count, group.first_number) for group in found.error_groups] == [(2, 17)] * config.database_count


def test_a_checksum_finds_a_crc_error_by_page_and_offset_and_never_writes_into_the_database(tmp_path, control):
    from tests.faults.crc_device import CrcDevice, CrcLedger

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    config = small_config(control, test_type=model.TestType.DATABASE_CHECKSUM)
    files = [database_file_path(spec.database_path, index) for index, spec in enumerate(config.databases)]
    before = [digest(path) for path in files]
    ledger = tmp_path / "crc.txt"
    found = _checksum(control, tmp_path / "checksum", CrcDevice(ledger, pages=(17, 130)))
    assert found.verdict == Outcome.FAIL and found.scan is not None
    for row in found.scan.databases:
        assert row.crc_error_pages == row.damaged_pages == 2
        assert [(d.page, d.offset, d.kind) for d in row.first_damaged] == [
            (17, 17 * PAGE, ErrorKind.CRC_ERROR), (130, 130 * PAGE, ErrorKind.CRC_ERROR)]
        assert any(f"2 CRC error (ESE -1021) not patched, as {NEVER_WRITES}" in reason for reason in found.summary.reasons)
    for group in found.error_groups:
        assert (group.kind, group.ese_error, group.count, group.first_number) == (ErrorKind.CRC_ERROR, -1021, 2, 17)
        assert group.patched == 0 and group.patch == f"not patched: {NEVER_WRITES}"
        assert group.first_message.endswith(f"Bad message; not patched: {NEVER_WRITES}")
    assert CrcLedger(ledger).mended == [] and [digest(path) for path in files] == before  # nothing written

    # the report's checksum table and damaged pages, and the CSV, name them as any damaged page
    from reporting.bundle import load_run
    from reporting.csv_export import write_csv
    from reporting.document import render_html
    from tests.reporting.reading import html_text

    bundle = load_run(str(tmp_path / "checksum"))
    text = html_text(render_html(bundle))
    assert "Unreadable pages CRC error pages Lost flush pages" in text
    assert f"Instance 1 17 {17 * PAGE:,} CRC error -1021 JET_errDiskReadVerificationFailure" in text
    assert "They are not patched: a Database checksum reads the database and never writes into it" in text
    write_csv(bundle, tmp_path / "checksum.csv")
    rows = [row for row in csv.DictReader((tmp_path / "checksum.csv").open(encoding="utf-8")) if row["phase"] == "scan"]
    assert [(row["crc_error_pages"], row["damaged_pages"]) for row in rows] == [("2", "2"), ("2", "2")]
