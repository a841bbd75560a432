"""A load sweep's steps, as the result document keeps them (`RunResult.sweep`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.model.validation import larger_than_cache_words
from engine.results.base import Schema
from engine.results.criterion_schema import Criterion


def load_words(threads: int, sluggish_sessions: int) -> str:
    """A load as every line of a sweep names it: "8 threads / SluggishSessions 2", "1 thread / SluggishSessions 1"."""
    return f"{threads} thread{'' if threads == 1 else 's'} / SluggishSessions {sluggish_sessions}"


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
    broke: Criterion | None = Field(None, description="The first latency criterion the step broke (None: it kept them).")
    failure: str = Field("", description="A result before schema 13: the first criterion the step broke, in words.")
    no_reads: bool = Field(False, description="An instance made no database reads, or more of its page references "
                                              "than the limit were cache hits (the cache held the database).")

    @property
    def effective_load(self) -> float:
        return self.threads / max(1, self.sluggish_sessions)

    @property
    def broke_words(self) -> str:
        """The first criterion the step broke, in words ('' where it kept them)."""
        return str(self.broke) if self.broke is not None else self.failure

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


Load = tuple[int, int]  # (threads, SluggishSessions)


class SweepEnd(Schema):
    """Why a load sweep ended, as facts; `words` says it."""

    why: Literal["cache_held", "limit_found", "steps_spent", "lightest_broke", "host_saturated", "all_kept", "stopped"]
    kept: Load | None = Field(None, description=(
        "limit_found: the heaviest load that kept the thresholds; host_saturated: the load that carried the most "
        "within them (None: none did); all_kept: the heaviest load of the schedule."))
    broke: Load | None = Field(None, description="limit_found: the lightest load above it that broke them; "
                                                 "lightest_broke: the lightest load.")
    carried_iops: float | None = Field(None, description="host_saturated: the transactional IOPS `kept` carried.")
    steps: int | None = Field(None, description="steps_spent: the steps a sweep may take.")

    @property
    def words(self) -> str:
        kept = load_words(*self.kept) if self.kept is not None else ""
        broke = load_words(*self.broke) if self.broke is not None else ""
        if self.why == "cache_held":
            return ("a step made no database reads, or nearly all its page references were cache hits: the database "
                    f"cache holds the database, so no load reaches the disk; {larger_than_cache_words()}")
        if self.why == "limit_found":
            return f"the latency limit lies between {kept} (kept the thresholds) and {broke} (broke them)"
        if self.why == "steps_spent":
            return f"its {self.steps} steps are spent"
        if self.why == "lightest_broke":
            return f"even the lightest load, {broke}, broke the latency thresholds"
        if self.why == "host_saturated":
            at_least = (f"; the storage carried at least {self.carried_iops:,.0f} transactional IOPS within every "
                        f"latency threshold ({kept})") if self.kept is not None and self.carried_iops is not None else ""
            return f"the host's processors were saturated before the storage's latency limit{at_least}"
        if self.why == "all_kept":
            return f"every load up to {kept}, the most this host drives, kept the thresholds"
        return "stopped before its end"


class Sweep(Schema):
    """A calibration run that stepped its load through a schedule (`RunResult.sweep`)."""

    steps: list[SweepStep] = Field(default_factory=list)
    judged_step: int | None = Field(None, description="The step whose window the run's verdict judges.")
    end: SweepEnd | None = Field(None, description="Why the sweep ended (None in a result before schema 13).")
    ended: str = Field("", description="A result before schema 13: why the sweep ended, in words.")

    @property
    def ended_words(self) -> str:
        return self.end.words if self.end is not None else self.ended
