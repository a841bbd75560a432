"""Validation: every problem at once, each tied to its field, in words an engineer can act on.

`validate_data` checks raw input (a JSON file, wizard fields) against the model and
`check_rules` a valid model against itself. The checks against the machine are in
`engine.io.preflight`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from pydantic import ValidationError

from engine.model.config import FROM_FILE, TestConfig
from engine.model.exchange import MESSAGES_ROWS, MESSAGES_STEP
from engine.model.fields import FieldAddress, FieldError
from engine.model.options import BOUND_ERRORS, option_at
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.units import as_typed, format_bytes


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # how an input was carried over: nothing to act on


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a configuration, and the field it belongs to."""

    field: str
    message: str
    severity: Severity = Severity.ERROR

    @property
    def located(self) -> str:
        """The message after its field, without the level: for a log line that carries its level itself."""
        return f"{self.field}: {self.message}" if self.field else self.message

    def __str__(self) -> str:
        prefix = "" if self.severity == Severity.ERROR else f"{self.severity.value}: "
        return prefix + self.located


def errors_only(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == Severity.ERROR]


RUN_FOLDER_FIELD = "output"  # a run's own folder: not in the configuration, but a runner's problem may be about it
HOSTS_FIELD = "hosts"  # the servers of a test across servers: not in the configuration either


def _field_path(location: tuple[int | str | None, ...], limit: int = 80) -> str:
    """The field's address, "databases[1].log_path"; a made-up key as long as a page is cut short."""
    out = FieldAddress(location).text
    return out if len(out) <= limit else out[: limit - 1] + "…"


def problems_from_validation_error(error: ValidationError) -> list[Problem]:
    problems = []
    for item in error.errors(include_url=False):
        message = str(item["msg"])
        location: tuple[int | str | None, ...] = tuple(item["loc"])
        found = item.get("ctx", {}).get("error")
        if isinstance(found, FieldError):  # a rule across fields, raised at the field it names
            location += found.field
        bound = _bound_words(location, item)
        if bound is not None:  # the field's words, from its declaration: "at least 1 mailbox", not "greater than 0"
            message = bound
        elif message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        elif item["type"] == "extra_forbidden":
            message = "is not a Jetwise setting"
        elif item["type"] == "missing":
            message = "is missing"
        else:
            message = _type_words(item)
            if "input" in item:
                message += f" (got {as_typed(item['input'])})"
        problems.append(Problem(_field_path(location), message))
    return problems


# pydantic's errors of a value's kind, in a field's words: "must be a whole number", not "input should be a valid
# integer, unable to parse string as an integer"
_TYPE_WORDS = {"int_parsing": "must be a whole number", "int_type": "must be a whole number",
               "int_from_float": "must be a whole number", "float_parsing": "must be a number",
               "float_type": "must be a number", "finite_number": "must be a finite number",
               "string_type": "must be text"}


def _type_words(item: Mapping[str, Any]) -> str:
    """Any other error of a value, said as the field's rule ("must be a multiple of 32", "must be 1")."""
    known = _TYPE_WORDS.get(str(item["type"]))
    if known is not None:
        return known
    message = str(item["msg"])
    for validators in ("Input should be ", "Value should be "):
        if message.startswith(validators):
            return "must be " + message[len(validators):]
    return f"{message[0].lower()}{message[1:]}"


def _bound_words(location: tuple[int | str | None, ...], item: Mapping[str, Any]) -> str | None:
    """A bound a value broke, in its field's words (`Option.bound_words`) with the value refused; None for any other
    error, or a field declared with no option of its own."""
    kind = item["type"]
    if kind not in BOUND_ERRORS:
        return None
    field = FieldAddress(location)
    found = option_at(field.text)
    if found is None or found.path != field.pattern:
        return None
    return f"{found.bound_words(kind, float(item['ctx'][BOUND_ERRORS[kind][0]]))} (got {found.got_words(item['input'])})"


def validate_data(data: Mapping[str, Any] | str) -> tuple[TestConfig | None, list[Problem]]:
    """Build a model from raw data (dict, or a configuration file's JSON text); return it or every problem found."""
    try:
        if isinstance(data, str):
            return TestConfig.model_validate_json(data, context=FROM_FILE), []
        return TestConfig.model_validate(dict(data)), []
    except ValidationError as exc:
        return None, problems_from_validation_error(exc)


