"""A load sweep across servers in lockstep: the word for each step, from the servers' summed counters."""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.results.sweep_schema import SweepEnd, SweepStep
from engine.run.gate import Told
from engine.run.steps import next_of
from engine.run.sweep import Sweep, SweepPlan

GAP_S = 2.0  # a sweep's next step starts this long after a step's last sample: the word reaches every server in time


class SweepWord:
    """A load sweep across servers: on shared storage the servers' loads add up, so the limit it looks for is theirs
    together. The test's measurement steps through the sweep in lockstep on the servers' summed counters (`SweepSteps`
    with this lead): each step it measures is chosen from as a sweep alone chooses (`next_of`), and the word (the next
    load and the sample it starts at, `GAP_S` after the step's last, or the end) goes to every server, whose share
    settles and judges the same samples and runs its load until the word."""

    def __init__(self) -> None:
        self.records: list[SweepStep] = []
        self._told: dict[int, Told] = {}
        self._schedule: Sweep | None = None
        self._gap = 1
        self._tell: Callable[[int, Told], None] = lambda _step, _told: None

    def begin(self, plan: SweepPlan, interval_s: float, tell: Callable[[int, Told], None]) -> None:
        self._schedule = Sweep(plan.loads, plan.start, plan.max_steps)
        self._gap = max(1, math.ceil(GAP_S / interval_s - 1e-9))
        self._tell = tell

    def measured(self, record: SweepStep) -> None:
        assert self._schedule is not None
        self.records.append(record)
        at = record.last_interval + 1 + self._gap
        following = next_of(self._schedule, self.records)
        if isinstance(following, SweepEnd):
            told = Told(at, end=following)
        else:
            told = Told(at, load=(following.threads, following.sluggish))
        self._told[record.step + 1] = told
        self._tell(record.step + 1, told)

    def told(self, step: int) -> Told | None:
        return self._told.get(step)
