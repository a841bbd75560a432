"""How the window words a Soft Recovery test: its log files generated under the load, then replayed.

The log generation runs the transactional load, so it is shown and judged as a Performance
test's measurement is; the replay has no samples, only the engine's progress (log bytes
replayed) and, once the run ends, each instance's tally in the result (`RunResult.recovery`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.config import TestConfig
from engine.model.derive import achieved_words
from engine.model.sizing import LOG_DATA_BYTES, LOG_FILE_SIZE_BYTES
from engine.model.units import format_duration, sentence
from engine.results.recovery_schema import InstanceRecovery, RecoveryResult
from engine.results.schema import Outcome, RunResult
from engine.results.verdict import was_measured


def average_words(recovery: RecoveryResult) -> str:
    """"0.35 s to play one log file on average (limit 6 s)", or that none was played."""
    if not recovery.log_files_replayed:
        return f"no log file was replayed (limit {recovery.limit_s:g} s per log file)"
    return f"{recovery.seconds_per_log_file:.3f} s to play one log file on average (limit {recovery.limit_s:g} s)"


def over_limit(recovery: RecoveryResult) -> bool:
    return recovery.log_files_replayed > 0 and recovery.seconds_per_log_file > recovery.limit_s


def files_words(recovery: RecoveryResult) -> str:
    """"12 of 12 log files generated, 12 replayed, 0 errors"."""
    rows = recovery.instances
    total = sum(r.log_files for r in rows)
    errors = sum(r.errors for r in rows)
    generated = sum(r.log_files_generated for r in rows)
    return f"{generated:,} of {total:,} log files generated, {recovery.log_files_replayed:,} replayed, {errors:,} errors"


def recovery_headline(result: RunResult, recovery: RecoveryResult) -> tuple[str, str]:
    """What was replayed, and the load that generated it: the results view's headline in two parts."""
    rows = recovery.instances
    total = sum(r.log_files for r in rows)
    generated = sum(r.log_files_generated for r in rows)
    replay_s = max((r.replay_seconds for r in rows), default=0.0)
    summary = result.summary
    load = f"under {summary.threads} threads, SluggishSessions {summary.sluggish_sessions}"
    if recovery.log_files_replayed:
        replayed = (f"Replayed {recovery.log_files_replayed:,} of {total:,} log files in {_seconds(replay_s)}: "
                    f"{average_words(recovery)}")
        load = f"generated {load}"
    elif generated < total:
        replayed = f"Generated {generated:,} of {total:,} log files, so none was replayed"
    else:
        replayed = f"Generated {total:,} log files; none was replayed"
    if was_measured(result):
        load += (f" at {achieved_words(summary.achieved_transactional_iops, summary.target_transactional_iops)} "
                 f"over {_seconds(summary.measured_s)}")
    return replayed, f"{load}, {summary.threshold_set} thresholds"


def row_state(row: InstanceRecovery, outcome: Outcome) -> str:
    """How an instance's replay ended, in a few words."""
    if row.failure:
        return sentence(row.failure)
    if row.complete:
        return "Complete"
    if row.log_files_generated < row.log_files:
        verb = "stopped" if outcome == Outcome.ABORTED else "ended"
        return f"Not replayed: the log generation {verb} at {row.log_files_generated:,} of {row.log_files:,} files"
    if outcome == Outcome.ABORTED:
        return f"Stopped after {row.log_files_replayed:,} of {row.log_files:,} log files"
    return "Incomplete"


ETA_SHARE = 0.05
ETA_SPAN_S = 10.0


@dataclass
class RecoveryProgress:
    """How far a running Soft Recovery got, from the engine's progress: log files generated, then replayed, and the
    time left at the rate since the phase began (timed by the window, from the phase's start)."""

    config: TestConfig
    replaying: bool = False
    began_s: float = 0.0  # monotonic, when the phase began
    share: float = 0.0
    eta_s: float | None = None
    generation_s: float | None = None  # how long generating took, once replay began

    @property
    def total_files(self) -> int:
        return self.config.log_files_to_replay * self.config.database_count

    @property
    def files(self) -> int:
        return min(self.total_files, int(self.share * self.total_files + 1e-9))

    def begin(self, replaying: bool, now_s: float) -> None:
        if replaying and not self.replaying:
            self.generation_s = now_s - self.began_s if self.began_s else None
        self.replaying = replaying
        self.began_s = now_s
        self.share = 0.0
        self.eta_s = None

    def add(self, done_bytes: int, total_bytes: int, now_s: float) -> bool:
        """Log bytes done of the phase's total; False for a count this phase does not read (ignored)."""
        per_file = LOG_FILE_SIZE_BYTES if self.replaying else LOG_DATA_BYTES
        if self.replaying and total_bytes % LOG_FILE_SIZE_BYTES:
            # the log generation's last counts (whole files less their headers) can still arrive after the replay
            # began; the replay counts whole log files
            return False
        self.share = min(1.0, done_bytes / max(1, per_file * self.total_files))
        spent = now_s - self.began_s
        # a time left from the first files alone (the replay opening its databases) can be wrong by minutes: said once
        # a twentieth of the files or ten seconds have set the pace
        settled = self.share >= ETA_SHARE or spent >= ETA_SPAN_S
        self.eta_s = spent * (1 - self.share) / self.share if self.share > 0 and spent > 0 and settled else None
        return True

    def words(self) -> tuple[str, str]:
        """The large line ("42 % · about 0:12 left") and the count beneath it."""
        left = f" · about {format_duration(self.eta_s)} left" if self.eta_s is not None and self.share < 1 else ""
        per = self.config.log_files_to_replay
        if self.replaying:
            took = f" in {_seconds(self.generation_s)}" if self.generation_s is not None else ""
            count = f"{self.files:,} of {self.total_files:,} log files replayed; all were generated{took}"
        else:
            count = (f"{self.files:,} of {self.total_files:,} log files generated ({per:,} per instance); "
                     "then the databases stop as a crash stops them, and the log files are replayed")
        return f"{int(self.share * 100)}%{left}", count  # whole percents done, as the progress bar counts them


def _seconds(value: float) -> str:
    """A short time as read: "0.4 s", "12 s"; past a minute, "1:02:03"."""
    if value >= 60:
        return format_duration(value)
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"
