"""A run laid out as Jetstress's own result files lay it out, for the scripts that read them.

One model, `jetstress_report`, that both renderings read: the HTML (`reporting.jetstress_html`) and
the XML (`reporting.jetstress_xml`). It holds key/value sections ("Test Summary", "Database Sizing and
Throughput", "Jetstress System Parameters") and tables of counters per instance, named and ordered as
in docs/jetstress-results.md. Figures are the run's `RunResult`, never re-derived; numbers are written
with three decimals and a dot, as Jetstress writes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engine.model.config import TestType, ThreadWeight
from engine.results.figures import database_bytes
from engine.results.host_schema import Spread
from engine.results.sample_schema import Figures
from engine.results.schema import Outcome, RunResult
from engine.version import __version__
from reporting import jetstress_scan
from reporting.document import total_row

# Jetstress's names of the test types, as its result files begin.
FILE_KINDS = {
    TestType.PERFORMANCE: "Performance", TestType.STRESS: "Stress", TestType.DATABASE_BACKUP: "DatabaseBackup",
    TestType.SOFT_RECOVERY: "SoftRecovery", TestType.DATABASE_CHECKSUM: "DBChecksum",
}
TITLES = {
    TestType.PERFORMANCE: "Performance Test Result Report", TestType.STRESS: "Stress Test Result Report",
    TestType.DATABASE_BACKUP: "Database Backup Test Result Report",
    TestType.SOFT_RECOVERY: "Soft Recovery Test Result Report", TestType.DATABASE_CHECKSUM: "Database Checksum Result Report",
}
INSTANCES_OBJECT = "MSExchange Database ==> Instances"

Counter = tuple[str, str, str]  # (Jetstress's counter, the stream, what: "rate" or a Figures field suffix)


def _six(kind: str, read: str, write: str) -> tuple[Counter, ...]:
    """A file's six counters, in the order Jetstress's table has them."""
    return ((f"I/O {kind} Reads Average Latency", read, "avg_latency_ms"),
            (f"I/O {kind} Writes Average Latency", write, "avg_latency_ms"),
            (f"I/O {kind} Reads/sec", read, "rate"), (f"I/O {kind} Writes/sec", write, "rate"),
            (f"I/O {kind} Reads Average Bytes", read, "avg_bytes"), (f"I/O {kind} Writes Average Bytes", write, "avg_bytes"))


TRANSACTIONAL = _six("Database", "db_read", "db_write") + _six("Log", "log_read", "log_write")  # per instance
MAINTENANCE = (("Database Maintenance IO Reads/sec", "bdm_read", "rate"),
               ("Database Maintenance IO Reads Average Bytes", "bdm_read", "avg_bytes"))
REPLICATION = (("I/O Log Reads/sec", "log_replication_read", "rate"),
               ("I/O Log Reads Average Bytes", "log_replication_read", "avg_bytes"))


def number(value: float) -> str:
    return f"{value:.3f}"


@dataclass(frozen=True)
class Row:
    key: str
    value: str
    verdict: bool | None = None  # the Overall Test Result row: True Pass, False Fail


@dataclass(frozen=True)
class Section:
    title: str
    tag: str  # its element in the XML report
    rows: list[Row]


@dataclass(frozen=True)
class Table:
    """Counters per instance (or per database), the columns in Jetstress's order."""

    title: str
    tag: str
    columns: list[str]
    rows: list[tuple[str, list[str]]]
    footer: list[tuple[str, list[str]]] = field(default_factory=list)  # e.g. a backup's average and total rows


@dataclass(frozen=True)
class JetstressReport:
    kind: str
    title: str
    run_id: str
    started: datetime  # local time, as Jetstress names its files
    sections: list[Section]
    tables: list[Table]
    log: list[str]

    @property
    def mark(self) -> str:
        """The run's id as the files' first lines name it (safe in an HTML or XML comment): how Jetwise knows them."""
        return f"Jetwise result file in Jetstress's layout; run {re.sub(r'[^A-Za-z0-9_.]+', '-', self.run_id)}"

    @property
    def stem(self) -> str:
        """`<Type>_<yyyy>_<M>_<d>_<H>_<m>_<s>`, Jetstress's name for the test's result files."""
        t = self.started
        return f"{self.kind}_{t.year}_{t.month}_{t.day}_{t.hour}_{t.minute}_{t.second}"


def _local(stamp: datetime | None) -> datetime | None:
    return None if stamp is None else stamp.astimezone()