def check_rules(config: TestConfig) -> list[Problem]:
    """Checks across fields that need no file system."""
    problems: list[Problem] = []
    if config.thread_count < config.database_count:
        problems.append(
            Problem(
                "thread_count",
                f"{config.thread_count} thread(s) cannot serve {config.database_count} databases; "
                f"each database needs at least one thread",
            )
        )
    every = [(field, index, path, part) for index, spec in enumerate(config.databases)
             for field, path, part in spec.folders(index)]
    database_folders = [f for f in every if f[3] == 0] + [f for f in every if f[3]]  # every instance's first, then more
    for what, folders in (("folder", database_folders), ("log folder", [f for f in every if f[3] is None])):
        seen: dict[str, int] = {}
        for field, index, folder, _ in folders:
            key = os.path.normcase(os.path.normpath(str(folder)))
            if key in seen:
                who = (f"database {index + 1} has two files in {folder}; give each database file"
                       if seen[key] == index else f"databases {seen[key] + 1} and {index + 1} share {folder}; give each database")
                problems.append(Problem(field, f"{who} its own {what}"))
            else:
                seen[key] = index
    if cache_holds_database(config):
        problems.append(Problem("database_cache_max_mb", cache_holds_words(cache_design(config)),
                                Severity.WARNING))  # an error would refuse the window a file to open and correct
    if config.seeks_maximum and config.database_size_mb is None:
        problems.append(Problem(
            "database_size_mb",
            f"the disk throughput scenario sizes each database from its volume's free space, but this configuration "
            f"has no database size: the mailbox profile sizes them ({format_bytes(config.database_size_bytes)} each); "
            "`jetwise init --scenario disk_throughput` sizes them, or set --database-size-mb",
            Severity.WARNING,
        ))
    problems += _outsized(config)
    if config.duration_s < config.sample_interval_s and not config.open_ended:
        problems.append(Problem(
            "duration_s",
            f"the test measures {config.duration_s:g} s, less than one sample interval ({config.sample_interval_s:g} s): "
            "it would measure nothing; give at least one interval",
        ))
    elif config.duration_s < config.thresholds.minimum_measured_s and not config.open_ended:
        problems.append(Problem("duration_s", short_window_words(config), Severity.WARNING))
    return problems


# The most of a run's measured database page references that may be cache hits. A transaction's upper B-tree levels are
# always in the cache (1 to 3 hits for its one leaf), so a database much larger than its cache, as Jetstress requires,
# measures 50 to 80 % hits (75 % at the defaults); above 99 %, the cache served at least 96 % of the leaves the
# transactions touched, and the few reads the storage served (the pages not yet warm) say nothing of it.
CACHE_HIT_LIMIT_PERCENT = 99.0


def cache_pages_held(config: TestConfig) -> int:
    """Pages of one instance's database cache that hold database pages once warm (the buffers kept free left out)."""
    return config.database_cache_pages - config.flush_thresholds_pages[1]


# The least share of the transactions' leaf reads the storage must serve once the cache is warm for a test to be one
# of the storage. A transaction reads one leaf, each leaf alike likely (`engine.workload.instance`), and the cache
# keeps the pages used most recently (`engine.workload.cache`), so a cache of C pages held over D equally likely leaves
# serves C / D of the leaf reads and the storage the rest, whatever the replacement policy's detail. Jetstress's own sizing leaves the
# storage nearly all of them: its cache is at most 256 MB an instance (3 GB over 12 databases in the ESRP paper's run)
# against databases of hundreds of GB (914 GB each there, the cache 0.03 % of it), and a database sized from a mailbox
# profile at any capacity keeps the cache in that ratio (`TestConfig.database_cache_pages`). Below half, the cache,
# not the storage, serves most of the reads the target counts on the storage for, so the latency and the IOPS describe
# the cache: only a database set small by hand, or a cache set large, comes under the line.
STORAGE_READ_SHARE_MIN_PERCENT = 50.0


def storage_read_percent(config: TestConfig) -> float:
    """The share (%) of the transactions' leaf reads that miss the warm cache and so are the storage's, by design."""
    leaves = max(1, config.database_pages - 1)
    return 100.0 * max(0.0, 1.0 - cache_pages_held(config) / leaves)


def cache_holds_database(config: TestConfig) -> bool:
    """The design is not a test of the storage: once warm, its database cache serves more of the transactions' reads
    than the storage would (`STORAGE_READ_SHARE_MIN_PERCENT`), at any length. A run of it is judged FAIL on the
    design's criterion, whatever it measured. A scan reads no cache, and a Soft Recovery is judged on its replay."""
    return storage_read_percent(config) < STORAGE_READ_SHARE_MIN_PERCENT and not config.open_ended


class CacheDesign(NamedTuple):
    """A design's database cache against its databases, as the words about it need them."""

    held_bytes: int  # of one instance's cache, once warm
    database_bytes: int  # each database file
    storage_percent: float  # `storage_read_percent`
    least_database_bytes: int  # the smallest database that passes at this cache
    most_cache_mb: float  # the largest maximum database cache (the server's) that passes at this database size


def cache_design(config: TestConfig) -> CacheDesign:
    held = cache_pages_held(config) * PAGE_SIZE_BYTES
    # the server's cache whose share per database is half the database: its held part is a little less, so it passes
    shares = config.database_file_count if config.database_cache_shared else 1
    most = config.database_size_bytes / 2 * shares / config.production_share / 2**20
    return CacheDesign(held, config.database_size_bytes, storage_read_percent(config), 2 * held + PAGE_SIZE_BYTES, most)


