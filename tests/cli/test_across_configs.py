"""Each server of a test across servers runs CONFIG or its own file (HOST=FILE): a Jetwise configuration or its
JetstressConfig.xml, with its own databases, paths and thread setting; what the servers share (test type, duration,
warm-up, sample interval, thresholds) must be the same in each, else the command line names the server and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.across import configs_of, host_files
from engine.protocol import ExitCode
from tests.cli.test_cli import jetwise


def _init(folder: Path, name: str, databases: int, *extra: str) -> Path:
    out = folder / f"{name}.json"
    done = jetwise("init", str(out), "--databases", str(databases), "--db-path", str(folder / name / "DB{n}"),
                   "--log-path", str(folder / name / "Log{n}"), "--mailboxes", "8", "--mailbox-size-mb", "1",
                   "--duration", "2m", "--warmup", "30s", "--threads", str(databases), *extra, cwd=folder)
    assert done.returncode == ExitCode.PASS, done.stderr
    return out


def test_each_server_runs_the_shared_file_or_its_own_json_or_jetstress_xml(tmp_path, capsys):
    shared = _init(tmp_path, "mbx1", 2)
    own = _init(tmp_path, "mbx2", 4)
    xml = tmp_path / "JetstressConfig.xml"
    assert jetwise("export-xml", str(_init(tmp_path, "mbx3", 3)), "-o", str(xml), cwd=tmp_path).returncode == 0
    configs = configs_of(shared, host_files(f"mbx1,mbx2={own},mbx3={xml}"), {})
    assert configs is not None, capsys.readouterr().err
    assert [c.database_count for c in configs.values()] == [2, 4, 3]
    assert [c.thread_count for c in configs.values()] == [2, 4, 3]  # each its own thread setting
    assert configs["mbx3"].databases[0].database_path.parent == tmp_path / "mbx3"  # the XML's own paths
    changed = configs_of(shared, host_files(f"mbx1,mbx2={own}"), {"duration_s": 600.0})  # a flag changes each one
    assert changed is not None and {c.duration_s for c in changed.values()} == {600.0}


def test_a_server_whose_file_differs_in_what_the_test_shares_is_named(tmp_path, capsys):
    shared = _init(tmp_path, "mbx1", 2)
    longer = _init(tmp_path, "mbx2", 2, "--duration", "10m")
    assert configs_of(shared, host_files(f"mbx1,mbx2={longer}"), {}) is None
    said = capsys.readouterr().err
    assert "error: --hosts mbx2: its duration_s differs from mbx1's" in said


@pytest.mark.parametrize("spec", ["", ",", "a,,a", "=x.json"])
def test_a_hosts_list_that_names_no_server_or_one_twice_is_refused(spec):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        host_files(spec)


def test_tuning_across_servers_needs_as_many_databases_and_one_profile_on_each_and_names_the_server(tmp_path):
    shared = _init(tmp_path, "mbx1", 2)
    more = _init(tmp_path, "mbx2", 4)
    bigger = _init(tmp_path, "mbx3", 2, "--mailboxes", "16")
    alike = _init(tmp_path, "mbx4", 2)
    done = jetwise("tune", str(shared), "--hosts", f"mbx1,mbx2={more},mbx3={bigger},mbx4={alike}", "--wait", "1s",
                   cwd=tmp_path)
    assert done.returncode == ExitCode.INVALID
    assert "error: --hosts mbx2: it has 4 database(s) and mbx1 has 2" in done.stderr
    assert "error: --hosts mbx3: its mailbox profile differs from mbx1's" in done.stderr
    assert "mbx4" not in done.stderr and "Listening" not in done.stderr  # refused before any controller listens
    # servers alike in both tune together, their paths their own: what is missing then is the enrolment
    done = jetwise("tune", str(shared), "--hosts", f"mbx1,mbx4={alike}", "--wait", "1s", cwd=tmp_path)
    assert done.returncode == ExitCode.INVALID and "no server enrolled" in done.stderr, done.stderr
