"""The run store: sessions, runs, samples and logs round-trip; migrations; abandoned runs."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.model.config import TestConfig, default_config
from engine.protocol import IntervalEvent, LogEvent, ResultEvent, StartEvent
from engine.results.host_schema import HostFigures
from engine.results.sample_schema import Figures, IntervalSample
from engine.results.schema import Outcome, RunResult, Summary
from engine.store.migrations import MIGRATIONS, SCHEMA_VERSION
from engine.store.recorder import RunRecorder
from engine.store.sqlite import ABORTED, Store, StoreError

ROOT = Path(__file__).resolve().parents[2]


def _result(config: TestConfig, verdict: str = "pass", run_id: str = "run-1") -> RunResult:
    summary = Summary(
        verdict=Outcome(verdict), achieved_transactional_iops=130.5, db_read_avg_latency_ms=12.25,
        log_write_avg_latency_ms=1.5, reasons=[] if verdict == "pass" else ["too slow"], test_type="performance",
        threshold_set="Strict", target_transactional_iops=config.target_transactional_iops, target_margin_percent=5.0,
        measured_s=10.0, database_count=config.database_count, threads=config.thread_count,
        sluggish_sessions=config.sluggish_sessions,
    )
    return RunResult(run_id=run_id, configuration=config, summary=summary, instances=[])


def _interval(index: int) -> IntervalEvent:
    sample = IntervalSample(interval=index, phase="measure", elapsed_s=index + 1.0, duration_s=1.0,
                            summary=Figures(transactional_iops=100.0 + index), instances=[],
                            host=HostFigures(cpu_percent=5.0))
    return IntervalEvent(sample=sample)


def _start(config: TestConfig, run_id: str = "run-1") -> StartEvent:
    return StartEvent(run_id=run_id, started_utc="2026-11-21T12:00:00+00:00", config=config)


def test_a_run_round_trips_with_its_samples_log_and_result(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    config = default_config(tmp_path, thread_count=3, sluggish_sessions=2)
    record = RunRecorder(store, "SATA pair", tmp_path / "out")
    record(_interval(0))  # before the run starts nothing is recorded
    assert store.runs() == []
    record(_start(config))
    for index in range(3):
        record(_interval(index))
    record(LogEvent(time="2026-11-21T13:00:00+01:00", level="warning", message="a warning"))
    record(ResultEvent(result=_result(config, "fail")))
    [run] = store.runs("SATA pair")
    assert (run.run_id, run.status, run.threads, run.sluggish_sessions) == ("run-1", "fail", 3, 2)
    assert (run.achieved_iops, run.db_read_avg_latency_ms, run.reasons) == (130.5, 12.25, ["too slow"])
    assert store.samples("run-1") == []  # the run folder alone keeps the samples
    assert store.log_lines("run-1") == []  # the run folder alone keeps the test log
    result = store.result("run-1")
    assert result is not None and result.verdict == "fail" and result.configuration == config
    assert run.to_dict()["target_transactional_iops"] == config.target_transactional_iops
    store.close()
    again = Store(tmp_path / "s.sqlite3")  # everything is on disk
    assert [r.run_id for r in again.runs()] == ["run-1"] and again.version == SCHEMA_VERSION


def test_a_run_is_named_by_its_id_or_by_the_first_or_last_characters_that_name_it_alone(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    config = default_config(tmp_path)
    ids = ["20261125-140501-3fa9c1", "20261125-140733-77b20e", "20261126-090000-3fa9c1x"]
    for run_id in ids:
        record = RunRecorder(store, "SATA pair", tmp_path / run_id)
        record(_start(config, run_id))
        record(ResultEvent(result=_result(config, run_id=run_id)))
    assert [r.run_id for r in store.runs_named(ids[1])] == [ids[1]]  # the whole id
    assert [r.run_id for r in store.runs_named("77b20e")] == [ids[1]]  # its last characters
    assert [r.run_id for r in store.runs_named("20261126")] == [ids[2]]  # its first
    assert [r.run_id for r in store.runs_named("20261125-14")] == ids[:2]  # more than one: the caller asks for more
    assert [r.run_id for r in store.runs_named("3fa9c1")] == [ids[0]]  # an end, not a middle
    assert store.runs_named("") == [] and store.runs_named("nope") == []


def test_a_session_is_one_storage_design_and_another_design_gets_a_session_of_its_own(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    store.session_for("design A", default_config(tmp_path))
    # tuning or profile edits stay in the session; its target follows the latest run
    for edited in (default_config(tmp_path, thread_count=9), default_config(tmp_path, profile={"mailboxes": 5})):
        assert store.resolve_session("design A", edited) == ("design A", None)
    store.session_for("design A", default_config(tmp_path, profile={"mailboxes": 5}))
    assert store.session("design A").target_iops == pytest.approx(5 * 0.1 * 1.2)
    # other folders: never refused, the run goes to "design A (2)", and again there next time
    elsewhere = default_config(tmp_path / "other")
    name, note = store.resolve_session("design A", elsewhere)
    assert name == "design A (2)" and "goes into tuning session 'design A (2)'" in note
    store.session_for(name, elsewhere)
    assert store.resolve_session("design A", elsewhere)[0] == "design A (2)"
    assert store.resolve_session("design A", default_config(tmp_path, copies_per_database=2))[0] == "design A (3)"


def test_a_version_1_store_is_migrated_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("INSERT INTO sessions VALUES (1, 'old', '2025-01-01T00:00:00+00:00', '{}', 500.0)")
    db.execute(
        "INSERT INTO runs (id, run_id, session_id, started_utc, status, threads, sluggish_sessions, config_json, "
        "output_dir, result_json) VALUES (1, 'r1', 1, '2025-01-01T00:00:00+00:00', 'pass', 4, 1, ?, '/x', ?)",
        (default_config(tmp_path).model_dump_json(), _result(default_config(tmp_path)).model_dump_json()),
    )
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = Store(path)
    assert store.version == SCHEMA_VERSION
    [run] = store.runs("old")
    assert (run.achieved_iops, run.db_read_avg_latency_ms, run.log_write_avg_latency_ms) == (130.5, 12.25, 1.5)
    assert store.log_lines("r1") == [] and store.advice("r1") is None  # kept by an older version: none of them


def test_a_version_3_store_learns_what_each_run_ran_on_as_its_result_is_read(tmp_path):
    """Results before schema 16 name no device: a simulated one's is its simulated note's, or none is named (before
    schema 14 notes were words, and a test across servers kept none); the store's column and the document agree."""
    path = tmp_path / "old.sqlite3"
    config = default_config(tmp_path)
    disk = _result(config, run_id="disk").model_dump(mode="json")
    flash = {**_result(config, run_id="flash").model_dump(mode="json"), "simulated": True,
             "notes": [{"what": "page_faults"}, {"what": "simulated", "device": "flash", "about": "flash"}]}
    worded = {**_result(config, run_id="worded").model_dump(mode="json"), "simulated": True, "schema_version": 13,
              "notes": ["Simulated device (sata-2x7k): two disks. No disk I/O was done; the times are virtual."]}
    db = sqlite3.connect(path)
    for migration in MIGRATIONS[:3]:
        db.executescript(migration)
    db.execute("INSERT INTO sessions VALUES (1, 'old', '2025-01-01T00:00:00+00:00', '{}', 500.0)")
    for key, document in enumerate((disk, flash, worded, None), start=1):
        if document is not None:
            document = {**document, "schema_version": document["schema_version"] if key == 3 else 15}
            del document["device"]
        db.execute(
            "INSERT INTO runs (id, run_id, session_id, started_utc, status, threads, sluggish_sessions, config_json, "
            "output_dir, result_json) VALUES (?, ?, 1, '2025-01-01T00:00:00+00:00', 'pass', 4, 1, ?, '/x', ?)",
            (key, f"r{key}", config.model_dump_json(), None if document is None else json.dumps(document)))
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    store = Store(path)
    assert [run.device for run in store.runs("old")] == ["", "flash", "simulated", None]
    assert [store.result(f"r{key}").device for key in (1, 2, 3)] == ["", "flash", "simulated"]
    assert [run.simulated_on for run in store.runs("old")] == ["", "simulated: flash", "simulated", ""]


