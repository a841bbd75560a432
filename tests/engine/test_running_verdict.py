"""The window's running verdict is the engine's verdict on the measured samples so far: across servers it reads every
server's instances ("HOST Instance N") against the summed target, as the run's measurement does."""

from __future__ import annotations

from engine.results.counters import histograms_of
from engine.results.figures import interval_counters
from engine.results.host_schema import HostFigures
from engine.results.sample_schema import IntervalSample, LatencyHistograms
from engine.run.samples import RunningVerdict
from engine.workload.histogram import bucket_index
from engine.workload.stats import InstanceInterval
from tests.conftest import small_config

HOSTS = ["mbx1", "mbx2"]


def _sample(interval: int, names: list[str], reads_per_s: int) -> IntervalSample:
    """Each instance named reads `reads_per_s` pages and writes its log at 2 ms over a one-second interval."""
    parts = {}
    for name in names:
        part = InstanceInterval(name)
        for stream in ("db_read", "log_write"):
            counted = part.stream(stream)
            for _ in range(reads_per_s):
                counted.count += 1
                counted.bytes += 32768
                counted.sum_ns += 2_000_000
                counted.max_ns = max(counted.max_ns, 2_000_000)
                counted.hist[bucket_index(2_000_000)] += 1
        parts[name] = part
    counters, server, streams = interval_counters(parts)
    return IntervalSample(interval=interval, phase="measure", time_utc=f"2026-11-28T10:00:{interval:02d}+00:00",
                          elapsed_s=interval + 1.0, duration_s=1.0, host=HostFigures(cpu_percent=20.0),
                          server=server, instances=counters,
                          latency=LatencyHistograms(span_s=1.0, streams=histograms_of(streams)))


def _iops(verdict) -> float:
    return next(c.value for c in verdict.criteria if c.name == "achieved transactional IOPS")


def test_across_servers_the_running_verdict_counts_every_server_s_instances_against_the_summed_target(tmp_path):
    alone = small_config(tmp_path / "dbs")
    across = alone.model_validate({**alone.model_dump(mode="json"), "servers": [{"host": host} for host in HOSTS]})
    running = RunningVerdict(across)
    for interval in range(6):
        running.add(_sample(interval, across.instance_names, 100))
    verdict = running.verdict()
    # four instances, 100 reads a second each: what the servers did together, not nothing
    assert _iops(verdict) == 400.0
    one = RunningVerdict(alone)
    one.add(_sample(0, alone.instance_names, 100))
    limit = next(c for c in verdict.criteria if c.name == "achieved transactional IOPS").limit
    assert limit == 2 * next(c for c in one.verdict().criteria if c.name == "achieved transactional IOPS").limit


def test_on_one_server_the_running_verdict_reads_its_own_instances(tmp_path):
    config = small_config(tmp_path / "dbs")
    running = RunningVerdict(config)
    for interval in range(6):
        running.add(_sample(interval, config.instance_names, 50))
    assert _iops(running.verdict()) == 100.0
