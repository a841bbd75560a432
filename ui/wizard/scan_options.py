"""The Test type page's choice of test and what each choice leaves to set: a scan (Database checksum, Database
backup) reads each database through once, so it has read sizes and a backup folder, and no duration or warm-up; a
Soft recovery lasts as long as its log files take to generate and replay, so it has their count and the replay's
limit instead of a duration.

The backup folder is checked as the database folders are: a relative path is refused where it
is typed, and the engine's checks of the machine (the folder exists, is writable, has room for
the copies, holds no foreign file where a copy goes) are said under the field.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from engine.model.config import SCAN_TEST_TYPES, TestType
from engine.model.sizing import LOG_FILE_SIZE_BYTES
from engine.model.validation import Problem
from ui.scans import type_words

# The test types the window offers, each with a line in the field's words.
KINDS: tuple[tuple[TestType, str, str], ...] = (
    (TestType.PERFORMANCE, "", "The standard 2-hour test of the design load"),
    (TestType.STRESS, "", "A long soak at the design load, judged against the Lenient thresholds"),
    (TestType.DATABASE_CHECKSUM,
     "Reads every page of every database and its logs and verifies each; run it after a Stress test to prove the "
     "storage lost nothing",
     "Each database is read through once in sequential reads, every page's checksum, number and database verified, "
     "then its log files sector by sector; damaged pages are counted by kind. As Jetstress does, the databases of "
     "one volume are read one after another and the volumes at once. It takes as long as the reading takes."),
    (TestType.DATABASE_BACKUP,
     "Reads each database through as a streaming backup does, verifying every page; can also copy it to a backup "
     "folder",
     "Shows how fast the storage gives up the databases for a backup, many databases at once; with a backup folder "
     "each database is also written there (Jetstress's backup to disk)."),
    (TestType.SOFT_RECOVERY,
     "Generates log files under the load, stops as a crash does, and times their replay into the databases",
     "Each instance writes its log files under the transactional load at the thread count set on Thread tuning, then "
     "stops without a clean checkpoint; the replay reads every log file, redoes the updates the databases lost and "
     "reads back what it wrote. Passes when every log file is replayed without error within the limit per log file, "
     "and the load kept the Strict latency thresholds."),
)

BACKUP_EXAMPLE = "F:\\Backup" if os.name == "nt" else "/srv/jetwise/Backup"

# The options each kind of test uses, beyond those every test has.
TIMED_OPTIONS = ("duration_s", "warmup_s")  # a test that runs for a time: not a scan, not a soft recovery
LOAD_OPTIONS = ("background_maintenance", "continue_on_errors")  # a test that runs transactions: not a scan
KIND_OPTIONS: dict[TestType, tuple[str, ...]] = {
    TestType.DATABASE_CHECKSUM: ("checksum_read_kib",),
    TestType.DATABASE_BACKUP: ("backup_read_kib", "backup_path"),
    TestType.SOFT_RECOVERY: ("log_files_to_replay", "replay_limit_s"),
}
SCAN_NOTE = ("A scan reads each database through once: it lasts as long as the reading takes, with no warm-up, and "
             "runs no transactions, so the duration, warm-up and background maintenance are set for the other tests.")


def kind_of(data: dict[str, Any]) -> TestType | None:
    try:
        return TestType(str(data.get("test_type")))
    except ValueError:
        return None


def applies(path: str, kind: TestType | None, suite: bool = False) -> bool:
    """Option `path` means something for a test of `kind` (every option does while no kind is chosen); in an ESRP
    qualification (`suite`) every option does but the duration, which each of its timed tests has its own of."""
    if suite:
        return path != "duration_s"
    if path in TIMED_OPTIONS:
        return kind not in SCAN_TEST_TYPES and kind != TestType.SOFT_RECOVERY
    if path in LOAD_OPTIONS:
        return kind not in SCAN_TEST_TYPES
    kind_paths = {p for paths in KIND_OPTIONS.values() for p in paths}
    return path not in kind_paths or kind is None or path in KIND_OPTIONS.get(kind, ())


def recovery_note(files: object) -> str:
    """What a Soft recovery does, with the log files each instance generates (the field's value, while it reads)."""
    count = files if isinstance(files, int) and files > 0 else None
    many = f"{count:,}" if count is not None else "N"
    space = f"{count * LOG_FILE_SIZE_BYTES // 2**20:,} MiB" if count is not None else "N MiB"
    return (f"A soft recovery generates {many} log files of 1 MiB per instance under the transactional load of the "
            "thread count set on the Thread tuning page, then "
            "stops as a crash does, without a clean checkpoint, and replays them into each database. It lasts as long "
            f"as generating and replaying take, with no warm-up, so the duration and warm-up are set for the other "
            f"tests. Each instance needs {space} of free space on its log path.")


def backup_folder_problems(data: dict[str, Any], suite: bool = False) -> list[Problem]:
    """A backup folder given as a relative path: refused, as a relative database folder is (for a Database backup,
    and for an ESRP qualification (`suite`), whose Database backup writes there)."""
    value = data.get("backup_path")
    if (kind_of(data) != TestType.DATABASE_BACKUP and not suite) or not isinstance(value, str) or not value.strip():
        return []
    if Path(value.strip()).is_absolute():
        return []
    return [Problem("backup_path", f"give a full path, e.g. {BACKUP_EXAMPLE}: a relative "
                                   f"path ({value.strip()}) would put the copies wherever Jetwise was started from")]


def _limits(limits: dict[str, float]) -> str:
    """Every latency limit a threshold set judges, averages and maximums alike."""
    return (f"database reads ≤ {limits['db_read_avg_latency_ms']:g} ms average, ≤ {limits['db_read_max_latency_ms']:g} ms "
            f"maximum; log writes ≤ {limits['log_write_avg_latency_ms']:g} ms / {limits['log_write_max_latency_ms']:g} ms")


def kind_label(kind: TestType, thresholds: dict[str, dict[str, float]]) -> str:
    """The radio button's words: the type's name and what it does or is judged against."""
    strict, lenient = thresholds["strict"], thresholds["lenient"]
    if kind == TestType.PERFORMANCE:
        return f"Performance — Strict thresholds: {_limits(strict)}"
    if kind == TestType.STRESS:
        return f"Stress — Lenient thresholds: {_limits(lenient)} (usually 24 h)"
    line = next(words for found, words, _tip in KINDS if found == kind)
    return f"{type_words(kind)} — {line}"
