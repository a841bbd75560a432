"""A Checksum or Backup test's plan: which databases are read at once, how deep, and that plan in words.

The Review page, the runner's log and the worker processes read it alike; the worker's side of a scan (its files and
its reads) is `engine.run.scanning`.
"""

from __future__ import annotations

from engine.io.capacity import volume_of
from engine.model.config import TestConfig, TestType
from engine.model.units import MIB

BACKUP_DEPTH = 2  # reads in flight per database: the paper's backup kept 1.6 (33 reads/s of 256 KiB at 49 ms)
MAX_CHECKSUM_DEPTH = 64  # reads in flight on one volume: deeper only lengthens its queue (the paper's: about 48)


def scan_groups(config: TestConfig) -> list[tuple[int, ...]]:
    """The databases that are scanned one after another, group by group, the groups at once.

    A checksum goes volume by volume, as Jetstress's does (the ESRP paper's two databases on F: took 21,091 and
    12,306 s, the test 33,398 s): the databases on one volume one after another, the volumes in parallel. A backup
    reads every database at once, each its own group, and any other test runs each database alone. A group is kept
    whole in one worker process (`engine.run.worker.assign_groups`).
    """
    if config.test_type != TestType.DATABASE_CHECKSUM:
        return [(index,) for index in range(config.database_count)]
    volumes: dict[int | str, list[int]] = {}
    for index, spec in enumerate(config.databases):
        volumes.setdefault(volume_of(spec.database_path), []).append(index)
    return [tuple(indexes) for indexes in volumes.values()]


def scan_depth(config: TestConfig, groups: int) -> int:
    """Reads each scan keeps in flight.

    A checksum shares Jetstress's checksum buffers (MaximumChecksumBuffers, 20 MiB: 320 reads of 64 KiB) among the
    volumes it checks at once, at most MaximumChecksumThreads reads in all and `MAX_CHECKSUM_DEPTH` on one volume; the
    paper's six volumes kept about 48 each (919 reads/s at 52 ms). A backup keeps `BACKUP_DEPTH` per database.
    """
    if config.test_type != TestType.DATABASE_CHECKSUM:
        return BACKUP_DEPTH
    server = min(int(config.checksum_buffers_mb * MIB) // config.scan_read_bytes, config.checksum_threads)
    return max(1, min(MAX_CHECKSUM_DEPTH, server // max(1, groups)))


def scan_plan(config: TestConfig) -> tuple[list[tuple[int, ...]], int]:
    """The test's scan groups (`scan_groups`) and the reads each scan keeps in flight (`scan_depth`)."""
    groups = scan_groups(config)
    return groups, scan_depth(config, len(groups))


def scan_order_words(config: TestConfig) -> str:
    """Which databases a scan reads at once, and how deep, in an engineer's words."""
    groups, depth = scan_plan(config)
    reads = f"{depth} read{'' if depth == 1 else 's'} in flight"
    if config.test_type != TestType.DATABASE_CHECKSUM:
        return f"the databases are read at once, {reads} each"
    if len(groups) == 1:
        return f"all on one volume, so read one after another, {reads}"
    return f"volume by volume: the databases of each volume one after another, {len(groups)} volumes at once, {reads} on each"
