"""A load sweep on real I/O brackets the latency limit of a slow disk whose latency grows with its queue.

The disk (`tests.faults.slow_device`) serves database I/O one at a time, 4 ms each: with one
I/O in flight a read takes about 4 ms, with n about 4·n ms. Under the 20 ms read limit it keeps
about four I/Os in flight at most, so a sweep from Microsoft's rule must find the limit within
a few threads and end with a passing step and a failing step as neighbours on its ladder.
"""

from __future__ import annotations

import sys

import pytest

from engine.model.config import default_config
from engine.results.document import read_samples
from engine.run.runner import Runner
from engine.run.settling import SettleRule
from engine.run.steps import as_step
from engine.run.sweep import Load, Sweep, SweepPlan, ladder
from engine.tuning.advisor import advise_session

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="the slow device locks with flock")]

SERVICE_MS = 4.0


def test_a_sweep_on_a_slow_disk_brackets_its_latency_limit_and_the_advisor_reads_the_curve(tmp_path):
    from tests.faults.slow_device import SlowDevice

    for name in ("DB1", "Log1"):
        (tmp_path / name).mkdir()
    config = default_config(tmp_path, databases=1, profile={"mailboxes": 60, "mailbox_size_mb": 1, "iops_per_mailbox": 2.0},
                            sample_interval_s=0.5, database_cache_min_mb=1, database_cache_max_mb=2,
                            background_maintenance=False, seed=5)
    config = config.model_copy(update={"thread_count": 1})
    # A short plan, so the sweep takes about a minute: samples of half a second, steps of at most 20 of them.
    plan = SweepPlan(tuple(ladder(1, 16, 8)), Load(1, 1), max_steps=7, step_limit=20, min_settle=4,
                     settle=SettleRule(window=4, max_drift=0.15, measure_samples=6), warmup=8)
    device = SlowDevice(tmp_path / "spindle.lock", SERVICE_MS)
    result = Runner(config, tmp_path / "run", lambda _event: None, backend=device, sweep=plan).run()

    assert result.sweep is not None and result.io_backend.startswith("slow device"), result.summary.reasons
    steps = result.sweep.steps
    assert steps and all(not s.no_reads for s in steps), [s.broke_words for s in steps]
    light = min(steps, key=lambda s: s.effective_load)
    assert SERVICE_MS * 0.8 <= light.db_read_avg_latency_ms <= SERVICE_MS * 4, "one thread reads at about the service time"
    heavy = max(steps, key=lambda s: s.effective_load)
    assert heavy.db_read_avg_latency_ms > light.db_read_avg_latency_ms * 2, "latency grows with the load"
    low, high = Sweep(plan.loads, plan.start, plan.max_steps).bracket([as_step(s) for s in steps])
    assert low is not None and high is not None and high - low == 1, (
        f"not bracketed: {[(s.threads, s.sluggish_sessions, round(s.db_read_avg_latency_ms, 1)) for s in steps]}")
    assert "latency limit lies between" in result.sweep.ended_words
    samples = read_samples(tmp_path / "run")
    assert len(samples) == steps[-1].last_interval + 1, "every step's samples are kept"

    advice = advise_session(config, [result], device=result.device)
    assert advice.status in ("next", "unreachable")
    chosen = Load(advice.threads, advice.sluggish_sessions)
    assert chosen.effective <= plan.loads[low].effective, "never beyond the heaviest passing step"
