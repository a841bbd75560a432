"""A load sweep's schedule: the loads a sweep can run, and where its next step goes, chosen from the
steps measured so far (`engine.run.steps` measures each step; `engine.tuning.curve` reads them).

The loads a test can run form a ladder, lightest first: one thread per database with the
most SluggishSessions, down to SluggishSessions 1, then one more thread at a time. The
effective load is threads ÷ SluggishSessions, and it rises along the ladder.

The sweep starts at Microsoft's rule and moves toward the latency limit from both sides: a
step that keeps every latency threshold and a step that breaks one bracket the limit, and
the sweep bisects between them (on the effective load's logarithm) until they are neighbours
on the ladder: one thread or one SluggishSessions step apart. A host-bound step (the CPU, not
the storage, set the pace) ends the ladder: no heavier load is worth measuring on this host. When it
kept every latency threshold it is still evidence, a lower bound: the storage carried at least its
IOPS within the thresholds (`Step.passes`); when it broke one, its latency is the host's as much as
the storage's and it counts as neither pass nor failure.

A sweep is bounded: at most `MAX_STEPS` steps of at most `SweepPlan.step_limit` samples each,
so with the default plan and one-second samples the sweep measures for at most eight minutes.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.model.config import MAX_THREADS, TestConfig
from engine.results.sweep_schema import load_words
from engine.run.settling import SettleRule

EXPAND = 4.0  # without a bracket yet, each step moves the effective load this many times up or down
MAX_STEPS = 8
SWEEP_BUDGET_S = 480.0  # the longest a sweep measures: eight minutes
STEP_SAMPLES = 50  # the most samples a step takes, settling included
MIN_STEP_SAMPLES = 8  # ... and the fewest it is given
WARMUP_S = 60.0  # the first step warms the database cache this long before it may settle
MAX_SLUGGISH = 100
FILL_SLUGGISH = 8  # loads between the plain rungs use at most this many SluggishSessions
FILL_GAP = 1.2  # plain rungs further apart than this are filled
FILL_RATIO = 1.1  # ... each fill at least this far from its neighbours
RUNG_RATIO = 1.04  # plain rungs of many threads are at least this far apart: one thread of 40 is not worth a step
STEP_SETTLE = SettleRule(window=5, max_drift=0.10, measure_samples=10)
# The most transaction threads a sweep asks of each of the host's cores. A thread spends most of its time as a
# Jetstress thread does, waiting (engine.workload.pacing), so it takes about 2.5 of them to keep as many reads in flight
# as one thread waiting on reads alone; what a core can drive is its I/O rate, not its threads.
THREADS_PER_CORE = 80


@dataclass(frozen=True, order=True)
class Load:
    """One setting: the thread count (all databases) and SluggishSessions."""

    threads: int
    sluggish: int

    @property
    def effective(self) -> float:
        return self.threads / self.sluggish

    @property
    def words(self) -> str:
        return load_words(self.threads, self.sluggish)


@dataclass(frozen=True)
class Step:
    """What one settled step measured: its transactional IOPS and whether every latency threshold held."""

    load: Load
    iops: float
    latency_ok: bool
    host_bound: bool = False

    @property
    def passes(self) -> bool:
        """The storage carried at least `iops` within every latency threshold (a host-bound step: at least)."""
        return self.latency_ok

    @property
    def breaks(self) -> bool:
        """A latency threshold broke under this load and the host kept up: the storage's limit lies below."""
        return not self.latency_ok and not self.host_bound


def ladder(databases: int, max_threads: int, max_sluggish: int) -> list[Load]:
    """The loads a sweep steps through, lightest first (effective load strictly rising).

    The plain rungs: one thread per database with SluggishSessions from the most down to 1,
    then one more thread at a time, or more where one thread is less than 4 % of the load. Where two
    plain rungs are more than 20 % apart (a few threads, or a few SluggishSessions), loads with the fewest SluggishSessions (2 to 8) fill
    the gap, each at least 10 % from its neighbours, so a bracket closes near the limit.
    """
    plain = [Load(databases, s) for s in range(max_sluggish, 1, -1)] + [Load(t, 1) for t in thread_rungs(databases, max_threads)]
    loads = list(plain)
    for low, high in itertools.pairwise(plain):
        if high.effective <= low.effective * FILL_GAP:
            continue
        chosen = [low, high]
        for sluggish in range(2, min(max_sluggish, FILL_SLUGGISH) + 1):
            for threads in range(databases, max_threads + 1):
                load = Load(threads, sluggish)
                if load.effective >= high.effective:
                    break
                apart = all(max(load.effective, c.effective) >= min(load.effective, c.effective) * FILL_RATIO for c in chosen)
                if load.effective > low.effective and apart:
                    chosen.append(load)
        loads.extend(chosen[2:])
    return sorted(set(loads), key=lambda load: load.effective)


