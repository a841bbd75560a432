"""A checksum, a backup or a Soft Recovery across servers in figures: what each server read or replayed, and the
servers together. Their load is no transactional IOPS: the combined report and the window say these instead."""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.config import SCAN_TEST_TYPES, TestType
from engine.results.scans import megabytes
from engine.results.schema import Outcome, RunResult


@dataclass(frozen=True)
class ScanRow:
    """What a server (or the servers together) read in a checksum or backup across servers."""

    host: str
    outcome: Outcome | None  # the server's verdict; None for the servers together (the test's)
    databases: int
    pages: int
    damaged: int  # pages with a checksum error, another page's number, all zeros, or unreadable
    mb: float
    seconds: float
    mb_per_s: float


@dataclass(frozen=True)
class RecoveryRow:
    """A server's Soft Recovery across servers: log files asked for and replayed, and the time to play one."""

    host: str
    outcome: Outcome
    asked: int
    replayed: int
    seconds: float
    limit: float


def scan_rows(kind: TestType, runs: list[tuple[str, RunResult | None]]) -> list[ScanRow]:
    """A checksum or backup across servers (`kind`), from each server's result (None: it gave none): a row per server
    that gave one (what it read, how long, how fast), then the servers together (reads summed, the longest time, the
    rates summed); none for another test."""
    if kind not in SCAN_TEST_TYPES:
        return []
    rows = []
    for host, run in runs:
        if run is not None and (scan := run.scan) is not None:
            damaged = sum(d.bad_pages + d.wrong_page_number_pages + d.uninitialised_pages + d.unreadable_pages
                          for d in scan.databases)
            rows.append(ScanRow(host, run.summary.verdict, len(scan.databases), sum(d.seen_pages for d in scan.databases), damaged,
                                megabytes(scan.bytes_read), scan.database_seconds, megabytes(scan.bytes_per_s)))
    if rows:
        rows.append(ScanRow("All servers", None, sum(r.databases for r in rows), sum(r.pages for r in rows),
                            sum(r.damaged for r in rows), sum(r.mb for r in rows), max(r.seconds for r in rows),
                            sum(r.mb_per_s for r in rows)))
    return rows


def recovery_rows(kind: TestType, runs: list[tuple[str, RunResult | None]]) -> list[RecoveryRow]:
    """A Soft Recovery across servers (`kind`), from each server's result: a row per server that gave one, the log
    files it replayed and the average time to play one against the limit; none for another test."""
    if kind != TestType.SOFT_RECOVERY:
        return []
    rows = []
    for host, run in runs:
        if run is not None and (recovery := run.recovery) is not None:
            rows.append(RecoveryRow(host, run.summary.verdict, recovery.log_files_to_replay * len(recovery.instances),
                                    recovery.log_files_replayed, recovery.seconds_per_log_file, recovery.limit_s))
    return rows
