"""Database Checksum on real files: damage injected into real test databases and logs is every bit found and
classified, a clean database reads clean, a rerun finds the same, and a stopped scan reports what it covered."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from engine.io.file_names import database_file_path, log_file_path
from engine.io.pages import HEADER_BYTES, SECTOR_BYTES, ErrorKind
from engine.model import config as model
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.protocol import Phase, ProgressEvent
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome
from engine.run.runner import Runner
from reporting.bundle import load_run
from tests.conftest import small_config

PAGE = PAGE_SIZE_BYTES


def _checksum(base: Path, out: Path, **overrides: object):
    config = small_config(base, test_type=model.TestType.DATABASE_CHECKSUM, **overrides)
    return config, Runner(config, out, lambda _event: None).run()


def _patch(path: Path, offset: int, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, data, offset)
    finally:
        os.close(fd)


def _read(path: Path, offset: int, length: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read(length)


def _flip(path: Path, offset: int) -> None:
    _patch(path, offset, bytes([_read(path, offset, 1)[0] ^ 0x5A]))


def test_every_injected_page_is_found_and_classified_and_a_rerun_finds_the_same(tmp_path):
    base = tmp_path / "data"
    config, first = _checksum(base, tmp_path / "clean")  # creates the databases and logs, then checks them
    assert first.verdict == Outcome.PASS, first.summary.reasons
    assert [d.seen_pages for d in first.scan.databases] == [config.database_pages] * 2
    db = database_file_path(config.databases[0].database_path, 0)
    # bytes flipped in two page bodies, in different sectors of the page
    _flip(db, 5 * PAGE + 3 * SECTOR_BYTES + 100)
    _flip(db, 200 * PAGE + PAGE - 1)
    # a misdirected write: page 41's contents where page 33 belongs (a valid page, of the wrong number)
    _patch(db, 33 * PAGE, _read(db, 41 * PAGE, PAGE))
    # a page that never reached the disk
    _patch(db, 100 * PAGE, bytes(PAGE))
    # a flipped byte in the body of a log sector of the first instance's fourth log file
    log = log_file_path(config.databases[0].log_path, 0, 3)
    _flip(log, 9 * SECTOR_BYTES + HEADER_BYTES + 10)

    for run in ("damaged", "again"):  # a checksum reads, never writes: a rerun finds exactly the same
        result = Runner(config, tmp_path / run, lambda _event: None).run()
        assert result.verdict == Outcome.FAIL
        damaged, clean = result.scan.databases
        assert (damaged.bad_pages, damaged.wrong_page_number_pages, damaged.uninitialised_pages) == (2, 1, 1)
        assert damaged.unreadable_pages == damaged.correctable_pages == 0
        assert [(p.page, p.offset, p.kind) for p in damaged.first_damaged] == [
            (5, 5 * PAGE, ErrorKind.CHECKSUM), (33, 33 * PAGE, ErrorKind.WRONG_NUMBER),
            (100, 100 * PAGE, ErrorKind.UNINITIALISED), (200, 200 * PAGE, ErrorKind.CHECKSUM),
        ]
        assert damaged.log_sectors_damaged == 1 and damaged.log_files == 16
        assert clean.damaged_pages == clean.log_sectors_damaged == 0 and clean.complete
        assert damaged.seen_pages == damaged.pages == config.database_pages
        reasons = " ".join(result.summary.reasons)
        assert "Instance 1: 4 damaged pages" in reasons and "ESE -1018" in reasons and "ESE -1118" in reasons
        assert "1 damaged log sector" in reasons and "Instance 2" not in reasons
        failed = sorted((c.name, c.value) for c in result.criteria if not c.passed)
        assert failed == [("damaged database pages", 4), ("damaged log sectors", 1)]
        # the same pages are in the run's I/O error groups and in its samples
        kinds = {(g.kind, g.unit): g.count for g in result.error_groups}
        assert kinds == {(ErrorKind.CHECKSUM, "page"): 2, (ErrorKind.WRONG_NUMBER, "page"): 1,
                         (ErrorKind.UNINITIALISED, "page"): 1, (ErrorKind.CHECKSUM, "log sector"): 1}
        assert sum(s.summary.io_errors for s in read_samples(tmp_path / run)) == 5
        assert read_result(tmp_path / run).scan == result.scan


def test_a_clean_database_of_a_gigabyte_reads_clean(tmp_path):
    config, result = _checksum(tmp_path / "data", tmp_path / "out", databases=1,
                               profile={"mailboxes": 1024, "iops_per_mailbox": 0.1, "mailbox_size_mb": 1})
    assert config.database_size_bytes >= 1 << 30
    (scan,) = result.scan.databases
    assert result.verdict == Outcome.PASS, result.summary.reasons
    assert scan.seen_pages == scan.pages == config.database_pages and scan.damaged_pages == 0
    assert scan.bytes_read == config.database_size_bytes and scan.complete
    assert result.summary.db_read_avg_bytes == pytest.approx(64 * 1024, rel=0.01)  # Jetstress's 64 KiB reads


@pytest.mark.skipif(sys.platform == "win32", reason="the slow device queues on flock")
def test_a_stopped_checksum_reports_what_it_covered_and_the_report_says_so(tmp_path):
    from tests.faults.slow_device import SlowDevice

    base = tmp_path / "data"
    _checksum(base, tmp_path / "create")
    config = small_config(base, test_type=model.TestType.DATABASE_CHECKSUM)
    device = SlowDevice(tmp_path / "spindle.lock", service_ms=4.0)
    runner: Runner

    def emit(event: object) -> None:
        if isinstance(event, ProgressEvent) and event.phase == Phase.MEASURING and event.done_bytes:
            runner.request_stop("stopped by the user")

    runner = Runner(config, tmp_path / "stopped", emit, backend=device)
    result = runner.run()
    assert result.verdict == Outcome.ABORTED
    covered = sum(d.seen_pages for d in result.scan.databases)
    assert 0 < covered < 2 * config.database_pages
    assert "the scan covered" in result.summary.reasons[0] and "what it covered is reported" in result.summary.reasons[0]
    assert read_samples(tmp_path / "stopped")
    bundle = load_run(str(tmp_path / "stopped"))
    assert bundle.result.scan == result.scan


def test_a_killed_checksum_is_rebuilt_from_its_samples_with_how_far_each_database_got(tmp_path):
    from engine.run.samples import rebuild_result

    config, finished = _checksum(tmp_path / "data", tmp_path / "done")
    samples = read_samples(tmp_path / "done")
    rebuilt = rebuild_result(config, samples, finished.run_id, "the engine process was killed")
    assert rebuilt.verdict == Outcome.ABORTED and "the engine process was killed" in rebuilt.summary.reasons[0]
    for got, done in zip(rebuilt.scan.databases, finished.scan.databases, strict=True):
        # the samples carry each database's reads (its logs are counted apart), so the rebuilt scan covers what it read
        assert got.bytes_read == pytest.approx(done.bytes_read, rel=0.01)
        assert got.seen_pages == pytest.approx(done.seen_pages, rel=0.01) and not got.complete
    assert "the scan covered" in rebuilt.summary.reasons[0]