def thread_rungs(databases: int, max_threads: int) -> list[int]:
    """Thread counts from one per database to `max_threads`, each at least one and 4 % more than the last."""
    rungs = [databases]
    while rungs[-1] < max_threads:
        rungs.append(min(max_threads, max(rungs[-1] + 1, math.ceil(rungs[-1] * RUNG_RATIO))))
    return rungs


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
        """(heaviest passing index, lightest failing index above it); a host-bound step that broke a threshold counts
        as neither."""
        passing = [self._index(s.load) for s in steps if s.passes]
        low = max(passing) if passing else None
        failing = [self._index(s.load) for s in steps if s.breaks]
        above = [i for i in failing if low is None or i > low]
        return low, (min(above) if above else None)

    def _ceiling(self, steps: Sequence[Step]) -> int:
        """The heaviest index worth measuring: the lightest host-bound step when it passed (measured already), else
        below it."""
        bound = [self._index(s.load) - (0 if s.passes else 1) for s in steps if s.host_bound]
        return min(bound) if bound else len(self.loads) - 1

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
        else:  # only host-bound steps that broke a threshold: lighter than the lightest of them
            if top < 0:
                return None
            index = self._nearest(self._efforts[top + 1] / EXPAND)
        return None if index in measured else self.loads[index]


def measured_bracket(steps: Sequence[Step]) -> tuple[Step, Step] | None:
    """Among measured steps, the heaviest that kept the thresholds and the lightest heavier one that broke them
    (host-bound failures aside), as a sweep reads them: the limit lies between; None until both are measured."""
    loads = sorted({step.load for step in steps}, key=lambda load: load.effective)
    if not loads:
        return None
    low, high = Sweep(loads, loads[0]).bracket(steps)
    if low is None or high is None:
        return None
    latest = {step.load: step for step in steps}
    return latest[loads[low]], latest[loads[high]]


def heaviest_threads(databases: int, cpu_count: int, *asked: int) -> int:
    """The heaviest thread count a ladder goes to: what the host's cores drive, or more when asked, within a test's
    limit."""
    return min(MAX_THREADS, max(databases, THREADS_PER_CORE * max(1, cpu_count), *asked))


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep runs: its ladder of loads, where it starts, and how each step settles and is judged."""

    loads: tuple[Load, ...]
    start: Load
    max_steps: int = MAX_STEPS
    step_limit: int = 50  # samples a step may take, settling included
    min_settle: int = 5  # samples every step settles for at least
    settle: SettleRule = STEP_SETTLE
    warmup: int = 60  # samples the first step warms the database cache for before it may settle (it may take them too)

    @property
    def max_threads(self) -> int:
        return max(load.threads for load in self.loads)

    @property
    def budget_intervals(self) -> int:
        return self.warmup + self.max_steps * self.step_limit

    def describe(self, interval_s: float, *, lockstep: bool = False) -> str:
        """The plan in a line; in `lockstep` (across servers) each step settles for a fixed number of samples."""
        light, heavy = self.loads[0], self.loads[-1]
        settles = (f"settles for {self.min_settle} samples ({self.warmup} the first)" if lockstep else "settles")
        return (f"Load sweep: at most {self.max_steps} steps between {light.threads} threads / SluggishSessions "
                f"{light.sluggish} and {heavy.threads} threads, starting at {self.start.threads} threads / "
                f"SluggishSessions {self.start.sluggish}; each step {settles}, then {self.settle.measure_samples} "
                f"samples are judged; at most {self.budget_intervals * interval_s / 60:.3g} minutes")


def plan_sweep(config: TestConfig, cpu_count: int, budget_s: float = SWEEP_BUDGET_S) -> SweepPlan:
    """The sweep for `config`, starting at its thread count and SluggishSessions (the tuner sets Microsoft's rule).

    Within `budget_s`: with one-second samples, a minute's warm-up and eight steps of at most 50
    samples (ten of them judged). Longer samples get shorter steps (down to 8 samples, 3 judged)
    and then fewer steps (down to two), so up to 15 s samples the sweep still ends within the budget.
    """
    databases = config.database_count
    start = Load(max(databases, config.thread_count), config.sluggish_sessions)
    heaviest = heaviest_threads(databases, cpu_count, start.threads)
    interval = config.sample_interval_s
    warmup = max(2, round(WARMUP_S / interval))
    available = max(0, int((budget_s - warmup * interval) / interval + 1e-9))
    limit = max(MIN_STEP_SAMPLES, min(STEP_SAMPLES, available // MAX_STEPS))
    steps = max(2, min(MAX_STEPS, available // limit))
    measure = max(3, min(10, limit // 3))
    settle = SettleRule(window=min(5, limit - measure), max_drift=0.10, measure_samples=measure)
    return SweepPlan(tuple(ladder(databases, heaviest, MAX_SLUGGISH)), start, steps, limit, min(5, limit - measure), settle,
                     warmup)
