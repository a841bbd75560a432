"""A test across servers in the ESRP paper's tables, from one run's result: "Individual Server Metrics" is each
server's share (`RunResult.servers`: judged on its own counters), "Aggregate Performance Across All Servers Metrics"
their I/O summed and their latencies averaged, as the paper computes it. The exact figure over every I/O of the test
(its latencies weighted by each server's I/O) is the run's own summary, shown beside it.

A test across servers passes when it passes as a whole and every server passes its own share: a server below its own
target fails the test even when another carried the sum (`judged_across`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.results.schema import Failure, Outcome, RunResult, Summary

FIGURES = ("target_transactional_iops", "achieved_transactional_iops", "db_reads_per_s", "db_writes_per_s",
           "log_writes_per_s", "db_read_avg_latency_ms", "db_write_avg_latency_ms", "log_write_avg_latency_ms")


@dataclass(frozen=True)
class PaperAggregate:
    """The servers with a measured share: I/O summed, latencies averaged across the servers (the paper's)."""

    servers: int
    figures: dict[str, float]  # by `FIGURES` name


def paper_aggregate(result: RunResult) -> PaperAggregate:
    shares = [share.summary for share in result.servers if share.summary is not None]
    if not shares:
        return PaperAggregate(0, dict.fromkeys(FIGURES, 0.0))
    figures = {}
    for name in FIGURES:
        summed = sum(float(getattr(summary, name)) for summary in shares)
        figures[name] = summed / len(shares) if name.endswith("latency_ms") else summed
    return PaperAggregate(len(shares), figures)


def judged_across(result: RunResult) -> RunResult:
    """`result` of a test across servers with each server's own verdict in the test's: a server that failed its
    share fails the test, naming it; one that gave nothing measured aborts a test that was not already."""
    summary: Summary = result.summary
    if summary.verdict == Outcome.ABORTED:
        return result
    failures = list(summary.failures)
    outcome: Outcome = summary.verdict
    for share in result.servers:
        if share.summary is None:
            outcome = Outcome.ABORTED
            failures.append(Failure(words=f"{share.host} gave nothing measured" + (f" ({share.ended})" if share.ended else "")))
        elif share.summary.verdict == Outcome.FAIL:
            outcome = Outcome.FAIL if outcome == Outcome.PASS else outcome
            failures.append(Failure(words=f"{share.host} failed its share: " + "; ".join(share.summary.reasons)))
    if outcome == summary.verdict and len(failures) == len(summary.failures):
        return result
    update = {"verdict": outcome, "failures": failures, "reasons": [failure.words for failure in failures]}
    return result.model_copy(update={"summary": summary.model_copy(update=update)})