def _when(stamp: datetime | None) -> str:
    """A time as Jetstress's summary writes it: 12/23/2010 5:23:54 PM."""
    moment = _local(stamp)
    if moment is None:
        return ""
    hour = moment.hour % 12 or 12
    return f"{moment.month}/{moment.day}/{moment.year} {hour}:{moment:%M:%S} {'AM' if moment.hour < 12 else 'PM'}"


def _value(figures: Figures, stream: str, what: str) -> float:
    return figures.rate(stream) if what == "rate" else figures.stream_value(stream, what)


def _counter_table(result: RunResult, title: str, tag: str, counters: tuple[Counter, ...]) -> Table:
    rows = [(i.name, [number(_value(i, stream, what)) for _, stream, what in counters]) for i in result.instances]
    return Table(title, tag, [name for name, _, _ in counters], rows)


def _total_table(result: RunResult) -> Table:
    """Jetstress's "Total I/O Performance": database reads with maintenance reads, log reads with replication reads."""
    rows = []
    for instance in result.instances:
        total = total_row(instance)
        combined = {("db_read", "avg_latency_ms"): total.db_read_latency, ("db_read", "rate"): total.db_reads,
                    ("db_read", "avg_bytes"): total.db_read_bytes, ("log_read", "avg_latency_ms"): total.log_read_latency,
                    ("log_read", "rate"): total.log_reads, ("log_read", "avg_bytes"): total.log_read_bytes}
        rows.append((instance.name, [number(combined.get((stream, what), _value(instance, stream, what)))
                                     for _, stream, what in TRANSACTIONAL]))
    return Table("Total I/O Performance", "disk-subsystem-total", [name for name, _, _ in TRANSACTIONAL], rows)


def _description(result: RunResult) -> str:
    profile, config = result.configuration.profile, result.configuration
    if config.description:
        return config.description
    return (f"{config.test_type.value.replace('_', ' ').capitalize()} - {profile.mailboxes:,} mailboxes of "
            f"{profile.mailbox_size_mb:,} MB at {profile.iops_per_mailbox:g} IOPS, {config.copies_per_database} "
            f"cop{'y' if config.copies_per_database == 1 else 'ies'}")


def _ending(result: RunResult) -> str:
    if result.verdict == Outcome.PASS:
        return "passed"
    if result.verdict == Outcome.FAIL:
        return "failed: see Test Issues"
    return "stopped before its end" + (f": {'; '.join(result.summary.reasons)}" if result.summary.reasons else "")


def _summary(result: RunResult, run_folder: Path | None) -> Section:
    passed = result.verdict == Outcome.PASS
    rows = [
        Row("Overall Test Result", "Pass" if passed else "Fail", passed),
        Row("Test Ended", _ending(result)),
        Row("Machine Name", result.host.machine_name),
        Row("Test Description", _description(result)),
        Row("Test Start Time", _when(result.times.test_start_utc)),
        Row("Test End Time", _when(result.times.test_end_utc)),
        Row("Collection Start Time", _when(result.times.collection_start_utc)),
        Row("Collection End Time", _when(result.times.collection_end_utc)),
        Row("Jetwise Version", result.tool_version or __version__),
        Row("Operating System", result.host.operating_system),
        Row("Performance Log", str(run_folder / result.files.samples) if run_folder else result.files.samples),
    ]
    if result.simulated:
        rows.append(Row("Storage", "simulated: not a measurement of a disk"))
    return Section("Test Summary", "test-summary", rows)


def _sizing(result: RunResult) -> Section:
    config, summary = result.configuration, result.summary
    initial, final = database_bytes(result)
    return Section("Database Sizing and Throughput", "database-sizing", [
        Row("Achieved Transactional I/O per Second", number(summary.achieved_transactional_iops)),
        *([] if config.seeks_maximum else [
            Row("Target Transactional I/O per Second", f"{summary.target_transactional_iops:g}")]),
        Row("Capacity Percentage", f"{config.capacity_percent:g}"),
        Row("Throughput Percentage", f"{config.throughput_percent:g}"),
        Row("Initial Database Size (bytes)", "" if initial is None else str(initial)),
        Row("Final Database Size (bytes)", "" if final is None else str(final)),
        Row("Database Files (Count)", str(config.database_file_count)),
    ])