def larger_than_cache_words(design: CacheDesign | None = None) -> str:
    """What to change when the cache served a test: the databases larger, or the cache smaller (the sizes that pass
    where the design is at hand)."""
    if design is None:
        return ("raise the mailboxes or the mailbox size until each database is at least twice the database cache, "
                "or lower the database cache")
    return (f"raise the mailboxes or the mailbox size (or the database size) until each database is at least "
            f"{format_bytes(design.least_database_bytes)}, twice the database cache it would hold "
            f"({format_bytes(design.held_bytes)} per instance), or lower the database cache (its maximum) to "
            f"{design.most_cache_mb:,.0f} MB or less")


def cache_holds_words(design: CacheDesign) -> str:
    """What Review, `jetwise validate`, a run's log, its verdict and the advisor say of a design whose cache serves
    the reads."""
    covers = "the whole database" if design.storage_percent <= 0 else f"{100 - design.storage_percent:.0f} % of each database"
    return (f"the database cache ({format_bytes(design.held_bytes)} per instance) holds {covers} "
            f"({format_bytes(design.database_bytes)}), so once warm the storage serves {design.storage_percent:.0f} % of "
            f"the transactions' database reads, less than the {STORAGE_READ_SHARE_MIN_PERCENT:g} % a test of the storage "
            f"needs: this design is not a test of the storage, and a run of it is judged FAIL at any length; "
            f"{larger_than_cache_words(design)}")


AUTO_TUNE_HELD = ("auto-tune has no setting to find: no thread count or SluggishSessions makes this design a test of the "
                  "storage, as the warning on the database cache says; make the databases larger or the cache smaller, "
                  "or choose Manual to run it as it is, judged FAIL")


def short_window_words(config: TestConfig) -> str:
    """What a duration below the shortest measured window judged comes to, said where the length is typed."""
    least = config.thresholds.minimum_measured_s
    return (f"a verdict needs at least {least:g} s measured (Shortest measured window judged): a run measuring "
            f"{config.duration_s:g} s ends FAIL, not enough measured; enough to check the paths, not to judge the "
            "storage")


PLAUSIBLE_TARGET_IOPS = 200_000.0  # far beyond one Exchange server's storage: the ESRP papers test a few thousand
PLAUSIBLE_DATABASE_BYTES = 16 * 2**40  # ... and a database far past the 2 TB Microsoft plans one at, with copies


def _outsized(config: TestConfig) -> list[Problem]:
    """A profile no Exchange server is planned at: said loudly, as a typing slip usually is, but not refused."""
    p = config.profile
    problems = []
    if not config.seeks_maximum and config.target_transactional_iops > PLAUSIBLE_TARGET_IOPS:
        problems.append(Problem(
            "profile.mailboxes",
            f"{p.mailboxes:,} mailboxes × {p.iops_per_mailbox:g} IOPS ask {config.target_transactional_iops:,.0f} "
            f"transactional IOPS of one server, more than {PLAUSIBLE_TARGET_IOPS:,.0f}: far beyond any Exchange "
            "server's storage; check the mailbox count and the IOPS per mailbox", Severity.WARNING))
    if config.database_size_bytes > PLAUSIBLE_DATABASE_BYTES:
        problems.append(Problem(
            "profile.mailbox_size_mb",
            f"each database would be {format_bytes(config.database_size_bytes)} ({p.mailboxes:,} mailboxes × "
            f"{p.mailbox_size_mb:,} MB over {config.database_file_count} databases), more than "
            f"{format_bytes(PLAUSIBLE_DATABASE_BYTES)}: Microsoft plans an Exchange database at 2 TB at most with "
            "database copies; check the mailbox size and count, or add databases", Severity.WARNING))
    busiest = MESSAGES_ROWS * MESSAGES_STEP
    heaviest = config.generation.iops_per_mailbox(busiest, copies=False)
    if not config.seeks_maximum and p.iops_per_mailbox > 2 * heaviest:
        problems.append(Problem(
            "profile.iops_per_mailbox",
            f"{p.iops_per_mailbox:g} IOPS per mailbox is more than twice what the heaviest mailbox asks of "
            f"{config.generation.words} ({heaviest:g} at {busiest} messages a day): check the IOPS per mailbox",
            Severity.WARNING))
    planned = config.planned_database_bytes
    if config.database_size_mb is not None and not config.seeks_maximum and config.database_size_bytes < planned / 10:
        problems.append(Problem(
            "database_size_mb",
            f"each database is {format_bytes(config.database_size_bytes)}, "
            f"{100 * config.database_size_bytes / planned:.2g} % of the {format_bytes(planned)} the profile plans for "
            f"it ({p.mailboxes:,} mailboxes × {p.mailbox_size_mb:,} MB over {config.database_file_count} databases): "
            "the test measures a database far smaller than production's, its reads nearer each other; without a set "
            "size the profile sizes it", Severity.WARNING))
    return problems
