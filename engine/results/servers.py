"""A test across servers in the ESRP paper's tables, from one run's result: "Individual Server Metrics" is each
server's share (`RunResult.servers`: judged on its own counters), "Aggregate Performance Across All Servers Metrics"
their I/O summed and their latencies averaged, as the paper computes it. The exact figure over every I/O of the test
(its latencies weighted by each server's I/O) is the run's own summary, shown beside it.

A test across servers passes when it passes as a whole and every server passes its own share: a server below its own
target fails the test even when another carried the sum (`judged_across`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.host_names import on_server
from engine.results.recovery_schema import RecoveryResult
from engine.results.scan_schema import ScanResult
from engine.results.scans import megabytes
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
            failures.append(Failure(words=f"{share.host} gave nothing measured" + (f" ({share.how_it_ended})" if share.end else "")))
        elif share.summary.verdict == Outcome.FAIL:
            outcome = Outcome.FAIL if outcome == Outcome.PASS else outcome
            failures.append(Failure(words=f"{share.host} failed its share: " + "; ".join(share.summary.reasons)))
    if outcome == summary.verdict and len(failures) == len(summary.failures):
        return result
    update = {"verdict": outcome, "failures": failures, "reasons": [failure.words for failure in failures]}
    return result.model_copy(update={"summary": summary.model_copy(update=update)})


@dataclass(frozen=True)
class ScanShare:
    """What a server (or the servers together) read in a checksum or backup across servers."""

    host: str
    outcome: Outcome | None  # the server's verdict; None for the servers together (the test's is beside them)
    databases: int
    pages: int
    damaged: int  # pages with a checksum error, another page's number, all zeros, or unreadable
    mb: float
    seconds: float
    mb_per_s: float


@dataclass(frozen=True)
class RecoveryShare:
    """A server's Soft Recovery across servers: log files asked for and replayed, and the time to play one."""

    host: str
    outcome: Outcome | None
    asked: int
    replayed: int
    seconds: float
    limit: float


def scan_shares(result: RunResult) -> list[ScanShare]:
    """A checksum or backup across servers: a row per server (what it read, how long, how fast), then the servers
    together (reads summed, the longest time, the rates summed: they read at once); none for another test."""
    scan = result.scan
    if scan is None or not result.servers:
        return []
    rows, servers = [], result.configuration.instance_servers
    for share in result.servers:
        mine = scan.model_copy(update={"databases": [d for d in scan.databases
                                                     if servers.get(d.instance, ("",))[0] == share.host]})
        if not mine.databases:
            continue
        rows.append(ScanShare(share.host, share.summary.verdict if share.summary else None, len(mine.databases),
                              sum(d.seen_pages for d in mine.databases), sum(d.damaged_pages for d in mine.databases),
                              megabytes(mine.bytes_read), mine.database_seconds, megabytes(mine.bytes_per_s)))
    if rows:
        rows.append(ScanShare("All servers", None, sum(r.databases for r in rows), sum(r.pages for r in rows),
                              sum(r.damaged for r in rows), sum(r.mb for r in rows), max(r.seconds for r in rows),
                              sum(r.mb_per_s for r in rows)))
    return rows


def recovery_shares(result: RunResult) -> list[RecoveryShare]:
    """A Soft Recovery across servers: a row per server, the log files it replayed and the average time to play one
    against the limit; none for another test."""
    recovery = result.recovery
    if recovery is None or not result.servers:
        return []
    rows, servers = [], result.configuration.instance_servers
    for share in result.servers:
        mine = recovery.model_copy(update={"instances": [i for i in recovery.instances
                                                         if servers.get(i.instance, ("",))[0] == share.host]})
        if not mine.instances:
            continue
        rows.append(RecoveryShare(share.host, share.summary.verdict if share.summary else None,
                                  recovery.log_files_to_replay * len(mine.instances), mine.log_files_replayed,
                                  mine.seconds_per_log_file, recovery.limit_s))
    return rows


def merged_scan(results: dict[str, RunResult]) -> ScanResult | None:
    """The servers' scans as one: every database each read, named by its server; None when none scanned."""
    scans = {host: r.scan for host, r in results.items() if r.scan is not None}
    if not scans:
        return None
    first = next(iter(scans.values()))
    return first.model_copy(update={
        "databases": [d.model_copy(update={"instance": on_server(host, d.instance)}) for host, scan in scans.items()
                      for d in scan.databases],
        "seconds": max(scan.seconds for scan in scans.values())})


def merged_recovery(results: dict[str, RunResult]) -> RecoveryResult | None:
    """The servers' Soft Recoveries as one: every instance each generated and replayed, named by its server."""
    recoveries = {host: r.recovery for host, r in results.items() if r.recovery is not None}
    if not recoveries:
        return None
    first = next(iter(recoveries.values()))
    return first.model_copy(update={"instances": [i.model_copy(update={"instance": on_server(host, i.instance)})
                                                  for host, recovery in recoveries.items() for i in recovery.instances]})
