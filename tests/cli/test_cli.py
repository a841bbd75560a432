"""The headless CLI as an engineer uses it: real processes, real exit codes, real Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from engine.protocol import (
    PROTOCOL_VERSION,
    ExitCode,
    HelloEvent,
    IntervalEvent,
    LogEvent,
    Phase,
    PhaseEvent,
    RefusalEvent,
    ResultEvent,
    from_json_line,
)
from engine.results.document import read_samples
from tests.frozen.programs import said_until

JETWISE = [sys.executable, "-m", "app"]


def jetwise(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JETWISE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _init_small(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "test.json"
    done = jetwise(
        "init", str(out), "--databases", "2", "--db-path", str(tmp_path / "DB{n}"), "--log-path", str(tmp_path / "Log{n}"),
        "--mailboxes", "8", "--mailbox-size-mb", "1", "--duration", "2s", "--warmup", "1s",
        "--cache-min-mb", "1", "--cache-max-mb", "2", *extra, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    data["sample_interval_s"] = 0.5
    data["thresholds"]["minimum_measured_s"] = 0  # its seconds-long runs are judged
    out.write_text(json.dumps(data))
    return out


def test_init_writes_a_complete_configuration(tmp_path):
    out = _init_small(tmp_path)
    data = json.loads(out.read_text())
    assert (data["schema_version"], data["profile"]["exchange"]) == (2, "2013")  # Exchange 2013 and later, unless asked
    assert [d["database_path"] for d in data["databases"]] == [str(tmp_path / "DB1"), str(tmp_path / "DB2")]
    assert data["thresholds"]["strict"]["db_read_avg_latency_ms"] == 20
    assert data["operation_mix"]["lazy_commit_percent"] == 70
    assert (data["copies_per_database"], data["background_maintenance"]) == (1, True)
    assert (data["database_cache_min_mb"], data["database_cache_max_mb"]) == (1, 2)


def test_init_sets_the_exchange_version_whose_workload_runs(tmp_path):
    data = json.loads(_init_small(tmp_path, "--exchange", "2010").read_text())
    assert data["profile"]["exchange"] == "2010"


def test_init_sets_copies_and_background_maintenance(tmp_path):
    out = _init_small(tmp_path, "--copies", "3", "--background-maintenance", "off")
    data = json.loads(out.read_text())
    assert (data["copies_per_database"], data["background_maintenance"]) == (3, False)


def test_init_cache_bounds_the_wrong_way_round_are_named_and_exit_2(tmp_path):
    done = jetwise("init", str(tmp_path / "t.json"), "--cache-min-mb", "4096", "--cache-max-mb", "1024", cwd=tmp_path)
    assert done.returncode == 2
    assert "the minimum database cache (4096 MB) is larger than the maximum (1024 MB)" in done.stderr
    assert not (tmp_path / "t.json").exists()


def test_init_too_many_copies_is_named_by_its_flag(tmp_path):
    done = jetwise("init", str(tmp_path / "t.json"), "--copies", "17", cwd=tmp_path)
    assert done.returncode == 2
    assert "--copies: at most 16 copies (got 17)" in done.stderr


def test_init_base_folder_gets_one_subfolder_per_database(tmp_path):
    out = tmp_path / "t.json"
    assert jetwise("init", str(out), "--databases", "3", "--db-path", str(tmp_path), cwd=tmp_path).returncode == 0
    paths = [Path(d["database_path"]).name for d in json.loads(out.read_text())["databases"]]
    assert paths == ["DB1", "DB2", "DB3"]


def test_init_bad_value_is_named_by_its_flag_and_exits_2(tmp_path):
    done = jetwise("init", str(tmp_path / "t.json"), "--mailboxes", "-5", cwd=tmp_path)
    assert done.returncode == 2
    assert "--mailboxes: at least 1 mailbox (got -5)" in done.stderr
    assert not (tmp_path / "t.json").exists()


def test_init_never_overwrites_without_force(tmp_path):
    out = tmp_path / "t.json"
    out.write_text("keep me")
    done = jetwise("init", str(out), cwd=tmp_path)
    assert done.returncode == 2 and "exists; use --force" in done.stderr
    assert out.read_text() == "keep me"


def test_bad_duration_exits_2(tmp_path):
    done = jetwise("init", str(tmp_path / "t.json"), "--duration", "two hours", cwd=tmp_path)
    assert done.returncode == 2 and "cannot read duration" in done.stderr


def test_validate_reports_every_problem_and_exits_2(tmp_path):
    out = _init_small(tmp_path)
    data = json.loads(out.read_text())
    data["databases"][1]["database_path"] = str(tmp_path / "missing" / "deeper")
    data["thread_count"] = 1
    out.write_text(json.dumps(data))
    done = jetwise("validate", str(out), cwd=tmp_path)
    assert done.returncode == 2
    assert "thread_count: 1 thread(s) cannot serve 2 databases" in done.stdout
    assert "databases[1].database_path:" in done.stdout and "does not exist" in done.stdout


def test_validate_accepts_a_good_file(tmp_path):
    done = jetwise("validate", str(_init_small(tmp_path)), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_validate_says_a_database_the_cache_holds_is_judged_fail_not_plainly_valid(tmp_path):
    done = jetwise("validate", str(_init_small(tmp_path, "--cache-max-mb", "64", "--cache-min-mb", "64")), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "database_cache_max_mb: the database cache" in done.stdout and "holds the whole database" in done.stdout
    assert "this design is not a test of the storage, and a run of it is judged FAIL at any length" in done.stdout
    assert "or lower the database cache" in done.stdout
    assert done.stderr.strip().endswith("test.json: valid, with 1 warning(s) above to read before running")
    (tmp_path / "plain").mkdir()
    plain = jetwise("validate", str(_init_small(tmp_path / "plain")), cwd=tmp_path)
    assert plain.stderr.strip().endswith("test.json: valid"), plain.stderr


def test_validate_names_broken_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    done = jetwise("validate", str(bad), cwd=tmp_path)
    assert done.returncode == 2 and "is not valid JSON (line 1" in done.stdout


def test_run_json_prints_the_result_document(tmp_path):
    config = _init_small(tmp_path)
    done = jetwise("run", str(config), "--output", str(tmp_path / "run1"), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["summary"]["verdict"] == "pass"
    assert "Overall test result: PASS" in done.stderr and "[measure" in done.stderr
    stem = "Performance_{0.year}_{0.month}_{0.day}_{0.hour}_{0.minute}_{0.second}".format(
        datetime.fromisoformat(result["times"]["test_start_utc"]).astimezone())
    assert {p.name for p in (tmp_path / "run1").iterdir()} == {
        "result.json", "samples.sqlite", "test.log", "config.json", "host.json", f"{stem}.html",
        f"{stem}.xml"}  # Jetstress's, for scripts; host.json from the start, so a killed run's report names the machine


def test_failing_run_exits_1(tmp_path):
    config = _init_small(tmp_path, "--mailboxes", "100000", "--iops-per-mailbox", "100", "--capacity-percent", "0.01", "--threads", "2")
    done = jetwise("run", str(config), "--output", str(tmp_path / "r"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "below the target" in done.stderr
    # the console names whose workload ran, as the test log and the report do
    assert "Exchange version: Exchange 2013, 2016, 2019 and Subscription Edition: Jetstress 2013" in done.stderr


def test_quick_run_cleans_up_its_scratch_databases(tmp_path):
    done = jetwise("run", "--quick", "--duration", "1s", "--warmup", "0s", "--minimum-measured", "0", "--output",
                   str(tmp_path / "q"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "q" / "result.json").read_text())["summary"]["verdict"] == "pass"
    assert not (tmp_path / "quick-check-data").exists()


def test_engine_subcommand_writes_json_lines(tmp_path):
    config = _init_small(tmp_path)
    done = jetwise("engine", str(config), "--output", str(tmp_path / "e"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [from_json_line(line) for line in done.stdout.splitlines()]
    assert isinstance(events[0], HelloEvent) and events[0].protocol == PROTOCOL_VERSION
    assert isinstance(events[1], PhaseEvent)
    assert any(isinstance(e, IntervalEvent) for e in events)
    assert isinstance(events[-3], ResultEvent) and events[-3].result.verdict == "pass"
    assert isinstance(events[-2], LogEvent) and events[-2].message.startswith("Jetstress-layout result files: Performance_")
    assert isinstance(events[-1], PhaseEvent) and events[-1].phase == Phase.DONE


def test_the_engine_refuses_a_configuration_and_a_store_as_problems_at_their_fields_not_as_log_lines(tmp_path):
    """A front end places what the engine refused by its field: nothing it says is parsed back from a log line."""
    config = _init_small(tmp_path)
    data = json.loads(config.read_text())
    data["database_cache_min_mb"], data["database_cache_max_mb"] = 4096, 1024
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    done = jetwise("engine", str(bad), "--output", str(tmp_path / "e"), cwd=tmp_path)
    events = [from_json_line(line) for line in done.stdout.splitlines()]
    assert done.returncode == ExitCode.INVALID and not any(isinstance(e, LogEvent) for e in events)
    refusal = events[-1]
    assert isinstance(refusal, RefusalEvent) and [p.field for p in refusal.problems] == ["database_cache_min_mb"]

    newer = tmp_path / "newer"
    newer.mkdir()
    with sqlite3.connect(newer / "jetwise.sqlite3") as db:
        db.execute("PRAGMA user_version = 99")
    done = subprocess.run([*JETWISE, "engine", str(config), "--output", str(tmp_path / "e2")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, JETWISE_DATA_DIR=str(newer)))
    refusal = from_json_line(done.stdout.splitlines()[-1])
    assert done.returncode == ExitCode.INVALID and isinstance(refusal, RefusalEvent)
    assert [p.field for p in refusal.problems] == ["session"] and "newer Jetwise" in refusal.problems[0].message


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a child process are POSIX")
@pytest.mark.parametrize(("signum", "reason"), [
    (signal.SIGINT, "stopped by the user (Ctrl-C)"),
    (getattr(signal, "SIGHUP", 1), "the terminal or remote session that started it closed (SIGHUP)"),
    (signal.SIGTERM, "stopped by a termination signal (SIGTERM)"),
], ids=["ctrl-c", "hang-up", "terminate"])
def test_a_signal_mid_run_leaves_an_aborted_result_and_exits_3(tmp_path, signum, reason):
    config = _init_small(tmp_path, "--duration", "60s", "--warmup", "0s")
    out = tmp_path / "aborted"
    process = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(out)], cwd=tmp_path,
                               stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    lines = said_until(process)
    sent = time.monotonic()
    process.send_signal(signum)
    _rest, _ = process.communicate(timeout=10)
    stop_s = time.monotonic() - sent
    assert process.returncode == 3, "".join(lines)
    result = json.loads((out / "result.json").read_text())
    assert result["summary"]["verdict"] == "aborted"
    assert reason in result["summary"]["reasons"][0]
    assert result["summary"]["db_reads_per_s"] > 0
    assert len(read_samples(out)) >= 1
    assert stop_s < 5, f"stopping took {stop_s:.1f} s"


def test_init_takes_exchange_2016_2019_and_subscription_edition_as_the_2013_generation(tmp_path):
    for said in ("2016", "2019", "SE", "se"):
        (tmp_path / said).mkdir()
        assert json.loads(_init_small(tmp_path / said, "--exchange", said).read_text())["profile"]["exchange"] == "2013"
    assert "2016, 2019 or SE is taken as 2013" in " ".join(jetwise("init", "--help", cwd=tmp_path).stdout.split())
