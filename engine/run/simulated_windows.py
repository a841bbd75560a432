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
from collections.abc import Callable
from datetime import datetime

from engine.protocol import Phase, PhaseEvent
from engine.results.figures import cache_figures, stream_figures
from engine.results.sample_file import WINDOW_S
from engine.results.schema import Figures, HostFigures
from engine.run.measurement import Measurement
from engine.run.runner import Runner
from engine.workload.stats import InstanceInterval, StreamStats, new_cache_counts

RATE_NOISE = 0.03  # a second's rates around the window's
LATENCY_NOISE = 0.04  # a second's latency around the window's, as the model's per-interval noise


def plays_windows(measurement: Measurement) -> bool:
    """Whether a run can be played a window at a time: nothing in it watches each second."""
    return measurement.steps is None and measurement.window.settle is None


def seconds_of(window: Figures, count: int, rng: random.Random) -> list[Figures]:
    """`count` seconds whose rates and average latency average to the window's, their peak latency at most its."""
    values = window.model_dump()
    rates = _around(count, RATE_NOISE, rng)
    latency = _around(count, LATENCY_NOISE, rng)
    peak = _around(count, LATENCY_NOISE, rng)
    top = max(peak)
    seconds = []
    for k in range(count):
        own = dict(values)
        for name, value in values.items():
            if name.endswith("_per_s") or name == "transactional_iops":
                own[name] = value * rates[k]
            elif name.endswith("_avg_latency_ms"):
                own[name] = value * latency[k]
            elif name.endswith("_max_latency_ms"):
                own[name] = value * peak[k] / top
        seconds.append(Figures.model_construct(**own))
    return seconds


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
        streams: dict[str, StreamStats] = {}
        cache = new_cache_counts()
        for part in parts.values():
            for name, stats in part.streams.items():
                streams.setdefault(name, StreamStats()).merge_counts(stats)  # the server's figures take no percentile
            cache = [mine + theirs for mine, theirs in zip(cache, part.cache, strict=True)]
        window = Figures(**stream_figures(streams, seconds), **cache_figures(cache, seconds))
        measurement.add_window(index, parts, seconds_of(window, count, rng), duration_s=interval_s,
                               elapsed_s=(index + 1) * interval_s, start=start, host=host)
        index = end
    return index
