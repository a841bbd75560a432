"""A Soft Recovery test's result: each instance's log generation and replay, and the verdict on it.

The test is judged twice over. The log generation ran the transactional load, so its latencies
are judged against the Strict thresholds as a Performance test's are (Jetstress's Soft Recovery
report is a transactional report). Its replay passes when every instance played every log file
it generated, met no damaged log sector or page and no lost flush, and took no longer on average
than the limit to play one log file (Jetstress's "average time to play one log file").
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.model.config import TestConfig
from engine.results.criterion_schema import Criterion
from engine.results.recovery_schema import InstanceRecovery, RecoveryResult
from engine.results.schema import Failure, Outcome, RunResult
from engine.results.verdict import Verdict, failure_of, make_criterion
from engine.workload.recovery import RecoveryTally

FILES_REPLAYED = "log files replayed"
SECONDS_PER_FILE = "seconds to play one log file"
REPLAY_ERRORS = "replay errors"


def recovery_result(config: TestConfig, tallies: Mapping[int, RecoveryTally]) -> RecoveryResult:
    """Each instance's recovery as the result document keeps it; an instance that never reported replayed nothing."""
    rows = []
    for index, spec in enumerate(config.databases):
        tally = tallies.get(index) or RecoveryTally(log_files=config.log_files_to_replay)
        rows.append(InstanceRecovery(
            instance=config.instance_name(index),
            log_path=str(spec.log_path),
            log_files=tally.log_files or config.log_files_to_replay,
            log_files_generated=tally.log_files_generated,
            log_files_replayed=tally.log_files_replayed,
            generation_seconds=tally.generation_seconds,
            replay_seconds=tally.replay_seconds,
            records=tally.records,
            pages_redone=tally.pages_redone,
            pages_current=tally.pages_current,
            log_reads=tally.log_reads,
            log_bytes_read=tally.log_bytes_read,
            log_read_avg_ms=_avg_ms(tally.log_read_ns, tally.log_reads),
            page_reads=tally.page_reads,
            page_read_avg_ms=_avg_ms(tally.page_read_ns, tally.page_reads),
            page_writes=tally.page_writes,
            pages_written=tally.pages_written,
            page_write_avg_ms=_avg_ms(tally.page_write_ns, tally.page_writes),
            pages_verified=tally.pages_verified,
            damaged=tally.damaged,
            lost_flushes=tally.lost_flushes,
            complete=tally.complete,
            failure=tally.failure,
        ))
    return RecoveryResult(log_files_to_replay=config.log_files_to_replay, limit_s=config.replay_limit_s, instances=rows)


def _avg_ms(total_ns: int, count: int) -> float:
    return total_ns / count / 1e6 if count else 0.0


def judge_recovery(recovery: RecoveryResult, transactional: Verdict) -> Verdict:
    """The log generation's verdict (`transactional`) with each instance's replay judged on top."""
    criteria: list[Criterion] = list(transactional.criteria)
    failures = list(transactional.failures)
    instance_reasons = {name: list(words) for name, words in transactional.instance_reasons.items()}
    outcomes = dict(transactional.instance_outcomes)
    for row in recovery.instances:
        mine: list[Failure] = []
        replayed = make_criterion(FILES_REPLAYED, row.instance, row.log_files_replayed, row.log_files, "", ">=")
        criteria.append(replayed)
        criteria.append(errors := make_criterion(REPLAY_ERRORS, row.instance, row.errors, 0, "", "<="))
        pace = None
        if row.log_files_replayed:
            pace = make_criterion(SECONDS_PER_FILE, row.instance, row.seconds_per_log_file, recovery.limit_s, "s", "<=")
            criteria.append(pace)
        if transactional.outcome != Outcome.ABORTED:
            mine.extend(_replay_failures(row, recovery.limit_s, replayed, errors, pace))
        instance_reasons.setdefault(row.instance, []).extend(failure.words for failure in mine)
        failures.extend(mine)
        if mine and outcomes.get(row.instance) != Outcome.ABORTED:
            outcomes[row.instance] = Outcome.FAIL
    if transactional.outcome == Outcome.ABORTED:
        replayed_files = recovery.log_files_replayed
        total = sum(row.log_files for row in recovery.instances)
        generated = sum(row.log_files_generated for row in recovery.instances)
        if failures and generated:
            first = failures[0]
            failures[0] = first.model_copy(update={"words": first.words + (
                f"; {generated:,} of {total:,} log files were generated and {replayed_files:,} replayed, and what was "
                "done is reported")})
        return Verdict(Outcome.ABORTED, criteria, failures, outcomes, instance_reasons)
    outcome = Outcome.FAIL if failures else Outcome.PASS
    return Verdict(outcome, criteria, failures, outcomes, instance_reasons)


def _replay_failures(row: InstanceRecovery, limit_s: float, replayed: Criterion, errors: Criterion,
                     pace: Criterion | None) -> list[Failure]:
    found = []
    if row.failure:
        found.append(failure_of(replayed, f"{row.instance}: {row.failure}"))
    elif row.log_files_generated < row.log_files:
        found.append(failure_of(replayed, f"{row.instance}: only {row.log_files_generated} of {row.log_files} log "
                                          "files were generated, so none was replayed"))
    elif row.log_files_replayed < row.log_files:
        found.append(failure_of(replayed, f"{row.instance}: only {row.log_files_replayed} of {row.log_files} log files "
                                          "were replayed"))
    if row.lost_flushes:
        found.append(failure_of(errors, f"{row.instance}: {row.lost_flushes:,} page(s) read back older than a completed "
                                        "write of them (lost flushes, ESE -1119); the test log names each"))
    if pace is not None and row.seconds_per_log_file > limit_s:
        found.append(failure_of(pace, f"{row.instance}: {row.seconds_per_log_file:.2f} s to play one log file on "
                                      f"average, over the {limit_s:g} s limit"))
    return found


def recovery_words(config: TestConfig) -> str:
    """What a Soft Recovery test does, for the head of its test log."""
    return (f"Soft recovery: each of {config.database_count} instance(s) generates "
            f"{config.log_files_to_replay} log files of 1 MiB under the transactional load, then stops without a clean "
            f"checkpoint, as a crash does, and replays them against its database; an average of at most "
            f"{config.replay_limit_s:g} s to play one log file passes")


def unreached(result: RunResult) -> set[str]:
    """The criteria a stop left unreached (a Soft Recovery's log files to replay): no failure of the storage."""
    return {FILES_REPLAYED} if result.verdict == Outcome.ABORTED else set()


def failing_instances(result: RunResult) -> list[str]:
    """The instances that failed a criterion they were judged on, not one a stop left unreached, by name."""
    left = unreached(result)
    return sorted({c.instance for c in result.criteria if c.instance and not c.passed and c.name not in left})
