"""A Soft Recovery run in the report: the log generation as a Performance report shows its load, then each
instance's replay.

The figures are read from the run's `RunResult.recovery`, never re-derived from the log files. Log
read throughput is in Jetstress's Mbytes (MiB), as the Checksum and Backup tables count it. How an
aborted run ended is told by what its instances reported: an instance that reported nothing (the
engine process was killed, or the run ended before its workers replied) generated no known figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.results.recovery_schema import InstanceRecovery, RecoveryResult
from engine.results.scans import megabytes
from engine.results.schema import Outcome, RunResult
from reporting.names import PART

RECOVERY_TITLE = "Soft Recovery"


def _reported(row: InstanceRecovery) -> bool:
    """The instance's tally reached the result: a live run's always counts the log generation's time."""
    return row.generation_seconds > 0 or row.log_files_generated > 0 or row.replay_seconds > 0 or bool(row.failure)


def _state(row: InstanceRecovery) -> str:
    """How the instance's recovery ended, for its row: complete, failed, not generated, stopped or not reported."""
    if row.complete:
        return "complete"
    if row.failure:
        return "failed"
    if not _reported(row):
        return "not reported"
    if row.log_files_generated < row.log_files:
        return "not generated"
    return "stopped"


@dataclass(frozen=True)
class RecoveryRow:
    """An instance's recovery and how it ended."""

    r: InstanceRecovery
    state: str
    log_mbytes_per_s: float
    generated_short: bool  # it generated fewer log files than it was to
    replayed_short: bool


def _row(row: InstanceRecovery) -> RecoveryRow:
    return RecoveryRow(row, _state(row), megabytes(row.log_bytes_per_s), row.log_files_generated < row.log_files,
                       row.log_files_replayed < row.log_files)


def _stage(recovery: RecoveryResult, outcome: Outcome) -> str:
    """Where the test got to: "finished" (it ran to its end, passed or failed), or for an aborted run
    "unreported", "generating" (stopped before every log file was written), "replaying" or "replayed"."""
    rows = recovery.instances
    if outcome != Outcome.ABORTED:
        return "finished"
    if not any(_reported(r) for r in rows):
        return "unreported"
    if any(r.log_files_generated < r.log_files for r in rows):
        return "generating"
    if any(r.log_files_replayed < r.log_files for r in rows):
        return "replaying"
    return "replayed"


@dataclass(frozen=True)
class ReplayFigures:
    """What the Soft Recovery report shows of the recovery a run wrote."""

    recovery_rows: list[RecoveryRow]
    recovery_stage: str
    files_total: int
    files_generated: int
    files_replayed: int
    replaying_instances: int
    replay_average_s: float | None  # None: no log file was replayed
    replay_within_limit: bool
    unfinished: list[str]


@dataclass(frozen=True)
class RecoveryModel:
    """What the Soft Recovery report shows, from the run's result; `recovery` None when none was written."""

    recovery: RecoveryResult | None
    figures: ReplayFigures | None = field(metadata=PART)


def replay_figures(recovery: RecoveryResult, outcome: Outcome) -> ReplayFigures:
    rows = recovery.instances
    replayed = recovery.log_files_replayed
    return ReplayFigures(
        recovery_rows=[_row(r) for r in rows],
        recovery_stage=_stage(recovery, outcome),
        files_total=sum(r.log_files for r in rows),
        files_generated=sum(r.log_files_generated for r in rows),
        files_replayed=replayed,
        replaying_instances=sum(1 for r in rows if r.log_files_replayed),
        replay_average_s=recovery.seconds_per_log_file if replayed else None,
        replay_within_limit=bool(replayed) and recovery.seconds_per_log_file <= recovery.limit_s,
        unfinished=[r.instance for r in rows if not r.complete],
    )


def recovery_model(result: RunResult) -> RecoveryModel:
    recovery = result.recovery
    return RecoveryModel(recovery, None if recovery is None else replay_figures(recovery, result.verdict))
