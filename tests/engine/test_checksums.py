"""Every database page read is checked against its checksum, as Jetstress's VerifyChecksum does."""

from __future__ import annotations

from engine.io.file_names import database_file_path
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.protocol import LogEvent
from engine.run.runner import Runner
from tests.conftest import small_config

FLIPPED_AT = 1000  # inside the first sector's data: the page header and sector stamps stay intact


def _flip_inside_every_page(config) -> int:
    pages = 0
    for index, spec in enumerate(config.databases):
        path = database_file_path(spec.database_path, index)
        with path.open("r+b") as handle:
            size = path.stat().st_size
            for offset in range(PAGE_SIZE_BYTES, size, PAGE_SIZE_BYTES):  # page 0 is the file header
                handle.seek(offset + FLIPPED_AT)
                data = handle.read(16)
                handle.seek(offset + FLIPPED_AT)
                handle.write(bytes(b ^ 0xFF for b in data))
                pages += 1
    return pages


def _run(config, out):
    events: list = []
    result = Runner(config, out, events.append).run()
    return result, [e.message for e in events if isinstance(e, LogEvent)]


def test_pages_changed_inside_fail_the_run_and_are_named(disk_dir):
    config = small_config(disk_dir / "data")
    first, _ = _run(config, disk_dir / "create")
    assert first.summary.verdict == "pass", first.summary.reasons
    assert _flip_inside_every_page(config) > 100

    corrupted, log = _run(config, disk_dir / "verify")
    assert corrupted.summary.verdict == "fail"
    assert any("bad checksum (ESE -1018 JET_errReadVerifyFailure) in database pages" in reason
               or "bad checksums (ESE -1018 JET_errReadVerifyFailure) in database pages" in reason
               for reason in corrupted.summary.reasons), corrupted.summary.reasons
    assert any("bad checksum (ESE -1018 JET_errReadVerifyFailure) reading page" in line for line in log), log[-5:]


def test_with_verification_off_the_same_pages_pass_their_identity_check(disk_dir):
    config = small_config(disk_dir / "data", verify_checksum=False)
    _run(config, disk_dir / "create")
    _flip_inside_every_page(config)
    result, log = _run(config, disk_dir / "no-verify")
    assert result.summary.verdict == "pass", result.summary.reasons
    assert not any("checksum" in line for line in log)


def test_the_transaction_threads_single_page_check_verifies_the_checksum():
    """The hot path's per-page check (`page_problem`) is the one `check_pages` uses: identity, then checksum."""
    import threading

    from engine.io.pages import BlockWriter, ErrorKind
    from engine.workload.context import InstanceContext, RunClock, page_problem

    db_id = b"\x05" * 16
    buffer = memoryview(bytearray(PAGE_SIZE_BYTES))
    BlockWriter(db_id, seed=1).fill_page(buffer, 42, 0, PAGE_SIZE_BYTES)
    clock = RunClock(0, 1, 1, threading.Event())

    def context(verify: bool) -> InstanceContext:
        return InstanceContext(None, "Instance 1", clock, lambda *_: None, lambda *_: None, True, verify, "F:\\db.jwdb")

    assert page_problem(context(True), "db_read", buffer, db_id, 42) is None
    buffer[FLIPPED_AT] ^= 0xFF
    bad = page_problem(context(True), "db_read", buffer, db_id, 42)
    assert bad is not None and (bad.kind, bad.number, bad.offset) == (ErrorKind.CHECKSUM, 42, 42 * PAGE_SIZE_BYTES)
    assert str(bad).startswith("bad checksum (ESE -1018 JET_errReadVerifyFailure) reading page 42 of F:\\db.jwdb at byte offset 1,376,256")
    assert page_problem(context(False), "db_read", buffer, db_id, 42) is None
    misplaced = page_problem(context(True), "db_read", buffer, db_id, 7)
    assert misplaced is not None and misplaced.kind == ErrorKind.WRONG_NUMBER and "it holds page 42" in str(misplaced)


def test_pages_and_log_sectors_carry_the_standard_crc32_of_all_after_their_checksum_field():
    """The on-disk format's checksum is zlib's CRC-32, whichever implementation computes it: files written by any
    release verify in any other, and a tool outside Jetwise can check a page with the standard library alone."""
    import struct
    import zlib

    from engine.io.pages import SECTOR_BYTES, BlockWriter

    writer = BlockWriter(b"\x07" * 16, seed=3)
    page = memoryview(bytearray(PAGE_SIZE_BYTES))
    writer.fill_page(page, 9, 4, PAGE_SIZE_BYTES)
    assert struct.unpack_from("<I", page, 12)[0] == zlib.crc32(page[16:])
    log = memoryview(bytearray(2 * SECTOR_BYTES))
    writer.fill_log_write(log, len(log), 3, 0, SECTOR_BYTES, [(SECTOR_BYTES, 11, 5)])
    for at in (0, SECTOR_BYTES):
        assert struct.unpack_from("<I", log, at + 12)[0] == zlib.crc32(log[at + 16 : at + SECTOR_BYTES])
