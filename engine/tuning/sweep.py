"""A load sweep's steps: where the next step goes, chosen from the steps measured so far.

The loads a test can run form a ladder, lightest first: one thread per database with the
most SluggishSessions, down to SluggishSessions 1, then one more thread at a time. The
effective load is threads ÷ SluggishSessions, and it rises along the ladder.

The sweep starts at Microsoft's rule and moves toward the latency limit from both sides: a
step that keeps every latency threshold and a step that breaks one bracket the limit, and
the sweep bisects between them (on the effective load's logarithm) until they are neighbours
on the ladder: one thread or one SluggishSessions step apart. A host-bound step (the CPU, not
the storage, set the pace) says nothing about the storage: the ladder ends below it.

`choose` then reads the measured curve: the lightest passing step that reaches the target,
or a load between two measured passing steps found by interpolating their IOPS; never a
load beyond the measured ones. When no passing step reaches the target, the capacity is the
best passing step's IOPS.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

EXPAND = 4.0  # without a bracket yet, each step moves the effective load this many times up or down
MAX_STEPS = 8


@dataclass(frozen=True, order=True)
class Load:
    """One setting: the thread count (all databases) and SluggishSessions."""

    threads: int
    sluggish: int

    @property
    def effective(self) -> float:
        return self.threads / self.sluggish


@dataclass(frozen=True)
class Step:
    """What one settled step measured: its transactional IOPS and whether every latency threshold held."""

    load: Load
    iops: float
    latency_ok: bool
    host_bound: bool = False


def ladder(databases: int, max_threads: int, max_sluggish: int) -> list[Load]:
    """Every load a test can run, lightest first (effective load strictly rising)."""
    light = [Load(databases, s) for s in range(max_sluggish, 1, -1)]
    return light + [Load(t, 1) for t in range(databases, max_threads + 1)]


class Sweep:
    """Chooses each next step of a sweep from the steps measured so far."""

    def __init__(self, loads: Sequence[Load], start: Load, max_steps: int = MAX_STEPS) -> None:
        self.loads = list(loads)
        self._efforts = [load.effective for load in self.loads]
        self.start = self._nearest(start.effective)
        self.max_steps = max_steps

    def _nearest(self, effective: float) -> int:
        """The ladder index whose effective load is nearest `effective` on a log scale."""
        i = bisect.bisect_left(self._efforts, effective)
        candidates = [j for j in (i - 1, i) if 0 <= j < len(self.loads)]
        return min(candidates, key=lambda j: abs(math.log(self._efforts[j] / effective)))

    def _index(self, load: Load) -> int:
        return self._nearest(load.effective)

    def bracket(self, steps: Sequence[Step]) -> tuple[int | None, int | None]:
        """(heaviest passing index, lightest failing index above it); host-bound steps count as neither."""
        passing = [self._index(s.load) for s in steps if s.latency_ok and not s.host_bound]
        low = max(passing) if passing else None
        failing = [self._index(s.load) for s in steps if not s.latency_ok and not s.host_bound]
        above = [i for i in failing if low is None or i > low]
        return low, (min(above) if above else None)

    def _ceiling(self, steps: Sequence[Step]) -> int:
        """The heaviest index worth measuring: below the lightest host-bound step."""
        bound = [self._index(s.load) for s in steps if s.host_bound]
        return min(bound) - 1 if bound else len(self.loads) - 1

    def next_load(self, steps: Sequence[Step]) -> Load | None:
        """The next load to measure, or None when the limit is bracketed (or the steps are spent)."""
        if not steps:
            return self.loads[self.start]
        if len(steps) >= self.max_steps:
            return None
        low, high = self.bracket(steps)
        top = self._ceiling(steps)
        measured = {self._index(s.load) for s in steps}
        if low is not None and high is not None:
            if high - low <= 1:
                return None
            target = math.sqrt(self._efforts[low] * self._efforts[high])
            index = min(max(self._nearest(target), low + 1), high - 1)
        elif low is not None:  # everything passed so far: heavier
            if low >= top:
                return None
            index = min(top, max(low + 1, self._nearest(self._efforts[low] * EXPAND)))
        elif high is not None:  # everything failed so far: lighter
            if high == 0:
                return None
            index = max(0, min(high - 1, self._nearest(self._efforts[high] / EXPAND)))
        else:  # only host-bound steps: lighter than the lightest of them
            if top < 0:
                return None
            index = self._nearest(self._efforts[top + 1] / EXPAND)
        return None if index in measured else self.loads[index]


@dataclass(frozen=True)
class Choice:
    """What the sweep says: the setting to confirm, or that the target is out of reach and what the storage carries."""

    load: Load | None
    reachable: bool
    max_passing_iops: float | None
    basis: str  # how the setting was read from the curve, in words


def choose(steps: Sequence[Step], target_iops: float, loads: Sequence[Load]) -> Choice:
    """The setting the measured curve supports for `target_iops` (never beyond a measured load)."""
    passing = sorted((s for s in steps if s.latency_ok and not s.host_bound), key=lambda s: s.load.effective)
    if not passing:
        return Choice(None, False, None, "no step kept the latency thresholds")
    best = max(s.iops for s in passing)
    reaching = [s for s in passing if s.iops >= target_iops]
    if not reaching:
        return Choice(max(passing, key=lambda s: s.iops).load, False, best,
                      f"no step that kept the thresholds reached {target_iops:,.0f} IOPS; the best carried {best:,.0f}")
    first = reaching[0]
    below = [s for s in passing if s.load.effective < first.load.effective and s.iops < target_iops]
    if not below:
        return Choice(first.load, True, best, f"the lightest passing step reaching the target ({first.iops:,.0f} IOPS)")
    under = below[-1]
    share = (target_iops - under.iops) / (first.iops - under.iops)
    wanted = under.load.effective + share * (first.load.effective - under.load.effective)
    between = [load for load in loads if under.load.effective < load.effective <= first.load.effective]
    load = next((candidate for candidate in between if candidate.effective >= wanted), first.load)
    return Choice(load, True, best,
                  f"interpolated between the measured steps at {under.iops:,.0f} and {first.iops:,.0f} IOPS")
