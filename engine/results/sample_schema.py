"""The shape of one interval sample, as merged in the parent, and of the figures of a span: every stream's rates,
latencies and sizes, for an instance or the server. A run's result (`engine.results.schema`) holds its figures in
the same shape."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from engine.results.base import Schema as _Schema
from engine.results.base import UtcTime
from engine.results.counters import Counters, from_figures
from engine.results.host_schema import HostFigures
from engine.workload.histogram import percentiles_ms

SamplePhase = Literal["warmup", "measure"]  # an interval sample: warm-up (not judged) or measured


class Figures(_Schema):
    """Rates, latencies and sizes of every stream, for an instance or the server, over a span."""

    db_reads_per_s: float = 0.0
    db_read_avg_latency_ms: float = 0.0
    db_read_max_latency_ms: float = 0.0
    db_read_avg_bytes: float = 0.0
    db_writes_per_s: float = 0.0
    db_write_avg_latency_ms: float = 0.0
    db_write_max_latency_ms: float = 0.0
    db_write_avg_bytes: float = 0.0
    log_writes_per_s: float = 0.0
    log_write_avg_latency_ms: float = 0.0
    log_write_max_latency_ms: float = 0.0
    log_write_avg_bytes: float = 0.0
    bdm_reads_per_s: float = 0.0
    bdm_read_avg_latency_ms: float = 0.0
    bdm_read_max_latency_ms: float = 0.0
    bdm_read_avg_bytes: float = 0.0
    log_replication_reads_per_s: float = 0.0
    log_replication_read_avg_latency_ms: float = 0.0
    log_replication_read_max_latency_ms: float = 0.0
    log_replication_read_avg_bytes: float = 0.0
    log_reads_per_s: float = 0.0
    log_read_avg_latency_ms: float = 0.0
    log_read_max_latency_ms: float = 0.0
    log_read_avg_bytes: float = 0.0
    transactional_iops: float = Field(0.0, description="Database reads + writes per second.")
    io_errors: int = 0
    db_cache_hit_ratio: float | None = Field(None, description="None before any page was referenced.")
    database_page_fault_stalls_per_s: float = 0.0

    def rate(self, stream: str) -> float:
        return float(getattr(self, f"{stream}s_per_s"))

    def stream_value(self, stream: str, what: str) -> float:
        """`what` is avg_latency_ms, max_latency_ms or avg_bytes."""
        return float(getattr(self, f"{stream}_{what}"))


class InstanceFigures(Figures):
    """One instance's figures in one interval."""

    name: str
    db_read_p99_latency_ms: float | None = None
    span_s: float | None = Field(None, description="Seconds these figures cover when not their sample's own: an "
                                                   "instance's window in a samples file, ending with that sample.")


class LatencyHistograms(_Schema):
    """The server's latency histograms, every instance's I/O together, over the span ending with their sample."""

    span_s: float = Field(description="Seconds they cover: the sample's own interval, or a samples file's window.")
    streams: dict[str, dict[int, int]] = Field(
        description="Per stream, bucket -> operations: log-linear buckets of nanoseconds, 64 per power of two "
                    "(engine.workload.histogram); only buckets that hold any. Histograms over adjacent spans add up, "
                    "so percentiles over any run of them are exact.")


class IntervalSample(_Schema):
    """One sample interval, as merged in the parent: the server's counters, each instance's, the host's figures.

    Counters, not rates (`engine.results.counters`): samples add up exactly, and rates and averages are made where
    they are shown (`summary`, `instance_figures`). An older sample, which held figures, reads as counters as far as
    its figures tell."""

    interval: int = Field(ge=0)
    phase: SamplePhase
    time_utc: UtcTime | None = Field(None, description="End of the interval; absent only in samples of older stores.")
    elapsed_s: float
    duration_s: float
    remaining_s: float = 0.0
    host: HostFigures = Field(default_factory=HostFigures)
    server: Counters = Field(default_factory=Counters, description=(
        "Every instance's I/O together over the sample's interval (its histograms are in `latency`)."))
    instances: dict[str, Counters] = Field(default_factory=dict, description=(
        "Each instance's counters by name, histograms and errors by kind included: over the sample's interval, or "
        "over a samples file's window ending with it (`span_s`)."))
    step: int | None = Field(None, description="A load sweep's step this sample belongs to (0-based); None outside a sweep.")
    threads: int | None = Field(None, description="In a load sweep: the thread count the step ran.")
    sluggish_sessions: int | None = Field(None, description="In a load sweep: the SluggishSessions the step ran.")
    latency: LatencyHistograms | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_figures(cls, data: Any) -> Any:
        """A sample of an older version held figures (`summary`, a list of `instances`): as counters."""
        if not isinstance(data, dict) or "summary" not in data or "server" in data:
            return data
        seconds = float(data.get("duration_s") or 0.0)
        rows = [InstanceFigures.model_validate(row) for row in data.get("instances") or []]
        return {**{k: v for k, v in data.items() if k != "summary"},
                "server": from_figures(Figures.model_validate(data["summary"]), seconds),
                "instances": {row.name: from_figures(row, row.span_s or seconds, span_s=row.span_s) for row in rows}}

    @property
    def summary(self) -> Figures:
        """The server's figures over the interval."""
        return Figures.model_validate(self.server.figures(self.duration_s))

    def instance_figures(self) -> list[InstanceFigures]:
        """Each instance's figures over its counters' span."""
        rows = []
        for name, counters in self.instances.items():
            seconds = counters.seconds(self.duration_s)
            reads = counters.streams.get("db_read")
            p99 = percentiles_ms(reads.hist, highest_ns=reads.max_ns)["p99"] if reads is not None and reads.hist else None
            rows.append(InstanceFigures.model_validate({"name": name, "span_s": counters.span_s,
                                                        "db_read_p99_latency_ms": p99, **counters.figures(seconds)}))
        return rows
