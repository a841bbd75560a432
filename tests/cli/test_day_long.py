"""A day-long Stress test on the simulated device, as an engineer meets it: run, report, export, and the same run
killed before its end, reported from what it kept. The samples file stays small and every figure adds up."""

from __future__ import annotations

import csv
import json
import os
import re
import sqlite3
from pathlib import Path

import pytest

from engine.results.sample_file import SAMPLES_DB, WINDOW_S
from tests.cli.test_cli import jetwise

DAY_S = 24 * 3600
WARMUP_S = 60


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated 24 h Stress test on two databases (a minute of warm-up), run to its end: 5 threads, about 500
    transactional IOPS."""
    here = tmp_path_factory.mktemp("day")
    # a module's fixture runs outside each test's own store: its runs go to a scratch store all the same
    assert Path(os.environ["JETWISE_DATA_DIR"]).is_relative_to(tmp_path_factory.getbasetemp())
    config = here / "day.json"
    made = jetwise("init", "--databases", "2", "--db-path", str(here / "db"), "--log-path", str(here / "log"),
                   "--mailboxes", "1000", "--mailbox-size-mb", "100", "--type", "stress", "--duration", "24h",
                   "--warmup", "1m", "--threads", "5", str(config), cwd=here)
    assert made.returncode == 0, made.stderr
    done = jetwise("run", str(config), "--simulate", "sas-8x10k", "--output", str(here / "run"), cwd=here)
    assert done.returncode in (0, 1), done.stderr
    # a readable few lines, not one for each of 86,460 samples, and the last measured second among them, counted from the
    # start of measuring
    assert done.stderr.count("[measure") < 200 and "[measure 24:00:00, 0:00 left]" in done.stderr
    return here / "run"


@pytest.mark.slow
def test_a_day_keeps_every_second_of_the_server_and_each_instance_every_15_s_in_a_few_mb(day):
    with sqlite3.connect(day / SAMPLES_DB) as db:
        seconds = db.execute("SELECT COUNT(*), MIN(interval), MAX(interval) FROM server").fetchone()
        windows = dict(db.execute("SELECT instance, COUNT(*) FROM instances GROUP BY instance").fetchall())
        spans = {row[0] for row in db.execute("SELECT span_s FROM instances WHERE phase = 1")}
    assert seconds == (DAY_S + WARMUP_S, 0, DAY_S + WARMUP_S - 1)
    assert windows == {0: (DAY_S + WARMUP_S) // WINDOW_S, 1: (DAY_S + WARMUP_S) // WINDOW_S} and spans == {WINDOW_S}
    written = sum(path.stat().st_size for path in day.iterdir())
    assert written / 24 < 1.5e6  # bytes an hour: two databases; twelve take 1.3 MB (docs/benchmarks.md)
    result = json.loads((day / "result.json").read_text())
    assert result["summary"]["measured_s"] == DAY_S


@pytest.mark.slow
def test_a_day_reports_exports_and_after_a_kill_reports_the_same_figures(day, tmp_path):
    result = json.loads((day / "result.json").read_text())["summary"]
    done = jetwise("report", str(day), "--html", str(tmp_path / "day.html"), "--pdf", str(tmp_path / "day.pdf"),
                   cwd=tmp_path)
    assert done.returncode == 0 and re.search(r"\(\d+ pages, A4\)", done.stderr), done.stderr
    done = jetwise("export", str(day), "--interval", "1h", "--output", str(tmp_path / "hours.csv"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "hours.csv").open(newline="", encoding="utf-8") as handle:
        server = [row for row in csv.DictReader(handle) if row["instance"] == "_Total" and row["phase"] == "measure"]
    assert len(server) == 25 and {float(row["duration_s"]) for row in server} == {3600.0 - WARMUP_S, 3600.0, WARMUP_S}
    achieved = sum(float(row["transactional_iops"]) * float(row["duration_s"]) for row in server) / DAY_S
    # rel: an hour adds each second's I/O up as whole I/Os, and a simulated second's share of its window is fractional
    assert achieved == pytest.approx(result["achieved_transactional_iops"], rel=1e-5)

    killed = tmp_path / "killed"  # what a kill leaves: the samples, the log and the configuration, no result
    killed.mkdir()
    for name in (SAMPLES_DB, "test.log", "config.json"):
        (killed / name).write_bytes((day / name).read_bytes())
    done = jetwise("report", str(killed), "--html", str(tmp_path / "killed.html"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "killed.html").read_text(encoding="utf-8")
    assert "ABORTED" in html and "the run ended without writing its result" in html
    assert f"{result['achieved_transactional_iops']:,.3f}" in html  # the same achieved IOPS, rebuilt from the windows
