"""What the mailboxes ask of the storage, the limits it must keep, and where the databases go: the parts of a test
configuration.

Each field declares its title, description and bounds for pydantic and, through `cli()`, its
unit and command-line flag; `engine.model.options` reads them back for the CLI and the wizard.
"""

from __future__ import annotations

import math
from enum import StrEnum
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from engine.model.host_names import host_problem


def cli(flag: str | None = None, *, unit: str = "", default_words: str = "", duration: bool = False,
        aliases: dict[str, str] | None = None) -> dict[str, Any]:
    """What an option declares beside pydantic's title, description and bounds: its flag and unit.

    `default_words` says how a default that is computed, not fixed, is found; `duration`
    marks seconds the command line reads as 2h, 30m or 45s; `aliases` are other words the command line takes for a
    choice (any case), each standing for one of its values. `engine.model.options`
    reads these back for the CLI and the wizard.
    """
    extra = {"flag": flag, "unit": unit, "default_words": default_words, "duration": duration, "aliases": aliases}
    return {key: value for key, value in extra.items() if value}


def _numeric(annotation: Any) -> bool:
    """A field that holds a number (`int`, `float`, or either or None)."""
    return annotation in (int, float) or any(part in (int, float) for part in get_args(annotation))


class ConfigPart(BaseModel):
    # NaN and infinity pass every bound check unnoticed (or as "less than 100 (got nan)"): refuse them by name.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_true_or_false_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        """JSON's true or false is no number, though pydantic would read it as 1 or 0 (`"duration_s": true`, a test of
        1 s): refused by name wherever a number belongs."""
        if isinstance(value, bool) and info.field_name and _numeric(cls.model_fields[info.field_name].annotation):
            raise ValueError(f"must be a number, not {str(value).lower()}")
        return value


class ExchangeVersion(StrEnum):
    """The Exchange generation whose workload a test drives and is judged as (`engine.model.exchange`)."""

    EXCHANGE_2013 = "2013"  # Exchange 2013, 2016, 2019 and Subscription Edition: Jetstress 2013's workload
    EXCHANGE_2010 = "2010"  # Jetstress 2010's, as Jetwise ran every test before the choice existed

    @classmethod
    def _missing_(cls, value: object) -> ExchangeVersion | None:
        """A later Exchange named by its own version (2016, 2019, SE, in any case) is the 2013 generation."""
        named = {alias.casefold(): version for alias, version in EXCHANGE_ALIASES.items()}.get(str(value).strip().casefold())
        return cls(named) if named is not None else None


# Exchange versions qualified with the 2013 generation's workload, as an engineer may name them
EXCHANGE_ALIASES = {"2016": "2013", "2019": "2013", "SE": "2013"}


class MailboxProfile(ConfigPart):
    """What the mailbox design asks of the storage."""

    exchange: ExchangeVersion = Field(
        ExchangeVersion.EXCHANGE_2013, title="Exchange version",
        description="2013: Exchange 2013, 2016, 2019 or Subscription Edition, qualified with Jetstress 2013 (about 1 MB/s "
        "of background maintenance per database, a 100 MB checkpoint depth, a thread count for the server); 2010: "
        "Exchange 2010 and Jetstress 2010's workload (4.5 MB/s of maintenance, its calibrated checkpoint depth).",
        json_schema_extra=cli("--exchange", aliases=EXCHANGE_ALIASES))

    # The upper bounds keep the database size arithmetic in floating point's range; no server comes near them.
    mailboxes: int = Field(
        1000, gt=0, le=1_000_000_000, title="Mailboxes", description="Number of mailboxes this server hosts.",
        json_schema_extra=cli("--mailboxes", unit="mailboxes"))
    iops_per_mailbox: float = Field(
        0.1, gt=0, le=100, title="IOPS per mailbox", description="Transactional I/O per second each mailbox generates.",
        json_schema_extra=cli("--iops-per-mailbox", unit="IOPS"))
    mailbox_size_mb: int = Field(1024, gt=0, le=1024 * 1024, title="Mailbox size (MB)",
                                 description="Mailbox quota in MB (1 MB = 1,048,576 bytes, as Windows counts).",
                                 json_schema_extra=cli("--mailbox-size-mb", unit="MB"))
    headroom_percent: float = Field(
        20.0, ge=0, le=500, title="Headroom (%)",
        description="Extra IOPS on top of the design figure; the ESRP papers test with 20 %.",
        json_schema_extra=cli("--headroom-percent", unit="%"))

    @property
    def headroom_factor(self) -> float:
        return 1 + self.headroom_percent / 100.0

    @property
    def target_iops(self) -> float:
        """Transactional IOPS the design asks for: mailboxes × IOPS per mailbox, plus the headroom."""
        return self.mailboxes * self.iops_per_mailbox * self.headroom_factor


class ReportDetails(ConfigPart):
    """Who the report is for and what it tested, for its first page: none of it changes the test."""

    customer: str = Field("", max_length=200, title="Customer", description="The customer the report is for.",
                          json_schema_extra=cli("--customer"))
    storage_model: str = Field("", max_length=200, title="Storage model",
                               description="The storage tested: its vendor, model and configuration.",
                               json_schema_extra=cli("--storage-model"))
    engineer: str = Field("", max_length=200, title="Engineer", description="Who ran the test.",
                          json_schema_extra=cli("--engineer"))


class ThresholdSet(ConfigPart):
    """Latency limits that one instance must stay within."""

    db_read_avg_latency_ms: float = Field(20.0, gt=0, title="Average database read latency (ms)")
    db_read_max_latency_ms: float = Field(100.0, gt=0, title="Maximum database read latency (ms)")
    log_write_avg_latency_ms: float = Field(10.0, gt=0, title="Average log write latency (ms)")
    log_write_max_latency_ms: float = Field(100.0, gt=0, title="Maximum log write latency (ms)")


def _strict() -> ThresholdSet:
    return ThresholdSet()


def _lenient() -> ThresholdSet:
    return ThresholdSet(db_read_max_latency_ms=200.0, log_write_max_latency_ms=200.0)


class MaximumLatency(StrEnum):
    """What an instance's maximum database read and log write latency is."""

    # Jetstress's: its figures are performance counters logged every LogInterval, so its maximum is the highest
    # average over one interval
    INTERVAL_AVERAGE = "interval-average"
    SINGLE_IO = "single-io"  # the slowest single I/O: stricter than Jetstress, asked for by name


