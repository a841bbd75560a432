"""A Database Checksum or Database Backup run in the report: each database's scan, in Jetstress's tables.

The figures are read from the run's `RunResult.scan` and its samples, never re-derived from the files.
Jetstress counts "Mbytes" in MiB (`engine.results.scans.megabytes`); so does this report. A scan has no
transactional target and no latency thresholds: its criteria are damaged pages, damaged log sectors and
pages read, and what it read per second.
"""

from __future__ import annotations

from typing import Any

from engine.model.config import TestType
from engine.results.note_schema import CORRECTABLE_WORDS
from engine.results.sample_file import Samples
from engine.results.scans import megabytes, own_reads_per_s
from engine.results.schema import DatabaseScan, Figures, RunResult, ScanResult
from engine.workload.errors import PAGE, ese_error, title
from reporting import palette
from reporting.charts import Line, line_chart

SCAN_TITLES = {TestType.DATABASE_CHECKSUM: "Database Checksum", TestType.DATABASE_BACKUP: "Database Backup"}
FEW_SAMPLES = 3  # fewer samples than this draw as points: a line through one point shows nothing


def clock(seconds: float) -> str:
    """Elapsed time as Jetstress prints a backup's: hh:mm:ss, with hundredths under ten seconds (a tiny test's 00:00:00.45)."""
    if seconds < 10:
        return f"00:00:{seconds:05.2f}"
    whole = round(seconds)
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _row(row: DatabaseScan) -> dict[str, Any]:
    return {
        "scan": row, "file_mbytes": megabytes(row.file_bytes), "mbytes_per_s": megabytes(row.bytes_per_s),
        "elapsed": clock(row.seconds), "covered": row.seen_pages / row.pages if row.pages else 0.0,
        "read_mbytes": megabytes(row.bytes_read), "written_mbytes": megabytes(row.bytes_written),
    }


def _sum(scan: ScanResult) -> dict[str, Any]:
    """The (Sum) row: every database's pages and bytes, over the scan's whole time."""
    rows = scan.databases
    total = sum(r.pages for r in rows)
    return {
        "pages": total,
        **{key: sum(getattr(r, key) for r in rows) for key in (
            "seen_pages", "bad_pages", "correctable_pages", "wrong_page_number_pages", "uninitialised_pages",
            "unreadable_pages", "crc_error_pages", "lost_flush_pages", "damaged_pages", "log_files", "log_sectors_seen",
            "log_sectors_damaged", "bytes_written")},
        "file_mbytes": megabytes(sum(r.file_bytes for r in rows)), "seconds": scan.seconds,
        "mbytes_per_s": megabytes(scan.bytes_per_s), "read_mbytes": megabytes(scan.bytes_read),
        "covered": sum(r.seen_pages for r in rows) / total if total else 0.0,
        "log_damaged_in": [r.instance for r in rows if r.log_sectors_damaged],
    }


def _damaged(scan: ScanResult) -> list[dict[str, Any]]:
    """The first damaged pages of each database, each with the ESE error a database engine raises for it."""
    return [
        {"instance": row.instance, "page": page.page, "offset": page.offset, "kind": title(page.kind, PAGE),
         "ese": ese_error(page.kind, PAGE)}
        for row in scan.databases for page in row.first_damaged
    ]


def _reads(row: Figures, stream: str) -> dict[str, Any]:
    rate, size = row.rate(stream), row.stream_value(stream, "avg_bytes")
    return {
        "latency": row.stream_value(stream, "avg_latency_ms"), "max_latency": row.stream_value(stream, "max_latency_ms"),
        "per_s": rate, "bytes": size, "mbytes_per_s": megabytes(rate * size),
    }


def disk_rows(result: RunResult) -> list[dict[str, Any]]:
    """Per instance, what the scan's reads did: database reads (their rate over the database's own scan: a checksum
    reads a volume's databases one after another), and a checksum's log reads when it made any."""
    scans = {row.instance: row for row in result.scan.databases} if result.scan is not None else {}
    rows = []
    for instance in result.instances:
        reads = _reads(instance, "db_read")
        if instance.name in scans:
            reads["per_s"] = own_reads_per_s(instance, scans[instance.name], result.summary.measured_s)
            reads["mbytes_per_s"] = megabytes(reads["per_s"] * reads["bytes"])
        rows.append({"instance": instance.name, "what": "Database reads", **reads})
        if instance.rate("log_read"):
            rows.append({"instance": instance.name, "what": "Log reads", **_reads(instance, "log_read")})
    return rows


def scan_model(result: RunResult) -> dict[str, Any]:
    """What the Checksum and Backup reports show, from the run's result; `scan` is None when none was written."""
    scan = result.scan
    test_type = result.configuration.test_type
    model: dict[str, Any] = {
        "scan": scan, "scan_title": SCAN_TITLES.get(test_type, test_type.value), "checksum": test_type == TestType.DATABASE_CHECKSUM,
        "correctable_note": CORRECTABLE_WORDS,
        "scan_notes": [n.words for n in result.notes if n.what != "correctable"],
        "disk_rows": disk_rows(result), "read_kib": result.configuration.scan_read_bytes // 1024,
    }
    if scan is None:
        return model
    rows = [_row(r) for r in scan.databases]
    model.update({
        "scan_rows": rows, "scan_sum": _sum(scan), "damaged": _damaged(scan),
        "scan_volumes": len({r.volume for r in scan.databases}),
        "damaged_more": [(r.instance, len(r.first_damaged), r.damaged_pages) for r in scan.databases
                         if r.damaged_pages > len(r.first_damaged)],
        "incomplete": [r for r in rows if not r["scan"].complete],
        "per_database_mbytes_per_s": sum(r["mbytes_per_s"] for r in rows) / len(rows) if rows else 0.0,
        "backups": [r for r in rows if r["scan"].backup_file],
    })
    return model


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
