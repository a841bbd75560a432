"""A load sweep's steps, as the result document keeps them (`RunResult.sweep`)."""

from __future__ import annotations

from pydantic import Field

from engine.results.base import Schema


class SweepStep(Schema):
    """One settled step of a load sweep: the load it ran and what it measured."""

    step: int = Field(ge=0)
    threads: int
    sluggish_sessions: int
    first_interval: int = Field(description="The step's first sample (settling included).")
    last_interval: int
    settled: bool = Field(description="Read latency and IOPS settled before the judged samples.")
    measured_s: float
    transactional_iops: float
    db_read_avg_latency_ms: float
    db_read_max_latency_ms: float
    log_write_avg_latency_ms: float
    log_write_max_latency_ms: float
    page_fault_stalls_per_s: float
    cpu_percent: float
    host_bound: bool
    latency_ok: bool = Field(description="Every latency criterion (and page-fault stalls) within its threshold.")
    failure: str = Field("", description="The first criterion the step broke, in words.")
    no_reads: bool = Field(False, description="An instance made no database reads (the cache held the database).")

    @property
    def effective_load(self) -> float:
        return self.threads / max(1, self.sluggish_sessions)

    @property
    def tells(self) -> bool:
        return tells_of_storage(self.latency_ok, self.host_bound, self.no_reads)

    @property
    def kept(self) -> bool:
        """The step kept every latency threshold with its reads reaching the disk (host-bound or not)."""
        return self.latency_ok and not self.no_reads


def tells_of_storage(latency_ok: bool, host_bound: bool, no_reads: bool) -> bool:
    """Whether a step says something of the storage: its reads reached the disk, and the host kept up or the
    thresholds held (a host-bound step that kept them: the storage carried at least its IOPS)."""
    return not no_reads and (latency_ok or not host_bound)


class Sweep(Schema):
    """A calibration run that stepped its load through a schedule (`RunResult.sweep`)."""

    steps: list[SweepStep] = Field(default_factory=list)
    judged_step: int | None = Field(None, description="The step whose window the run's verdict judges.")
    ended: str = Field("", description="Why the sweep ended, in words.")
