"""When the host, not the storage, set the pace: what the session still proves, and what can change the outcome.

A run whose host's processors were saturated while it measured (`RunSummary.host_bound`) and that
fell short says nothing of the storage's limit: a heavier setting only loads the CPU more. It is
decided before any setting is advised. What it and every other run of the session measured within
the latency thresholds still stands, as a lower bound: the storage carried at least that many
transactional IOPS (a host-bound step or run that kept the thresholds included). The advice keeps the
setting that carried the most, never one below it, and names what can change the outcome: a host with
CPU to spare, fewer databases per host, or the disk throughput scenario to measure what this host drives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.model.config import TestConfig
from engine.results.schema import Outcome, RunResult
from engine.results.verdict import cache_served, iops_floor, was_measured
from engine.run.sweep import Load
from engine.tuning.carried import Carried
from engine.tuning.curve import curve
from engine.tuning.evidence import RunPoint, failed_on_io_errors
from engine.tuning.why import HostHeld


@dataclass(frozen=True)
class LowerBound:
    """The most the storage carried within every latency threshold, and where (a run's id, or a sweep's step)."""

    load: Load
    iops: float
    where: str


def held_back(results: Sequence[RunResult]) -> RunResult | None:
    """The session's latest ordinary run, when its host's CPU held it back: measured, host-bound and judged Fail,
    its reads reaching the disk (a database the cache holds saturates the CPU by its nature) and no I/O errors."""
    ordinary = [r for r in results if r.sweep is None and r.verdict != Outcome.ABORTED]
    return ordinary[-1] if ordinary and _held(ordinary[-1]) else None


def _held(run: RunResult) -> bool:
    s = run.summary
    return (run.sweep is None and s.host_bound and s.verdict == Outcome.FAIL and was_measured(run)
            and not cache_served(run) and not failed_on_io_errors(run))


def lower_bound(config: TestConfig, results: Sequence[RunResult], points: Sequence[RunPoint]) -> LowerBound | None:
    """The most transactional IOPS the session measured within every latency threshold: sweep steps and runs,
    host-bound ones among them (what they carried, the storage carried at least)."""
    found: list[LowerBound] = []
    for c in curve(results, points):
        if c.step.passes:
            found.append(LowerBound(c.step.load, c.step.iops, "a run" if c.confirmed else "a load sweep's step"))
    for r in results:
        if _held(r):
            point = RunPoint.from_result(r, config)
            if point.latency_passed:
                found.append(LowerBound(Load(point.threads, point.sluggish_sessions), point.achieved_iops,
                                        f"run {r.run_id}"))
    return max(found, key=lambda b: b.iops, default=None)


def host_held(config: TestConfig, run: RunResult, bound: LowerBound | None) -> HostHeld:
    """The advice's reason: what is known of the storage, why the run fell short, and what can change that."""
    s = run.summary
    return HostHeld(run_id=run.run_id, load=(s.threads, s.sluggish_sessions), iops=s.achieved_transactional_iops,
                    cpu_percent=run.host_performance.cpu_percent.average,
                    bound=Carried(iops=bound.iops, load=(bound.load.threads, bound.load.sluggish)) if bound else None,
                    bound_where=bound.where if bound else "", target=config.test_target_iops,
                    meets_target=bound is not None and bound.iops >= iops_floor(config))
