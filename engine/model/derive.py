"""What is computed from a few answers rather than typed: the starting thread count, folders, the quick check.

The rules live here once; the CLI's `init`, the wizard and the advisor's first run use them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from engine.model.config import MAX_THREADS, DatabaseSpec, MailboxProfile, TestConfig, ThreadWeight
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.units import MIB

MICROSOFT_IOPS_PER_THREAD = 135
"""Microsoft's manual starting point for Jetstress: one thread per 135 target transactional IOPS."""


class FolderListError(ValueError):
    """Folders given for the databases that cannot be spread over them: a wrong count, or an empty one."""


def default_thread_count(target_iops: float, databases: int) -> int:
    """Microsoft's rule: one thread per 135 target IOPS, at least one per database, at most what a test can run."""
    return min(MAX_THREADS, max(databases, math.ceil(max(0.0, target_iops) / MICROSOFT_IOPS_PER_THREAD)))


def expand_paths(values: list[str] | None, count: int, default_base: Path, leaf: str) -> list[Path]:
    """One folder per database from what was typed: none (DB1, DB2 under a base), one with {n}, one base, or one each."""
    if not values:
        return [default_base / f"{leaf}{n}" for n in range(1, count + 1)]
    if not all(v.strip() for v in values):
        raise FolderListError("an empty folder was given; an empty path would put the files wherever Jetwise was started from")
    if len(values) == 1:
        value = values[0]
        if "{n}" in value:
            return [Path(value.replace("{n}", str(n))) for n in range(1, count + 1)]
        if count == 1:
            return [Path(value)]
        return [Path(value) / f"{leaf}{n}" for n in range(1, count + 1)]
    if len(values) != count:
        raise FolderListError(f"{len(values)} paths given for {count} databases; give one per database or one with {{n}}")
    return [Path(v) for v in values]


def with_derived_defaults(data: dict[str, Any], databases: int) -> dict[str, Any]:
    """Configuration data with what was left out derived: the thread count from the profile's target."""
    if data.get("thread_count") is None:
        data = dict(data)
        try:
            profile = MailboxProfile.model_validate(data.get("profile", {}))
        except ValueError:
            target = 0.0  # the profile's own problems are reported when the whole is validated
        else:
            target = profile.target_iops
        data["thread_count"] = default_thread_count(target, databases)
    return data


def quick_config(output: Path) -> TestConfig:
    """Two small databases beside the run folders: about a minute on a healthy disk.

    The data folder is the same for every quick check under one runs folder, so quick
    checks repeat one storage design and land in one tuning session.
    """
    data = output.parent / "quick-check-data"
    return TestConfig(
        description="Quick check: 2 small databases, about one minute",
        databases=[DatabaseSpec(database_path=data / f"DB{n}", log_path=data / f"Log{n}") for n in (1, 2)],
        profile=MailboxProfile(mailboxes=100, iops_per_mailbox=0.1, mailbox_size_mb=1024),
        capacity_percent=0.5,  # 256 MB per database
        thread_count=2,
        duration_s=45.0,
        warmup_s=10.0,
    )


def target_words(target_iops: float, places: int = 1) -> str:
    """A target in words; a target of 0 is the disk throughput scenario's, which has none."""
    if target_iops <= 0:
        return "no target: the most transactional IOPS that pass"
    return f"target {target_iops:,.{places}f} transactional IOPS"


def achieved_words(achieved_iops: float, target_iops: float) -> str:
    """Achieved transactional IOPS against the target ("1,234.5 of 1,200.0 target transactional IOPS")."""
    if target_iops <= 0:
        return f"{achieved_iops:,.1f} transactional IOPS (disk throughput: no target)"
    return f"{achieved_iops:,.1f} of {target_iops:,.1f} target transactional IOPS"


def cache_words(config: TestConfig) -> str:
    """The database cache as an engineer plans it: the server's, and each database's share of it."""
    sizes = f"{config.database_cache_min_mb:,g} to {config.database_cache_max_mb:,g} MB"
    if not config.database_cache_shared:
        return f"database cache {sizes} for each database"
    count = config.database_file_count
    words = (f"database cache {sizes} for the server's one database" if count == 1 else
             f"database cache {sizes} for the server, shared by its {count} databases: "
             f"{config.database_cache_mb_per_database:,.1f} MB each at most")
    if config.database_size_mb is None and config.capacity_percent < 100:  # the cache keeps the database's ratio
        modelled = config.database_cache_pages * PAGE_SIZE_BYTES / MIB
        words += f" ({modelled:,.1f} MB at this test's {config.capacity_percent:g} % of the profile's database size)"
    return words


def thread_weight_words(weight: ThreadWeight) -> str:
    """What a thread of `weight` carries, in an engineer's words."""
    if weight == ThreadWeight.JETSTRESS:
        return "like a Jetstress thread (it carries what one carries at the same latency)"
    return ("reads only, as before Jetwise's result schema 10 (a thread waits on its reads and commits only and "
            "carries about 2.5 Jetstress threads' transfers)")
