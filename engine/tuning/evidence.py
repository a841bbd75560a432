"""What a session's runs can teach the advisor: each judged run as a point of the load curve, and a line for
each run it cannot learn from and why.

A run that failed on I/O errors teaches nothing about load: the storage did not return what
was written. While the latest of them stands (no later run measured without any), the
advisor says so first (`unresolved_errors`, `returned`).

A run that failed on a maximum latency alone while every average stayed under half its limit met a stall
(a paused virtual machine, a snapshot, a path failing over), not its load: storage at its limit queues, and its
averages rise with its maximums. It is run again before it counts (`spike_retry`); a setting that spikes twice
counts as failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.model.config import TestConfig
from engine.results.criterion_schema import Criterion
from engine.results.sample_schema import Figures
from engine.results.schema import Outcome, RunResult
from engine.results.verdict import cache_hit_percent, cache_served, iops_floor, too_short, was_measured
from engine.tuning.notes import Returned, Stepped, StorageErrors, Unused, merged
from engine.tuning.why import Again, Longer, Said, Stall

SPIKY_AVERAGE_SHARE = 0.5  # a failed maximum beside averages under this share of their limits: a stall, not the load


@dataclass(frozen=True)
class RunPoint:
    """What the advisor needs of one judged run."""

    threads: int
    sluggish_sessions: int
    achieved_iops: float
    read_ms: float  # average database read latency (worst instance)
    log_ms: float  # average log write latency (worst instance)
    latency_passed: bool  # every latency criterion (and stalls) within limits
    iops_passed: bool
    passed: bool  # the whole verdict
    latency_failure: Criterion | None = None  # the first per-instance criterion that failed
    host_bound: bool = False  # the host's CPU set the pace: what it carried, the storage carried at least

    @property
    def load(self) -> float:
        return self.threads / self.sluggish_sessions

    @classmethod
    def from_result(cls, result: RunResult, config: TestConfig) -> RunPoint:
        """The run as evidence for `config`: its throughput is judged against `config`'s target,
        so a run made before the profile changed still counts, at today's target."""
        summary = result.summary
        criteria = result.criteria
        latency_ok = all(c.passed for c in criteria if c.instance is not None)
        errors_ok = all(c.passed for c in criteria if c.instance is None and c.name == "I/O errors")
        iops_ok = summary.achieved_transactional_iops >= iops_floor(config)
        failure = next((c for c in criteria if c.instance is not None and not c.passed), None)
        rows: Sequence[Figures] = result.instances or [summary]
        return cls(threads=summary.threads, sluggish_sessions=summary.sluggish_sessions,
                   achieved_iops=summary.achieved_transactional_iops,
                   read_ms=max(r.db_read_avg_latency_ms for r in rows),
                   log_ms=max(r.log_write_avg_latency_ms for r in rows), latency_passed=latency_ok, iops_passed=iops_ok,
                   passed=latency_ok and iops_ok and errors_ok, latency_failure=failure, host_bound=summary.host_bound)


def evidence(config: TestConfig, results: Iterable[RunResult | None], device: str
             ) -> tuple[list[RunPoint], list[Unused | Stepped | Said]]:
    """The runs the advisor can learn from, and a note for each it cannot and why (one for runs alike).

    Learnable: judged pass or fail on `device`, with database reads measured. Not: runs of another device (`others`),
    aborted or stopped
    runs (their window is partial), runs that failed on I/O errors (the storage did not
    return what was written), runs with no measured time (less than one sample interval),
    runs whose reads never reached the disk (the cache held the database), failing runs
    during which the host's CPU was saturated (the engine, not the storage, set the pace), and runs whose threads
    weigh otherwise than `config`'s.
    """
    points: list[RunPoint] = []
    notes: list[Unused] = []
    spiked: set[tuple[int, int]] = set()  # the settings a stall failed once already
    for result in results:
        if result is None:
            continue
        s = result.summary
        first_spike = spiky(result) and (s.threads, s.sluggish_sessions) not in spiked
        note = _unused(config, device, result, first_spike)
        if note is None:
            if result.sweep is None:  # a sweep's steps are the curve's points (`engine.tuning.curve`), not one run's
                points.append(RunPoint.from_result(result, config))
            continue
        if note.what == "stall":
            spiked.add((s.threads, s.sluggish_sessions))
        notes.append(note)
    return points, merged(notes)


def others(config: TestConfig, device: str, results: Iterable[RunResult]) -> tuple[list[RunResult], list[Unused]]:
    """The runs that measured `device` as `config` loads it, and a note for each other run and why: every reading of
    the session (its sweeps, its latest errors, stall or short run) reads the first alone."""
    kept: list[RunResult] = []
    aside: list[Unused] = []
    for result in results:
        note = _other(config, device, result)
        if note is None:
            kept.append(result)
        else:
            aside.append(note)
    return kept, aside


def _other(config: TestConfig, device: str, result: RunResult) -> Unused | None:
    """Why `result` says nothing of `device` under `config`'s load: it ran on another device (the storage at the
    configured paths, or a simulated one), its threads weigh otherwise (a run before result schema 10: its thread
    counts mean another load), or it drove another Exchange version's workload."""
    facts = _facts(result)
    if result.device != device:
        return Unused(what="other_device", device=result.device, tuned=device, **facts)
    if result.configuration.thread_weight != config.thread_weight:
        return Unused(what="other_weight", weight=result.configuration.thread_weight, **facts)
    if result.configuration.profile.exchange != config.profile.exchange:
        return Unused(what="other_exchange", exchange=result.configuration.profile.exchange, **facts)
    return None


