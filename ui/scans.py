"""How the window words the test types, the servers a test runs across, and a Database checksum or Database backup
test as it runs and once it ended.

A checksum or a backup (a scan) reads each database through once instead of running
transactions for a time: the window shows how far the reading got, not IOPS against a
target. What it counts here comes from the engine's events (progress, interval samples)
and, once the run ends, from the result's own scan of each database.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.config import TestConfig, TestType
from engine.model.host_names import short_names
from engine.model.sizing import LOG_FILE_SIZE_BYTES, LOG_FILES_PER_DATABASE, PAGE_SIZE_BYTES
from engine.model.units import seconds_words
from engine.results.sample_schema import IntervalSample
from engine.results.scan_schema import ScanResult
from engine.results.scans import megabytes
from engine.results.schema import RunResult

TYPE_WORDS = {
    TestType.PERFORMANCE: "Performance",
    TestType.STRESS: "Stress",
    TestType.DATABASE_CHECKSUM: "Database checksum",
    TestType.DATABASE_BACKUP: "Database backup",
    TestType.SOFT_RECOVERY: "Soft recovery",
}


def type_words(test_type: TestType | str) -> str:
    """"Database checksum" for database_checksum: the test type as people name it."""
    return TYPE_WORDS.get(TestType(test_type), str(test_type).replace("_", " ").capitalize())


def checked_word(config: TestConfig) -> str:
    """What a scan does to each page: a checksum checks it, a backup backs it up (verifying it on the way)."""
    return "checked" if config.test_type == TestType.DATABASE_CHECKSUM else "backed up"


def scan_setting(config: TestConfig) -> str:
    """A scan's setting in a few words, for a run's title: "2 databases in 64 KiB reads, copied to F:\\Backup"."""
    plural = "s" if config.database_count != 1 else ""
    words = f"{config.database_count} database{plural} in {config.scan_read_bytes // 1024} KiB reads"
    if config.test_type == TestType.DATABASE_BACKUP:
        words += f", copied to {config.backup_path}" if config.backup_path is not None else ", read only"
    return words


def across_words(hosts: list[str]) -> str:
    """" across N servers (…)", each server by its short name where the whole names would not fit a small screen's
    title line (the view's tooltip and the test log name them whole)."""
    names = hosts if len(", ".join(hosts)) <= 60 else list(short_names(hosts).values())
    return f" across {len(hosts)} servers ({', '.join(names)})"


def setting_words(config: TestConfig) -> str:
    """A run's setting in a few words, for its title: its threads, a scan's reads, a Soft recovery's log files."""
    threads = "1 thread" if config.thread_count == 1 else f"{config.thread_count} threads"
    setting = f"{threads}, SluggishSessions {config.sluggish_sessions}"
    if config.scans:
        return scan_setting(config)
    if config.recovers:
        return f"{config.log_files_to_replay:,} log files per instance, {setting}"
    return setting


@dataclass
class ScanProgress:
    """How far a running scan got: the database pages read so far (from the samples), the damaged pages and log
    sectors met, and the pages in all (the configuration's, until the engine's progress counts the files on disk)."""

    config: TestConfig
    read_bytes: int = 0  # database reads, from the samples
    damaged: int = 0
    counted_pages: int = 0  # from the engine's progress: each database file as it is on disk
    done_pages: int = 0  # ... and the pages it has read

    def add_sample(self, sample: IntervalSample) -> None:
        reads = sample.server.streams.get("db_read")
        self.read_bytes += reads.bytes if reads is not None else 0
        self.damaged += sum(stats.errors for stats in sample.server.streams.values())

    def add_progress(self, total_bytes: int, done_bytes: int = 0) -> None:
        """The bytes the whole scan reads and has read, as the engine counts them (a checksum's logs included, each
        instance's after its database); the total grows as each database's reader reports its file."""
        checksum = self.config.test_type == TestType.DATABASE_CHECKSUM
        logs = LOG_FILES_PER_DATABASE * LOG_FILE_SIZE_BYTES * self.config.database_count if checksum else 0
        self.counted_pages = max(self.counted_pages, (total_bytes - logs) // PAGE_SIZE_BYTES)
        self.done_pages = max(self.done_pages, done_bytes // PAGE_SIZE_BYTES)

    @property
    def total_pages(self) -> int:
        return self.counted_pages or self.config.database_pages * self.config.database_file_count

    @property
    def pages(self) -> int:
        """The samples' count, or the engine's progress where it is ahead (the samples lag, and a backup's copy may
        read outside them): never fewer pages than the share the progress bar shows."""
        return min(max(round(self.read_bytes / PAGE_SIZE_BYTES), self.done_pages), self.total_pages)

    def words(self) -> str:
        return pages_words(self.config, self.pages, self.total_pages, self.damaged)


def pages_words(config: TestConfig, pages: int, total: int, damaged: int) -> str:
    """"12,345 of 64,000 pages checked, 0 damaged"."""
    return f"{pages:,} of {total:,} pages {checked_word(config)}, {damaged:,} damaged"


def final_words(config: TestConfig, scan: ScanResult) -> str:
    """The running line once the result is in: the scan's own counts."""
    rows = scan.databases
    line = pages_words(config, sum(r.seen_pages for r in rows), sum(r.pages for r in rows), sum(r.damaged_pages for r in rows))
    if config.test_type == TestType.DATABASE_CHECKSUM:
        damaged = sum(r.log_sectors_damaged for r in rows)
        line += f"; {sum(r.log_files for r in rows):,} log files read, {damaged:,} damaged log sectors"
    return line


def scan_headline(result: RunResult, scan: ScanResult) -> tuple[str, str]:
    """What a scan read, and what it was: "Read 8,192 of 8,192 pages …", "Database checksum, 64 KiB reads"."""
    rows = scan.databases
    plural = "s" if len(rows) != 1 else ""
    read = (f"Read {sum(r.seen_pages for r in rows):,} of {sum(r.pages for r in rows):,} pages of {len(rows)} "
            f"database{plural} in {seconds_words(scan.seconds)} at {megabytes(scan.bytes_per_s):,.1f} MB/s")
    config = result.configuration
    copied = ""
    if config.test_type == TestType.DATABASE_BACKUP:
        copied = f", copied to {config.backup_path}" if config.backup_path is not None else ", read only"
    return read, f"sequential {scan.read_bytes // 1024} KiB reads{copied}"
