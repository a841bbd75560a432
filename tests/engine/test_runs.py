"""Real tiny runs on temporary files: configuration in, verdict and key numbers out."""

from __future__ import annotations

import json
import threading

import pytest

from engine.protocol import IntervalEvent, PhaseEvent, ResultEvent
from engine.results.document import RESULT_FILE, SAMPLES_FILE, read_samples
from engine.results.schema import RESULT_SCHEMA_VERSION
from engine.run.runner import InvalidConfigError, Runner
from tests.conftest import small_config

INSTANCE_KEYS = {
    "name", "verdict", "reasons", "achieved_transactional_iops", "target_transactional_iops", "db_reads_per_s",
    "db_writes_per_s", "db_read_avg_latency_ms", "db_read_max_latency_ms", "db_write_avg_latency_ms",
    "db_read_avg_bytes", "db_write_avg_bytes", "log_writes_per_s", "log_write_avg_latency_ms",
    "log_write_max_latency_ms", "log_write_avg_bytes", "threads", "sluggish_sessions", "unbuffered_io", "io_errors",
    "bdm_reads_per_s", "bdm_read_avg_bytes", "log_replication_reads_per_s", "log_replication_read_avg_bytes",
    "log_reads_per_s", "log_read_avg_latency_ms", "db_cache_hit_ratio", "database_page_fault_stalls_per_s",
    "io_errors_by_kind",
}


def _run(config, out, events=None):
    sink = events if events is not None else []
    return Runner(config, out, sink.append).run().model_dump(mode="json")  # the document as result.json holds it


def test_performance_run_passes_with_full_document(disk_dir):
    events: list = []
    result = _run(small_config(disk_dir / "data"), disk_dir / "out", events)
    summary = result["summary"]
    assert summary["verdict"] == "pass", summary["reasons"]
    assert INSTANCE_KEYS - {"name"} <= set(summary)
    assert all(set(row) >= INSTANCE_KEYS for row in result["instances"])
    assert [row["name"] for row in result["instances"]] == ["Instance 1", "Instance 2"]
    # one or two 32 KiB pages per read; flush writes coalesce up to 8 neighbouring pages
    assert 32768 <= summary["db_read_avg_bytes"] <= 65536
    assert 32768 <= summary["db_write_avg_bytes"] <= 8 * 32768
    assert summary["log_write_avg_bytes"] >= 512 and summary["log_writes_per_s"] > 0
    assert summary["achieved_transactional_iops"] == pytest.approx(summary["db_reads_per_s"] + summary["db_writes_per_s"])
    assert 0 < summary["db_cache_hit_ratio"] < 1
    # maintenance is on by default: Exchange 2013's, ESE's 512 KiB batches (a database's last may be shorter)
    assert summary["bdm_read_avg_bytes"] == pytest.approx(16 * 32768, rel=0.1)
    assert summary["log_replication_reads_per_s"] == 0  # one copy: nothing to replicate
    assert result["schema_version"] == RESULT_SCHEMA_VERSION and result["configuration"]["thread_count"] == 2
    assert summary["io_errors"] == 0 and summary["io_errors_by_kind"] == {} and result["error_groups"] == []
    assert summary["measured_s"] == pytest.approx(2.0)
    assert 0 < summary["latency_percentiles_ms"]["db_read"]["p50"] <= summary["latency_percentiles_ms"]["db_read"]["p99"]
    # files on disk
    out = disk_dir / "out"
    assert json.loads((out / RESULT_FILE).read_text())["run_id"] == result["run_id"]
    assert not (out / SAMPLES_FILE).exists()  # one file of samples: samples.sqlite
    samples = list(read_samples(out))
    assert [s.phase for s in samples] == ["warmup"] + ["measure"] * 4
    # each instance's figures cover a window of samples, never across the start of the measured time
    measured_reads = sum(c.streams["db_read"].count for s in samples if s.phase == "measure" for c in s.instances.values())
    assert measured_reads == pytest.approx(summary["db_reads_per_s"] * summary["measured_s"], rel=1e-9)
    # the event stream
    phases = [e.phase.value for e in events if isinstance(e, PhaseEvent)]
    assert phases == ["validating", "preparing", "warming_up", "measuring", "finishing", "done"]
    assert sum(isinstance(e, IntervalEvent) for e in events) == 5
    assert isinstance(events[-2], ResultEvent)


