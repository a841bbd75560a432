"""A Database Checksum or Database Backup run in the report: each database's scan, in Jetstress's tables.

The figures are read from the run's `RunResult.scan` and its samples, never re-derived from the files.
Jetstress counts "Mbytes" in MiB (`engine.results.scans.megabytes`); so does this report. A scan has no
transactional target and no latency thresholds: its criteria are damaged pages, damaged log sectors and
pages read, and what it read per second.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.model.config import TestType
from engine.results.note_schema import CORRECTABLE_WORDS
from engine.results.sample_read import Samples
from engine.results.scan_schema import DatabaseScan, ScanResult
from engine.results.scans import megabytes, own_reads_per_s
from engine.results.schema import InstanceResult, RunResult
from engine.workload.errors import PAGE, ese_error, title
from reporting import palette
from reporting.charts import Line, line_chart
from reporting.names import PART

SCAN_TITLES = {TestType.DATABASE_CHECKSUM: "Database Checksum", TestType.DATABASE_BACKUP: "Database Backup"}
FEW_SAMPLES = 3  # fewer samples than this draw as points: a line through one point shows nothing


def clock(seconds: float) -> str:
    """Elapsed time as Jetstress prints a backup's: hh:mm:ss, with hundredths under ten seconds (a tiny test's 00:00:00.45)."""
    if seconds < 10:
        return f"00:00:{seconds:05.2f}"
    whole = round(seconds)
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"


@dataclass(frozen=True)
class ScanRow:
    """A database's scan, its sizes in Jetstress's Mbytes."""

    scan: DatabaseScan
    file_mbytes: float
    mbytes_per_s: float
    elapsed: str
    covered: float  # the share of its pages read
    read_mbytes: float


@dataclass(frozen=True)
class ScanSum:
    """The (Sum) row: every database's pages and bytes, over the scan's whole time."""

    pages: int
    seen_pages: int
    bad_pages: int
    correctable_pages: int
    wrong_page_number_pages: int
    uninitialised_pages: int
    unreadable_pages: int
    crc_error_pages: int
    lost_flush_pages: int
    damaged_pages: int
    log_files: int
    log_sectors_seen: int
    log_sectors_damaged: int
    bytes_written: int
    file_mbytes: float
    seconds: float
    mbytes_per_s: float
    read_mbytes: float
    covered: float
    log_damaged_in: list[str]  # the instances whose logs had damaged sectors


@dataclass(frozen=True)
class DamagedRow:
    """One of a database's first damaged pages, with the ESE error a database engine raises for it."""

    instance: str
    page: int
    offset: int
    kind: str
    ese: tuple[int, str]


@dataclass(frozen=True)
class DiskRow:
    """What one kind of an instance's reads did: latency, rate and size."""

    instance: str
    what: str
    latency: float
    max_latency: float
    per_s: float
    bytes: float
    mbytes_per_s: float


@dataclass(frozen=True)
class ScanFigures:
    """What the report shows of a scan the run wrote."""

    scan_rows: list[ScanRow]
    scan_sum: ScanSum
    damaged: list[DamagedRow]
    scan_volumes: int
    damaged_more: list[tuple[str, int, int]]  # (instance, listed, damaged) of a database with more than listed
    incomplete: list[ScanRow]
    per_database_mbytes_per_s: float
    backups: list[ScanRow]


@dataclass(frozen=True)
class ScanModel:
    """What the Checksum and Backup reports show, from the run's result; `scan` None when none was written."""

    scan: ScanResult | None
    scan_title: str
    checksum: bool
    correctable_note: str
    scan_notes: list[str]
    disk_rows: list[DiskRow]
    read_kib: int
    figures: ScanFigures | None = field(metadata=PART)


def _row(row: DatabaseScan) -> ScanRow:
    return ScanRow(row, megabytes(row.file_bytes), megabytes(row.bytes_per_s), clock(row.seconds),
                   row.seen_pages / row.pages if row.pages else 0.0, megabytes(row.bytes_read))


