"""An instance's maximum latency as Jetstress's counters give it: the highest average over one log interval."""

from __future__ import annotations

import pytest

from engine.model.config import default_config
from engine.results.maxima import HighestAverages
from engine.results.verdict import judge
from engine.workload.stats import DB_READ, DB_WRITE, LOG_WRITE, InstanceInterval, StreamStats


def _stats(count: int, avg_ms: float, max_ms: float | None = None) -> StreamStats:
    stats = StreamStats()
    stats.count, stats.bytes = count, count * 32768
    stats.sum_ns = round(count * avg_ms * 1e6)
    stats.max_ns = round((max_ms if max_ms is not None else avg_ms) * 1e6)
    return stats


def _second(read_ms: float, log_ms: float = 1.0, reads: int = 100) -> dict[str, InstanceInterval]:
    return {"Instance 1": InstanceInterval("Instance 1", {DB_READ: _stats(reads, read_ms), LOG_WRITE: _stats(50, log_ms)})}


def _fed(latencies: list[float], first: int = 0, interval_s: float = 15.0) -> dict[str, dict[str, float]]:
    highest = HighestAverages(interval_s, 1.0)
    for offset, read_ms in enumerate(latencies):
        highest.add(first + offset, _second(read_ms), 1.0)
    return highest.highest_ms()


def test_the_highest_of_the_log_interval_averages_not_the_slowest_second():
    seconds = [2.0] * 15 + [2.0] * 14 + [300.0] + [2.0] * 15  # one stalled second in the second interval
    highest = _fed(seconds)["Instance 1"]
    assert highest[DB_READ] == pytest.approx((14 * 2.0 + 300.0) / 15)
    assert highest[LOG_WRITE] == pytest.approx(1.0)


def test_intervals_fall_at_multiples_of_the_log_interval_from_the_runs_start_and_parts_join_their_neighbours():
    # measured from interval 10: 10..14 is a part of an interval (joined to 15..29), 30..34 a part (joined to 15..29
    # too, being the last), so 10..34 is one average; a whole interval of its own would be judged alone
    seconds = [50.0] * 5 + [5.0] * 15 + [50.0] * 5
    assert _fed(seconds, first=10)["Instance 1"][DB_READ] == pytest.approx((10 * 50.0 + 15 * 5.0) / 25)
    whole = [5.0] * 15 + [50.0] * 15  # 0..14 and 15..29: two whole intervals
    assert _fed(whole)["Instance 1"][DB_READ] == pytest.approx(50.0)


def test_a_run_shorter_than_one_log_interval_is_judged_on_its_whole_average():
    assert _fed([1.0, 3.0, 200.0, 4.0])["Instance 1"][DB_READ] == pytest.approx(52.0)


def test_what_is_known_part_way_through_is_the_same_as_at_the_end_of_the_same_samples():
    highest = HighestAverages(15.0, 1.0)
    seconds = [1.0] * 20 + [90.0] * 3
    for index, read_ms in enumerate(seconds):
        highest.add(index, _second(read_ms), 1.0)
        assert highest.highest_ms() == _fed(seconds[: index + 1])  # asking does not change what follows
    assert highest.highest_ms()["Instance 1"][DB_READ] == pytest.approx((15 * 1.0 + 5 * 1.0 + 3 * 90.0) / 23)


def test_a_straggler_of_a_closed_interval_is_counted_in_the_one_under_way():
    highest = HighestAverages(15.0, 1.0)
    for index in range(16):
        highest.add(index, _second(1.0), 1.0)
    highest.add(3, _second(100.0, reads=10), 0.0)  # late counters of interval 3: no seconds of its own
    for index in range(16, 30):
        highest.add(index, _second(1.0), 1.0)
    assert highest.highest_ms()["Instance 1"][DB_READ] == pytest.approx((1500 + 1000) / 1510)


def test_longer_log_intervals_and_sample_intervals_under_a_second():
    highest = HighestAverages(30.0, 0.5)  # 60 samples an interval
    for index in range(120):
        highest.add(index, _second(10.0 if index < 60 else 1.0), 0.5)
    assert highest.highest_ms()["Instance 1"][DB_READ] == pytest.approx(10.0)


def _instance(read_max: float) -> dict[str, StreamStats]:
    return {DB_READ: _stats(3000, 5.0, read_max), DB_WRITE: _stats(2000, 4.0), LOG_WRITE: _stats(1000, 1.0, 20.0)}


@pytest.mark.parametrize(("basis", "outcome", "value"), [("interval-average", "pass", 9.0), ("single-io", "fail", 250.0)])
def test_the_verdict_judges_the_maximum_on_the_basis_the_configuration_names(tmp_path, basis, outcome, value):
    config = default_config(tmp_path, databases=1, thread_count=1, thresholds={"maximum_latency": basis},
                            profile={"mailboxes": 100, "iops_per_mailbox": 0.1, "headroom_percent": 0})
    verdict = judge(config, {"Instance 1": _instance(read_max=250.0)}, 100, highest={"Instance 1": {DB_READ: 9.0, LOG_WRITE: 1.5}})
    assert verdict.outcome == outcome
    [maximum] = [c for c in verdict.criteria if c.name == "maximum database read latency"]
    assert maximum.value == value and maximum.limit == 100.0
    if outcome == "fail":
        assert verdict.reasons == ["Instance 1: maximum database read latency 250 ms > 100 ms (Strict)"]


def test_a_highest_average_over_the_limit_fails_and_is_said(tmp_path):
    config = default_config(tmp_path, databases=1, thread_count=1,
                            profile={"mailboxes": 100, "iops_per_mailbox": 0.1, "headroom_percent": 0})
    verdict = judge(config, {"Instance 1": _instance(read_max=400.0)}, 100, highest={"Instance 1": {DB_READ: 120.0}})
    assert verdict.outcome == "fail"
    assert "Instance 1: maximum database read latency 120 ms > 100 ms (Strict)" in verdict.reasons


def test_a_killed_runs_rebuilt_result_finds_the_same_highest_averages_as_the_run(tmp_path):
    from engine.results.document import read_samples
    from engine.run.samples import rebuild_result
    from engine.run.sources.model import PROFILES, runner_for

    # measuring starts 37 s in, part-way through a log interval; 10 minutes is forty of them
    config = default_config(tmp_path / "data", databases=2, duration_s=600.0, warmup_s=37.0)
    result = runner_for(PROFILES["sas-8x10k"], config, tmp_path / "run", lambda _event: None).run()
    rebuilt = rebuild_result(config, read_samples(tmp_path / "run"), result.run_id, "the engine process ended")
    for row, again in zip(result.instances, rebuilt.instances, strict=True):
        for stream in (DB_READ, LOG_WRITE):
            judged = getattr(row, f"{stream}_interval_max_latency_ms")
            assert row.stream_value(stream, "avg_latency_ms") <= judged <= row.stream_value(stream, "max_latency_ms")
            assert getattr(again, f"{stream}_interval_max_latency_ms") == pytest.approx(judged, rel=1e-3)
    maxima = {c.instance: c.value for c in result.criteria if c.name == "maximum database read latency"}
    assert maxima == {row.name: row.db_read_interval_max_latency_ms for row in result.instances}
    assert maxima == pytest.approx({c.instance: c.value for c in rebuilt.criteria if c.name == "maximum database read latency"},
                                   rel=1e-3)
