"""`jetwise engine --suite`: the ESRP suite for a front end, on the simulated device in virtual time: a suite event
before each stage and at the end, each stage's own run events in between, the stop command on stdin, and resume."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from engine.protocol import ResultEvent, StartEvent, SuiteEvent, from_json_line
from engine.results.schema import Outcome
from tests.cli.test_cli import JETWISE, _init_small

pytestmark = pytest.mark.slow  # the whole suite through the engine process, twice


def _config(tmp_path: Path) -> Path:
    config = _init_small(tmp_path)
    data = json.loads(config.read_text())
    data.update(sample_interval_s=30.0, warmup_s=60.0, log_files_to_replay=20)
    config.write_text(json.dumps(data))
    return config


def _engine(config: Path, folder: Path, stop_at_stage: int | None = None) -> tuple[int, list[object]]:
    process = subprocess.Popen([*JETWISE, "engine", str(config), "--output", str(folder), "--suite", "--simulate", "flash"],
                               cwd=config.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None and process.stdin is not None
    events: list[object] = []
    for line in process.stdout:
        event = from_json_line(line)
        events.append(event)
        if isinstance(event, SuiteEvent) and event.stage is not None and event.stage == stop_at_stage:
            process.stdin.write("stop\n")
            process.stdin.flush()
    process.communicate(timeout=120)
    return process.returncode, events


def test_the_engine_runs_the_suite_for_a_front_end_and_resumes_after_a_stop(tmp_path):
    config, folder = _config(tmp_path), tmp_path / "esrp"
    # stopped as the 24 h Stress begins: its virtual day takes seconds, the stop a moment
    code, events = _engine(config, folder, stop_at_stage=1)
    suites = [e for e in events if isinstance(e, SuiteEvent)]
    assert code == 3 and [e.stage for e in suites] == [0, 1, None]
    assert [s.outcome for s in suites[-1].record.stages] == [Outcome.PASS, Outcome.ABORTED, None, None, None]
    assert len([e for e in events if isinstance(e, StartEvent)]) == 2  # each stage is a run with its own events

    code, events = _engine(config, folder)
    suites = [e for e in events if isinstance(e, SuiteEvent)]
    assert code == 0 and [e.stage for e in suites] == [1, 2, 3, 4, None]  # resumed at the stopped stage
    assert suites[-1].record.outcome == Outcome.PASS and suites[-1].folder == str(folder)
    results = [e.result for e in events if isinstance(e, ResultEvent)]
    assert [r.configuration.test_type for r in results] == ["stress", "database_checksum", "database_backup",
                                                            "soft_recovery"]
    assert results[-1].recovery is not None and results[-1].recovery.log_files_replayed == 40
    assert (folder / "esrp-report.html").is_file()
