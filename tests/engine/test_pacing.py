"""A thread weighs what a Jetstress thread weighs: the pause arithmetic, the simulated device at the ESRP paper's
latencies, and a session that will not mix runs of two weights.

The measurement on real files (a thread's share of time waiting on reads) is bench/thread_weight.py's.
"""

from __future__ import annotations

import pytest

from engine.model.config import ThreadWeight, default_config
from engine.run.sources.model import StorageModel, runner_for
from engine.tuning.evidence import evidence
from engine.workload.pacing import JETSTRESS_REST_PER_READ_WAIT, cycle_ms, pause_ns, rest_per_read_wait

PAPER_TRANSFERS_PER_THREAD = {17.16: 37.4, 16.72: 39.0}  # the Performance and Stress reports: read ms -> transfers


def test_a_thread_waits_the_jetstress_rest_after_its_reads_and_sluggish_sessions_stretch_the_whole_cycle():
    rest = rest_per_read_wait(ThreadWeight.JETSTRESS)
    assert rest == JETSTRESS_REST_PER_READ_WAIT
    assert rest_per_read_wait(ThreadWeight.READS_ONLY) == 0.0
    # 20 ms busy, 17 ms of it on a read: the rest is 1.58 x 17 ms
    assert pause_ns(20_000_000, 17_000_000, rest, 1) == pytest.approx(1.58 * 17_000_000)
    # SluggishSessions 3: the whole cycle (busy + rest) three times, less the busy time already spent
    assert pause_ns(20_000_000, 17_000_000, rest, 3) == pytest.approx(3 * (20_000_000 + 1.58 * 17_000_000) - 20_000_000)
    assert pause_ns(20_000_000, 17_000_000, 0.0, 1) == 0  # reads only, no SluggishSessions: no pause
    assert pause_ns(5_000, 0, rest, 1) == 0  # a transaction the cache served waits no rest
    # a thread's reads are 0.39 of its cycle, as the paper's threads' were (22.5 reads/s x 17.16 ms = 0.386)
    assert 17.0 / cycle_ms(17.0, 0.0, rest, 1) == pytest.approx(0.387, abs=0.002)


@pytest.mark.parametrize("read_ms", sorted(PAPER_TRANSFERS_PER_THREAD))
def test_at_the_papers_latency_a_thread_carries_what_a_jetstress_thread_carried(tmp_path, read_ms):
    """The paper's configuration (12 databases, 13 threads each, 2 copies) on a device whose reads take the paper's
    latency: transfers per thread within 15 % of Jetstress's; threads of reads-only weight carry about 2.5 times."""
    model = StorageModel("paper", f"reads at {read_ms} ms", 2000, read_ms, 0.0, 0.87, logs_share_servers=False)
    config = default_config(tmp_path, databases=12, copies_per_database=2, seed=7,
                            profile={"mailboxes": 10000, "mailbox_size_mb": 1024, "iops_per_mailbox": 0.5})
    carried = {}
    for weight in ThreadWeight:
        run = config.model_copy(update={"thread_count": 156, "thread_weight": weight, "duration_s": 120.0, "warmup_s": 10.0})
        result = runner_for(model, run, tmp_path / weight.value, lambda _e: None).run()
        assert result.summary.db_read_avg_latency_ms == pytest.approx(read_ms, rel=0.05)
        carried[weight] = result.summary.achieved_transactional_iops / 156
    assert carried[ThreadWeight.JETSTRESS] == pytest.approx(PAPER_TRANSFERS_PER_THREAD[read_ms], rel=0.15)
    assert carried[ThreadWeight.READS_ONLY] / carried[ThreadWeight.JETSTRESS] == pytest.approx(2.5, rel=0.1)


def test_the_advisor_does_not_read_a_run_of_another_weight_as_evidence(tmp_path):
    from tests.engine.test_report import known_result

    config = default_config(tmp_path)
    now = known_result(tmp_path)
    before = now.model_copy(update={"configuration": now.configuration.model_copy(
        update={"thread_weight": ThreadWeight.READS_ONLY})})
    points, notes = evidence(config, [before], now.device)
    assert not points and len(notes) == 1
    assert notes[0].what == "other_weight" and before.run_id in notes[0].runs
    assert "another weight" in notes[0].words and "reads only" in notes[0].words
    points, notes = evidence(config, [now], now.device)
    assert not [n for n in notes if n.what == "other_weight"]
