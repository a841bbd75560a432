"""`jetwise export`: a run's full series as CSV, JSON lines and Parquet, at its interval or a coarser one, twice."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from engine.results.counters import added
from engine.results.document import read_samples
from engine.results.sample_schema import IntervalSample
from engine.results.sums import LatencySum
from engine.workload.histogram import percentiles_ms
from tests.cli.test_cli import jetwise


@pytest.fixture(scope="module")
def stress_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated 10-minute Stress test on three databases (60 warm-up samples, 600 measured)."""
    here = tmp_path_factory.mktemp("export")
    config = here / "stress.json"
    made = jetwise("init", "--databases", "3", "--db-path", str(here / "db"), "--log-path", str(here / "log"),
                   "--type", "stress", "--duration", "10m", "--warmup", "1m", str(config), cwd=here)
    assert made.returncode == 0, made.stderr
    done = jetwise("run", str(config), "--simulate", "flash", "--output", str(here / "run"), cwd=here)
    assert done.returncode in (0, 1), done.stderr
    return here / "run"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_csv_has_every_second_of_the_server_and_each_instance_every_15_s(stress_run, tmp_path):
    done = jetwise("export", str(stress_run), "--output", str(tmp_path / "all.csv"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = _rows(tmp_path / "all.csv")
    server = [r for r in rows if r["instance"] == "_Total"]
    mine = [r for r in rows if r["instance"] == "Instance 2"]
    assert len(server) == 660 and len(mine) == 4 + 40  # 60 s warm-up, then 600 s, in windows of 15 s
    assert {float(r["duration_s"]) for r in mine} == {15.0}
    reads = sum(float(r["db_reads_per_s"]) * float(r["duration_s"]) for r in server if r["phase"] == "measure")
    each = sum(float(r["db_reads_per_s"]) * float(r["duration_s"])
               for r in rows if r["instance"].startswith("Instance") and r["phase"] == "measure")
    assert each == pytest.approx(reads, rel=1e-5)
    again = jetwise("export", str(stress_run), "--output", str(tmp_path / "all.csv"), cwd=tmp_path)
    assert again.returncode == 2 and "exists; use --force to overwrite it" in again.stderr
    forced = jetwise("export", str(stress_run), "--output", str(tmp_path / "all.csv"), "--force", cwd=tmp_path)
    assert forced.returncode == 0 and _rows(tmp_path / "all.csv") == rows


def test_a_coarser_interval_keeps_the_totals_and_never_spans_the_warm_up(stress_run, tmp_path):
    done = jetwise("export", str(stress_run), "--interval", "1m", "--output", str(tmp_path / "minute.csv"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = _rows(tmp_path / "minute.csv")
    server = [r for r in rows if r["instance"] == "_Total"]
    assert [r["phase"] for r in server] == ["warmup"] + ["measure"] * 10
    assert {float(r["duration_s"]) for r in server} == {60.0}
    original = [s for s in read_samples(stress_run) if s.phase == "measure"]
    # each sample's reads as every reader of a samples file counts them: whole reads (a simulated second's rate
    # need not make a whole number)
    assert sum(float(r["db_reads_per_s"]) * 60 for r in server[1:]) == pytest.approx(
        sum(round(s.summary.db_reads_per_s * s.duration_s) for s in original), rel=1e-9)
    assert max(float(r["db_read_max_latency_ms"]) for r in server[1:]) == pytest.approx(
        max(s.summary.db_read_max_latency_ms for s in original))


def test_the_servers_percentiles_are_exact_over_the_measured_time_and_each_minute(stress_run, tmp_path):
    samples = list(read_samples(stress_run))
    measured = LatencySum()
    for sample in samples:
        if sample.phase == "measure" and sample.latency is not None:
            measured.add(sample.latency)
    result = json.loads((stress_run / "result.json").read_text())
    assert measured.seconds == 600.0
    assert {name: percentiles_ms(counts) for name, counts in measured.streams.items()} == \
        result["summary"]["latency_percentiles_ms"]  # the file's windows add up to the run's own histograms
    done = jetwise("export", str(stress_run), "--interval", "1m", "--output", str(tmp_path / "minute.csv"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    server = [r for r in _rows(tmp_path / "minute.csv") if r["instance"] == "_Total"]
    for minute, row in enumerate(server):
        own = LatencySum()
        for sample in samples[60 * minute: 60 * (minute + 1)]:
            if sample.latency is not None:
                own.add(sample.latency)
        for stream in ("db_read", "log_write"):
            expected = percentiles_ms(own.streams[stream], (0.5, 0.99))
            assert float(row[f"{stream}_p50_latency_ms"]) == pytest.approx(expected["p50"])
            assert float(row[f"{stream}_p99_latency_ms"]) == pytest.approx(expected["p99"])
    # each instance's rows carry its own percentiles, from the histograms its windows keep
    first = next(r for r in _rows(tmp_path / "minute.csv") if r["instance"] == "Instance 1" and r["phase"] == "measure")
    minute = int(first["interval"]) // 60
    reads = added(s.instances["Instance 1"] for s in samples[60 * minute: 60 * (minute + 1)] if s.instances)
    expected = percentiles_ms(reads.streams["db_read"].hist, (0.99,))["p99"]
    assert float(first["db_read_p99_latency_ms"]) == pytest.approx(expected)
    done = jetwise("export", str(stress_run), "--interval", "10s", "--output", str(tmp_path / "ten.csv"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ten = [r for r in _rows(tmp_path / "ten.csv") if r["instance"] == "_Total"]
    assert all(r["db_read_p99_latency_ms"] == "" for r in ten)  # the server's over parts of windows: not exact


def test_json_lines_read_back_as_samples_and_parquet_as_a_table(stress_run, tmp_path):
    done = jetwise("export", str(stress_run), "--format", "jsonl", "--output", str(tmp_path / "s.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "s.jsonl").read_text().splitlines()
    samples = [IntervalSample.model_validate_json(line) for line in lines]
    assert len(samples) == 660 and sum(len(s.instances) for s in samples) == 3 * 44
    assert json.loads(lines[0])["phase"] == "warmup"
    done = jetwise("export", str(stress_run), "--format", "parquet", "--output", str(tmp_path / "s.parquet"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = pq.read_table(tmp_path / "s.parquet")
    assert table.num_rows == 660 + 3 * 44 and "1 rows" not in done.stderr
    assert table.column("instance").to_pylist().count("_Total") == 660


def test_bad_input_is_exit_2_with_what_was_wrong(stress_run, tmp_path):
    done = jetwise("export", str(stress_run), "--interval", "soon", cwd=tmp_path)
    assert done.returncode == 2 and "--interval" in done.stderr
    done = jetwise("export", str(tmp_path / "nothing"), cwd=tmp_path)
    assert done.returncode == 2 and "neither a run folder nor a run id" in done.stderr
    done = jetwise("export", str(stress_run), "--output", str(tmp_path / "no" / "such.csv"), cwd=tmp_path)
    assert done.returncode == 2 and "is in a folder that does not exist" in done.stderr
    assert "Traceback" not in done.stderr