def _unused(config: TestConfig, device: str, result: RunResult, first_spike: bool) -> Unused | None:
    """Why the advisor cannot learn from `result`, or None where it can."""
    if (other := _other(config, device, result)) is not None:
        return other
    s, facts = result.summary, _facts(result)
    if failed_on_io_errors(result):
        return Unused(what="io_errors", errors=storage_errors(result), **facts)
    if result.sweep is not None:
        steps = result.sweep.steps
        if not steps:
            return Unused(what="sweep_unmeasured", **facts)
        if all(step.no_reads or step.db_read_avg_latency_ms <= 0 for step in steps):
            return Unused(what="sweep_cache_held", **facts)
        return None
    if s.verdict == Outcome.ABORTED:
        return Unused(what="ended_early", **facts)
    if not was_measured(result):
        return Unused(what="nothing_measured", measured_s=s.measured_s, **facts)
    if too_short(result):
        return Unused(what="too_short", measured_s=s.measured_s,
                      least_s=result.configuration.thresholds.minimum_measured_s, **facts)
    if cache_served(result):
        return Unused(what="cache_held", cache_hit_percent=cache_hit_percent(result), **facts)
    if s.host_bound and s.verdict == Outcome.FAIL:
        broke = not all(c.passed for c in result.criteria if c.instance is not None)
        return Unused(what="host_bound", latency_broke=broke, **facts)
    if first_spike:
        return Unused(what="stall", stall=stall_of(result), **facts)
    return None


def _facts(result: RunResult) -> dict[str, Any]:
    """What every note of a run names: the run and its setting."""
    return {"runs": [result.run_id], "load": (result.summary.threads, result.summary.sluggish_sessions)}


def spiky(result: RunResult) -> bool:
    """A run judged Fail on maximum latencies alone, every instance's average latency under half its limit (not a
    load sweep's, whose steps are judged one by one, nor a host-bound one's, which is the host's)."""
    s = result.summary
    if s.verdict != Outcome.FAIL or not was_measured(result) or result.sweep is not None or s.host_bound:
        return False
    judged = [c for c in result.criteria if c.instance is not None]
    failed = [c for c in judged if not c.passed]
    averages = [c for c in judged if c.unit == "ms" and c.name.startswith("average ")]
    return (bool(failed) and all(c.name.startswith("maximum ") for c in failed)
            and all(c.value <= c.limit * SPIKY_AVERAGE_SHARE for c in averages)
            and all(c.passed for c in result.criteria if c.instance is None and c.name.startswith("I/O errors")))


def spike_retry(results: Sequence[RunResult]) -> RunResult | None:
    """The latest run, when it is a stall's first failure at its setting: the advice is to run it again."""
    if not results:
        return None
    latest = results[-1]
    s = latest.summary
    again = any(spiky(r) and (r.summary.threads, r.summary.sluggish_sessions) == (s.threads, s.sluggish_sessions)
                for r in results[:-1])
    return latest if spiky(latest) and not again else None


def short_retry(results: Sequence[RunResult]) -> RunResult | None:
    """The latest run, when it measured less than a verdict needs: the advice is its setting again, for longer."""
    return results[-1] if results and too_short(results[-1]) else None


def longer(result: RunResult) -> Longer:
    """Why the advice is to run a too-short run's setting again, and for how long."""
    s = result.summary
    return Longer(load=(s.threads, s.sluggish_sessions), measured_s=s.measured_s,
                  least_s=result.configuration.thresholds.minimum_measured_s)


def again(result: RunResult) -> Again:
    """Why the advice is to run a stall's setting again."""
    s = result.summary
    return Again(load=(s.threads, s.sluggish_sessions), stall=stall_of(result))


def stall_of(result: RunResult) -> Stall:
    """The run's first failed maximum beside the highest average read latency."""
    failed = next(c for c in result.criteria if c.instance is not None and not c.passed)
    reads = max((r.db_read_avg_latency_ms for r in result.instances), default=result.summary.db_read_avg_latency_ms)
    return Stall(broke=failed, reads_ms=reads)


def failed_on_io_errors(result: RunResult) -> bool:
    """The run met I/O errors, which fail it whether it stopped there or continued despite them."""
    return result.summary.io_errors > 0


def storage_errors(result: RunResult) -> StorageErrors:
    """The run's first kind of I/O error, counted, with where its first was, and the others'."""
    groups = result.error_groups  # none in a result written before errors were counted by kind
    return StorageErrors(first=groups[0] if groups else None, others=sum(g.count for g in groups[1:]),
                         total=result.summary.io_errors)


def returned(result: RunResult) -> Returned:
    """What the storage did wrong in `result`, for the advice's first line."""
    s = result.summary
    return Returned(run_id=result.run_id, load=(s.threads, s.sluggish_sessions), errors=storage_errors(result))


def unresolved_errors(results: Sequence[RunResult]) -> RunResult | None:
    """The latest run that failed on I/O errors, unless a later run measured without any."""
    for result in reversed(results):
        if failed_on_io_errors(result):
            return result
        if result.summary.io_errors == 0 and was_measured(result):
            return None
    return None
