"""The simulated device's I/O draws: a stream's I/Os over a span, their latency lognormal around the model's.

A span's histogram holds 16 quantiles of the distribution, each an equal share of its I/Os, and its
highest latency where the highest of that many draws lies, never below the highest quantile it counted.
The quantiles' buckets are computed once per distribution (the mean to 0.5 %, a third of a histogram
bucket), so a day on 48 databases draws fast.
"""

from __future__ import annotations

import functools
import math
import random
import statistics

from engine.workload.histogram import bucket_index
from engine.workload.stats import StreamStats

_QUANTILES = [statistics.NormalDist().inv_cdf((i + 0.5) / 16) for i in range(16)]


def fill_stream(rng: random.Random, stats: StreamStats, count: float, avg_bytes: float, avg_ms: float, cv: float,
                intervals: int = 1) -> None:
    """One interval of a stream: `count` I/Os whose latency is lognormal with mean `avg_ms`."""
    n = int(count) + (1 if rng.random() < count - int(count) else 0)
    if n <= 0:
        return
    sigma = math.sqrt(math.log(1 + cv * cv))
    mu = math.log(avg_ms * 1e6) - sigma * sigma / 2
    stats.count += n
    stats.bytes += int(n * avg_bytes)
    stats.sum_ns += int(n * avg_ms * 1e6)
    # the highest of an interval's I/Os (a span of several: the highest of one's, as interval by interval)
    stats.max_ns = max(stats.max_ns, int(math.exp(mu + sigma * _tail(max(1, round(n / intervals))))))
    share, extra = divmod(n, len(_QUANTILES))
    hist = stats.hist
    # mu to a hundredth (0.5 % of the latency, a third of a histogram bucket): the buckets repeat, computed once
    buckets = _quantile_buckets(round(mu * 100), round(sigma * 1000))
    # and no lower than the highest quantile counted, so no percentile lies above the maximum
    stats.max_ns = max(stats.max_ns, int(math.exp(mu + sigma * _QUANTILES[-1 if share else extra - 1])))
    if share:
        for index in buckets:
            hist[index] += share
    for index in buckets[:extra]:
        hist[index] += 1


@functools.lru_cache(maxsize=65_536)
def _tail(n: int) -> float:
    """Where the highest of `n` lognormal latencies lies, in standard deviations."""
    return statistics.NormalDist().inv_cdf(1 - 1 / (n + 1)) if n > 1 else 0.0


@functools.lru_cache(maxsize=65_536)
def _quantile_buckets(mu_hundredths: int, sigma_thousandths: int) -> tuple[int, ...]:
    mu, sigma = mu_hundredths / 100, sigma_thousandths / 1000
    return tuple(bucket_index(int(math.exp(mu + sigma * z))) for z in _QUANTILES)
