"""A load sweep's curve as points: one per step, built live from the run's samples or read from its result.

While a sweep runs, the engine streams its samples; each carries its step, and a step's
"measure" samples are the ones its verdict judges. A step is complete once the next step's
samples arrive (or the result does, whose steps are authoritative). Each step is judged as
the engine judges it: the running verdict at the step's own setting, where any instance's
broken latency (or page-fault) threshold fails it, and a step whose reads never reached
the disk or whose host CPU was saturated says nothing of the storage.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.config import TestConfig
from engine.results.host_schema import HostFigures
from engine.results.sample_schema import IntervalSample
from engine.results.sweep_schema import SweepStep, tells_of_storage
from engine.results.verdict import ACTIVITY_CRITERIA
from engine.run.samples import RunningVerdict
from engine.run.steps import host_bound
from engine.run.sweep import Load, Step, measured_bracket

READ_AVG = "average database read latency"


@dataclass(frozen=True)
class StepPoint:
    """One step of the curve: its setting, transactional IOPS, worst instance's read latency and how it was judged."""

    step: int  # 0-based; shown from 1, as the test log counts steps
    threads: int
    sluggish_sessions: int
    iops: float
    read_ms: float
    latency_ok: bool
    host_bound: bool = False
    no_reads: bool = False
    failure: str = ""

    @property
    def load(self) -> Load:
        return Load(self.threads, self.sluggish_sessions)

    @property
    def effective_load(self) -> float:
        return self.threads / max(1, self.sluggish_sessions)

    @property
    def telling(self) -> bool:
        return tells_of_storage(self.latency_ok, self.host_bound, self.no_reads)

    @property
    def passed(self) -> bool:
        return self.latency_ok and self.telling

    @classmethod
    def of(cls, record: SweepStep) -> StepPoint:
        return cls(record.step, record.threads, record.sluggish_sessions, record.transactional_iops,
                   record.db_read_avg_latency_ms, record.latency_ok, record.host_bound, record.no_reads, record.broke_words)


def bracket(points: list[StepPoint]) -> tuple[StepPoint, StepPoint] | None:
    """The heaviest step that kept the thresholds and the lightest that broke them above it, as the sweep reads
    them (`engine.run.sweep.measured_bracket`); None until both are measured."""
    by_load = {point.load: point for point in points}
    found = measured_bracket([Step(point.load, point.iops, point.passed, point.host_bound or point.no_reads)
                              for point in points])
    return None if found is None else (by_load[found[0].load], by_load[found[1].load])


class LiveSweep:
    """The steps of the sweep under way, each a point once its measured samples are complete."""

    def __init__(self, config: TestConfig) -> None:
        self.config = config
        self.points: list[StepPoint] = []
        self.step: int | None = None  # the step under way
        self.load: Load | None = None
        self._start()

    def _start(self) -> None:
        self._verdict = RunningVerdict(self.config)
        self._hosts: list[HostFigures] = []
        self._transactions = 0.0  # transactional I/Os of the step's measured samples

    @property
    def active(self) -> bool:
        """Whether the run is a sweep: a sample with a step came."""
        return self.step is not None or bool(self.points)

    def add(self, sample: IntervalSample) -> None:
        """Take a sample; the first of a step completes the one before."""
        if sample.step is None:
            return
        if sample.step != self.step:
            self._close()
            self.step = sample.step
            known = sample.threads is not None and sample.sluggish_sessions is not None
            self.load = Load(sample.threads or 0, sample.sluggish_sessions or 0) if known else None
            self._start()
        if sample.phase == "measure":
            self._verdict.add(sample)
            self._hosts.append(sample.host)
            self._transactions += sample.summary.transactional_iops * sample.duration_s

    def finish(self, steps: list[SweepStep]) -> None:
        """The run's result came: its steps replace what the samples gave."""
        self.points = [StepPoint.of(record) for record in steps]
        self.step = None

    def _close(self) -> None:
        """The step under way as a point, if its measured samples came."""
        running = self._verdict
        if self.step is None or self.load is None or running.measured_s <= 0:
            return
        criteria = running.verdict().criteria
        failures = [c for c in criteria if c.instance is not None and not c.passed and c.name != ACTIVITY_CRITERIA[0]]
        no_reads = any(c.name == ACTIVITY_CRITERIA[0] and not c.passed for c in criteria)
        reads = [c.value for c in criteria if c.name == READ_AVG and c.instance is not None]
        self.points.append(StepPoint(
            self.step, self.load.threads, self.load.sluggish, self._transactions / running.measured_s,
            max(reads, default=0.0), not failures, host_bound(self._hosts), no_reads, str(failures[0]) if failures else ""))
