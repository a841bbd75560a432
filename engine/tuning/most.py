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
from engine.tuning.carried import Most, MostSoFar
from engine.tuning.curve import CurvePoint, Reading
from engine.tuning.why import NoneKept


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
                           NoneKept(lightest=lightest.broken(), runnable=True), None)
        load = _nearest(lighter, lightest.step.load.effective / EXPAND)
        return Reading("next", load, None, None, None,
                       NoneKept(lightest=lightest.broken(), lighter=(load.threads, load.sluggish), carry_target=False),
                       None)
    best = max(passing, key=lambda c: c.step.iops)
    if not best.confirmed:
        return Reading("next", best.step.load, best.step.iops, best.read_ms, best.log_ms,
                       MostSoFar(carried=best.carried()), best.step.iops)
    measured = {c.step.load for c in points}
    untried = [load for load in loads if best.step.load.effective < load.effective < ceiling and load not in measured]
    if untried:
        aim = (math.sqrt(best.step.load.effective * ceiling) if math.isfinite(ceiling)
               else best.step.load.effective * EXPAND)
        load = _nearest(untried, aim)
        return Reading("next", load, None, None, None,
                       MostSoFar(carried=best.carried(), untried=(load.threads, load.sluggish)), best.step.iops)
    return Reading("most", best.step.load, best.step.iops, best.read_ms, best.log_ms, _beyond(stops, best, heaviest),
                   best.step.iops)


def host_limited(points: Sequence[CurvePoint], load: Load) -> bool:
    """Whether what passed at `load` is bounded by the host, not the storage: nothing heavier broke the thresholds."""
    return not any(not c.step.latency_ok and not c.step.host_bound and c.step.load.effective > load.effective
                   for c in points)


def _nearest(loads: Sequence[Load], effective: float) -> Load:
    return min(loads, key=lambda load: abs(math.log(load.effective / effective)))


def _beyond(stops: Sequence[CurvePoint], best: CurvePoint, heaviest: int) -> Most:
    """The answer, and what lies past it: the next heavier load's failure, the host's limit, or the heaviest load run."""
    if best.step.host_bound:
        return Most(carried=best.carried(), beyond="host_at_best")
    above = [c for c in stops if c.step.load.effective > best.step.load.effective]
    if not above:
        return Most(carried=best.carried(), beyond="heaviest", heaviest_threads=heaviest)
    nearest = min(above, key=lambda c: c.step.load.effective)
    return Most(carried=best.carried(), beyond="host_above" if nearest.step.host_bound else "broke_above",
                above=nearest.broken())