RUN_TABLE = [
    # (overrides, expected verdict, check)
    ({"profile": {"mailboxes": 10**6, "iops_per_mailbox": 10.0, "mailbox_size_mb": 1}, "capacity_percent": 0.0001},
     "fail", lambda r: any("below the target" in x for x in r["summary"]["reasons"])),
    ({"operation_mix": {"insert_percent": 0, "delete_percent": 0, "replace_percent": 0, "read_percent": 100}},
     "pass", lambda r: r["summary"]["db_writes_per_s"] == 0 and r["summary"]["log_writes_per_s"] == 0),
    ({"test_type": "stress", "databases": 1, "thread_count": 3},
     "pass", lambda r: r["summary"]["threshold_set"] == "Lenient" and r["instances"][0]["threads"] == 3),
    ({"thresholds": {"strict": {"db_read_avg_latency_ms": 0.000001}}},
     "fail", lambda r: all("average database read latency" in x for x in r["summary"]["reasons"])),
]


@pytest.mark.parametrize(("overrides", "verdict", "check"), RUN_TABLE)
def test_run_table(disk_dir, overrides, verdict, check):
    result = _run(small_config(disk_dir / "data", **overrides), disk_dir / "out")
    assert result["summary"]["verdict"] == verdict, result["summary"]["reasons"]
    assert check(result)


def test_sluggish_sessions_throttle_each_thread(disk_dir):
    fast = _run(small_config(disk_dir / "a", databases=1, thread_count=1), disk_dir / "oa")["summary"]
    slow = _run(small_config(disk_dir / "b", databases=1, thread_count=1, sluggish_sessions=4), disk_dir / "ob")["summary"]
    # s = 4: each session is busy at most a quarter of the time
    assert slow["achieved_transactional_iops"] < 0.5 * fast["achieved_transactional_iops"]
    assert slow["sluggish_sessions"] == 4


def test_second_run_attaches_the_databases_it_created(disk_dir):
    config = small_config(disk_dir / "data")
    events: list = []
    _run(config, disk_dir / "o1")
    _run(config, disk_dir / "o2", events)
    assert any("already complete; attaching" in getattr(e, "message", "") for e in events)


def test_stop_request_mid_run_leaves_samples_and_an_aborted_result(disk_dir):
    config = small_config(disk_dir / "data", duration_s=30.0)
    out = disk_dir / "out"
    def stop_when_measuring(event):
        if isinstance(event, IntervalEvent) and event.sample.phase == "measure":
            runner.request_stop()

    runner = Runner(config, out, stop_when_measuring)
    result = runner.run().model_dump(mode="json")
    summary = result["summary"]
    assert summary["verdict"] == "aborted"
    assert summary["reasons"][0].startswith("Run aborted: stopped by the user after")
    assert 0 < summary["measured_s"] < 5
    assert summary["db_reads_per_s"] > 0
    assert len(read_samples(out)) >= 2
    assert json.loads((out / RESULT_FILE).read_text())["summary"]["verdict"] == "aborted"


def test_invalid_configuration_runs_nothing(disk_dir):
    config = small_config(disk_dir / "no" / "such", make_base=False)
    with pytest.raises(InvalidConfigError) as info:
        Runner(config, disk_dir / "out", lambda e: None).run()
    assert any("does not exist" in p.message for p in info.value.problems)
    assert not (disk_dir / "out").exists()


