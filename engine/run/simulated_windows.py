"""A long run on the simulated device, played a window at a time: a day on 48 databases in seconds.

Each instance's I/O is drawn once per window of 15 s (the window a samples file keeps an instance's
figures over), not once per second; the server's one-second figures are the window's, each second
varied around it as the model's noise varies them (their mean is the window's, the highest second's
peak latency is the window's). Measured totals, verdict and result come from the windows, exactly as
from per-second intervals. A load sweep and a calibration run watch every second (their steps and
settling do), so they keep the per-second play; they are minutes long.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from datetime import datetime

from engine.protocol import Phase, PhaseEvent
from engine.results.counters import Counters
from engine.results.host_schema import HostFigures
from engine.results.sample_file import WINDOW_S
from engine.run.measurement import Measurement
from engine.run.runner import Runner
from engine.workload.stats import InstanceInterval

RATE_NOISE = 0.03  # a second's rates around the window's
LATENCY_NOISE = 0.04  # a second's latency around the window's, as the model's per-interval noise


def plays_windows(measurement: Measurement) -> bool:
    """Whether a run can be played a window at a time: nothing in it watches each second."""
    return measurement.steps is None and measurement.window.settle is None


def seconds_of(window: InstanceInterval, count: int, rng: random.Random) -> list[Counters]:
    """The server's counters of `count` seconds that add up to the window's: each second's rates and average latency
    varied around the window's, its slowest operation at most the window's."""
    rates = _around(count, RATE_NOISE, rng)
    latency = _around(count, LATENCY_NOISE, rng)
    peak = _around(count, LATENCY_NOISE, rng)
    top = max(peak)
    seconds = [InstanceInterval("server") for _ in range(count)]
    for name, stats in window.streams.items():
        counts = _shares(stats.count, rates)
        sums = _shares(stats.sum_ns, [n * f for n, f in zip(counts, latency, strict=True)])
        sizes = _shares(stats.bytes, counts)
        for k, second in enumerate(seconds):
            own = second.stream(name)
            own.count, own.sum_ns, own.bytes = counts[k], sums[k], sizes[k]
            own.max_ns = round(stats.max_ns * peak[k] / top) if counts[k] else 0
        seconds[-1].stream(name).errors = stats.errors
    for position, total in enumerate(window.cache):
        for k, share in enumerate(_shares(total, rates)):
            seconds[k].cache[position] = share
    return [Counters.of(second, details=False) for second in seconds]


def _shares(total: int, weights: Sequence[float]) -> list[int]:
    """`total` split in whole numbers in proportion to `weights`, adding up to it exactly (the largest remainders
    take what rounding down leaves)."""
    whole = sum(weights)
    if total == 0 or whole <= 0:
        return [0] * len(weights)
    exact = [total * w / whole for w in weights]
    shares = [math.floor(x) for x in exact]
    for k in sorted(range(len(exact)), key=lambda k: shares[k] - exact[k])[: total - sum(shares)]:
        shares[k] += 1
    return shares


def _around(count: int, spread: float, rng: random.Random) -> list[float]:
    """`count` lognormal factors whose mean is exactly 1."""
    factors = [math.exp(rng.gauss(0.0, spread)) for _ in range(count)]
    mean = sum(factors) / count
    return [f / mean for f in factors]


Draw = Callable[[str, int, float, float], InstanceInterval]  # (instance, its index, ramp, seconds) -> its I/O


def play(runner: Runner, measurement: Measurement, draw: Draw, rng: random.Random, start: datetime,
         host: HostFigures) -> int:
    """Play the run window by window, each instance's I/O from `draw`; returns the intervals played (fewer when
    stopped)."""
    config = runner.config
    interval_s = config.sample_interval_s
    per_window = max(1, round(WINDOW_S / interval_s))
    names = measurement.names
    index = 0
    measuring = False
    while index < measurement.total_intervals:
        if runner.stop_reason is not None:
            break
        warm = measurement.warmup_intervals
        window_end = (index // per_window + 1) * per_window  # windows at whole multiples of 15 s, as a samples file's
        end = min(measurement.total_intervals, window_end, warm if index < warm else measurement.total_intervals)
        count = end - index
        if index >= warm and not measuring:
            measuring = True
            runner.emit(PhaseEvent(phase=Phase.MEASURING, message="Measuring (simulated)"))
        middle = (index + count / 2) * interval_s
        ramp = 1.0 - 0.35 * math.exp(-middle / 20.0)  # caches warming: latency climbs to its steady value
        seconds = count * interval_s
        parts = {name: draw(name, i, ramp, seconds) for i, name in enumerate(names)}
        server = InstanceInterval("server")
        for part in parts.values():
            for name, stats in part.streams.items():
                server.stream(name).merge_counts(stats)  # the server's seconds take no percentile
            server.cache = [mine + theirs for mine, theirs in zip(server.cache, part.cache, strict=True)]
        measurement.add_window(index, parts, seconds_of(server, count, rng), duration_s=interval_s,
                               elapsed_s=(index + 1) * interval_s, start=start, host=host)
        index = end
    return index
