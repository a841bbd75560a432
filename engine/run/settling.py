"""When a calibration run has settled, and which of its samples are judged.

A normal run measures a fixed window after a fixed warm-up. A calibration run
(`jetwise tune`) instead warms up until the database read latency and the
transactional IOPS have settled: over the last `window` samples, the least-squares
trend of each moves less than `max_drift` of its mean across the window. Then it
measures `measure_samples` more samples and stops. If nothing settles in time, the
last `measure_samples` of the allowed time are judged and the log says so.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from engine.model.config import TestConfig


@dataclass(frozen=True)
class SettleRule:
    window: int = 10  # samples the trend is taken over
    max_drift: float = 0.10  # trend across the window, relative to the window's mean
    measure_samples: int = 20  # samples judged once settled


def drift(values: list[float]) -> float:
    """|least-squares slope × span| / mean of `values` (0 for a flat or empty series)."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if n < 2 or mean <= 0:
        return 0.0
    mid = (n - 1) / 2
    slope = sum((i - mid) * (v - mean) for i, v in enumerate(values)) / sum((i - mid) ** 2 for i in range(n))
    return abs(slope * (n - 1)) / mean


def interval_counts(config: TestConfig) -> tuple[int, int]:
    """(warm-up intervals, measured intervals) the configuration asks for."""
    warmup = math.ceil(config.warmup_s / config.sample_interval_s - 1e-9)
    return warmup, max(1, math.ceil(config.duration_s / config.sample_interval_s - 1e-9))


class MeasureWindow:
    """Which intervals are warm-up and which are measured, decided as the samples come."""

    def __init__(self, warmup_intervals: int, measure_intervals: int, settle: SettleRule | None = None) -> None:
        self.settle = settle
        self.min_warmup = warmup_intervals
        if settle is None:
            self.warmup_intervals = warmup_intervals
            self.total_intervals = warmup_intervals + measure_intervals
        else:
            self.total_intervals = warmup_intervals + measure_intervals  # the most this run may last
            self.warmup_intervals = self.total_intervals  # unknown until it settles
        self.decided = settle is None
        self._latency: deque[float] = deque(maxlen=settle.window if settle else 1)
        self._iops: deque[float] = deque(maxlen=settle.window if settle else 1)

    def observe(self, index: int, read_latency_ms: float, iops: float) -> str | None:
        """Feed warm-up interval `index`; returns a line for the test log when measuring starts."""
        if self.decided or self.settle is None:
            return None
        rule = self.settle
        self._latency.append(read_latency_ms)
        self._iops.append(iops)
        done = index + 1
        latest_start = self.total_intervals - rule.measure_samples
        settled = (
            done >= self.min_warmup
            and len(self._latency) == rule.window
            and drift(list(self._latency)) <= rule.max_drift
            and drift(list(self._iops)) <= rule.max_drift
        )
        if settled or done >= latest_start:
            self.decided = True
            self.warmup_intervals = done
            self.total_intervals = min(self.total_intervals, done + rule.measure_samples)
            if settled:
                return (f"Latency settled after {done} samples (read latency and IOPS within "
                        f"{rule.max_drift:.0%} over the last {rule.window}); judging the next {rule.measure_samples}")
            return (f"Latency did not settle within {done} samples; judging the last {rule.measure_samples} "
                    "samples of the allowed time")
        return None
