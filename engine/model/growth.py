"""How much a test grows its databases, by the model `engine.workload.growth` grows them with, and at most.

ESE takes a split's new page from the end of the database for half of the splits (the rest reuse freed space), and
the file grows by its extension size at a time. Preflight reserves `growth_bound_bytes` on each database's volume, so
a volume that holds the databases and logs but not what the test adds to them is refused before the test, not filled
in the middle of its measurement (docs/workload.md, "The database grows").
"""

from __future__ import annotations

import math

from engine.model.config import TestConfig
from engine.model.derive import MICROSOFT_IOPS_PER_THREAD
from engine.model.sizing import LOG_FILE_SIZE_BYTES, PAGE_SIZE_BYTES
from engine.model.units import compact_duration

SPLIT_CHANCE = 0.0725  # inserts that split their leaf: about 4.5 % of flush writes are two pages
SPLIT_PAGES_AT_END = 0.5  # splits whose new page extends the database; the rest reuse space that deletes freed
EXTENSION_PAGES = 256  # ESE's database extension size (JET_paramDbExtensionSize): 8 MiB of 32 KiB pages
INSERT_LOG_BYTES = 2900  # an insert's log record
RATE_MARGIN = 2.0  # the bound's transactions per second: twice the larger of the target and Microsoft's per-thread rate


def end_share(config: TestConfig) -> float:
    """The share of splits whose page extends the database: half, scaled as the test databases are from their
    production size (a database at 1 % of its size grows by 1 % as much, so it grows in the same proportion)."""
    return SPLIT_PAGES_AT_END * config.production_share


def growth_bytes_per_transaction(config: TestConfig) -> float:
    """What one transaction of the configured mix adds to its database on average."""
    return config.operation_mix.insert_percent / 100.0 * SPLIT_CHANCE * end_share(config) * PAGE_SIZE_BYTES


def growth_bound_bytes(config: TestConfig) -> int:
    """At most what the test grows each database file by, in whole extensions (at least one: a created database is
    full, so its first split at the end extends it).

    A scan grows nothing. A Performance or Stress test's transactions, warm-up included, are counted at twice the
    larger of its target and 135 per thread (Microsoft's rule), one transfer each: storage carries the target at
    about 1.65 transfers per transaction, so the bound holds for a run that beats its target several times over. A
    Soft Recovery's warm-up counts so too; its inserts after it are bounded by the log files it generates, each
    insert's record taking its share of them.
    """
    if config.scans:
        return 0
    rate = RATE_MARGIN * max(config.target_transactional_iops, config.thread_count * MICROSOFT_IOPS_PER_THREAD)
    loaded_s = config.warmup_s + (0.0 if config.recovers else config.duration_s)
    grown = rate * loaded_s * growth_bytes_per_transaction(config)
    if config.recovers:
        inserts = config.log_files_to_replay * LOG_FILE_SIZE_BYTES / INSERT_LOG_BYTES * len(config.databases)
        grown += inserts * SPLIT_CHANCE * end_share(config) * PAGE_SIZE_BYTES
    extension = EXTENSION_PAGES * PAGE_SIZE_BYTES
    return max(1, math.ceil(grown / config.database_file_count / extension)) * extension


def growth_words(config: TestConfig) -> str:
    """What the growth bound is for: "a 2h1m run" (its warm-up included), or a Soft Recovery's log files."""
    if config.recovers:
        return f"the {config.log_files_to_replay:,} log files per instance it generates" + (
            f" after a {compact_duration(config.warmup_s)} warm-up" if config.warmup_s else "")
    return f"a {compact_duration(config.warmup_s + config.duration_s)} run" + (" (its warm-up included)" if config.warmup_s else "")