def test_runner_is_safe_to_stop_from_another_thread(disk_dir):
    config = small_config(disk_dir / "data", duration_s=60.0, warmup_s=0)
    runner = Runner(config, disk_dir / "out", lambda e: None)
    timer = threading.Timer(1.5, runner.request_stop)
    timer.start()
    result = runner.run().model_dump(mode="json")
    timer.join(10)
    assert result["summary"]["verdict"] == "aborted"


def test_messages_drained_from_an_exiting_worker_are_all_acted_on(disk_dir):
    """An I/O error or log line sent just before a worker exits must not be dropped."""
    from engine.protocol import LogEvent
    from engine.run.measurement import Measurement
    from engine.run.messages import WorkerDone, WorkerHello, WorkerIoError, WorkerLog
    from engine.run.sources.pool import _PoolRun

    events: list = []
    runner = Runner(small_config(disk_dir / "data"), disk_dir / "out", events.append)
    pool_run = _PoolRun(runner, Measurement(runner.config, None, events.append, runner.log), True, True, "")
    reason = "Instance 1: I/O error (Input/output error); the test stopped"
    for message in [
        WorkerHello(0, 4321),
        WorkerLog(0, "warning", "Instance 1: an I/O did not complete"),
        WorkerIoError(0, reason),
        WorkerDone(0),
    ]:
        pool_run.workers.messages.put(message)
    try:
        drained = pool_run._drain_until_done(0)
    finally:
        left = pool_run.workers.reap(runner.log)
    assert drained and left == []
    assert pool_run.failures == [reason]
    assert pool_run.workers.stopping and pool_run.stop_at_ns is not None
    assert any(isinstance(e, LogEvent) and "did not complete" in e.message for e in events)


def test_a_settling_run_measures_once_latency_has_settled_and_then_stops(disk_dir):
    from engine.run.settling import SettleRule

    config = small_config(disk_dir / "data", databases=1, warmup_s=1.0, duration_s=30.0, sample_interval_s=0.25)
    rule = SettleRule(window=6, max_drift=0.5, measure_samples=8)
    events: list = []
    result = Runner(config, disk_dir / "out", events.append, settle=rule).run().model_dump(mode="json")
    samples = [e for e in events if isinstance(e, IntervalEvent)]
    phases = [e.sample.phase for e in samples]
    warm = phases.count("warmup")
    assert 4 <= warm < len(phases) and phases[warm:] == ["measure"] * 8  # settled early, then 8 judged samples
    assert result["summary"]["verdict"] == "pass", result["summary"]["reasons"]
    assert result["summary"]["measured_s"] == pytest.approx(8 * 0.25)
    log = (disk_dir / "out" / "test.log").read_text()
    assert "Latency settled after" in log


def test_a_new_run_folder_never_shares_a_name_with_one_already_there(tmp_path):
    from engine.results.document import new_folder

    assert new_folder(tmp_path, "20260101-120000-run") == tmp_path / "20260101-120000-run"
    for name in ("20260101-120000-run", "20260101-120000-run-2", "other"):
        (tmp_path / name).mkdir()
    # "-2" is taken: the next free number, whatever else the folder holds
    assert new_folder(tmp_path, "20260101-120000-run") == tmp_path / "20260101-120000-run-3"


def test_a_run_in_a_folder_jetwise_named_takes_its_id_from_the_folders_name(tmp_path):
    from engine.results.document import run_id_of, stamped_folder
    from engine.run.sources.model import PROFILES, runner_for

    config = small_config(tmp_path / "data")
    folder = stamped_folder(tmp_path / "runs" / "SAN tier 2", "t2-s1")
    result = runner_for(PROFILES["flash"], config, folder, lambda _event: None).run()
    assert folder.name == f"{result.run_id}-t2-s1"
    assert json.loads((folder / RESULT_FILE).read_text())["run_id"] == result.run_id
    # a folder the engineer named (--output) says nothing of the id: the run gets a new one
    other = runner_for(PROFILES["flash"], config, tmp_path / "my run", lambda _event: None).run()
    assert run_id_of(tmp_path / "my run") is None and other.run_id != result.run_id and len(other.run_id) == 22
