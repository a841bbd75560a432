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
from engine.model.config import PAGE_SIZE_BYTES, TestConfig
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
    [group] = [g for g in losing.error_groups if g.kind == ErrorKind.LOST_FLUSH]
    assert (group.ese_error, group.ese_name, group.title) == (-1119, "JET_errReadLostFlushVerifyFailure", "lost flush")
    assert (group.first_file, group.first_number) in lost  # a page whose write the storage lost, and no other
    assert group.first_offset == group.first_number * PAGE_SIZE_BYTES
    assert group.first_message.startswith(
        f"lost flush (ESE -1119 JET_errReadLostFlushVerifyFailure) reading page {group.first_number} of "
        f"{group.first_file} at byte offset {group.first_offset:,}: it reads back older than its last write")
    # judged as Jetstress 2013 judges any I/O error: it fails the test, which stops there
    assert any("lost flush" in reason for reason in losing.summary.reasons), losing.summary.reasons
    assert {g.kind for g in losing.error_groups} == {ErrorKind.LOST_FLUSH}  # nothing else was wrong with the storage

    ledger = tmp_path / "ahead.txt"
    ahead = _run(_config(tmp_path / "ahead"), tmp_path / "ahead-run", AheadDevice(ledger, every=5))
    assert ahead.verdict == Outcome.FAIL
    [group] = ahead.error_groups
    assert (group.kind, group.ese_error, group.ese_name) == (ErrorKind.TOO_NEW, -567, "JET_errDbTimeTooNew")
    assert (group.first_file, group.first_number) in pages_ahead(ledger)
    assert group.first_message.startswith(f"page newer than any write (ESE -567 JET_errDbTimeTooNew) reading page "
                                          f"{group.first_number} of {group.first_file}")
    assert f"write sequence {FUTURE:,}, past the newest the test can have given" in group.first_message
