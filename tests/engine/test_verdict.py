"""Verdicts judged exactly and explained in words."""

from __future__ import annotations

from engine.model.config import default_config
from engine.results.verdict import Outcome, is_count, judge
from engine.workload.stats import DB_READ, DB_WRITE, LOG_WRITE, StreamStats


def _stats(count: int, avg_ms: float, max_ms: float, errors: int = 0) -> StreamStats:
    s = StreamStats()
    s.count = count
    s.bytes = count * 32768
    s.sum_ns = int(count * avg_ms * 1e6)
    s.max_ns = int(max_ms * 1e6)
    s.errors = errors
    return s


def _instance(read_avg=5.0, read_max=50.0, log_avg=1.0, log_max=20.0, reads=3000, writes=2000, errors=0):
    return {
        DB_READ: _stats(reads, read_avg, read_max, errors),
        DB_WRITE: _stats(writes, 4.0, 30.0),
        LOG_WRITE: _stats(1000, log_avg, log_max),
    }


def _config(tmp_path, **kw):
    kw.setdefault("profile", {"mailboxes": 1000, "iops_per_mailbox": 0.1, "headroom_percent": 0})
    return default_config(tmp_path, databases=3, thread_count=3, **kw)


def test_pass_when_everything_is_within_limits(tmp_path):
    verdict = judge(_config(tmp_path), {f"Instance {i}": _instance() for i in (1, 2, 3)}, measured_s=100, highest=None)
    assert verdict.outcome == Outcome.PASS and verdict.reasons == []
    assert str(verdict) == "Pass"


def test_failing_instance_is_named_with_value_and_limit(tmp_path):
    instances = {"Instance 1": _instance(), "Instance 2": _instance(), "Instance 3": _instance(read_avg=22.4)}
    verdict = judge(_config(tmp_path), instances, measured_s=100, highest=None)
    assert verdict.outcome == Outcome.FAIL
    assert verdict.reasons == ["Instance 3: average database read latency 22.4 ms > 20.0 ms (Strict)"]
    assert verdict.instance_outcomes == {"Instance 1": Outcome.PASS, "Instance 2": Outcome.PASS, "Instance 3": Outcome.FAIL}


def test_stress_uses_lenient_maximums(tmp_path):
    instances = {f"Instance {i}": _instance(read_max=150.0, log_max=150.0) for i in (1, 2, 3)}
    assert judge(_config(tmp_path), instances, 100, highest=None).outcome == Outcome.FAIL
    assert judge(_config(tmp_path, test_type="stress"), instances, 100, highest=None).outcome == Outcome.PASS
    instances["Instance 2"] = _instance(log_max=250.0)
    reasons = judge(_config(tmp_path, test_type="stress"), instances, 100, highest=None).reasons
    assert reasons == ["Instance 2: maximum log write latency 250 ms > 200 ms (Lenient)"]


def test_achieved_iops_is_judged_against_target_with_margin(tmp_path):
    # 3 instances x 5000 transfers in 100 s = 150 IOPS against a target of 100 * 1.6 = 160
    config = _config(tmp_path, profile={"mailboxes": 100, "iops_per_mailbox": 1.6, "headroom_percent": 0})
    instances = {f"Instance {i}": _instance() for i in (1, 2, 3)}
    verdict = judge(config, instances, measured_s=100, highest=None)
    assert verdict.outcome == Outcome.FAIL
    assert verdict.reasons == ["achieved transactional IOPS 150 is below the target 160 less the 5 % margin (152)"]
    relaxed = config.model_copy(update={"target_margin_percent": 10.0})
    assert judge(relaxed, instances, measured_s=100, highest=None).outcome == Outcome.PASS


def test_io_errors_fail_whether_the_test_stops_or_continues_despite_them(tmp_path):
    instances = {f"Instance {i}": _instance(errors=1 if i == 2 else 0) for i in (1, 2, 3)}
    failed = judge(_config(tmp_path), instances, 100, highest=None)
    assert failed.outcome == Outcome.FAIL and "1 I/O error(s) occurred" in failed.reasons[0]
    continued = judge(_config(tmp_path, continue_on_errors=True), instances, 100, highest=None)
    assert continued.outcome == Outcome.FAIL and "1 I/O error(s) occurred" in continued.reasons[0]
    errors = next(c for c in continued.criteria if c.name.startswith("I/O errors"))
    assert not errors.passed and errors.name == "I/O errors (the test continued despite them)"


def test_aborted_run_says_so_first(tmp_path):
    verdict = judge(_config(tmp_path), {"Instance 1": _instance(), "Instance 2": _instance(), "Instance 3": _instance()}, 10,
                    aborted_reason="Run aborted: stopped by the user after 10.0 s of measurement", highest=None)
    assert verdict.outcome == Outcome.ABORTED
    assert verdict.reasons[0].startswith("Run aborted: stopped by the user")