class ThreadWeight(StrEnum):
    """What one transaction thread does besides its I/O (see `engine.workload.pacing`)."""

    # Jetstress's: besides waiting on its database reads, a thread spends the rest of its time as a Jetstress
    # thread does, so a thread count carries what the same count carries in Jetstress
    JETSTRESS = "jetstress"
    READS_ONLY = "reads-only"  # waits on its reads and commits only: about 2.5 Jetstress threads; asked for by name


LOG_INTERVAL_STEP_S = 15.0  # a log interval is whole windows of the samples file (engine.results.sample_file)
MINIMUM_MEASURED_S = 30.0  # two log intervals: a run's highest log-interval average is taken over more than one


class Thresholds(ConfigPart):
    """The Jetstress threshold sets: Strict for Performance, Lenient for Stress, and how a maximum is taken."""

    strict: ThresholdSet = Field(default_factory=_strict, title="Strict thresholds")
    lenient: ThresholdSet = Field(default_factory=_lenient, title="Lenient thresholds")
    maximum_latency: MaximumLatency = Field(
        MaximumLatency.INTERVAL_AVERAGE, title="Maximum latency judged on",
        description="interval-average: an instance's highest average over one log interval, as Jetstress's "
        "performance counters give it; single-io: its slowest single I/O, stricter than Jetstress.",
        json_schema_extra=cli("--maximum-latency"))
    log_interval_s: float = Field(
        15.0, ge=LOG_INTERVAL_STEP_S, le=3600, multiple_of=LOG_INTERVAL_STEP_S, title="Log interval (s)",
        description="The interval a maximum latency is averaged over, in whole 15 s steps (Jetstress's LogInterval, "
        "15 s by default).",
        json_schema_extra=cli("--log-interval", unit="s"))
    minimum_measured_s: float = Field(
        MINIMUM_MEASURED_S, ge=0, le=86400, title="Shortest measured window judged (s)",
        description="A Performance or Stress run measured for less ends FAIL, not enough measured, however its IOPS "
        "and latency looked: two log intervals at least (0: judge any length, to rehearse the paths).",
        json_schema_extra=cli("--minimum-measured", unit="s", duration=True))

    @property
    def averaged_maxima(self) -> bool:
        """A maximum latency is the highest log-interval average (Jetstress's), not the slowest single I/O."""
        return self.maximum_latency == MaximumLatency.INTERVAL_AVERAGE


