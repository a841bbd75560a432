"""A test across servers: each server's result in brief and the aggregate, as the ESRP paper reports them.

"Individual Server Metrics" is a row per server (`ServerRow`); "Aggregate Performance Across All Servers Metrics" is
the sum of each server's transactional, database and log I/O and the average of their latencies (`Aggregate`), as the
paper computes it. The test passes when every server passes; it fails naming each server that failed, and is aborted
naming the server and the reason when a server was lost, refused its part or stopped the others.
Each server's own result document and samples are kept whole in its folder (`hosts/HOST/` in the controller's run
folder, and in the agent's data folder on the server).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.results.base import Schema, UtcTime
from engine.results.schema import Outcome, RunResult
from engine.results.sweep_schema import Sweep

ACROSS_SCHEMA_VERSION = 2  # 2: a load sweep across servers (`sweep`)
ACROSS_FILE = "test.json"  # the test's document in the controller's run folder
HOSTS_FOLDER = "hosts"  # each server's copy of its run folder, under the controller's

EndWhy = Literal["lost", "refused", "failed_part", "aborted_part", "stopped", "controller"]


class ServerEnd(Schema):
    """Why a server's part ended the test early, or never gave a result: the fact, its words made where shown."""

    host: str
    why: EndWhy
    detail: str = Field("", description="The server's or the controller's reason, as it gave it.")

    @property
    def words(self) -> str:
        said = {
            "lost": f"{self.host} was lost",
            "refused": f"{self.host} refused its part",
            "failed_part": f"{self.host}'s run ended in error",
            "aborted_part": f"{self.host}'s run was aborted",
            "stopped": "the test was stopped",
            "controller": "the controller ended the test",
        }[self.why]
        return f"{said}: {self.detail}" if self.detail else said


class ServerFigures(Schema):
    """Transactional, database and log I/O over the measured time, and the latencies: a server's, or all servers'."""

    target_transactional_iops: float = 0.0
    achieved_transactional_iops: float = 0.0
    db_reads_per_s: float = 0.0
    db_writes_per_s: float = 0.0
    log_writes_per_s: float = 0.0
    db_read_avg_latency_ms: float = 0.0
    db_write_avg_latency_ms: float = 0.0
    log_write_avg_latency_ms: float = 0.0


class ServerRow(ServerFigures):
    """One server's figures over the measured time: the paper's Individual Server Metrics."""

    host: str
    outcome: Outcome | None = Field(None, description="None: the server gave no result (lost, or refused its part).")
    reasons: list[str] = Field(default_factory=list, description="The server's own reasons, as its result says them.")
    databases: int = 0
    threads: int = 0
    sluggish_sessions: int = 0
    measured_s: float = 0.0
    clock_offset_s: float | None = Field(None, description="The controller's clock minus the server's, at its start.")
    run_folder: str = Field("", description="The server's run folder, on the server.")

    @classmethod
    def of(cls, host: str, result: RunResult, *, clock_offset_s: float | None, run_folder: str) -> ServerRow:
        summary = result.summary
        return cls(
            host=host, outcome=summary.verdict, reasons=list(summary.reasons), databases=summary.database_count,
            threads=summary.threads, sluggish_sessions=summary.sluggish_sessions,
            target_transactional_iops=summary.target_transactional_iops,
            achieved_transactional_iops=summary.achieved_transactional_iops,
            db_reads_per_s=summary.db_reads_per_s, db_writes_per_s=summary.db_writes_per_s,
            log_writes_per_s=summary.log_writes_per_s, db_read_avg_latency_ms=summary.db_read_avg_latency_ms,
            db_write_avg_latency_ms=summary.db_write_avg_latency_ms,
            log_write_avg_latency_ms=summary.log_write_avg_latency_ms, measured_s=summary.measured_s,
            clock_offset_s=clock_offset_s, run_folder=run_folder,
        )


class Aggregate(ServerFigures):
    """Across all servers that gave a result: I/O summed, latencies averaged (the paper's aggregate table)."""

    servers: int = 0

    @classmethod
    def of(cls, rows: list[ServerRow]) -> Aggregate:
        given = [row for row in rows if row.outcome is not None]
        if not given:
            return cls()
        count = len(given)
        summed = {name: sum(getattr(row, name) for row in given) for name in ServerFigures.model_fields}
        return cls(servers=count, **{name: value / count if name.endswith("latency_ms") else value
                                     for name, value in summed.items()})


class AcrossResult(Schema):
    """A test across servers: the verdict, each server's row, the aggregate, and why it ended early if it did."""

    schema_version: int = ACROSS_SCHEMA_VERSION
    test_id: str
    test_type: str
    simulated: bool = False
    start_utc: UtcTime | None = None
    end_utc: UtcTime | None = None
    servers: list[ServerRow]
    aggregate: Aggregate
    outcome: Outcome
    ended_by: ServerEnd | None = Field(None, description="What ended the test before its time, if anything did.")
    sweep: Sweep | None = Field(None, description=(
        "A load sweep across servers: each step as the servers measured it together (transactional IOPS summed, the "
        "worst server's latencies, the thresholds kept only if every server kept them) and why it ended."))

    @property
    def failed(self) -> list[str]:
        """The servers whose own verdict failed."""
        return [row.host for row in self.servers if row.outcome == Outcome.FAIL]

    @property
    def reasons(self) -> list[str]:
        """Why the test did not pass, in words: what ended it, then each failed server and its reasons."""
        said = [self.ended_by.words] if self.ended_by is not None else []
        for row in self.servers:
            if row.outcome == Outcome.FAIL:
                said.append(f"{row.host} failed: " + "; ".join(row.reasons))
            elif row.outcome is None and (self.ended_by is None or self.ended_by.host != row.host):
                said.append(f"{row.host} gave no result")
        return said

    @classmethod
    def judged(cls, *, test_id: str, test_type: str, simulated: bool, rows: list[ServerRow],
               ended_by: ServerEnd | None, start_utc: UtcTime | None, end_utc: UtcTime | None,
               sweep: Sweep | None = None) -> AcrossResult:
        """The test's verdict from its servers': aborted when one ended it early or gave no result, failed when any
        failed, passed when every one passed."""
        outcomes = [row.outcome for row in rows]
        if ended_by is not None or None in outcomes or Outcome.ABORTED in outcomes:
            outcome = Outcome.ABORTED
        elif Outcome.FAIL in outcomes:
            outcome = Outcome.FAIL
        else:
            outcome = Outcome.PASS
        return cls(test_id=test_id, test_type=test_type, simulated=simulated, start_utc=start_utc, end_utc=end_utc,
                   servers=rows, aggregate=Aggregate.of(rows), outcome=outcome, ended_by=ended_by, sweep=sweep)