def _system(result: RunResult) -> Section:
    config, mix = result.configuration, result.configuration.operation_mix
    return Section("Jetstress System Parameters", "jetstress-system", [
        Row("Thread Count", f"{result.summary.threads} (for the server)" + (
            "" if config.thread_weight == ThreadWeight.JETSTRESS else
            "; Jetwise threads of reads-only weight, each carrying about 2.5 Jetstress threads' transfers")),
        Row("SluggishSessions", str(result.summary.sluggish_sessions)),
        Row("Exchange Version", config.generation.words),
        Row("Minimum Database Cache", f"{config.database_cache_min_mb:.1f} MB"),
        Row("Maximum Database Cache", f"{config.database_cache_max_mb:.1f} MB"),
        Row("Insert Operations", f"{mix.insert_percent:g}%"),
        Row("Delete Operations", f"{mix.delete_percent:g}%"),
        Row("Replace Operations", f"{mix.replace_percent:g}%"),
        Row("Read Operations", f"{mix.read_percent:g}%"),
        Row("Lazy Commits", f"{mix.lazy_commit_percent:g}%"),
        Row("Run Background Database Maintenance", "True" if config.background_maintenance else "False"),
        Row("Number of Copies per Database", str(config.copies_per_database)),
    ])


def _configuration(result: RunResult) -> Section:
    return Section("Database Configuration", "database-configuration", [
        Row(i.name, f"Log Path: {i.log_path} Database: {', '.join(i.database_files) or i.database_path}")
        for i in result.instances])


def _spread(name: str, spread: Spread) -> tuple[str, list[str]]:
    return name, [number(v) if v is not None else "" for v in (spread.average, spread.minimum, spread.maximum)]


def _host(result: RunResult) -> Table:
    stalls = result.summary.database_page_fault_stalls_per_s  # a scan's too, as the paper's Backup report has it
    return Table("Host System Performance", "host-system", ["Average", "Minimum", "Maximum"],
                 [_spread(name, spread) for name, spread in result.host_performance.rows(stalls)])


def _scan_tables(result: RunResult) -> list[Table]:
    """A scan's statistics, its Transactional I/O (each database's reads over its own time) and its disks."""
    title, tag, columns, rows, footer = jetstress_scan.statistics(result)
    kind = "checksum" if result.configuration.test_type == TestType.DATABASE_CHECKSUM else "backup"
    return [Table(title, tag, columns, rows, footer),
            Table("Transactional I/O Performance", "disk-subsystem-transactional", [name for name, _, _ in TRANSACTIONAL[:6]],
                  jetstress_scan.transactional_rows(result)),
            Table(f"Disk Subsystem Performance (of {kind})", f"disk-subsystem-of-{kind}", jetstress_scan.DISK_COLUMNS,
                  jetstress_scan.disk_rows(result))]


def _recovery_table(result: RunResult) -> Table:
    assert result.recovery is not None
    rows = [(r.instance, [str(r.log_files_replayed), number(r.replay_seconds), number(r.seconds_per_log_file)])
            for r in result.recovery.instances]
    played = [r.seconds_per_log_file for r in result.recovery.instances if r.log_files_replayed]
    footer = [("Avg", ["", "", number(sum(played) / len(played))])] if played else []
    return Table("Soft Recovery Statistics - All", "recovery-statistics",
                 ["Log files replayed", "Elapsed seconds", "Seconds per log file"], rows, footer)


def jetstress_report(result: RunResult, log: list[str], run_folder: Path | None = None) -> JetstressReport:
    """The run's result and test log (from its `run_folder`) as Jetstress's result files lay them out."""
    test_type = result.configuration.test_type
    started = _local(result.times.test_start_utc) or datetime.now().astimezone()
    issues = Section("Test Issues", "test-issues", [Row("Issue", reason) for reason in result.summary.reasons])
    sections = [_summary(result, run_folder), issues]
    tables: list[Table] = []
    if result.scan is not None:
        sections.append(_system(result))
        tables += _scan_tables(result)
    else:
        sections += [_sizing(result), _system(result)]
        tables += [_counter_table(result, "Transactional I/O Performance", "disk-subsystem-transactional", TRANSACTIONAL)]
        if result.recovery is not None:
            tables.append(_recovery_table(result))
        else:
            tables += [_counter_table(result, "Background Database Maintenance I/O Performance",
                                      "disk-subsystem-of-dbmaintenance", MAINTENANCE),
                       _counter_table(result, "Log Replication I/O Performance", "disk-subsystem-of-logreplication",
                                      REPLICATION),
                       _total_table(result)]
    sections.append(_configuration(result))
    tables.append(_host(result))
    return JetstressReport(FILE_KINDS[test_type], TITLES[test_type], result.run_id, started, sections, tables, log)