class OperationMix(ConfigPart):
    """Share of each transaction kind; insert + delete + replace + read must make 100 %."""

    insert_percent: float = Field(40.0, ge=0, le=100, title="Inserts (%)")
    delete_percent: float = Field(20.0, ge=0, le=100, title="Deletes (%)")
    replace_percent: float = Field(5.0, ge=0, le=100, title="Replaces (%)")
    read_percent: float = Field(35.0, ge=0, le=100, title="Reads (%)")
    lazy_commit_percent: float = Field(
        70.0, ge=0, le=100, title="Lazy commits (%)", description="Updates that do not wait for the log."
    )

    @model_validator(mode="after")
    def _sums_to_100(self) -> OperationMix:
        total = self.insert_percent + self.delete_percent + self.replace_percent + self.read_percent
        if not math.isclose(total, 100.0, abs_tol=1e-6):
            raise ValueError(f"inserts + deletes + replaces + reads make {total:g} %; they must make 100 %")
        return self

    @property
    def update_fraction(self) -> float:
        return (self.insert_percent + self.delete_percent + self.replace_percent) / 100.0


class Scenario(StrEnum):
    """Jetstress's two scenarios: a mailbox profile's target, or the most the disk subsystem passes."""

    MAILBOX_PROFILE = "mailbox_profile"
    DISK_THROUGHPUT = "disk_throughput"


# What the disk throughput scenario's database size comes from: a change to one of them sizes the databases again.
SIZED_FROM = ("scenario", "capacity_percent", "databases")


class TestType(StrEnum):
    """The Jetstress test types."""

    PERFORMANCE = "performance"
    STRESS = "stress"
    DATABASE_BACKUP = "database_backup"
    SOFT_RECOVERY = "soft_recovery"
    DATABASE_CHECKSUM = "database_checksum"


# Tests that read the databases through once instead of running transactions for a time.
SCAN_TEST_TYPES = frozenset({TestType.DATABASE_CHECKSUM, TestType.DATABASE_BACKUP})
# Tests that run transactions for a time, judged on transactional IOPS (the others last as long as their work takes).
TIMED_TEST_TYPES = frozenset({TestType.PERFORMANCE, TestType.STRESS})


class DatabaseSource(StrEnum):
    CREATE = "create"
    ATTACH = "attach"


MAX_MORE_DATABASE_FILES = 15  # an instance holds at most 16 database files


class DatabaseSpec(ConfigPart):
    """Where one database instance keeps its database files and its log files."""

    database_path: Path = Field(title="Database path", description="Folder for the database file.",
                                json_schema_extra=cli("--db-path"))
    log_path: Path = Field(title="Log path", description="Folder for the instance's log files.",
                           json_schema_extra=cli("--log-path"))
    more_database_paths: list[Path] = Field(
        default_factory=list, max_length=MAX_MORE_DATABASE_FILES, title="More database paths",
        description="Folders for the instance's further database files, one each (Jetstress's DatabasePaths after the "
        "first): each is one more database of the instance, sharing its log, its threads and its cache.")

    @field_validator("database_path", "log_path", mode="before")
    @classmethod
    def _a_folder(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            raise ValueError("enter a folder: an empty path would put the files wherever Jetwise was started from")
        if "\0" in str(value):
            raise ValueError("the path holds a NUL character (\\x00), which no file system accepts")
        return value

    @field_validator("more_database_paths", mode="before")
    @classmethod
    def _folders(cls, value: object) -> object:
        return [cls._a_folder(item) for item in value] if isinstance(value, list) else value

    @property
    def database_paths(self) -> list[Path]:
        """The folder of each of the instance's database files, the first first."""
        return [self.database_path, *self.more_database_paths]

    def folders(self, index: int) -> list[tuple[str, Path, int | None]]:
        """Instance `index`'s folders, each with its field path and, for a database folder, which of its files goes
        there (None: the log folder)."""
        more = [(f"databases[{index}].more_database_paths[{n}]", path, n + 1) for n, path in enumerate(self.more_database_paths)]
        return [(f"databases[{index}].database_path", self.database_path, 0), *more,
                (f"databases[{index}].log_path", self.log_path, None)]


class ServerPart(ConfigPart):
    """One server of a test across servers: the enrolled host whose agent runs its share of the test, and where its
    databases and logs are when its disks differ from the test's folders."""

    host: str = Field(title="Server", description="An enrolled server (jetwise hosts add HOST), by the name it enrolled with.")
    databases: list[DatabaseSpec] = Field(
        default_factory=list, title="Its database and log folders",
        description="The server's own folders, one per database of the test; empty: the test's folders, on that server.")
    backup_path: Path | None = Field(
        None, title="Its backup folder", description="A Database Backup's copies on that server; none: the test's.")

    @field_validator("host")
    @classmethod
    def _a_host(cls, value: str) -> str:
        problem = host_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value
