"""`jetwise suite`: the five ESRP tests on tiny real databases with short stages, as a vendor runs them: a failed
stage does not stop the suite, Ctrl-C stops it where it is, the same command resumes it, and a finished suite
run again only says what it found."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.results.document import read_result
from engine.run.suite import STAGES, read_suite
from tests.cli.test_cli import JETWISE, _init_small, jetwise

pytestmark = pytest.mark.slow  # real files: five tests on tiny databases, run through

SHORT = ("--performance-duration", "2s", "--stress-duration", "2s")


def _suite_config(tmp_path: Path, **values: object) -> Path:
    config = _init_small(tmp_path)
    data = json.loads(config.read_text())
    # As tests/conftest.py's small_config: 128 pages of cache for 256-page databases, so that the buffers kept free
    # outlast a flush on a loaded host and a miss does not stall (the stalls' limit is one a second).
    data["profile"]["mailboxes"] = 16
    data["thresholds"].update(values.pop("thresholds", {}))  # its seconds-long stages judged, as _init_small's
    data.update({"log_files_to_replay": 3, "database_cache_min_mb": 4.0, "database_cache_max_mb": 8.0, **values})
    config.write_text(json.dumps(data))
    return config


def test_a_failed_stage_does_not_stop_the_suite_and_a_finished_suite_runs_nothing_again(tmp_path):
    # Strict thresholds no disk meets: Performance and the Soft Recovery's load fail; Stress (Lenient) and the scans pass.
    # 16 log files each: their generation outlasts a sample interval on a fast disk too, so its latency is judged.
    config = _suite_config(tmp_path, thresholds={"strict": {"db_read_avg_latency_ms": 0.001}}, log_files_to_replay=16)
    folder = tmp_path / "suite"
    done = jetwise("suite", str(config), "--output", str(folder), *SHORT, cwd=tmp_path, timeout=240)
    assert done.returncode == 1, done.stderr
    record = read_suite(folder)
    assert [stage.test_type for stage in record.stages] == list(STAGES)
    assert [stage.outcome for stage in record.stages] == ["fail", "pass", "pass", "pass", "fail"]
    for stage in record.stages:  # every stage's run folder keeps its own result
        assert read_result(folder / stage.folder).run_id == stage.run_id
    assert read_result(folder / "2-stress").configuration.duration_s == 2.0
    assert read_result(folder / "5-soft-recovery").recovery.log_files_replayed == 32
    assert "ESRP trial (not a qualification): FAIL" in done.stderr and "=== Stage 5 of 5: Soft Recovery" in done.stderr
    assert "1. Performance        FAIL" in done.stderr and "4. Database Backup    PASS" in done.stderr
    assert "A trial, not a qualification: its Performance and Stress tests are shorter" in done.stderr
    report = (folder / "esrp-report.html").read_text(encoding="utf-8")  # named a trial before anything else
    assert "<h1>ESRP trial (not a qualification)</h1>" in report and "ESRP qualification" not in report

    again = jetwise("suite", str(config), "--output", str(folder), *SHORT, cwd=tmp_path)
    assert again.returncode == 1 and "Every stage of this suite has run" in again.stderr
    assert "=== Stage" not in again.stderr
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == [
        "1-performance", "2-stress", "3-database-checksum", "4-database-backup", "5-soft-recovery"]

    other = tmp_path / "other.json"
    other.write_text(json.dumps({**json.loads(config.read_text()), "thread_count": 4}))
    refused = jetwise("suite", str(other), "--output", str(folder), *SHORT, cwd=tmp_path)
    assert refused.returncode == 2 and "holds another suite (its configuration's thread_count differ)" in refused.stderr
    simulated = jetwise("suite", str(config), "--output", str(folder), *SHORT, "--simulate", "flash", cwd=tmp_path)
    assert simulated.returncode == 2 and "device (the disk, not simulated flash)" in simulated.stderr
    (tmp_path / "a-file").write_text("not a folder")
    for output, says in ((tmp_path / "a-file", "a-file is a file, not a folder"),
                         (tmp_path / "a-file" / "below", f"below is below {tmp_path / 'a-file'}, which is a file, not a folder")):
        refused = jetwise("suite", str(config), "--output", str(output), *SHORT, cwd=tmp_path)
        assert refused.returncode == 2 and says in refused.stderr and "Traceback" not in refused.stderr
    too_long = jetwise("suite", str(config), "--output", str(tmp_path / "long"), "--stress-duration", "721h", cwd=tmp_path)
    assert too_long.returncode == 2 and "the Stress length must be more than 0 and at most 30 days" in too_long.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a child process are POSIX")
def test_ctrl_c_stops_the_suite_at_its_stage_and_the_same_command_resumes_there(tmp_path):
    config = _suite_config(tmp_path)
    folder = tmp_path / "suite"
    command = [*JETWISE, "suite", str(config), "--output", str(folder), *SHORT]
    process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("=== Stage 2"):  # Ctrl-C as the second stage begins
            process.send_signal(signal.SIGINT)
            break
    _out, rest = process.communicate(timeout=60)
    assert process.returncode == 3, rest
    assert "ESRP trial (not a qualification): UNFINISHED" in rest and f"--output {folder}" in rest
    record = read_suite(folder)
    assert [stage.outcome for stage in record.stages] == ["pass", "aborted", None, None, None]
    stopped = read_result(folder / "2-stress")
    assert stopped.summary.verdict == "aborted" and "Ctrl-C" in stopped.summary.reasons[0]

    resumed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert resumed.returncode == 0, resumed.stderr
    assert "=== Stage 1 of 5" not in resumed.stderr and "=== Stage 2 of 5: Stress" in resumed.stderr
    record = read_suite(folder)
    assert [stage.outcome for stage in record.stages] == ["pass"] * 5
    # the stopped attempt keeps its folder beside the one that ran through
    assert [stage.folder for stage in record.stages][:2] == ["1-performance", "2-stress-2"]
    assert read_result(folder / "2-stress").summary.verdict == "aborted"
    assert "ESRP trial (not a qualification): PASS" in resumed.stderr
