"""Database Checksum, Database Backup and Soft Recovery from the command line, as an engineer runs them after a test:
the same command twice, a damaged database, a backup to disk twice, and what the CLI refuses."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.io.config_file import load_config
from engine.io.file_names import backup_file_path, database_file_path
from engine.io.pages import is_jetwise_file, read_database_header
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.document import read_result
from tests.cli.test_cli import _init_small, jetwise


def _with_type(config: Path, test_type: str, **values: object) -> Path:
    data = json.loads(config.read_text())
    data.update(test_type=test_type, **values)
    out = config.with_name(f"{test_type}.json")
    out.write_text(json.dumps(data))
    return out


def test_a_checksum_after_a_performance_run_passes_twice_then_fails_on_a_damaged_page(tmp_path):
    performance = _init_small(tmp_path)
    assert jetwise("run", str(performance), "--output", str(tmp_path / "perf"), cwd=tmp_path).returncode == 0
    checksum = _with_type(performance, "database_checksum")
    assert jetwise("validate", str(checksum), cwd=tmp_path).returncode == 0
    db = database_file_path(load_config(checksum).databases[1].database_path, 1)
    pages = read_database_header(db).pages_created  # 128 and what the performance run grew it by
    assert pages > 128 and db.stat().st_size == pages * PAGE_SIZE_BYTES
    for run in ("first", "second"):
        done = jetwise("run", str(checksum), "--output", str(tmp_path / run), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "== Verifying database checksums" in done.stderr and "Overall test result: PASS" in done.stderr
        assert f"Instance 2: {pages} of {pages} pages read" in done.stderr
        assert "16 log files, 0 damaged sectors" in done.stderr
    fd = os.open(db, os.O_WRONLY)
    try:
        os.pwrite(fd, bytes(PAGE_SIZE_BYTES), 9 * PAGE_SIZE_BYTES)  # page 9 never reached the disk
    finally:
        os.close(fd)
    done = jetwise("run", str(checksum), "--output", str(tmp_path / "damaged"), "--json", cwd=tmp_path)
    assert done.returncode == 1
    assert f"Instance 2: 1 damaged page of {pages}" in done.stderr and "1 uninitialised page (ESE -1019)" in done.stderr
    document = json.loads(done.stdout)
    assert document["scan"]["databases"][1]["uninitialised_pages"] == 1
    assert read_result(tmp_path / "damaged").scan.databases[1].first_damaged[0].page == 9


def test_a_checksum_of_logs_whose_database_was_removed_is_refused_at_the_log_folder(tmp_path):
    performance = _init_small(tmp_path)
    assert jetwise("run", str(performance), "--output", str(tmp_path / "perf"), cwd=tmp_path).returncode == 0
    checksum = _with_type(performance, "database_checksum")
    spec = load_config(checksum).databases[0]
    database_file_path(spec.database_path, 0).unlink()
    says = (f"error: databases[0].log_path: {spec.log_path} holds the logs of a database that is no longer in "
            f"{spec.database_path} (Jetwise001.jwdb): Jetwise checks a database's logs only with their own database")
    checked = jetwise("validate", str(checksum), cwd=tmp_path)
    assert checked.returncode == 2 and says in checked.stdout, checked.stdout
    done = jetwise("run", str(checksum), "--output", str(tmp_path / "checksum"), cwd=tmp_path)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not database_file_path(spec.database_path, 0).exists()  # refused before anything is made


def test_a_jetwise_database_whose_header_is_damaged_is_reported_by_the_checksum_and_listed_by_clean(tmp_path):
    performance = _init_small(tmp_path)
    assert jetwise("run", str(performance), "--output", str(tmp_path / "perf"), cwd=tmp_path).returncode == 0
    checksum = _with_type(performance, "database_checksum")
    db = database_file_path(load_config(checksum).databases[1].database_path, 1)
    foreign = tmp_path / "DB1" / "Jetwise001.jwdb.txt"  # a file Jetwise did not write, beside its database
    foreign.write_bytes(b"JWDBFILE" + bytes(600))  # its magic, but not the rest of a header Jetwise writes
    fd = os.open(db, os.O_RDWR)
    try:
        os.pwrite(fd, b"\xff", 60)  # a byte of the header's body (its planned pages) is lost
    finally:
        os.close(fd)
    checked = jetwise("validate", str(checksum), cwd=tmp_path)
    assert checked.returncode == 0 and f"{db} is a Jetwise database whose header is damaged" in checked.stdout, checked.stdout
    done = jetwise("run", str(checksum), "--output", str(tmp_path / "damaged"), "--json", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    scanned = json.loads(done.stdout)["scan"]["databases"][1]
    assert scanned["bad_pages"] == 1 and scanned["first_damaged"][0]["page"] == 0
    assert scanned["first_damaged"][0]["offset"] == 0 and scanned["first_damaged"][0]["kind"] == "bad_checksum"
    listed = jetwise("clean", str(checksum), cwd=tmp_path)
    assert f"{tmp_path / 'DB2'}: 2 file(s)" in listed.stdout, listed.stdout  # the database and its flush map
    assert jetwise("clean", str(checksum), "--yes", cwd=tmp_path).returncode == 0
    assert not db.exists() and foreign.read_bytes() == b"JWDBFILE" + bytes(600)


def test_a_backup_to_disk_replaces_its_own_copy_and_refuses_a_foreign_file(tmp_path):
    performance = _init_small(tmp_path)
    folder = tmp_path / "Backup"
    folder.mkdir()
    backup = _with_type(performance, "database_backup", backup_path=str(folder))
    for run in ("first", "second"):
        done = jetwise("run", str(backup), "--output", str(tmp_path / run), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "== Backing up databases" in done.stderr and "in 256 KiB reads" in done.stderr
        copies = [backup_file_path(folder, i) for i in range(2)]
        assert all(is_jetwise_file(copy) for copy in copies)
        config = load_config(backup)
        assert [c.read_bytes() for c in copies] == [
            database_file_path(spec.database_path, i).read_bytes() for i, spec in enumerate(config.databases)
        ]
    foreign = backup_file_path(folder, 0)
    foreign.unlink()
    foreign.write_text("the customer's own file")
    done = jetwise("validate", str(backup), cwd=tmp_path)
    assert done.returncode == 2 and "backup_path" in done.stdout + done.stderr
    assert "does not replace files it did not create" in done.stdout + done.stderr
    assert foreign.read_text() == "the customer's own file"
    if os.name != "nt":  # a link planted where a copy goes, dangling or not, is named and not written through
        foreign.unlink()
        foreign.symlink_to(tmp_path / "elsewhere.jwdb")
        done = jetwise("validate", str(backup), cwd=tmp_path)
        assert done.returncode == 2 and f"{foreign} is a link" in done.stdout + done.stderr
        assert not (tmp_path / "elsewhere.jwdb").exists()


def test_tune_refuses_a_scan_with_exit_2_and_the_simulated_device_plays_it_in_virtual_time(tmp_path):
    checksum = _with_type(_init_small(tmp_path), "database_checksum")
    done = jetwise("tune", str(checksum), cwd=tmp_path)
    assert done.returncode == 2 and "has no thread count to tune" in done.stderr
    done = jetwise("run", str(checksum), "--simulate", "flash", "--output", str(tmp_path / "sim"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "== Verifying database checksums (simulated)" in done.stderr and "16 log files, 0 damaged sectors" in done.stderr
    assert not any(spec.database_path.exists() for spec in load_config(checksum).databases)  # no file was touched


def test_a_soft_recovery_runs_twice_from_the_command_line_and_is_not_tuned(tmp_path):
    recovery = _with_type(_init_small(tmp_path), "soft_recovery", log_files_to_replay=4)
    for run in ("first", "second"):  # the second generates over the first's log files and replays them
        done = jetwise("run", str(recovery), "--output", str(tmp_path / run), "--json", cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
        assert "== Generating log files" in done.stderr and "== Replaying log files" in done.stderr
        assert "s to play one log file on average (limit 6 s)" in done.stderr
        document = json.loads(done.stdout)
        # The load lasts under a second, so one slow flush on this disk is a stall rate above 1/s: an honest FAIL,
        # but only ever on the disk's timing (latency or stalls), never on the log files generated or replayed.
        assert _only_disk_timing(document["summary"]["reasons"]), done.stderr
        assert "Instance 2: 4 generated, 4 of 4 replayed" in done.stderr
        assert [row["log_files_replayed"] for row in document["recovery"]["instances"]] == [4, 4]
    refused = jetwise("tune", str(recovery), cwd=tmp_path)
    assert refused.returncode == 2 and "runs at the thread count it is given" in refused.stderr


def _only_disk_timing(reasons: list[str]) -> bool:
    return all("page fault stalls" in reason or " latency " in reason for reason in reasons)
