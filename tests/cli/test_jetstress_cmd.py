"""`jetwise cmd`: JetstressCmd's switches as runbooks type them, and the runs they start.

The switches are read without regard to case, a Linux path that starts with / is a value and not a
switch, /dbpath and /logpath take the folders of a file without EseInstances, and a file whose
SuppressTuning is false is auto-tuned first (on a simulated device here, so that it takes seconds).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli.cmd_switches import parse_switches
from app.context import UsageError
from engine.protocol import ExitCode
from engine.results.document import read_result
from tests.cli.test_cli import _init_small, jetwise
from tests.cli.test_xml_commands import NO_DATABASES


def test_switches_read_as_a_runbook_types_them():
    found = parse_switches(["/C", "/tmp/JetstressConfig.xml", "/TIMEOUT", "2H40M0S", "-threads", "8", "/open",
                            "/dbpath", r"E:\DB1", r"F:\DB2", "/logpath", r"G:\Log{n}", "/pctCapacity", "50",
                            "/output", "/srv/results"])
    assert found.config == Path("/tmp/JetstressConfig.xml") and found.timeout_s == 2 * 3600 + 40 * 60
    assert found.threads == 8 and found.source == "attach" and found.capacity_percent == 50
    assert found.dbpath == [r"E:\DB1", r"F:\DB2"] and found.logpath == [r"G:\Log{n}"]
    assert found.output == Path("/srv/results")
    repeated = parse_switches(["/c", "a.xml", "/dbpath", "D1", "/dbpath", "D2"])
    assert repeated.dbpath == ["D1", "D2"]
    assert parse_switches(["/?"]).help
    assert parse_switches(["/c", "a.xml", "/Throughput", "80"]).throughput_percent == 80
    with pytest.raises(UsageError, match="/throughput"):
        parse_switches(["/c", "a.xml", "/throughput", "0"])


def test_a_file_without_databases_takes_them_from_dbpath_and_logpath(tmp_path):
    xml = tmp_path / "JetstressConfig.xml"
    xml.write_text(NO_DATABASES, encoding="utf-8")
    refused = jetwise("cmd", "/c", str(xml), "/threads", "2", "/output", str(tmp_path / "out"), "--simulate", "flash",
                      cwd=tmp_path)
    assert refused.returncode == ExitCode.INVALID and "Traceback" not in refused.stderr
    done = jetwise("cmd", "/c", str(xml), "/threads", "2", "/timeout", "30s", "/dbpath", str(tmp_path / "DB{n}"),
                   "/logpath", str(tmp_path / "Log1"), str(tmp_path / "Log2"), "/output", str(tmp_path / "out"),
                   "--simulate", "flash", cwd=tmp_path)
    assert done.returncode in (ExitCode.PASS, ExitCode.FAIL), done.stderr
    (folder,) = (tmp_path / "out").glob("jetwise-run-*")
    ran = read_result(folder).configuration
    assert [str(d.log_path) for d in ran.databases] == [str(tmp_path / "Log1"), str(tmp_path / "Log2")]
    assert [str(d.database_path) for d in ran.databases] == [str(tmp_path / "DB1"), str(tmp_path / "DB2")]


def test_without_threads_a_file_that_asks_for_tuning_is_tuned_first_and_run_at_what_was_found(tmp_path):
    config = _init_small(tmp_path)
    xml = tmp_path / "JetstressConfig.xml"
    assert jetwise("export-xml", str(config), "-o", str(xml), cwd=tmp_path).returncode == ExitCode.PASS
    xml.write_text(xml.read_text(encoding="utf-8").replace("<SuppressTuning>true</SuppressTuning>",
                                                           "<SuppressTuning>false</SuppressTuning>"), encoding="utf-8")
    out = tmp_path / "out"
    done = jetwise("cmd", "/c", str(xml), "/timeout", "1m", "/output", str(out), "--simulate", "sas-8x10k", cwd=tmp_path)
    assert done.returncode == ExitCode.PASS, done.stderr
    assert "Auto-tune: " in done.stderr
    (tuning,) = out.glob("jetwise-tune-*")
    assert any(tuning.iterdir())  # the calibration runs keep their folders
    (folder,) = out.glob("jetwise-run-*")
    result = read_result(folder)
    said = done.stderr.split("Auto-tune: ")[1].split("\n")[0]
    assert said == f"{result.configuration.thread_count} thread(s), SluggishSessions {result.configuration.sluggish_sessions}"
    assert len(list(out.glob("Performance_*.html"))) == 1
    history = jetwise("history", "--json", cwd=tmp_path)
    assert history.returncode == ExitCode.PASS
    assert "JetstressConfig" in json.dumps(json.loads(history.stdout))  # the runs joined the file's tuning session
