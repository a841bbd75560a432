"""An instance of several database files (Jetstress's DatabasePaths): one log, one cache, its pages over its files.

Real files throughout: a Performance run writes into each file at its own page numbers, the next run attaches them,
a checksum reads every file and names the one a damaged page is in, a backup copies each, a Soft Recovery replays
into each, and an import of a JetstressConfig.xml keeps every path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.io.cleanup import leftover_files
from engine.io.file_names import backup_file_path, database_file_path, database_files
from engine.io.files import FileSafetyError, prepare_database
from engine.io.pages import page_fault, page_sequence, read_database_header
from engine.io.parts import PART_SHIFT, part_base, split_page
from engine.io.platform import default_backend
from engine.model import config as model
from engine.model.config import DatabaseSource, TestConfig
from engine.model.jetstress.loading import config_from_xml
from engine.model.jetstress.writing import write_xml
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.validation import check_rules
from engine.results.document import LOG_FILE
from engine.results.schema import Outcome
from engine.run.runner import Runner
from engine.run.sources.model import PROFILES, runner_for
from reporting.bundle import load_run
from reporting.document import render_html
from tests.conftest import small_config

pytestmark = pytest.mark.slow  # real runs on real files


def _two_files(base: Path, **overrides: object) -> TestConfig:
    """Two instances; the first keeps a second database file in a folder of its own."""
    config = small_config(base, **overrides)
    databases = [spec.model_dump(mode="json") for spec in config.databases]
    databases[0]["more_database_paths"] = [str(base / "DB1b")]
    return TestConfig.model_validate({**config.model_dump(mode="json"), "databases": databases})


def _pages(path: Path) -> list[tuple[int, bytes]]:
    """Each page of a database file after its header: (the sequence it was last written at, its bytes)."""
    data = path.read_bytes()
    return [(page_sequence(memoryview(data)[at:]), data[at:at + PAGE_SIZE_BYTES])
            for at in range(PAGE_SIZE_BYTES, len(data), PAGE_SIZE_BYTES)]


def test_a_run_spreads_an_instance_over_its_files_and_the_next_run_and_a_checksum_read_them_all(disk_dir):
    config = _two_files(disk_dir / "data")
    assert config.database_file_count == 3
    first, second = database_files(config.databases[0], 0)
    assert (first.name, second.name, second.parent.name) == ("Jetwise001.jwdb", "Jetwise001-2.jwdb", "DB1b")

    for number in (1, 2):  # the second run attaches what the first made
        result = Runner(config, disk_dir / f"run-{number}", lambda _event: None).run()
        assert result.verdict != Outcome.ABORTED, result.summary.reasons
        assert result.instances[0].more_database_files == [str(second)] and result.instances[1].more_database_files == []
        one, two = read_database_header(first), read_database_header(second)
        assert (one.part, two.part, two.db_id) == (0, 1, one.db_id)
    log = (disk_dir / "run-2" / LOG_FILE).read_text()
    assert f"{second} is already complete; attaching it" in log
    report = render_html(load_run(str(disk_dir / "run-2")))  # the report counts and names every file
    assert "<th>Database Files (Count)</th><td class=\"n\">3</td>" in report
    assert f"{first}<br>{second}" in report.replace("<wbr>", "") and "shared by its 3 databases" in report

    # the flushers wrote into the second file, each page at its own number in the instance's space
    written = 0
    for page, (sequence, block) in enumerate(_pages(second), start=1):
        buffer = memoryview(bytearray(block))
        assert page_fault(buffer, one.db_id, part_base(1) + page, PAGE_SIZE_BYTES, True) is None
        written += sequence > 0
    assert written > 0

    checksum = config.model_copy(update={"test_type": model.TestType.DATABASE_CHECKSUM})
    checked = Runner(checksum, disk_dir / "checksum", lambda _event: None).run()
    assert checked.verdict == Outcome.PASS, checked.summary.reasons
    row = checked.scan.databases[0]
    sizes = [read_database_header(path).pages_created for path in (first, second)]
    assert row.more_database_files == [str(second)] and row.pages == row.seen_pages == sum(sizes)

    damaged = second.read_bytes()
    at = 5 * PAGE_SIZE_BYTES + 1000
    second.write_bytes(damaged[:at] + bytes(b ^ 0xFF for b in damaged[at:at + 16]) + damaged[at + 16:])
    checked = Runner(checksum, disk_dir / "checksum-2", lambda _event: None).run()
    assert checked.verdict == Outcome.FAIL
    row = checked.scan.databases[0]
    assert row.bad_pages == 1 and [(d.page, d.offset) for d in row.first_damaged] == [(5, 5 * PAGE_SIZE_BYTES)]
    assert str(second) in " ".join(checked.summary.reasons)
    assert f"page 5 of {second}" in (disk_dir / "checksum-2" / LOG_FILE).read_text()


def test_a_backup_copies_each_file_and_cleaning_up_finds_them_all(disk_dir):
    config = _two_files(disk_dir / "data", test_type=model.TestType.DATABASE_BACKUP, backup_path=disk_dir / "backup")
    result = Runner(config, disk_dir / "backup-run", lambda _event: None).run()
    assert result.verdict == Outcome.PASS, result.summary.reasons
    row = result.scan.databases[0]
    copies = [backup_file_path(disk_dir / "backup", 0, part) for part in (0, 1)]
    assert [row.backup_file, *row.more_backup_files] == [str(path) for path in copies]
    for original, copy in zip(database_files(config.databases[0], 0), copies, strict=True):
        assert copy.read_bytes()[PAGE_SIZE_BYTES:] == original.read_bytes()[PAGE_SIZE_BYTES:]
    left = leftover_files(config)
    assert set(database_files(config.databases[0], 0)) | set(copies) <= set(left.paths)


def test_a_soft_recovery_replays_into_every_file_of_the_instance(disk_dir):
    config = _two_files(disk_dir / "data", test_type=model.TestType.SOFT_RECOVERY, log_files_to_replay=6)
    result = Runner(config, disk_dir / "recovery", lambda _event: None).run()
    assert result.verdict == Outcome.PASS, result.summary.reasons
    row = result.recovery.instances[0]
    assert row.complete and row.pages_verified > 0 and row.lost_flushes == 0
    second = database_files(config.databases[0], 0)[1]
    assert any(sequence > 0 for sequence, _ in _pages(second))


def test_a_further_file_of_another_database_is_recreated_or_refused(tmp_path):
    backend = default_backend()
    made = {}
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        made[name] = prepare_database(backend, database_file_path(folder, 0), 64, DatabaseSource.CREATE, unbuffered=False)
    second = database_file_path(tmp_path / "a", 0, 1)
    prepare_database(backend, second, 64, DatabaseSource.CREATE, unbuffered=False, first=made["a"], part=1)
    with pytest.raises(FileSafetyError, match="not database file 2 of the database it is attached with"):
        prepare_database(backend, second, 64, DatabaseSource.ATTACH, unbuffered=False, first=made["b"], part=1)
    said: list[str] = []
    header = prepare_database(backend, second, 64, DatabaseSource.CREATE, unbuffered=False, first=made["b"], part=1,
                              log=said.append)
    assert header.db_id == made["b"].db_id and header.part == 1 and "recreating it" in said[0]
    with pytest.raises(FileSafetyError, match="not database file 1"):  # a second file is no instance's first
        prepare_database(backend, second, 64, DatabaseSource.ATTACH, unbuffered=False)


def test_page_numbers_name_the_file_and_the_page_in_it():
    assert split_page(part_base(2) + 17) == (2, 17) and split_page(17) == (0, 17)
    assert part_base(1) == 1 << PART_SHIFT


def test_the_model_sizes_every_file_alike_and_refuses_two_files_in_one_folder(tmp_path):
    config = _two_files(tmp_path / "data")
    one_each = small_config(tmp_path / "data")
    assert config.database_pages < one_each.database_pages  # the profile's size over three files, not two
    assert config.instance_cache_pages(0)[0] == 2 * config.instance_cache_pages(1)[0]
    databases = [spec.model_dump(mode="json") for spec in config.databases]
    databases[0]["more_database_paths"] = [databases[0]["database_path"]]
    doubled = TestConfig.model_validate({**config.model_dump(mode="json"), "databases": databases})
    problems = check_rules(doubled)
    assert [(p.field, p.message) for p in problems if "own folder" in p.message] == [(
        "databases[0].more_database_paths[0]",
        f"database 1 has two files in {databases[0]['database_path']}; give each database file its own folder")]


def test_an_imported_instance_keeps_every_database_path_and_exports_them_again(tmp_path):
    config = _two_files(tmp_path / "data")
    text = write_xml(config)
    assert text.count("<Path>") == 3
    loaded = config_from_xml(text)
    assert loaded.config is not None and not loaded.warnings, loaded.said()
    assert [spec.database_paths for spec in loaded.config.databases] == [spec.database_paths for spec in config.databases]


def test_a_simulated_checksum_reads_every_file_of_an_instance(tmp_path):
    config = _two_files(tmp_path / "data", test_type=model.TestType.DATABASE_CHECKSUM, seed=3)
    result = runner_for(PROFILES["flash"], config, tmp_path / "simulated", lambda _event: None).run()
    assert result.verdict == Outcome.PASS, result.summary.reasons
    one, two = result.scan.databases
    assert one.pages == one.seen_pages == 2 * two.pages and one.more_database_files
