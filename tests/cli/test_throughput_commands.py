"""The disk subsystem throughput scenario from the command line: `init --scenario`, `tune` finding the most that
passes (twice), and `cmd /throughput` as a runbook types it, on simulated storage so each takes seconds."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from engine.protocol import ExitCode
from engine.results.document import read_result
from tests.cli.test_cli import jetwise
from tests.reporting.test_jetstress_results import html_achieved, html_passed, newest, next_line_after


def _init(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "throughput.json"
    # a capacity share of the free space that makes databases of about 200 MB, larger than the 64 MB cache
    percent = f"{200 * 2**20 / shutil.disk_usage(tmp_path).free * 100:.6f}"
    done = jetwise("init", str(out), "--databases", "1", "--db-path", str(tmp_path / "DB"), "--log-path",
                   str(tmp_path / "Log"), "--scenario", "disk_throughput", "--capacity-percent", percent,
                   "--throughput-percent", "80", "--iops-per-mailbox", "0.1", "--headroom-percent", "0",
                   "--cache-min-mb", "32", "--cache-max-mb", "64", *extra, cwd=tmp_path)
    assert done.returncode == ExitCode.PASS, done.stderr
    assert "Disk throughput: each database is" in done.stderr
    assert "no target: the most transactional IOPS that pass" in done.stderr
    return out


def test_init_sizes_the_databases_from_the_free_space_and_tune_finds_the_most_that_passes_twice(tmp_path):
    config = _init(tmp_path)
    data = json.loads(config.read_text())
    assert data["scenario"] == "disk_throughput" and 150 <= data["database_size_mb"] <= 250
    first = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "a"), cwd=tmp_path)
    assert first.returncode == ExitCode.PASS, first.stderr
    outcome = json.loads(first.stdout)
    assert outcome["status"] == "converged" and outcome["max_passing_iops"] > 0
    assert "Measured the most that passes in" in first.stderr
    mailboxes = int(outcome["max_passing_iops"] * 0.8 / 0.1)
    assert f"at 80 % of it, {mailboxes:,} mailboxes at 0.1 IOPS each" in first.stderr
    assert "(target" not in first.stderr and "below the target" not in first.stderr
    again = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "b"), cwd=tmp_path)
    assert again.returncode == ExitCode.PASS, again.stderr
    repeated = json.loads(again.stdout)
    assert repeated["recommendation"] == outcome["recommendation"] and not repeated["runs"], "the session holds the answer"
    report = tmp_path / "report.html"
    run = outcome["runs"][-1]["run_id"]
    assert jetwise("report", run, "--html", str(report), cwd=tmp_path).returncode == ExitCode.PASS
    html = report.read_text(encoding="utf-8")
    assert "Disk subsystem throughput: no target" in html and "confirmed: the most this storage passes" in html
    assert f"{mailboxes:,} mailboxes" in html and "Target less margin" not in html


def test_cmd_throughput_tunes_then_runs_at_the_most_and_writes_what_runbooks_read(tmp_path):
    config = _init(tmp_path, "--duration", "30s", "--warmup", "2s")
    xml = tmp_path / "JetstressConfig.xml"
    assert jetwise("export-xml", str(config), "-o", str(xml), cwd=tmp_path).returncode == ExitCode.PASS
    xml.write_text(xml.read_text(encoding="utf-8").replace("<SuppressTuning>true</SuppressTuning>",
                                                           "<SuppressTuning>false</SuppressTuning>"), encoding="utf-8")
    out = tmp_path / "out"
    for _ in range(2):
        done = jetwise("cmd", "/c", str(xml), "/throughput", "75", "/output", str(out), "--simulate", "sas-8x10k",
                       cwd=tmp_path)
        assert done.returncode == ExitCode.PASS, done.stderr
    runs = sorted(out.glob("jetwise-run-*"))
    assert len(runs) == 2
    results = [read_result(folder) for folder in runs]
    assert all(r.configuration.seeks_maximum and r.configuration.throughput_percent == 75 for r in results)
    sizes = {r.configuration.database_size_mb for r in results}
    assert len(sizes) == 1, "the file's size, kept: the same databases every run"
    said = done.stderr.split("Auto-tune: ")[1].split("\n")[0]
    assert said == f"{results[1].configuration.thread_count} thread(s), SluggishSessions {results[1].configuration.sluggish_sessions}"
    page = newest(out, "Performance")
    assert html_passed(page) and html_achieved(page) > 0
    lines = page.read_text(encoding="utf-8").splitlines()
    assert re.sub(r"<[^>]+>", "", next_line_after(lines, "Throughput Percentage")).strip() == "75"
    assert not any("Target Transactional I/O per Second" in line for line in lines)


def test_a_configuration_without_its_size_is_sized_when_run_and_again_when_cmd_changes_the_capacity(tmp_path):
    config = _init(tmp_path, "--duration", "30s", "--warmup", "1s")
    data = json.loads(config.read_text())
    size = data.pop("database_size_mb")  # written by hand, without the size init computes
    config.write_text(json.dumps(data))
    first = jetwise("run", str(config), "--simulate", "flash", "--output", str(tmp_path / "a"), cwd=tmp_path)
    assert first.returncode == ExitCode.PASS, first.stderr
    assert "note: disk throughput: each database is" in first.stderr and "has no database size" not in first.stderr
    sized = read_result(tmp_path / "a").configuration.database_size_mb
    assert sized is not None and abs(sized - size) <= 0.05 * size  # the same share of about the same free space
    percent = data["capacity_percent"] * 2
    again = jetwise("cmd", "/c", str(config), "/threads", "1", "/pctcapacity", f"{percent:.6f}", "/output",
                    str(tmp_path / "b"), "--simulate", "flash", cwd=tmp_path)
    assert again.returncode == ExitCode.PASS, again.stderr
    (folder,) = (tmp_path / "b").glob("jetwise-run-*")
    larger = read_result(folder).configuration.database_size_mb
    assert larger is not None and larger > 1.5 * sized
