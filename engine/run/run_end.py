"""How a source's run ended: the facts its result needs beside the measured totals, and a stop's words."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.protocol import Phase
from engine.results.host_schema import HostInfo
from engine.results.note_schema import RunNote
from engine.results.recovery_schema import RecoveryResult
from engine.results.scan_schema import ScanResult
from engine.results.schema import RunTimes, ServerResult
from engine.workload.recovery import RecoveryTally
from engine.workload.scan import ScanTally


@dataclass
class RunEnd:
    """How a source's run ended, and the facts the result needs beside the totals."""

    measured_s: float
    aborted_reason: str | None = None
    failures: list[str] = field(default_factory=list)
    host: HostInfo = field(default_factory=HostInfo)
    times: RunTimes = field(default_factory=RunTimes)
    unbuffered_io: bool = True
    io_detail: str = ""
    notes: list[RunNote] = field(default_factory=list)
    scans: dict[int, ScanTally] = field(default_factory=dict)  # a Checksum or Backup test: each database's scan
    recoveries: dict[int, RecoveryTally] = field(default_factory=dict)  # a Soft Recovery test: each instance's replay
    database_bytes: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)  # each file's before, after
    servers: list[ServerResult] = field(default_factory=list)  # a test across servers: what its source says of each
    # a test across servers' scan or replay, as its servers reported theirs (each instance named by its server): a
    # source that reads no database itself gives them whole
    scan: ScanResult | None = None
    recovery: RecoveryResult | None = None


def stopped_reason(reason: str, phase: Phase, measured_s: float, *, replaying: bool = False) -> str:
    """A stopped run's aborted reason, whatever drove it: what stopped it, and where in the run."""
    where = {
        Phase.PREPARING: "while preparing the databases",
        Phase.WARMING_UP: "during warm-up, before measurement began",
    }.get(phase, "while replaying the log files" if replaying else f"after {measured_s:.1f} s of measurement")
    return f"Run aborted: {reason} {where}"
