"""The Jetstress-layout result files, read the way automation written for Jetstress reads them.

The readers below are written from what such scripts are known to do (../shared/reference/
jetstress-config-xml.md): pick the newest `<Type>*.html` in the output folder, find the line holding
the `grid_row_header` cell "Overall Test Result" and look for `<td class="success">Pass</td>` on the
next line, take "Achieved Transactional I/O per Second" from the next line's cell, and in the XML
report read `output/test-summary/element`, `database-sizing`, `jetstress-system` and the per-instance
counters of `disk-subsystem-total`.
"""

from __future__ import annotations

import html
import re
import shutil
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest
from markupsafe import escape

from engine.protocol import ExitCode
from engine.results.document import RESULT_FILE, read_result
from engine.results.schema import Outcome, RunResult
from reporting.document import total_row
from reporting.jetstress_files import JetstressFileError, write_jetstress_files
from reporting.jetstress_model import TRANSACTIONAL
from tests.cli.test_cli import _init_small, jetwise
from tests.engine.test_report import known_result

NAME = re.compile(r"^(Performance|Stress|DatabaseBackup|SoftRecovery|DBChecksum)_\d{4}(_\d{1,2}){5}\.(html|xml)$")


# --- the script's side: what a runbook does with the files ---------------------------------------------------------
def newest(folder: Path, kind: str) -> Path:
    return max(folder.glob(f"{kind}*.html"), key=lambda p: p.stat().st_mtime_ns)


def next_line_after(lines: list[str], key: str) -> str:
    index = next(i for i, line in enumerate(lines) if f'<td class="grid_row_header">{key}</td>' in line)
    return lines[index + 1]


def html_passed(path: Path) -> bool:
    lines = path.read_text(encoding="utf-8").splitlines()
    return '<td class="success">Pass</td>' in next_line_after(lines, "Overall Test Result")


def html_achieved(path: Path) -> float:
    lines = path.read_text(encoding="utf-8").splitlines()
    return float(re.sub(r"<[^>]+>", "", next_line_after(lines, "Achieved Transactional I/O per Second")).strip())


def xml_value(root: ET.Element, section: str, name: str) -> str:
    element = root.find(f"{section}/element[@name='{name}']")
    assert element is not None, f"{section}/{name}"
    return element.get("value", "")


def xml_counters(root: ET.Element, section: str) -> dict[str, dict[str, float]]:
    found = {}
    for instance in root.iterfind(f"{section}/object/instance"):
        found[instance.get("name", "")] = {c.get("name", ""): float(c.get("average", "nan")) for c in instance.iter("counter")}
    return found


# --- the files of a known result ------------------------------------------------------------------------------------
@pytest.mark.parametrize("slow", [False, True], ids=["pass", "fail"])
def test_a_known_result_reads_back_as_scripts_read_jetstress_s_files(tmp_path, slow):
    result = known_result(tmp_path, slow=slow)
    assert result.verdict == (Outcome.FAIL if slow else Outcome.PASS)
    written = write_jetstress_files(result, ["2026-11-21 10:00:00 -- Test begins"], tmp_path, tmp_path)
    started = datetime.fromisoformat("2026-11-21T10:00:00+00:00").astimezone()
    stem = f"Performance_{started.year}_{started.month}_{started.day}_{started.hour}_{started.minute}_{started.second}"
    assert [p.name for p in written] == [f"{stem}.html", f"{stem}.xml"] and all(NAME.match(p.name) for p in written)
    page = newest(tmp_path, "Performance")
    assert html_passed(page) is not slow
    assert html_achieved(page) == pytest.approx(result.summary.achieved_transactional_iops, abs=0.0005)
    text = page.read_text(encoding="utf-8")
    assert "Test begins" in text and ("<td class=\"failure\">Fail</td>" in text) is slow
    if slow:  # why it failed is in the file, not only that it did
        assert result.summary.reasons and all(str(escape(reason)) in text for reason in result.summary.reasons)
    root = ET.parse(tmp_path / f"{stem}.xml").getroot()
    assert xml_value(root, "test-summary", "Overall Test Result") == ("Fail" if slow else "Pass")
    assert float(xml_value(root, "database-sizing", "Achieved Transactional I/O per Second")) == pytest.approx(
        result.summary.achieved_transactional_iops, abs=0.0005)
    assert xml_value(root, "database-sizing", "Database Files (Count)") == "2"
    assert xml_value(root, "database-sizing", "Capacity Percentage") == "100"
    assert xml_value(root, "jetstress-system", "Thread Count").startswith("26 ")
    assert xml_value(root, "jetstress-system", "Lazy Commits") == "70%"
    assert xml_value(root, "jetstress-system", "Run Background Database Maintenance") == "True"
    if slow:
        assert [e.get("value") for e in root.iterfind("test-issues/element")] == result.summary.reasons
    _counters_are_the_result_s(root, result)


