"""Each server of a test across servers runs CONFIG, in its own folders where its own file (HOST=FILE) gives them; a
file that differs from CONFIG in anything else is refused, naming the server and the settings, before any controller
listens."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.across import host_files, servers_of
from engine.model.config import TestConfig
from engine.protocol import ExitCode
from tests.cli.test_cli import jetwise


def _init(folder: Path, name: str, databases: int, *extra: str) -> Path:
    out = folder / f"{name}.json"
    done = jetwise("init", str(out), "--databases", str(databases), "--db-path", str(folder / name / "DB{n}"),
                   "--log-path", str(folder / name / "Log{n}"), "--mailboxes", "8", "--mailbox-size-mb", "1",
                   "--duration", "2m", "--warmup", "30s", "--threads", str(databases), *extra, cwd=folder)
    assert done.returncode == ExitCode.PASS, done.stderr
    return out


@pytest.mark.parametrize("spec", ["", ",", "a,,a", "=x.json"])
def test_a_hosts_list_that_names_no_server_or_one_twice_is_refused(spec):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        host_files(spec)


def test_a_server_s_own_file_gives_its_folders_and_the_test_s_design_stays_one(tmp_path, capsys):
    shared = _init(tmp_path, "mbx1", 2)
    own = _init(tmp_path, "mbx2", 2)  # the same design, its own folders
    config = TestConfig.model_validate_json(shared.read_text(encoding="utf-8"))
    across = servers_of(config, host_files(f"mbx1,mbx2={own}"))
    assert across is not None, capsys.readouterr().err
    assert across.server_names == ["mbx1", "mbx2"] and across.servers[0].databases == []  # mbx1: the test's folders
    assert [d.database_path.parent for d in across.servers[1].databases] == [tmp_path / "mbx2"] * 2
    assert across.for_server("mbx2").databases[0].database_path.parent == tmp_path / "mbx2"
    longer = _init(tmp_path, "mbx3", 4, "--duration", "10m")
    assert servers_of(config, host_files(f"mbx1,mbx3={longer}")) is None
    said = capsys.readouterr().err
    assert f"error: --hosts mbx3={longer}: its " in said and "duration_s" in said and "thread_count" in said


def test_tuning_across_servers_refuses_a_server_s_other_design_before_it_listens_and_names_the_server(tmp_path):
    shared = _init(tmp_path, "mbx1", 2)
    more = _init(tmp_path, "mbx2", 4)
    alike = _init(tmp_path, "mbx4", 2)
    done = jetwise("tune", str(shared), "--hosts", f"mbx1,mbx2={more},mbx4={alike}", "--wait", "1s", cwd=tmp_path)
    assert done.returncode == ExitCode.INVALID
    assert f"error: --hosts mbx2={more}: its " in done.stderr and "is not CONFIG's" in done.stderr, done.stderr
    assert "mbx4" not in done.stderr and "Listening" not in done.stderr  # refused before any controller listens
    # servers alike in both tune together, their paths their own: what is missing then is the enrolment
    done = jetwise("tune", str(shared), "--hosts", f"mbx1,mbx4={alike}", "--wait", "1s", cwd=tmp_path)
    assert done.returncode == ExitCode.INVALID and "no server enrolled" in done.stderr, done.stderr


def test_a_test_across_servers_an_earlier_jetwise_kept_is_refused_by_report_with_where_its_report_is(tmp_path):
    old = tmp_path / "old-test"
    old.mkdir()
    (old / "test.json").write_text('{"schema_version": 2, "test_id": "x"}', encoding="utf-8")
    (old / "report.html").write_text("<html></html>", encoding="utf-8")
    done = jetwise("report", str(old), "--html", str(tmp_path / "again.html"), cwd=tmp_path)
    assert done.returncode == ExitCode.INVALID and "an earlier Jetwise kept in another form" in done.stderr
    assert "its combined report (report.html) stays beside it" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "again.html").exists()
