"""The test files a configuration's runs left are found by their header, counted with their size and removed; a file
without a Jetwise header, whatever its name, and a link are left alone."""

from __future__ import annotations

from engine.io.cleanup import leftover_files, remove_leftovers
from engine.io.file_names import database_file_path, log_file_path
from engine.io.files import creating_path, prepare_database
from engine.io.log_files import prepare_logs
from engine.io.platform import default_backend
from engine.model.config import DatabaseSource
from tests.conftest import small_config


def test_the_files_a_run_left_are_found_by_header_and_removed_and_nothing_else(tmp_path):
    config = small_config(tmp_path / "data")
    backend = default_backend()
    for index, spec in enumerate(config.databases):
        spec.database_path.mkdir(parents=True, exist_ok=True)
        spec.log_path.mkdir(parents=True, exist_ok=True)
        created = prepare_database(backend, database_file_path(spec.database_path, index), config.database_pages,
                                   DatabaseSource.CREATE, unbuffered=False)
        prepare_logs(backend, spec.log_path, index, created.db_id, unbuffered=False)
    first = config.databases[0]
    impostor = log_file_path(first.log_path, 0, 99)
    impostor.write_bytes(b"someone else's file with a Jetwise name")
    outside = tmp_path / "elsewhere.jwlog"
    outside.write_bytes(b"x")
    (first.log_path / "Jetwise001.98.jwlog").symlink_to(outside)
    found = leftover_files(config)
    assert len(found.paths) == 2 * (1 + 16) and impostor not in found.paths
    assert found.size_bytes == sum(path.stat().st_size for path in found.paths) > 2 * config.database_size_bytes
    assert set(found.folders) == {s.database_path for s in config.databases} | {s.log_path for s in config.databases}
    freed, kept = remove_leftovers(found)
    assert freed == found.size_bytes and kept == []
    assert impostor.read_bytes() == b"someone else's file with a Jetwise name" and outside.read_bytes() == b"x"
    assert leftover_files(config).paths == []


def test_a_creating_file_a_killed_creation_left_is_listed_and_removed_and_an_empty_file_at_a_databases_name_is_not(tmp_path):
    config = small_config(tmp_path / "data")
    first, second = config.databases
    for spec in config.databases:
        spec.database_path.mkdir(parents=True, exist_ok=True)
    left = creating_path(database_file_path(first.database_path, 0))
    left.write_bytes(b"")  # made, killed before its header: the name is Jetwise's creating name alone
    empty = database_file_path(second.database_path, 1)
    empty.write_bytes(b"")  # an empty file at a database's name: nothing says Jetwise made it
    foreign = creating_path(empty)
    foreign.write_bytes(b"someone else's")
    found = leftover_files(config)
    assert found.paths == [left]
    remove_leftovers(found)
    assert not left.exists() and empty.exists() and foreign.read_bytes() == b"someone else's"
