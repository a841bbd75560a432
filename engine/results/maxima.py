"""Each instance's maximum latency as Jetstress gives it: the highest average over one log interval.

Jetstress takes its figures from performance counters it logs every LogInterval (15 s by default), so
its maximum database read and log write latency of an instance is the highest of those averages, not
the slowest single I/O. The intervals here fall at whole multiples of the log interval from the run's
start, as the samples file's windows do (`engine.results.sample_file`), so a killed run's result rebuilt
from its samples finds the same ones. A part of an interval at either end of the measured time is
joined to its neighbour: every average judged covers at least one whole interval, or the whole measured
time when that is shorter.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.model.config import TestConfig
from engine.workload.stats import DB_READ, LOG_WRITE, InstanceInterval

JUDGED = (DB_READ, LOG_WRITE)
_Sums = dict[tuple[str, str], list[int]]  # (instance, stream) -> [latency sum in ns, operations]


class HighestAverages:
    """The highest log-interval average of each instance's database reads and log writes, fed sample by sample."""

    def __init__(self, log_interval_s: float, sample_interval_s: float) -> None:
        self.per = max(1, round(log_interval_s / sample_interval_s))  # samples in one log interval
        self.interval_s = self.per * sample_interval_s
        self._key: int | None = None
        self._open: _Sums = {}
        self._open_s = 0.0
        self._last: _Sums | None = None  # the last whole interval: a part of one after it is joined to it
        self._highest: dict[tuple[str, str], float] = {}  # over the intervals before `_last`

    @classmethod
    def of(cls, config: TestConfig) -> HighestAverages:
        """The averages over `config`'s log interval, of samples of its sample interval."""
        return cls(config.thresholds.log_interval_s, config.sample_interval_s)

    def add(self, index: int, parts: Mapping[str, InstanceInterval], seconds: float) -> None:
        """Sample `index` (or the last of the `seconds` a window of samples covers): each instance's counters. A
        straggler of an interval already closed is counted in the one under way."""
        key = index // self.per if self._key is None else max(index // self.per, self._key)
        if key != self._key and self._whole(self._open_s):
            if self._last is not None:
                _fold(self._last, self._highest)
            self._last, self._open, self._open_s = self._open, {}, 0.0
        self._key = key
        for name, part in parts.items():
            for stream in JUDGED:
                stats = part.streams.get(stream)
                if stats is not None and stats.count:
                    sums = self._open.setdefault((name, stream), [0, 0])
                    sums[0] += stats.sum_ns
                    sums[1] += stats.count
        self._open_s += seconds

    def highest_ms(self) -> dict[str, dict[str, float]]:
        """Instance -> stream -> its highest average so far in ms (an instance or stream with no I/O is absent)."""
        highest = dict(self._highest)
        last = self._last
        if self._open:
            if last is None or self._whole(self._open_s):
                _fold(self._open, highest)
            else:  # the measured time ended part-way through an interval: that part joins the interval before
                last = {key: list(sums) for key, sums in last.items()}
                for key, (total, count) in self._open.items():
                    joined = last.setdefault(key, [0, 0])
                    joined[0] += total
                    joined[1] += count
        if last is not None:
            _fold(last, highest)
        found: dict[str, dict[str, float]] = {}
        for (name, stream), value in highest.items():
            found.setdefault(name, {})[stream] = value
        return found

    def _whole(self, seconds: float) -> bool:
        return seconds >= self.interval_s * (1 - 1e-6)


def _fold(sums: _Sums, highest: dict[tuple[str, str], float]) -> None:
    for key, (total, count) in sums.items():
        if count:
            average = total / count / 1e6
            if average > highest.get(key, -1.0):
                highest[key] = average
