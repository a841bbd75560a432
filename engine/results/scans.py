"""A Database Checksum or Database Backup test's result: each database's scan, and the verdict on it.

Pass only when every page of every database was read and none was damaged (and, for a
checksum, no log sector either). A damaged page is named by kind, with the ESE error a
database engine raises for it, and the first one's place; a stopped scan says how far it
got and is judged aborted, like any stopped run.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.io.capacity import volume_name
from engine.io.file_names import backup_file_path, database_file_path, database_files
from engine.io.pages import ErrorKind
from engine.model.config import TestConfig, TestType
from engine.model.units import counted
from engine.results.criterion_schema import Criterion
from engine.results.sample_schema import Figures
from engine.results.scan_schema import DamagedPage, DatabaseScan, ScanResult
from engine.results.schema import Failure, Outcome
from engine.results.verdict import Verdict, failure_of, make_criterion
from engine.workload.errors import PAGE, ese_error, title
from engine.workload.scan import NEVER_WRITES, ScanTally

DAMAGED_PAGES = "damaged database pages"
DAMAGED_LOG_SECTORS = "damaged log sectors"
PAGES_READ = "database pages read"
SCAN_PHASE_WORDS = {  # what a scan does while it measures, as Jetstress's test log says it
    TestType.DATABASE_CHECKSUM: "Verifying database checksums",
    TestType.DATABASE_BACKUP: "Backing up databases",
    TestType.SOFT_RECOVERY: "Generating log files",
}
def scan_result(config: TestConfig, tallies: Mapping[int, ScanTally], seconds: float, reads_in_flight: int = 1) -> ScanResult:
    """Each database's scan as the result document keeps it; a database whose scan never reported has nothing seen."""
    rows = []
    copy = config.backup_path if config.test_type == TestType.DATABASE_BACKUP else None
    for index, spec in enumerate(config.databases):
        tally = tallies.get(index) or ScanTally()
        damaged = tally.pages_damaged
        rows.append(DatabaseScan(
            instance=config.instance_name(index),
            database_file=str(database_file_path(spec.database_path, index)),
            more_database_files=[str(path) for path in database_files(spec, index)[1:]],
            pages=tally.pages_total or config.database_pages * len(spec.database_paths),  # the files' own size, as read
            seen_pages=tally.pages_seen,
            bad_pages=damaged.get(ErrorKind.CHECKSUM, 0),
            wrong_page_number_pages=damaged.get(ErrorKind.WRONG_NUMBER, 0),
            uninitialised_pages=damaged.get(ErrorKind.UNINITIALISED, 0),
            unreadable_pages=damaged.get(ErrorKind.DISK_IO, 0) + damaged.get(ErrorKind.SHORT_READ, 0),
            crc_error_pages=damaged.get(ErrorKind.CRC_ERROR, 0),
            lost_flush_pages=damaged.get(ErrorKind.LOST_FLUSH, 0),
            flush_map=tally.flush_map,
            bytes_read=tally.bytes_read,
            seconds=tally.database_seconds or tally.seconds,
            began_s=tally.began_s,
            volume=volume_name(spec.database_path),
            complete=tally.complete,
            failure=tally.failure,
            first_damaged=[DamagedPage(page=page, offset=offset, kind=ErrorKind(kind))
                           for page, offset, kind in tally.first_damaged],
            log_files=tally.log_files,
            log_sectors_seen=tally.log_sectors_seen,
            log_sectors_damaged=sum(tally.log_sectors_damaged.values()),
            backup_file=str(backup_file_path(copy, index)) if copy is not None and tally.bytes_written else "",
            more_backup_files=[str(backup_file_path(copy, index, part)) for part in range(1, len(spec.database_paths))]
            if copy is not None and tally.bytes_written else [],
            bytes_written=tally.bytes_written,
        ))
    return ScanResult(read_bytes=config.scan_read_bytes, databases=rows, seconds=seconds, reads_in_flight=reads_in_flight,
                      by_volume=config.test_type == TestType.DATABASE_CHECKSUM)


