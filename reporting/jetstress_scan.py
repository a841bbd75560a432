"""A Database Checksum's or Backup's tables as Jetstress's result files lay them out (the ESRP paper's).

- The statistics: a checksum's "Checksum Statistics - All" (seen, bad, correctable and wrong page-number pages,
  "file length / seconds taken" per database file); a backup's "Database Backup Statistics - All" (database size,
  elapsed backup time, MB transferred per second, per instance). Each database's rate is over its own time; the
  server's total is every byte read over the scan's whole time, as Jetwise's own report says it, so the two agree
  whether the databases were read at once (a backup) or one after another on each volume (a checksum).
- "Transactional I/O Performance", each instance's database reads over its own database's time.
- "Disk Subsystem Performance" per volume: average seconds per read, reads per second, bytes per read, over the time
  the volume was read.
"""

from __future__ import annotations

from collections import defaultdict

from engine.model.config import TestType
from engine.results.scans import megabytes, own_reads_per_s
from engine.results.schema import RunResult
from reporting.scan import clock


def _number(value: float) -> str:
    return f"{value:.3f}"


def statistics(result: RunResult) -> tuple[str, str, list[str], list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """(title, tag, columns, rows, footer) of the scan's statistics table."""
    assert result.scan is not None
    scan = result.scan
    rates = [megabytes(r.bytes_per_s) for r in scan.databases]
    footer = [("MB read/sec per database", _number(sum(rates) / len(rates)) if rates else ""),
              ("MB read/sec total per server", _number(megabytes(scan.bytes_per_s)))]
    if result.configuration.test_type == TestType.DATABASE_BACKUP:
        columns = ["Database Size (Mbytes)", "Elapsed Backup Time", "Mbytes Transferred/sec"]
        rows = [(r.instance, [_number(megabytes(r.file_bytes)), clock(r.seconds),
                              _number(megabytes(r.bytes_per_s))]) for r in scan.databases]
        return ("Database Backup Statistics - All", "backup-statistics", columns, rows,
                [(key, ["", "", value]) for key, value in footer])
    columns = ["Seen Pages", "Bad Pages", "Correctable Pages", "Wrong Page-Number Pages", "File Length / Seconds Taken",
               "MB read/sec"]
    rows = [(r.database_file, [str(r.seen_pages), str(r.damaged_pages - r.wrong_page_number_pages),
                               str(r.correctable_pages), str(r.wrong_page_number_pages),
                               f"{round(megabytes(r.file_bytes))} Mbytes / {round(r.seconds)} sec",
                               _number(megabytes(r.bytes_per_s))]) for r in scan.databases]
    total = ("(Sum)", [str(sum(r.seen_pages for r in scan.databases)),
                       str(sum(r.damaged_pages - r.wrong_page_number_pages for r in scan.databases)),
                       str(sum(r.correctable_pages for r in scan.databases)),
                       str(sum(r.wrong_page_number_pages for r in scan.databases)),
                       f"{round(megabytes(sum(r.file_bytes for r in scan.databases)))} Mbytes / {round(scan.seconds)} sec",
                       ""])
    return ("Checksum Statistics - All", "checksum-statistics", columns, [*rows, total],
            [(key, ["", "", "", "", "", value]) for key, value in footer])


def transactional_rows(result: RunResult) -> list[tuple[str, list[str]]]:
    """Per instance: database read latency, reads/s over its own scan, and bytes per read (no writes: a scan reads)."""
    assert result.scan is not None
    figures = {f.name: f for f in result.instances}
    rows = []
    for row in result.scan.databases:
        f = figures.get(row.instance)
        latency = f.db_read_avg_latency_ms if f else 0.0
        size = f.db_read_avg_bytes if f else 0.0
        rows.append((row.instance, [_number(latency), _number(0), _number(own_reads_per_s(f, row, result.summary.measured_s)), _number(0),
                                    _number(size), _number(0)]))
    return rows


def disk_rows(result: RunResult) -> list[tuple[str, list[str]]]:
    """Per volume: average seconds per read, reads per second and bytes per read while its databases were read."""
    assert result.scan is not None
    figures = {f.name: f for f in result.instances}
    one_by_one = result.scan.by_volume
    reads: dict[str, float] = defaultdict(float)
    waited: dict[str, float] = defaultdict(float)
    read_bytes: dict[str, float] = defaultdict(float)
    seconds: dict[str, float] = defaultdict(float)
    for row in result.scan.databases:
        f = figures.get(row.instance)
        volume = row.volume or row.database_file
        count = f.db_reads_per_s * result.summary.measured_s if f else 0.0
        reads[volume] += count
        waited[volume] += count * (f.db_read_avg_latency_ms if f else 0.0) / 1000.0
        read_bytes[volume] += count * (f.db_read_avg_bytes if f else 0.0)
        # a checksum reads a volume's databases one after another (an older one, and a backup, all at once)
        seconds[volume] = seconds[volume] + row.seconds if one_by_one else max(seconds[volume], row.seconds)
    return [(volume, [_number(waited[volume] / count if count else 0.0), _number(0),
                      _number(count / seconds[volume] if seconds[volume] else 0.0), _number(0),
                      _number(read_bytes[volume] / count if count else 0.0)])
            for volume, count in reads.items()]


DISK_COLUMNS = ["Avg. Disk sec/Read", "Avg. Disk sec/Write", "Disk Reads/sec", "Disk Writes/sec", "Avg. Disk Bytes/Read"]
