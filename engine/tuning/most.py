"""The disk subsystem throughput scenario's reading of the load curve: the most transactional IOPS that pass.

There is no target: the aim is "as many as pass". The curve (`engine.tuning.curve`: a sweep's
steps and the session's runs) gives the heaviest point whose latency kept every threshold and
the lightest that broke one (a ceiling), host-bound points marking where the host, not the
storage, stops (one that kept the thresholds passes: the storage carried at least its IOPS).
The answer is the passing point that carried the most IOPS, once a whole run at its setting
has confirmed it and nothing untried lies between it and the ceiling (or the heaviest load the
host drives). Until then the next run confirms that point, or measures between it and the
ceiling, or below a ceiling with nothing passing under it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.model.config import TestConfig
from engine.run.sweep import EXPAND, MAX_SLUGGISH, Load, heaviest_threads, ladder
from engine.tuning.curve import CurvePoint, Reading


def read_most(config: TestConfig, points: Sequence[CurvePoint], cpu_count: int) -> Reading:
    """The setting to run next in search of the most that passes, or (status "most") what that is, confirmed."""
    databases = config.database_count
    heaviest = heaviest_threads(databases, cpu_count, *(c.step.load.threads for c in points))
    loads = ladder(databases, heaviest, MAX_SLUGGISH)
    stops = [c for c in points if not c.step.latency_ok or c.step.host_bound]
    # a host-bound point that kept the thresholds passes (the storage carried at least that) and is the heaviest
    bound = min((c.step.load.effective for c in points if c.step.host_bound), default=math.inf)
    broke = min((c.step.load.effective for c in points if c.step.breaks), default=math.inf)
    ceiling = min(bound, broke)  # the lightest of the stops
    passing = [c for c in points if c.step.passes and c.step.load.effective < broke and c.step.load.effective <= bound]
    failed = [c for c in points if c.step.breaks]
    if not passing:
        lightest = failed[0] if failed else points[0]
        lighter = [load for load in loads if load.effective < lightest.step.load.effective]
        if not lighter:
            return Reading("unreachable", lightest.step.load, None, None, None,
                           f"no load kept the latency thresholds: even the lightest this test can run, "
                           f"{lightest.step.load.words}, broke them ({lightest.failure or 'latency'}); this storage "
                           "cannot carry a mailbox workload within its thresholds", None)
        load = _nearest(lighter, lightest.step.load.effective / EXPAND)
        return Reading("next", load, None, None, None,
                       f"nothing measured kept the latency thresholds; the lightest, {lightest.step.load.words}, broke "
                       f"them ({lightest.failure or 'latency'}): {load.words} measures a lighter load", None)
    best = max(passing, key=lambda c: c.step.iops)
    carried = f"{'at least ' if best.step.host_bound else ''}{best.step.iops:,.0f} transactional IOPS at {best.step.load.words}"
    if not best.confirmed:
        return Reading("next", best.step.load, best.step.iops, best.read_ms, best.log_ms,
                       f"the sweep's best step within every latency threshold carried {carried}: this run confirms "
                       "it", best.step.iops)
    measured = {c.step.load for c in points}
    untried = [load for load in loads if best.step.load.effective < load.effective < ceiling and load not in measured]
    if untried:
        aim = (math.sqrt(best.step.load.effective * ceiling) if math.isfinite(ceiling)
               else best.step.load.effective * EXPAND)
        load = _nearest(untried, aim)
        return Reading("next", load, None, None, None,
                       f"{carried} passed, confirmed by a run; {load.words} measures whether more load carries more",
                       best.step.iops)
    return Reading("most", best.step.load, best.step.iops, best.read_ms, best.log_ms,
                   f"the most this storage carried within every latency threshold is {carried}, confirmed by a run; "
                   f"{_beyond(stops, best, heaviest)}", best.step.iops)


def host_limited(points: Sequence[CurvePoint], load: Load) -> bool:
    """Whether what passed at `load` is bounded by the host, not the storage: nothing heavier broke the thresholds."""
    return not any(not c.step.latency_ok and not c.step.host_bound and c.step.load.effective > load.effective
                   for c in points)


def _nearest(loads: Sequence[Load], effective: float) -> Load:
    return min(loads, key=lambda load: abs(math.log(load.effective / effective)))


def _beyond(stops: Sequence[CurvePoint], best: CurvePoint, heaviest: int) -> str:
    """What lies past the answer: the next heavier load's failure, the host's limit, or the heaviest load run."""
    if best.step.host_bound:
        return "at that load the host's CPU, not the storage, set the pace: the storage may carry more than this host drives"
    above = [c for c in stops if c.step.load.effective > best.step.load.effective]
    if not above:
        return (f"{heaviest} threads is the heaviest load this test runs on this host: the storage may carry more than "
                "this host can drive")
    nearest = min(above, key=lambda c: c.step.load.effective)
    if nearest.step.host_bound:
        return f"at {nearest.step.load.words} the host's CPU, not the storage, set the pace"
    return (f"the next heavier load measured, {nearest.step.load.words}, broke the thresholds "
            f"({nearest.failure or 'latency'}) at {nearest.step.iops:,.0f} IOPS")
