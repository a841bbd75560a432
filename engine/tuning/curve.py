"""The advisor reading a load sweep's curve: the setting to confirm, or what the storage carries.

A sweep (`engine.run.sweep`) measures the load curve step by step. Its steps, and every later
run of the session, are points of that curve; a whole run outweighs a sweep's step at the same
setting (it measured longer), and a later run outweighs an earlier one. The lightest load whose
latency failed (host-bound points aside) is a ceiling: nothing at or above it is chosen. A host-bound
point that kept the thresholds passes: the storage carried at least its IOPS.

`choose` takes the lightest passing point that reaches the target, or a load between two
measured passing points found by interpolating their IOPS; never a load beyond the measured
ones. A setting read from the curve is then confirmed by an ordinary run: it converges when
that run passes, and when it fails the next setting comes from the same curve with that run
in it (a latency failure lowers the ceiling, a shortfall raises the floor), never a fresh
guess. When no passing point reaches the target, the answer is the best passing point, once a
run at its setting has confirmed it: "out of reach", with what the storage carries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.model.config import TestConfig
from engine.results.criterion_schema import Criterion
from engine.results.schema import RunResult
from engine.results.sweep_schema import SweepStep
from engine.run.steps import as_step
from engine.run.sweep import MAX_SLUGGISH, Load, Step, ladder
from engine.tuning.carried import BestCarried, Broken, Carried
from engine.tuning.evidence import RunPoint, failed_on_io_errors
from engine.tuning.why import Basis, FromCurve, NoneKept, Why


@dataclass(frozen=True)
class Choice:
    """What the curve says: the setting to confirm, or that the target is out of reach and what the storage carries."""

    load: Load | None
    reachable: bool
    max_passing_iops: float | None
    basis: Basis | None  # how the setting was read from the curve (None: not reaching the target)


def choose(steps: Sequence[Step], target_iops: float, loads: Sequence[Load]) -> Choice:
    """The setting the measured curve supports for `target_iops` (never beyond a measured load)."""
    passing = sorted((s for s in steps if s.passes), key=lambda s: s.load.effective)  # host-bound: at least that
    if not passing:
        return Choice(None, False, None, None)
    best = max(s.iops for s in passing)
    reaching = [s for s in passing if s.iops >= target_iops]
    if not reaching:
        return Choice(max(passing, key=lambda s: s.iops).load, False, best, None)
    first = reaching[0]
    below = [s for s in passing if s.load.effective < first.load.effective and s.iops < target_iops]
    if not below:
        return Choice(first.load, True, best, Basis(iops=first.iops))
    under = below[-1]
    share = (target_iops - under.iops) / (first.iops - under.iops)
    wanted = under.load.effective + share * (first.load.effective - under.load.effective)
    between = [load for load in loads if under.load.effective < load.effective <= first.load.effective]
    load = next((candidate for candidate in between if candidate.effective >= wanted), first.load)
    return Choice(load, True, best, Basis(iops=first.iops, below_iops=under.iops))


@dataclass(frozen=True)
class CurvePoint:
    """One measured point of the load curve: a sweep's step, or a whole run (`confirmed`)."""

    step: Step
    confirmed: bool
    read_ms: float
    log_ms: float
    broke: Criterion | None = None  # the first latency criterion it broke
    said: str = ""  # a sweep step of a result before schema 13: what it broke, in words
    swept: Step | None = None  # a whole run's point: the sweep's step at the same setting, which it outweighs

    def broken(self) -> Broken:
        """The point as a setting that broke a threshold, at the IOPS it reached."""
        return Broken(load=(self.step.load.threads, self.step.load.sluggish), broke=self.broke, said=self.said,
                      iops=self.step.iops)

    def carried(self) -> Carried:
        """What the point carried within the thresholds ("at least" where the host set the pace)."""
        return Carried(iops=self.step.iops, load=(self.step.load.threads, self.step.load.sluggish),
                       at_least=self.step.host_bound)


def sweeps_of(results: Sequence[RunResult]) -> list[RunResult]:
    """The session's sweeps with a step that measured the storage (a stopped sweep keeps the steps it finished;
    a step whose reads never reached the disk, the cache holding the database, did not measure it)."""
    return [r for r in results if r.sweep is not None and not failed_on_io_errors(r)
            and any(measured_storage(step) for step in r.sweep.steps)]


def measured_storage(step: SweepStep) -> bool:
    return not step.no_reads and step.db_read_avg_latency_ms > 0


