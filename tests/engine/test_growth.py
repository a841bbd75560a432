"""A database grows as ESE's does: new pages at its end in steps of the extension size, real pages the next test
attaches and a checksum reads, about 290 bytes per database transfer at the ESRP paper's mix and cache."""

from __future__ import annotations

import errno
import time
from pathlib import Path
from typing import Any

import pytest

from engine.io.file_names import database_file_path
from engine.io.files import prepare_database
from engine.io.pages import page_fault, read_database_header
from engine.io.platform import AlignedBuffer, IoFile, default_backend
from engine.model.config import DatabaseSource, default_config
from engine.model.config import TestType as Kind
from engine.model.growth import EXTENSION_PAGES, growth_bound_bytes, growth_bytes_per_transaction, growth_words
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.figures import database_bytes
from engine.results.jetstress_log import StallSamples
from engine.run.runner import Runner
from engine.run.streams import mix_of
from engine.workload.context import InstanceContext, RunClock
from engine.workload.growth import Growth
from engine.workload.stats import DB_WRITE, ThreadMeter
from tests.conftest import small_config

PAGES = 64
PAPER_BYTES_PER_TRANSFER = 12_171_870_208 / (5831.316 * 7200)  # Final less Initial Database Size over its transfers


class _Database:
    """A fresh database of `PAGES` pages and the growth of it, as an instance holds them."""

    def __init__(self, folder: Path, backend: Any = None) -> None:
        self.backend = backend or default_backend()
        self.path = folder / "db.jwdb"
        unbuffered = self.backend.probe_unbuffered(folder).supported
        prepare_database(self.backend, self.path, PAGES, DatabaseSource.CREATE, unbuffered=unbuffered)
        now = time.perf_counter_ns()
        self.problems: list[Any] = []
        ctx = InstanceContext(self.backend, "Instance 1", RunClock(now, 10**12, now + 10**13),
                              lambda _name, problem: self.problems.append(problem), lambda *_: None, unbuffered)
        self.meter = ThreadMeter("Instance 1", now, 10**12)
        self.db = self.backend.open_file(self.path, create=False, writable=True, unbuffered=unbuffered, write_through=False)
        self.growth = Growth(ctx, self.meter, self.backend, self.db, 0, seed=1)


def test_new_pages_come_from_the_end_in_steps_of_the_extension_size(tmp_path):
    base = _Database(tmp_path)
    assert base.path.stat().st_size == PAGES * PAGE_SIZE_BYTES
    taken = [base.growth.take() for _ in range(EXTENSION_PAGES + 1)]
    base.db.close()
    assert taken == list(range(PAGES, PAGES + EXTENSION_PAGES + 1))  # each new page once, in order
    assert base.path.stat().st_size == (PAGES + 2 * EXTENSION_PAGES) * PAGE_SIZE_BYTES  # two steps, the second begun
    header = read_database_header(base.path)
    assert (header.pages_planned, header.pages_created) == (PAGES, PAGES + 2 * EXTENSION_PAGES)
    # every page written is a page of this database, its number and checksum right
    data = base.path.read_bytes()
    for page in range(1, PAGES + 2 * EXTENSION_PAGES):
        view = memoryview(data)[page * PAGE_SIZE_BYTES:(page + 1) * PAGE_SIZE_BYTES]
        assert page_fault(view, header.db_id, page, PAGE_SIZE_BYTES, True) is None, page
    assert base.problems == []


def test_the_next_test_attaches_the_grown_database_and_grows_it_on(tmp_path):
    first = _Database(tmp_path)
    first.growth.take()
    first.db.close()
    grown = read_database_header(first.path)
    # the planned size is unchanged, so creating (or attaching) again keeps the grown file
    again = prepare_database(default_backend(), first.path, PAGES, DatabaseSource.CREATE, unbuffered=False)
    assert again == grown and again.complete
    db = default_backend().open_file(first.path, create=False, writable=True, unbuffered=False, write_through=False)
    growth = Growth(first.growth._ctx, first.meter, default_backend(), db, 0, seed=2)
    assert growth.used == growth.end == PAGES + EXTENSION_PAGES
    assert growth.take() == PAGES + EXTENSION_PAGES
    db.close()
    assert read_database_header(first.path).pages_created == PAGES + 2 * EXTENSION_PAGES


