"""The host as the result document keeps it: what it is (`HostInfo`), its counters in each sample (`HostFigures`) and
their spread over the measured samples (`HostPerformance`), as Jetstress's Host System Performance table has them."""

from __future__ import annotations

from pydantic import Field

from engine.results.base import Schema

# Each counter as Jetstress's Host System Performance table names it, in its order.
COUNTER_NAMES = {
    "cpu_percent": "% Processor Time",
    "available_memory_mb": "Available Mbytes",
    "free_system_ptes": "Free System Page Table Entries",
    "transition_pages_repurposed_per_s": "Transition Pages Repurposed/sec",
    "pool_nonpaged_bytes": "Pool Non-paged Bytes",
    "pool_paged_bytes": "Pool Paged Bytes",
    "database_page_fault_stalls_per_s": "Database Page Fault Stalls/sec",
}


class HostFigures(Schema):
    """The host's counters in one sample. The Windows memory counters are None where the system has none (any other
    system, or a Windows that did not give them)."""

    cpu_percent: float = 0.0
    available_memory_mb: float = 0.0
    free_system_ptes: float | None = None
    transition_pages_repurposed_per_s: float | None = None
    pool_nonpaged_bytes: float | None = None
    pool_paged_bytes: float | None = None


class HostInfo(Schema):
    machine_name: str = ""
    operating_system: str = ""
    processor: str = ""
    logical_processors: int = 0
    memory_bytes: int = 0
    python: str = ""
    utc_offset: str = Field("", description="The host's clock against UTC when the run began (+01:00); empty in a run "
                                            "before it was kept.")


class Spread(Schema):
    average: float | None = None
    minimum: float | None = None
    maximum: float | None = None

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        if not values:
            return cls()
        return cls(average=sum(values) / len(values), minimum=min(values), maximum=max(values))


class HostPerformance(Schema):
    """Each counter's average, minimum and maximum over the measured samples (empty where it was never read)."""

    cpu_percent: Spread = Field(default_factory=Spread)
    available_memory_mb: Spread = Field(default_factory=Spread)
    free_system_ptes: Spread = Field(default_factory=Spread)
    transition_pages_repurposed_per_s: Spread = Field(default_factory=Spread)
    pool_nonpaged_bytes: Spread = Field(default_factory=Spread)
    pool_paged_bytes: Spread = Field(default_factory=Spread)
    database_page_fault_stalls_per_s: Spread = Field(
        default_factory=Spread, description="The server's database page fault stalls per second over the samples.")

    @classmethod
    def of(cls, samples: list[HostFigures], stalls_per_s: list[float]) -> HostPerformance:
        spreads = {name: Spread.of([v for s in samples if (v := getattr(s, name)) is not None])
                   for name in HostFigures.model_fields}
        return cls(**spreads, database_page_fault_stalls_per_s=Spread.of(stalls_per_s))

    def rows(self, stalls_per_s: float | None) -> list[tuple[str, Spread]]:
        """Jetstress's Host System Performance rows, in its order: the processor and memory always, the Windows
        memory counters where they were read, and the page fault stalls unless `stalls_per_s` is None (a scan runs
        no transaction); a result before schema 12 has the stalls' average only (`stalls_per_s`)."""
        spreads: dict[str, Spread] = {name: getattr(self, name) for name in COUNTER_NAMES}
        if stalls_per_s is None:
            del spreads["database_page_fault_stalls_per_s"]
        elif spreads["database_page_fault_stalls_per_s"].average is None:
            spreads["database_page_fault_stalls_per_s"] = Spread(average=stalls_per_s)
        always = ("cpu_percent", "available_memory_mb", "database_page_fault_stalls_per_s")
        return [(COUNTER_NAMES[name], spread) for name, spread in spreads.items()
                if spread.average is not None or name in always]