def _counters_are_the_result_s(root: ET.Element, result: RunResult) -> None:
    total = xml_counters(root, "disk-subsystem-total")
    transactional = xml_counters(root, "disk-subsystem-transactional")
    assert list(total) == [i.name for i in result.instances] == list(transactional)
    for instance in result.instances:
        assert list(total[instance.name]) == [name for name, _, _ in TRANSACTIONAL]  # Jetstress's order
        combined = total_row(instance)
        assert total[instance.name]["I/O Database Reads/sec"] == pytest.approx(combined.db_reads, abs=0.0005)
        assert total[instance.name]["I/O Log Writes Average Latency"] == pytest.approx(instance.log_write_avg_latency_ms, abs=0.0005)
        assert transactional[instance.name]["I/O Database Reads/sec"] == pytest.approx(instance.db_reads_per_s, abs=0.0005)
    maintenance = xml_counters(root, "disk-subsystem-of-dbmaintenance")
    assert set(maintenance[result.instances[0].name]) == {"Database Maintenance IO Reads/sec",
                                                           "Database Maintenance IO Reads Average Bytes"}
    replication = xml_counters(root, "disk-subsystem-of-logreplication")
    assert replication[result.instances[0].name]["I/O Log Reads Average Bytes"] == pytest.approx(
        result.instances[0].log_replication_read_avg_bytes, abs=0.0005)


def test_a_file_of_that_name_is_replaced_only_when_it_is_the_same_run_s(tmp_path):
    result = known_result(tmp_path)
    first = write_jetstress_files(result, [], tmp_path)
    again = write_jetstress_files(result, ["more"], tmp_path)  # the same run's files: written again
    assert first == again and "more" in again[0].read_text(encoding="utf-8")
    odd_folder = tmp_path / "odd"
    odd_folder.mkdir()
    odd = result.model_copy(update={"run_id": "a folder -- named <&> by hand"})  # a killed run's id is its folder's name
    assert write_jetstress_files(odd, [], odd_folder) == write_jetstress_files(odd, ["again"], odd_folder)
    other = result.model_copy(update={"run_id": "known-run-2"})  # another run whose id starts with this one's
    before = first[0].read_bytes()
    with pytest.raises(JetstressFileError, match="exists and is not this run's"):
        write_jetstress_files(other, [], tmp_path)
    assert first[0].read_bytes() == before
    first[1].write_text("an engineer's own notes\n")  # a file Jetwise did not write is never written over
    with pytest.raises(JetstressFileError, match="not this run's"):
        write_jetstress_files(result, [], tmp_path)
    assert first[1].read_text() == "an engineer's own notes\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no scratch file left


# --- end to end: a runbook's command line, twice, then a killed run's files from `report` -------------------------
def test_cmd_runs_a_jetstress_configuration_twice_and_the_runbook_reads_the_newest(tmp_path):
    config = _init_small(tmp_path)
    xml = tmp_path / "JetstressConfig.xml"
    assert jetwise("export-xml", str(config), "-o", str(xml), cwd=tmp_path).returncode == ExitCode.PASS
    out = tmp_path / "results"
    codes, results = [], []
    for _ in range(2):
        done = jetwise("cmd", "/C", str(xml), "/Timeout", "0H0M2S", "/threads", "2", "/new", "/output", str(out), cwd=tmp_path)
        assert done.returncode in (ExitCode.PASS, ExitCode.FAIL), done.stderr
        assert "Traceback" not in done.stderr
        codes.append(done.returncode)
        folders = sorted(out.glob("jetwise-run-*"), key=lambda p: p.stat().st_mtime_ns)
        results.append(read_result(folders[-1]))
    assert len(list(out.glob("jetwise-run-*"))) == 2
    names = sorted(p.name for p in out.iterdir() if p.is_file())
    assert len(names) == 4 and all(NAME.match(n) and n.startswith("Performance_") for n in names)
    latest = newest(out, "Performance")
    assert results[-1].run_id in latest.read_text(encoding="utf-8")
    assert html_passed(latest) is (codes[-1] == ExitCode.PASS) is (results[-1].verdict == Outcome.PASS)
    assert html_achieved(latest) == pytest.approx(results[-1].summary.achieved_transactional_iops, abs=0.0005)
    assert results[-1].configuration.thread_count == 2 and results[-1].configuration.duration_s == 2
    log = (sorted(out.glob("jetwise-run-*"))[-1] / "test.log").read_text(encoding="utf-8")
    assert "Jetstress-layout result files: Performance_" in log
    # the result files carry the run's test log as it went, each line as test.log has it
    ended = next(line for line in log.splitlines() if " -- Test ends: " in line)
    assert html.escape(ended, quote=False) in latest.read_text(encoding="utf-8")

    killed = tmp_path / "killed"
    shutil.copytree(sorted(out.glob("jetwise-run-*"))[-1], killed)
    (killed / RESULT_FILE).unlink()  # as a kill leaves it: samples, no result
    for name in [p.name for p in killed.iterdir() if NAME.match(p.name)]:
        (killed / name).unlink()
    again = jetwise("report", str(killed), "--jetstress", str(killed), cwd=tmp_path)
    assert again.returncode == ExitCode.PASS, again.stderr
    rebuilt = newest(killed, "Performance")
    assert not html_passed(rebuilt) and "stopped before its end" in rebuilt.read_text(encoding="utf-8")