def test_instance_without_reads_fails(tmp_path):
    instances = {"Instance 1": _instance(), "Instance 2": _instance(), "Instance 3": {}}
    reasons = judge(_config(tmp_path), instances, 100, highest=None).reasons
    assert "Instance 3: no database reads completed in the measured window" in reasons


def test_page_fault_stalls_above_one_per_second_fail_the_instance(tmp_path):
    instances = {f"Instance {i}": _instance() for i in (1, 2, 3)}
    cache = {"Instance 1": [9000, 3000, 100], "Instance 2": [9000, 3000, 150], "Instance 3": [9000, 3000, 0]}
    verdict = judge(_config(tmp_path), instances, measured_s=100, cache=cache, highest=None)
    assert verdict.outcome == Outcome.FAIL
    assert verdict.reasons == ["Instance 2: average database page fault stalls 1.5/s > 1.0/s"]
    stalls = [c for c in verdict.criteria if c.name == "average database page fault stalls"]
    assert [(c.instance, c.passed) for c in stalls] == [("Instance 1", True), ("Instance 2", False), ("Instance 3", True)]


def test_a_run_that_stopped_on_an_io_error_before_one_sample_interval_is_not_judged_on_iops_or_latency(tmp_path):
    # 0.1 s measured at 1 s intervals, an I/O error stopped it: its 9,000 IOPS and fast reads are not a measurement
    config = _config(tmp_path, profile={"mailboxes": 10, "iops_per_mailbox": 0.1, "headroom_percent": 0})
    instances = {f"Instance {i}": _instance(reads=300, writes=0, errors=1 if i == 1 else 0) for i in (1, 2, 3)}
    stop = "the test stopped at its first I/O error, as it does unless it continues despite I/O errors"
    verdict = judge(config, instances, 0.1, failure_reasons=[stop], highest=None)
    assert verdict.outcome == Outcome.FAIL
    assert [c.name for c in verdict.criteria] == ["I/O errors"]  # no IOPS "Pass", no latency "Pass"
    assert verdict.reasons == [
        "1 I/O error(s) occurred; any error fails the test, whether it stops there or continues despite it",
        stop,
        "IOPS and latency were not measured: it stopped 0.1 s into its measured window, before its first 1 s sample "
        "interval ended; they are not judged",
    ]
    assert judge(config, instances, 0.0, failure_reasons=[stop], highest=None).reasons[-1] == (
        "IOPS and latency were not measured: it stopped before its measured window began, so not one 1 s sample "
        "interval was measured; they are not judged")
    whole = judge(config, instances, 1.0, failure_reasons=[stop], highest=None)  # one whole interval is a measurement
    assert [c.name for c in whole.criteria].count("achieved transactional IOPS") == 1 and len(whole.reasons) == 2


def test_counts_are_told_from_rates_and_times(tmp_path):
    instances = {f"Instance {i}": _instance(errors=1 if i == 2 else 0) for i in (1, 2, 3)}
    instances["Instance 3"] = {}
    verdict = judge(_config(tmp_path), instances, 100, highest=None)
    counted = {c.name for c in verdict.criteria if is_count(c)}
    assert counted == {"I/O errors", "database reads in the measured window"}


def test_a_run_whose_reads_were_nearly_all_cache_hits_fails_on_its_cache_hit_share(tmp_path):
    """6 database reads/s carried by writes to the IOPS target: 99.98 % of the page references were cache hits, so the
    storage did not serve the reads and the run is no pass of it; the reason names the share and what to change."""
    config = _config(tmp_path)
    instances = {f"Instance {i}": _instance(reads=600, writes=40_000) for i in (1, 2, 3)}
    cache = {"Instance 1": [2_999_400, 600, 0], "Instance 2": [7_500, 2_500, 0], "Instance 3": [9_900, 100, 0]}
    verdict = judge(config, instances, measured_s=100, cache=cache, highest=None)
    assert verdict.outcome == Outcome.FAIL
    shares = [c for c in verdict.criteria if c.name == "database cache hits"]
    assert [(c.instance, round(c.value, 2), c.limit, c.unit, c.passed) for c in shares] == [
        ("Instance 1", 99.98, 99.0, "%", False), ("Instance 2", 75.0, 99.0, "%", True),
        ("Instance 3", 99.0, 99.0, "%", True)]  # at the limit still passes
    [reason] = verdict.reasons
    assert reason.startswith("Instance 1: 99.98 % of the measured database page references were cache hits, more than "
                             "99 %: the database cache held nearly every page the transactions touched and the storage "
                             "served only 6.0 database reads/s")
    assert "raise the mailboxes or the mailbox size" in reason and "or lower the database cache" in reason
    assert verdict.instance_outcomes == {"Instance 1": Outcome.FAIL, "Instance 2": Outcome.PASS,
                                         "Instance 3": Outcome.PASS}
    held = config.model_copy(update={"profile": config.profile.model_copy(update={"mailbox_size_mb": 1})})
    words = judge(held, instances, measured_s=100, cache=cache, highest=None).reasons[0]
    assert "the database cache holds the whole database and the storage served only 6.0" in words