def test_a_store_from_a_newer_jetwise_is_refused_with_a_reason(tmp_path):
    path = tmp_path / "new.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="written by a newer Jetwise"):
        Store(path)


def test_a_run_whose_process_died_is_marked_aborted(tmp_path):
    path = tmp_path / "s.sqlite3"
    script = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
from pathlib import Path
from engine.model.config import default_config
from engine.protocol import LogEvent
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store
from tests.engine.test_store import _interval, _start
store = Store(Path({str(path)!r}))
config = default_config(Path({str(tmp_path)!r}))
record = RunRecorder(store, "s", Path("out"))
record(_start(config, "dies"))
for i in range(5):
    record(_interval(i))
    record(LogEvent(time="2026-11-21T12:00:00+00:00", level="info", message="a line"))
os._exit(9)  # no result, no clean shutdown
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path), timeout=60)
    assert done.returncode == 9
    store = Store(path)
    [run] = store.runs("s")
    assert run.status == ABORTED and "ended without finishing" in run.reasons[0]


def test_a_session_renamed_keeps_its_runs_and_a_run_forgotten_takes_its_samples_and_an_empty_session(tmp_path):
    import pytest

    from engine.model.config import default_config
    from engine.store.sqlite import Store, StoreError

    store = Store(tmp_path / "store.sqlite3")
    try:
        config = default_config(tmp_path / "data")
        store.begin_run(store.session_for("design", config), "r1", config, tmp_path / "r1")
        store.begin_run(store.session_for("other", config.model_copy(update={"copies_per_database": 2})), "r2",
                        config, tmp_path / "r2")
        with pytest.raises(StoreError, match="there is a tuning session 'other' already"):
            store.rename_session("design", "other")
        with pytest.raises(StoreError, match="at most 200 characters"):  # the rule `jetwise … --session` applies
            store.rename_session("design", "x" * 201)
        with pytest.raises(StoreError, match="control character"):
            store.rename_session("design", "SAN\ttier 2")
        store.rename_session("design", "SAN tier 2")
        assert [r.run_id for r in store.runs("SAN tier 2")] == ["r1"] and store.runs("design") == []
        store.forget_run("r1")
        assert store.run("r1") is None and store.session("SAN tier 2") is None  # no run left: no session either
        assert store.session("other") is not None and store.run("r2") is not None
    finally:
        store.close()