class _FullVolume:
    """The real backend whose writes past the database's first pages fail as a full volume's do."""

    def __init__(self) -> None:
        self.real = default_backend()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def open_file(self, path: Path, **kwargs: Any) -> IoFile:
        handle = self.real.open_file(path, **kwargs)
        write = handle.write_from

        def write_from(buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
            if offset >= PAGES * PAGE_SIZE_BYTES:
                raise OSError(errno.ENOSPC, "No space left on device")
            return write(buffer, offset, length)

        handle.write_from = write_from  # type: ignore[method-assign]
        return handle


def test_a_full_volume_is_an_io_error_once_and_the_insert_goes_on_without_a_new_page(tmp_path):
    base = _Database(tmp_path, _FullVolume())
    assert base.growth.take() is None
    assert base.growth.take() is None  # not tried again: the error was said once
    base.db.close()
    assert len(base.problems) == 1 and base.problems[0].stream == DB_WRITE
    assert "No space left" in base.problems[0].detail or base.problems[0].offset == PAGES * PAGE_SIZE_BYTES
    assert read_database_header(base.path).pages_created == PAGES  # the header never claims what was not written
    assert base.path.stat().st_size == PAGES * PAGE_SIZE_BYTES


def test_the_model_grows_the_papers_databases_by_290_bytes_per_transfer(tmp_path):
    """The paper's Performance run: 12 databases of 10,000 one-GB mailboxes, Jetstress's 3 GB cache, its mix."""
    config = default_config(tmp_path, databases=12, profile={"mailboxes": 10_000, "iops_per_mailbox": 0.5,
                                                             "mailbox_size_mb": 1024})
    work = mix_of(config)
    per_transfer = growth_bytes_per_transaction(config) / (work.reads + work.writes)
    assert per_transfer == pytest.approx(PAPER_BYTES_PER_TRANSFER, rel=0.05)
    # a test at 0.5 % of the production size grows by 0.5 % as much: in proportion, as its cache is
    scaled = config.model_copy(update={"capacity_percent": 0.5})
    assert growth_bytes_per_transaction(scaled) == pytest.approx(growth_bytes_per_transaction(config) * 0.005)


def test_the_most_a_test_grows_by_holds_the_papers_growth_and_a_scan_grows_nothing(tmp_path):
    """The reserve preflight makes on each volume: above the paper's Performance (12.17 GB) and Stress (149.8 GB)
    growth of its 12 databases, a Soft Recovery's bounded by its log files, none for a checksum or a backup."""
    config = default_config(tmp_path, databases=12, profile={"mailboxes": 10_000, "iops_per_mailbox": 0.5,
                                                             "mailbox_size_mb": 1024})
    assert 12.17e9 / 12 < growth_bound_bytes(config) < 5 * 12.17e9 / 12 and growth_words(config) == "a 2h1m run (its warm-up included)"
    stress = config.model_copy(update={"test_type": Kind.STRESS, "duration_s": 86_400.0})
    assert growth_bound_bytes(stress) > 149.8e9 / 12
    recovery = config.model_copy(update={"test_type": Kind.SOFT_RECOVERY, "warmup_s": 0.0})
    extension = EXTENSION_PAGES * PAGE_SIZE_BYTES  # 500 files of 1 MiB, an insert's 2,900 bytes each: 180,788 inserts
    assert growth_bound_bytes(recovery) == -(-180_788 * 0.0725 * 0.5 * PAGE_SIZE_BYTES // extension) * extension
    assert growth_words(recovery) == "the 500 log files per instance it generates"
    for scan in (Kind.DATABASE_CHECKSUM, Kind.DATABASE_BACKUP):
        assert growth_bound_bytes(config.model_copy(update={"test_type": scan})) == 0
    short = config.model_copy(update={"duration_s": 1.0, "warmup_s": 0.0})
    assert growth_bound_bytes(short) == extension  # a created database is full: its first split at the end grows it


def test_a_run_grows_its_databases_and_the_next_run_and_a_checksum_begin_from_there(disk_dir):
    data = disk_dir / "data"
    config = small_config(data, databases=1, duration_s=3.0)
    first = Runner(config, disk_dir / "first", lambda _e: None).run()
    row = first.instances[0]
    assert row.database_bytes_initial == config.database_size_bytes
    grown = row.database_bytes_final
    assert grown is not None and grown > row.database_bytes_initial
    assert (grown - row.database_bytes_initial) % (EXTENSION_PAGES * PAGE_SIZE_BYTES) == 0  # whole steps
    assert database_file_path(config.databases[0].database_path, 0).stat().st_size == grown
    assert database_bytes(first) == (row.database_bytes_initial, grown)

    second = Runner(config, disk_dir / "second", lambda _e: None).run()
    assert second.instances[0].database_bytes_initial == grown  # attached as the first run left it
    assert second.instances[0].database_bytes_final >= grown

    checksum = Runner(config.model_copy(update={"test_type": Kind.DATABASE_CHECKSUM}), disk_dir / "checksum",
                      lambda _e: None).run()
    scanned = checksum.scan.databases[0]
    assert scanned.file_bytes == second.instances[0].database_bytes_final  # the grown pages read, whole
    assert checksum.summary.io_errors == 0 and checksum.verdict.value == "pass"


def test_the_stalls_spread_over_the_samples():
    stalls = StallSamples()
    for value in (0.0, 2.5, 0.0, 6.0):
        stalls.observe(value)
    assert (stalls.samples, stalls.highest, stalls.over_zero) == (4, 6.0, 2)