def swept_most(results: Sequence[RunResult], points: Sequence[RunPoint]) -> Step | None:
    """The most the session's sweeps carried within every latency threshold, each step measured once the storage had
    settled at its load, or a whole run that kept them at a heavier load and carried more; None without a sweep. A
    run's own figure at a lighter load is not the storage's most: the confirming run of a setting below the limit
    measures what that setting carries (and, from a fresh start, a little more while the caches warm)."""
    steps = [as_step(s) for r in sweeps_of(results) if r.sweep is not None for s in r.sweep.steps if measured_storage(s)]
    passing = [s for s in steps if s.passes]
    if not passing:
        return None
    best = max(passing, key=lambda s: s.iops)
    heavier = [Step(Load(p.threads, p.sluggish_sessions), p.achieved_iops, True, p.host_bound) for p in points
               if p.latency_passed and p.load > best.load.effective and p.achieved_iops > best.iops]
    return max(heavier, key=lambda s: s.iops, default=best)


def curve(results: Sequence[RunResult], points: Sequence[RunPoint]) -> list[CurvePoint]:
    """Every sweep's steps, then the session's runs (`points`, in order) over them, one point per setting."""
    by_load: dict[Load, CurvePoint] = {}
    for result in sweeps_of(results):
        assert result.sweep is not None
        for s in result.sweep.steps:
            if not measured_storage(s):
                continue
            step = as_step(s)
            by_load[step.load] = CurvePoint(step, False, s.db_read_avg_latency_ms, s.log_write_avg_latency_ms, s.broke,
                                            s.failure)
    for p in points:
        load = Load(p.threads, p.sluggish_sessions)
        held = by_load.get(load)
        swept = held.swept if held is not None and held.confirmed else held.step if held is not None else None
        by_load[load] = CurvePoint(Step(load, p.achieved_iops, p.latency_passed), True, p.read_ms, p.log_ms,
                                   p.latency_failure, swept=swept)
    return sorted(by_load.values(), key=lambda c: c.step.load.effective)


@dataclass(frozen=True)
class Reading:
    """What the curve says for a target: `status` next (confirm `point`'s or `load`'s setting) or unreachable."""

    status: str  # next, unreachable
    load: Load
    iops: float | None
    read_ms: float | None
    log_ms: float | None
    why: Why
    max_passing_iops: float | None


def read_curve(config: TestConfig, points: Sequence[CurvePoint]) -> Reading:
    """The setting to run next on the curve, or that the target is out of reach (confirmed)."""
    target = config.test_target_iops
    ceiling = min((c.step.load.effective for c in points if c.step.breaks), default=math.inf)
    usable = [c for c in points if c.step.load.effective < ceiling]
    heaviest = max(c.step.load.threads for c in points)
    loads = [load for load in ladder(config.database_count, heaviest, MAX_SLUGGISH) if load.effective < ceiling]
    choice = choose([c.step for c in usable], target, loads)
    failed = [c for c in points if c.step.breaks]
    limit = failed[0].broken() if failed else None
    if choice.load is None:
        lightest = points[0]
        lighter = _lighter(config, lightest, loads)
        if lighter is not None:
            return Reading("next", lighter, None, None, None,
                           NoneKept(lightest=lightest.broken(), lighter=(lighter.threads, lighter.sluggish)), None)
        return Reading("unreachable", lightest.step.load, None, None, None, NoneKept(lightest=lightest.broken()), None)
    at = {c.step.load: c for c in usable}
    if choice.reachable:
        known = at.get(choice.load)
        assert choice.basis is not None
        return Reading("next", choice.load, known.step.iops if known else target, known.read_ms if known else None,
                       known.log_ms if known else None,
                       FromCurve(basis=choice.basis, load=(choice.load.threads, choice.load.sluggish), target=target),
                       choice.max_passing_iops)
    best = at[choice.load]
    if best.confirmed:
        # What the storage carries is the sweep's step at that setting, measured once the storage had settled at it;
        # the confirming run confirms the setting keeps the thresholds, its figure measured over a few tens of seconds
        # from the start of a fresh run, while the caches still warm (its latency lower, its IOPS higher).
        swept = best.swept if best.swept is not None and best.swept.passes else None
        carried = best.carried() if swept is None else Carried(
            iops=swept.iops, load=(swept.load.threads, swept.load.sluggish), at_least=swept.host_bound)
        why = BestCarried(target=target, carried=carried, confirmed=True, limit=limit,
                          confirmed_iops=best.step.iops if swept is not None else None)
        return Reading("unreachable", choice.load, best.step.iops, best.read_ms, best.log_ms, why, carried.iops)
    why = BestCarried(target=target, carried=best.carried(), confirmed=False, limit=limit)
    return Reading("next", choice.load, best.step.iops, best.read_ms, best.log_ms, why, choice.max_passing_iops)


def _lighter(config: TestConfig, failed: CurvePoint, loads: Sequence[Load]) -> Load | None:
    """A load below a latency failure with nothing measured beneath it: IOPS fall about in proportion to the load
    while latency falls too, so the lightest load expected to carry the target (or the next lighter one)."""
    if not loads:
        return None
    wanted = failed.step.load.effective * min(1.0, 1.05 * config.test_target_iops / max(failed.step.iops, 1e-9))
    return next((load for load in loads if load.effective >= wanted), loads[-1])

