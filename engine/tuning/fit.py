"""The advisor's load curve: read latency and throughput as functions of the effective load, fitted to runs.

By Little's law the transfers in flight are X·R (throughput times read latency), and per effective thread
that is a constant c of the workload; so X(x) = c·x / R(x). Read latency is fitted as the classic
single-bottleneck curve R(x) = sqrt(R0² + (c·x / Xmax)²): flat at R0 while the storage has headroom,
rising in proportion to the load once it is saturated at Xmax transfers/s (`engine.tuning.advisor`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.tuning.evidence import RunPoint


@dataclass(frozen=True)
class LoadModel:
    """The fitted curve: read latency and throughput as functions of the effective load."""

    c: float  # transfers in flight per effective thread (Little's law)
    r0_ms: float
    xmax: float  # saturation throughput, transfers/s (math.inf: not seen yet)
    log_ms: float

    def read_ms(self, load: float) -> float:
        if math.isinf(self.xmax):
            return self.r0_ms
        return math.hypot(self.r0_ms, 1000.0 * self.c * load / self.xmax)

    def iops(self, load: float) -> float:
        return 1000.0 * self.c * load / self.read_ms(load)


def fit(runs: Sequence[RunPoint]) -> LoadModel:
    usable = [r for r in runs if r.achieved_iops > 0 and r.read_ms > 0]
    if not usable:
        raise ValueError("no run with measured throughput and latency to fit")
    c = sorted(r.achieved_iops * r.read_ms / 1000.0 / r.load for r in usable)[len(usable) // 2]
    log_ms = max(r.log_ms for r in usable)
    if len({round(r.load, 6) for r in usable}) == 1:
        best = max(usable, key=lambda r: r.achieved_iops)
        if best.latency_passed:
            return LoadModel(c, best.read_ms, math.inf, log_ms)
        return LoadModel(c, min(best.read_ms, 5.0), best.achieved_iops, log_ms)
    low = min(r.read_ms for r in usable)
    top = max(r.achieved_iops for r in usable)
    best_model, best_error = LoadModel(c, low, math.inf, log_ms), math.inf
    for i in range(40):
        r0 = low * (0.2 + 0.8 * (i + 1) / 40)
        for j in range(61):
            xmax = math.inf if j == 60 else top * (1.0 + 9.0 * (j / 59) ** 2)
            model = LoadModel(c, r0, xmax, log_ms)
            error = sum((math.log(model.read_ms(r.load)) - math.log(r.read_ms)) ** 2 for r in usable)
            if error < best_error:
                best_model, best_error = model, error
    return best_model


def load_for_iops(model: LoadModel, iops: float) -> float | None:
    """The least load predicted to reach `iops` (None if the curve never does)."""
    if not math.isinf(model.xmax) and iops >= model.xmax * 0.999:
        return None
    low, high = 1e-4, 1e5
    if model.iops(high) < iops:
        return None
    for _ in range(100):
        mid = math.sqrt(low * high)
        low, high = (mid, high) if model.iops(mid) < iops else (low, mid)
    return high


def load_for_latency(model: LoadModel, read_ms: float) -> float:
    """The most load predicted to keep reads within `read_ms`."""
    if model.read_ms(1e5) <= read_ms:
        return 1e5
    if model.read_ms(1e-4) > read_ms:
        return 1e-4
    low, high = 1e-4, 1e5
    for _ in range(100):
        mid = math.sqrt(low * high)
        low, high = (mid, high) if model.read_ms(mid) <= read_ms else (low, mid)
    return low
