"""Storage that acknowledges a write and never makes it fails the test on the first page read back older than its
last write: a lost flush (ESE -1119); storage that returns a page no write made, newer than any, fails it too
(DbtimeTooNew, -567): each named by its database, page and byte offset, as Jetstress 2013 finds them.

The faults are real: `tests.faults.losing_device` drops one database page write in ten on its way to the real file,
so the page keeps its older, self-consistent content, or returns one page read in five with a write sequence from the
future, and the run reads through real unbuffered I/O. The same design through the platform's own I/O, beside them,
passes with no error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.io.pages import ErrorKind
from engine.model.config import TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.schema import Outcome, RunResult
from engine.run.runner import Runner
from tests.conftest import small_config

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the faulty devices are built on the POSIX backend")


def _config(folder: Path) -> TestConfig:
    return small_config(folder, duration_s=4.0, background_maintenance=False, seed=11)


def _run(config: TestConfig, folder: Path, backend: object) -> RunResult:
    return Runner(config, folder, lambda _event: None, backend=backend).run()  # type: ignore[arg-type]


def test_a_lost_write_and_a_page_from_the_future_each_fail_the_run_at_their_page_beside_a_clean_control(tmp_path):
    from tests.faults.losing_device import FUTURE, AheadDevice, LosingDevice, lost_pages, pages_ahead
    from tests.faults.pass_through import PassThroughBackend

    clean = _run(_config(tmp_path / "clean"), tmp_path / "clean-run", PassThroughBackend())
    assert clean.verdict == Outcome.PASS, clean.summary.reasons
    assert clean.error_groups == [] and clean.summary.io_errors == 0

    ledger = tmp_path / "lost.txt"
    losing = _run(_config(tmp_path / "losing"), tmp_path / "losing-run", LosingDevice(ledger, every=10))
    lost = lost_pages(ledger)
    assert lost, "the device lost no write"
    assert losing.verdict == Outcome.FAIL
    groups = losing.error_groups  # one an instance that met it before the stop reached the other
    assert groups and {g.kind for g in groups} == {ErrorKind.LOST_FLUSH}  # nothing else was wrong with the storage
    for group in groups:
        assert (group.ese_error, group.ese_name, group.title) == (-1119, "JET_errReadLostFlushVerifyFailure", "lost flush")
        assert (group.first_file, group.first_number) in lost  # a page whose write the storage lost, and no other
        assert group.first_offset == group.first_number * PAGE_SIZE_BYTES
        assert group.first_message.startswith(
            f"lost flush (ESE -1119 JET_errReadLostFlushVerifyFailure) reading page {group.first_number} of "
            f"{group.first_file} at byte offset {group.first_offset:,}: it reads back older than its last write")
    # judged as Jetstress 2013 judges any I/O error: it fails the test, which stops there
    assert any("lost flush" in reason for reason in losing.summary.reasons), losing.summary.reasons

    ledger = tmp_path / "ahead.txt"
    ahead = _run(_config(tmp_path / "ahead"), tmp_path / "ahead-run", AheadDevice(ledger, every=5))
    assert ahead.verdict == Outcome.FAIL
    assert ahead.error_groups  # one an instance that met it before the stop reached the other
    for group in ahead.error_groups:
        assert (group.kind, group.ese_error, group.ese_name) == (ErrorKind.TOO_NEW, -567, "JET_errDbTimeTooNew")
        assert (group.first_file, group.first_number) in pages_ahead(ledger)
        assert group.first_message.startswith(f"page newer than any write (ESE -567 JET_errDbTimeTooNew) reading page "
                                              f"{group.first_number} of {group.first_file}")
        assert f"write sequence {FUTURE:,}, past the newest the test can have given" in group.first_message


def _checksum(base: Path, out: Path) -> RunResult:
    from engine.model.config import TestType

    config = small_config(base, test_type=TestType.DATABASE_CHECKSUM)
    return Runner(config, out, lambda _event: None).run()


def test_a_checksum_in_another_process_finds_the_writes_lost_in_a_test_by_its_flush_map_and_a_clean_one_none(tmp_path):
    from tests.faults.losing_device import LosingDevice, lost_pages
    from tests.faults.pass_through import PassThroughBackend

    clean_base, losing_base = tmp_path / "clean", tmp_path / "losing"
    clean = _run(_config(clean_base), tmp_path / "clean-run", PassThroughBackend())
    assert clean.verdict == Outcome.PASS, clean.summary.reasons
    checked = _checksum(clean_base, tmp_path / "clean-checksum")
    assert checked.verdict == Outcome.PASS and checked.scan is not None
    assert [(row.damaged_pages, row.flush_map) for row in checked.scan.databases] == [(0, ""), (0, "")]  # maps read

    ledger = tmp_path / "lost.txt"
    # the test stops at the first lost write it reads back; the others stay on the disk, older than their last write
    _run(_config(losing_base), tmp_path / "losing-run", LosingDevice(ledger, every=10))
    lost = lost_pages(ledger)
    found = _checksum(losing_base, tmp_path / "losing-checksum")
    assert found.verdict == Outcome.FAIL and found.scan is not None
    rows = found.scan.databases
    assert sum(row.lost_flush_pages for row in rows) >= 1 and all(row.flush_map == "" for row in rows)
    assert all(row.damaged_pages == row.lost_flush_pages for row in rows)  # nothing else was wrong with the storage
    named = {(row.database_file, d.page) for row in rows for d in row.first_damaged}
    assert named and named <= lost  # only pages whose write the storage lost
    assert all(d.kind == ErrorKind.LOST_FLUSH and d.offset == d.page * PAGE_SIZE_BYTES
               for row in rows for d in row.first_damaged)
    [group, *_] = [g for g in found.error_groups if g.kind == ErrorKind.LOST_FLUSH]
    assert "where its flush map says" in group.first_message and group.ese_error == -1119


def test_a_flush_map_is_trusted_only_once_a_run_ended_cleanly_at_every_step_a_kill_can_stop_it(tmp_path):
    """Each step of the map's writing, stopped there as a kill stops it, leaves nothing a scan would read a good page
    against as lost: before a run's first write the map says open, while its states are written it still does, and a
    header torn by a crash fails its checksum; only the last step makes it clean."""
    from engine.io.flush_file import clean_states, close_clean, flush_map_path, open_for_run
    from engine.io.pages import SECTOR_BYTES
    from engine.io.platform import default_backend

    backend, database, db_id = default_backend(), tmp_path / "Jetwise001.jwdb", b"d" * 16
    path = flush_map_path(database)
    assert clean_states(path, db_id, 0) == (None, "it has no flush map (an earlier Jetwise made it, or its map was removed)")
    assert open_for_run(backend, database, db_id, 0) is None
    opened = clean_states(path, db_id, 0)
    assert opened[0] is None and "left open" in opened[1]  # killed while the run writes pages: nothing told
    close_clean(backend, database, db_id, 0, b"\x1b" * 5)
    assert clean_states(path, db_id, 0) == (bytearray(b"\x1b" * 5), "")
    assert open_for_run(backend, database, db_id, 0) == bytearray(b"\x1b" * 5)  # the next run starts from them
    assert "left open" in clean_states(path, db_id, 0)[1]

    # killed between the states and the header: the first step's header says open still
    from engine.io.flush_file import _write
    from engine.io.pages import FlushMapHeader

    _write(backend, path, FlushMapHeader(db_id, 0, 5, clean=False), b"\x2d" * 5)
    assert "left open" in clean_states(path, db_id, 0)[1]
    close_clean(backend, database, db_id, 0, b"\x2d" * 5)
    assert clean_states(path, db_id, 0) == (bytearray(b"\x2d" * 5), "")
    with open(path, "r+b") as handle:  # ... and a header the crash tore
        handle.seek(20)
        handle.write(b"\xff")
    assert clean_states(path, db_id, 0) == (None, "its flush map's header is damaged")
    assert path.stat().st_size >= SECTOR_BYTES
    close_clean(backend, database, db_id, 0, b"\x2d" * 5)  # Jetwise's own damaged map is made again, never refused
    assert clean_states(path, b"e" * 16, 0) == (None, "its flush map is another database's (the database was made again since)")