def _sum(scan: ScanResult) -> ScanSum:
    rows = scan.databases
    total = sum(r.pages for r in rows)
    return ScanSum(
        pages=total,
        **{key: sum(getattr(r, key) for r in rows) for key in (
            "seen_pages", "bad_pages", "correctable_pages", "wrong_page_number_pages", "uninitialised_pages",
            "unreadable_pages", "crc_error_pages", "lost_flush_pages", "damaged_pages", "log_files", "log_sectors_seen",
            "log_sectors_damaged", "bytes_written")},
        file_mbytes=megabytes(sum(r.file_bytes for r in rows)), seconds=scan.seconds,
        mbytes_per_s=megabytes(scan.bytes_per_s), read_mbytes=megabytes(scan.bytes_read),
        covered=sum(r.seen_pages for r in rows) / total if total else 0.0,
        log_damaged_in=[r.instance for r in rows if r.log_sectors_damaged],
    )


def _damaged(scan: ScanResult) -> list[DamagedRow]:
    return [DamagedRow(row.instance, page.page, page.offset, title(page.kind, PAGE), ese_error(page.kind, PAGE))
            for row in scan.databases for page in row.first_damaged]


def _reads(instance: InstanceResult, stream: str, what: str) -> DiskRow:
    rate, size = instance.rate(stream), instance.stream_value(stream, "avg_bytes")
    return DiskRow(instance.name, what, instance.stream_value(stream, "avg_latency_ms"),
                   instance.stream_value(stream, "max_latency_ms"), rate, size, megabytes(rate * size))


def disk_rows(result: RunResult) -> list[DiskRow]:
    """Per instance, what the scan's reads did: database reads (their rate over the database's own scan: a checksum
    reads a volume's databases one after another), and a checksum's log reads when it made any."""
    scans = {row.instance: row for row in result.scan.databases} if result.scan is not None else {}
    rows = []
    for instance in result.instances:
        reads = _reads(instance, "db_read", "Database reads")
        if instance.name in scans:
            per_s = own_reads_per_s(instance, scans[instance.name], result.summary.measured_s)
            reads = replace(reads, per_s=per_s, mbytes_per_s=megabytes(per_s * reads.bytes))
        rows.append(reads)
        if instance.rate("log_read"):
            rows.append(_reads(instance, "log_read", "Log reads"))
    return rows


def scan_figures(scan: ScanResult) -> ScanFigures:
    rows = [_row(r) for r in scan.databases]
    return ScanFigures(
        scan_rows=rows, scan_sum=_sum(scan), damaged=_damaged(scan), scan_volumes=len({r.volume for r in scan.databases}),
        damaged_more=[(r.instance, len(r.first_damaged), r.damaged_pages) for r in scan.databases
                      if r.damaged_pages > len(r.first_damaged)],
        incomplete=[r for r in rows if not r.scan.complete],
        per_database_mbytes_per_s=sum(r.mbytes_per_s for r in rows) / len(rows) if rows else 0.0,
        backups=[r for r in rows if r.scan.backup_file],
    )


def scan_model(result: RunResult) -> ScanModel:
    scan = result.scan
    test_type = result.configuration.test_type
    return ScanModel(
        scan, SCAN_TITLES.get(test_type, test_type.value), test_type == TestType.DATABASE_CHECKSUM, CORRECTABLE_WORDS,
        [n.words for n in result.notes if n.what != "correctable"], disk_rows(result),
        result.configuration.scan_read_bytes // 1024, None if scan is None else scan_figures(scan),
    )


def scan_charts(samples: Samples) -> dict[str, str]:
    """What the scan read per second over time, in Mbytes/s: the databases, and a checksum's logs."""
    series = samples.columns("elapsed_s", "db_reads_per_s", "db_read_avg_bytes", "log_reads_per_s", "log_read_avg_bytes")
    xs = series["elapsed_s"]
    if not xs:
        return {}
    few = len(xs) < FEW_SAMPLES

    def mbytes(stream: str) -> list[float]:
        return [megabytes((rate or 0.0) * (size or 0.0))
                for rate, size in zip(series[f"{stream}s_per_s"], series[f"{stream}_avg_bytes"], strict=True)]

    lines = [Line("database reads", xs, mbytes("db_read"), palette.READS, markers=few)]
    if any(series["log_reads_per_s"]):
        lines.append(Line("log reads", xs, mbytes("log_read"), palette.LOG, markers=few, shape="square"))
    return {"scan_reads": line_chart("Read throughput per interval", "Mbytes/s", lines)}