def judge_scan(config: TestConfig, scan: ScanResult, *, aborted_reason: str | None, failure_reasons: list[str]) -> Verdict:
    checksum = config.test_type == TestType.DATABASE_CHECKSUM
    criteria: list[Criterion] = []
    failures = [Failure(words=words) for words in failure_reasons]
    instance_reasons: dict[str, list[str]] = {}
    for row in scan.databases:
        mine: list[Failure] = []
        criteria.append(damaged := make_criterion(DAMAGED_PAGES, row.instance, row.damaged_pages, 0, "", "<="))
        if row.damaged_pages:
            mine.append(failure_of(damaged, damage_words(row)))
        if checksum:
            criteria.append(sectors := make_criterion(DAMAGED_LOG_SECTORS, row.instance, row.log_sectors_damaged, 0, "",
                                                      "<="))
            if row.log_sectors_damaged:
                mine.append(failure_of(sectors, f"{row.instance}: {row.log_sectors_damaged:,} damaged log sector"
                                                f"{'s' if row.log_sectors_damaged != 1 else ''} in {row.log_files} log "
                                                "files; the test log names each"))
        criteria.append(read := make_criterion(PAGES_READ, row.instance, row.seen_pages, row.pages, "", ">="))
        if row.seen_pages < row.pages and aborted_reason is None:
            why = f": {row.failure}" if row.failure else ""
            mine.append(failure_of(read, f"{row.instance}: only {row.seen_pages:,} of {row.pages:,} pages of "
                                         f"{', '.join(row.database_files)} were read{why}"))
        instance_reasons[row.instance] = [failure.words for failure in mine]
        failures.extend(mine)
    outcomes = {name: Outcome.FAIL if words else Outcome.PASS for name, words in instance_reasons.items()}
    if aborted_reason is not None:
        covered = sum(r.seen_pages for r in scan.databases)
        total = sum(r.pages for r in scan.databases)
        share = covered / total if total else 0.0
        failures.insert(0, Failure(words=f"{aborted_reason}; the scan covered {covered:,} of {total:,} pages "
                                         f"({share:.0%}), and what it covered is reported"))
        return Verdict(Outcome.ABORTED, criteria, failures, {n: Outcome.ABORTED for n in outcomes}, instance_reasons)
    return Verdict(Outcome.FAIL if failures else Outcome.PASS, criteria, failures, outcomes, instance_reasons)


def scan_words(config: TestConfig) -> str:
    """What a Checksum or Backup test does, for the head of its test log."""
    checksum = config.test_type == TestType.DATABASE_CHECKSUM
    words = (f"{'Database checksum' if checksum else 'Database backup'} test begins: {config.database_count} "
             f"database(s) read through in sequential {config.scan_read_bytes // 1024} KiB reads, every page verified")
    if checksum:
        words += ", then each instance's log files, sector by sector"
    elif config.backup_path is not None:
        words += f"; each database is copied to {config.backup_path}"
    return words


def row_words(row: DatabaseScan) -> str:
    """One database's scan in one line, for the test log."""
    rate = megabytes(row.bytes_per_s)
    words = (f"{row.instance}: {row.seen_pages:,} of {row.pages:,} pages read in {row.seconds:.1f} s "
             f"({rate:,.1f} MB/s), {row.damaged_pages:,} damaged")
    if row.log_files:
        words += f"; {counted(row.log_files, 'log file')}, {counted(row.log_sectors_damaged, 'damaged sector')}"
    if row.backup_file:
        words += f"; copied to {row.backup_file}"
    # lost flushes are told only against the flush map its last test kept: said either way
    words += f"; no lost flush could be told: {row.flush_map}" if row.flush_map else "; read against its flush map"
    return words


def damage_words(row: DatabaseScan) -> str:
    """A database's damaged pages in one line: how many of each kind, with ESE's error, and where the first was."""
    kinds = [(ErrorKind.CHECKSUM, row.bad_pages), (ErrorKind.WRONG_NUMBER, row.wrong_page_number_pages),
             (ErrorKind.UNINITIALISED, row.uninitialised_pages), (ErrorKind.DISK_IO, row.unreadable_pages),
             (ErrorKind.CRC_ERROR, row.crc_error_pages), (ErrorKind.LOST_FLUSH, row.lost_flush_pages)]
    parts = [f"{count:,} {title(kind, PAGE)} (ESE {ese_error(kind, PAGE)[0]})"
             + (f" not patched, as {NEVER_WRITES}" if kind is ErrorKind.CRC_ERROR else "")
             for kind, count in kinds if count]
    where = ""
    if row.first_damaged:
        first = row.first_damaged[0]
        where = f"; the first at page {first.page:,}, byte offset {first.offset:,}"
    plural = "s" if row.damaged_pages != 1 else ""
    return (f"{row.instance}: {row.damaged_pages:,} damaged page{plural} of {row.pages:,} in {', '.join(row.database_files)}: "
            f"{', '.join(parts)}{where}")


def megabytes(nbytes: float) -> float:
    """Bytes in Jetstress's megabytes (MiB), as its Checksum and Backup tables count them."""
    return nbytes / (1024 * 1024)



def own_reads_per_s(figures: Figures | None, row: DatabaseScan, measured_s: float) -> float:
    """A database's reads per second over its own scan (`row.seconds`), not over the whole test's `measured_s`: a
    checksum reads a volume's databases one after another."""
    if figures is None or row.seconds <= 0:
        return 0.0
    return figures.db_reads_per_s * measured_s / row.seconds
