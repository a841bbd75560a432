"""A maximum latency failed by a stall (a paused virtual machine, a snapshot) beside averages far under their limits
is not the storage's limit: the advisor asks for the same setting again, and counts it only if it spikes again."""

from __future__ import annotations

from engine.results.schema import Outcome, RunResult
from engine.tuning.advisor import advise_session
from engine.tuning.evidence import evidence, spiky
from engine.tuning.tuner import Tuner
from tests.engine.test_advisor import _config, _simulated_result


def _stalled(result: RunResult, *, read_avg_ms: float | None = None) -> RunResult:
    """`result` as if one second had stalled Instance 1's reads at 288 ms (and, given, its reads averaged
    `read_avg_ms`)."""
    criteria = []
    for c in result.criteria:
        if c.instance == "Instance 1" and c.name == "maximum database read latency":
            c = c.model_copy(update={"value": 288.0, "passed": False})
        if read_avg_ms is not None and c.instance == "Instance 1" and c.name == "average database read latency":
            c = c.model_copy(update={"value": read_avg_ms})
        criteria.append(c)
    summary = result.summary.model_copy(update={
        "verdict": Outcome.FAIL, "reasons": ["Instance 1: maximum database read latency 288 ms > 100 ms (Strict)"]})
    return result.model_copy(update={"criteria": criteria, "summary": summary})


def test_a_stall_asks_for_its_setting_again_and_counts_when_it_comes_back(tmp_path):
    config = _config(tmp_path, mailboxes=2000, iops_per_mailbox=4.0)  # 8,000 IOPS: more than one flash run carries
    first = _stalled(_simulated_result(tmp_path, config, "flash", 2))
    assert spiky(first)
    advice = advise_session(config, [first], device="flash")
    assert (advice.status, advice.threads, advice.sluggish_sessions) == ("next", 2, 1)
    assert advice.rationale.startswith("the same setting again: 2 threads / SluggishSessions 1 failed only on a "
                                       "maximum latency (Instance 1 maximum database read latency 288 ms over 100 ms")
    assert any(note.what == "stall" and "a stall, not the load" in note.words for note in advice.notes)
    assert evidence(config, [first], "flash")[0] == []  # not yet a point of the curve

    again = _stalled(_simulated_result(tmp_path / "again", config, "flash", 2))
    points, _notes = evidence(config, [first, again], "flash")
    assert len(points) == 1 and not points[0].latency_passed  # the second stall at one setting is its failure
    advice = advise_session(config, [first, again], device="flash")
    assert not advice.rationale.startswith("the same setting again")
    assert advice.threads / advice.sluggish_sessions < 2  # as after any latency failure: less load, never the same


def test_a_failed_maximum_beside_a_high_average_is_the_load_and_counts_at_once(tmp_path):
    config = _config(tmp_path, mailboxes=2000, iops_per_mailbox=4.0)
    loaded = _stalled(_simulated_result(tmp_path, config, "flash", 2), read_avg_ms=12.0)  # over half the 20 ms
    assert not spiky(loaded)
    assert len(evidence(config, [loaded], "flash")[0]) == 1
    assert not advise_session(config, [loaded], device="flash").rationale.startswith("the same setting again")


def test_auto_tune_runs_a_stalled_setting_again_instead_of_stopping(tmp_path):
    config = _config(tmp_path, mailboxes=2000, iops_per_mailbox=4.0)
    tuner = Tuner(config, device="flash", max_runs=5)
    run = tuner.next_run()
    assert run is not None
    tuner.record(_stalled(_simulated_result(tmp_path, config, "flash", run.thread_count, run.sluggish_sessions)))
    assert not tuner.done  # not "inconclusive": the stall is run again
    again = tuner.next_run()
    assert again is not None and (again.thread_count, again.sluggish_sessions) == (run.thread_count, run.sluggish_sessions)


def test_a_host_bound_stall_is_the_hosts_and_ends_auto_tune_as_any_host_bound_failure(tmp_path):
    config = _config(tmp_path, mailboxes=2000, iops_per_mailbox=4.0)
    tuner = Tuner(config, device="flash", max_runs=5)
    run = tuner.next_run()
    assert run is not None
    stalled = _stalled(_simulated_result(tmp_path, config, "flash", run.thread_count, run.sluggish_sessions))
    bound = stalled.model_copy(update={"summary": stalled.summary.model_copy(update={"host_bound": True})})
    assert not spiky(bound)  # one rule for the advisor and auto-tune: the host-bound one goes first
    tuner.record(bound)
    assert tuner.done and tuner.status == "host-bound"
    assert not tuner.advice.rationale.startswith("the same setting again")
