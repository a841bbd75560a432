"""The one configuration model for a Jetwise test.

The wizard, the CLI, JSON files and (later) the Jetstress XML importer all produce a
`TestConfig`. Field bounds live here, with the parts in `engine.model.profile`; checks
against the model's own rules are in `engine.model.validation`, against the machine in
`engine.io.preflight`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import Field, ValidationInfo, model_validator

from engine.model.exchange import CHECKPOINT_DEPTH_COPIES, CHECKPOINT_DEPTH_STANDALONE, Generation, generation
from engine.model.fields import FieldError
from engine.model.host_names import on_server
from engine.model.profile import (
    SCAN_TEST_TYPES,
    TIMED_TEST_TYPES,
    ConfigPart,
    DatabaseSource,
    DatabaseSpec,
    ExchangeVersion,
    MailboxProfile,
    MaximumLatency,
    OperationMix,
    ReportDetails,
    Scenario,
    ServerPart,
    TestType,
    ThreadWeight,
    Thresholds,
    ThresholdSet,
    cli,
)
from engine.model.sizing import Sizing
from engine.model.test_kind import TestKind

T = TypeVar("T")

__all__ = [  # the parts in engine.model.profile are read through here too
    "FROM_FILE", "MAX_THREADS", "SCAN_TEST_TYPES", "SCHEMA_VERSION", "TIMED_TEST_TYPES", "DatabaseSource", "DatabaseSpec",
    "ExchangeVersion", "MailboxProfile", "MaximumLatency", "OperationMix", "ReportDetails", "Scenario", "TestConfig",
    "TestType", "ThreadWeight", "ThresholdSet", "Thresholds", "cli", "default_config",
]

# 2: the mailbox profile names its Exchange version (`profile.exchange`); a file of version 1 ran Exchange 2010's workload
SCHEMA_VERSION: Literal[2] = 2
FROM_FILE = {"from": "file"}  # the validation context of a configuration file's text: see `TestConfig._exchange_of_its_time`
MAX_DURATION_S = 30 * 86400.0  # the longest test: a month
MAX_THREADS = 4096
# An I/O not completed this long after it was issued is hung: ESE's JET_paramHungIOThreshold, its default and range
# (sysparamtable.g.cxx, docs/ese-source.md section 3).
HUNG_IO_THRESHOLD_S = 30.0
HUNG_IO_MIN_S = 11.0
HUNG_IO_MAX_S = 30 * 60.0


class TestConfig(ConfigPart, TestKind, Sizing):
    """Everything that defines one Jetwise test run."""

    __test__ = False  # a domain name, not a pytest test class

    schema_version: Literal[2] = Field(SCHEMA_VERSION, title="Schema version")
    description: str = Field(
        "", max_length=500, title="Description", description="Words for the report: the server, the storage design.",
        json_schema_extra=cli("--description"))
    scenario: Scenario = Field(
        Scenario.MAILBOX_PROFILE, title="Scenario",
        description="mailbox_profile: a test against the profile's target IOPS; disk_throughput: no target, tuning "
        "finds the most transactional IOPS the storage passes within the thresholds.",
        json_schema_extra=cli("--scenario"))
    profile: MailboxProfile = Field(default_factory=MailboxProfile, title="Mailbox profile")
    report: ReportDetails = Field(default_factory=ReportDetails, title="Report details")
    databases: list[DatabaseSpec] = Field(
        min_length=1, max_length=256, title="Databases", description="Database instances, each with its database and log folder.",
        json_schema_extra=cli("--databases", unit="databases"))
    servers: list[ServerPart] = Field(
        default_factory=list, max_length=64, title="Servers",
        description="A test across servers: each enrolled server that runs the test's databases at once, started, "
        "measured and stopped with the others; empty: this server alone. Every server runs this configuration, in "
        "its own folders where it gives them.")
    copies_per_database: int = Field(
        1, ge=1, le=16, title="Copies per database",
        description="Database copies; each copy beyond the first replicates the log.",
        json_schema_extra=cli("--copies", unit="copies"))
    thread_count: int = Field(
        2, ge=1, le=MAX_THREADS, title="Thread count",
        description="Concurrent transaction threads for the whole server, spread over the databases.",
        json_schema_extra=cli("--threads", unit="threads", default_words="Microsoft's rule: target IOPS / 135, at least one per database"),
    )
    sluggish_sessions: int = Field(
        1, ge=1, le=1000, title="SluggishSessions",
        description="Each thread issues at most 1/s of its unthrottled I/O; 1 = no pause.", json_schema_extra=cli("--sluggish-sessions"))
    thread_weight: ThreadWeight = Field(
        ThreadWeight.JETSTRESS, title="Thread weight",
        description="jetstress: a thread spends its time as a Jetstress thread does, so a thread count carries what "
        "the same count carries in Jetstress (about 37 database transfers per second at 17 ms reads); reads-only: a "
        "thread waits on its reads and commits only, as in results before schema 10, about 2.5 Jetstress threads.",
        json_schema_extra=cli("--thread-weight"))
    test_type: TestType = Field(
        TestType.PERFORMANCE, title="Test type", description="The Jetstress test type.", json_schema_extra=cli("--type")
    )
    duration_s: float = Field(
        7200.0, gt=0, le=MAX_DURATION_S, title="Duration (s)", description="Measured time, e.g. 2h, 30m, 45s.",
        json_schema_extra=cli("--duration", unit="s", duration=True))
    warmup_s: float = Field(
        60.0, ge=0, le=86400, title="Warm-up (s)", description="Attaining prerequisites before measuring; not measured.",
        json_schema_extra=cli("--warmup", unit="s", duration=True),
    )
    sample_interval_s: float = Field(1.0, ge=0.1, le=60, title="Sample interval (s)")
    background_maintenance: bool = Field(
        True, title="Run background database maintenance",
        description="Sequential database maintenance reads beside the transactions.",
        json_schema_extra=cli("--background-maintenance"),
    )
    dbm_throttling_ms: int = Field(
        100, ge=0, le=60_000, title="Database maintenance throttle (ms)",
        description="Exchange 2013 and later: background maintenance sleeps this many milliseconds before each "
        "512 KiB batch it reads, as ESE's database scan does (Jetstress 2013's DBMThrottling); Exchange 2010 holds "
        "its measured rate.",
        json_schema_extra=cli("--dbm-throttling", unit="ms"),
    )
    continue_on_errors: bool = Field(
        False, title="Continue despite I/O errors",
        description="Keep running after an I/O error instead of stopping; the errors still fail the test.",
        json_schema_extra=cli("--continue-on-errors"),
    )
    hung_io_threshold_s: float = Field(
        HUNG_IO_THRESHOLD_S, ge=HUNG_IO_MIN_S, le=HUNG_IO_MAX_S, title="Hung I/O threshold",
        description="An I/O the storage has not completed this long after it was issued is a hung I/O: said while "
        "it hangs, and it fails the test (ESE's JET_paramHungIOThreshold: 30 s by default, 11 s to 30 min).",
        json_schema_extra=cli("--hung-io-threshold", unit="s", duration=True),
    )
    thresholds: Thresholds = Field(default_factory=Thresholds, title="Thresholds")
    operation_mix: OperationMix = Field(default_factory=OperationMix, title="Operation mix")
    capacity_percent: float = Field(
        100.0, gt=0, le=100, title="Database size to create (%)",
        description="Mailbox profile: how much of the profile's database size to create (lower for quick tests). "
        "Disk throughput: how much of each database volume's free space the databases take.",
        json_schema_extra=cli("--capacity-percent", unit="%"),
    )
    database_size_mb: float | None = Field(
        None, gt=0, le=1024 * 1024 * 1024, title="Database size (MB)",
        description="Each database's size; set, it replaces the size the mailbox profile gives. The disk throughput "
        "scenario sets it when the configuration is made, from the capacity percentage of each volume's free space.",
        json_schema_extra=cli("--database-size-mb", unit="MB", default_words="from the mailbox profile"),
    )
    throughput_percent: float = Field(
        100.0, gt=0, le=100, title="Throughput (%)",
        description="Disk throughput: the share of the most transactional IOPS that passed to plan mailboxes on "
        "(Jetstress's ThroughputPercentage).",
        json_schema_extra=cli("--throughput-percent", unit="%"),
    )
    database_source: DatabaseSource = Field(DatabaseSource.CREATE, title="Database source")
    database_cache_min_mb: float = Field(
        384.0, gt=0, le=1024 * 1024, title="Minimum database cache (MB)",
        description="For the whole server, shared by its databases as ESE's is by its process (Jetstress's 384 MB); "
        "ESE never shrinks its cache below this.", json_schema_extra=cli("--cache-min-mb", unit="MB"))
    database_cache_max_mb: float = Field(
        3072.0, gt=0, le=1024 * 1024, title="Maximum database cache (MB)",
        description="For the whole server, shared by its databases as ESE's is by its process (Jetstress's 3 GB): "
        "each database's model cache is its share.", json_schema_extra=cli("--cache-max-mb", unit="MB"))
    database_cache_shared: bool = Field(True, title="Database cache shared by the databases", description=(
        "The cache sizes are the server's, shared by its databases (ESE's, Jetstress's); false: each database's own, "
        "as in results before schema 9, so an earlier run's report says what it ran."))
    target_margin_percent: float = Field(
        5.0, ge=0, lt=100, title="Target margin (%)",
        description="Achieved transactional IOPS may fall this far below the target and still pass.",
        json_schema_extra=cli("--target-margin-percent", unit="%"))
    worker_processes: int | None = Field(
        None, ge=1, le=256, title="Worker processes", description="Processes that drive the I/O.",
        json_schema_extra=cli("--workers", unit="processes", default_words="one per core"),
    )
    allow_buffered_io: bool = Field(
        False, title="Allow buffered I/O",
        description="Run even where the file system refuses unbuffered I/O; results are marked.",
        json_schema_extra=cli("--allow-buffered-io"),
    )
    verify_checksum: bool = Field(
        True, title="Verify checksums",
        description="Check every database page and log sector read against its checksum, as Jetstress's VerifyChecksum; "
        "a bad one is an I/O error (ESE -1018 for a page, -612 for a log sector) and fails the run. Off, the page and "
        "sector numbers are still checked.",
        json_schema_extra=cli("--verify-checksum"),
    )
    checksum_read_kib: int = Field(
        64, ge=32, le=4096, multiple_of=32, title="Checksum read size (KiB)",
        description="Database Checksum: the size of each sequential read (64 KiB as Jetstress reads); whole pages.",
        json_schema_extra=cli("--checksum-read-kib", unit="KiB"))
    checksum_buffers_mb: float = Field(
        20.0, gt=0, le=65536, title="Checksum buffers (MiB)", description="Database Checksum: read buffers for the "
        "server (Jetstress's MaximumChecksumBuffers, 20 MiB): buffers / read size reads in flight, shared by the volumes "
        "checked at once, at most 64 on one volume.", json_schema_extra=cli("--checksum-buffers-mb", unit="MiB"))
    checksum_threads: int = Field(
        400, ge=1, le=4096, title="Checksum threads", description="Database Checksum: the most reads in flight for the "
        "server (Jetstress's MaximumChecksumThreads).", json_schema_extra=cli("--checksum-threads", unit="threads"))
    backup_read_kib: int = Field(
        256, ge=32, le=4096, multiple_of=32, title="Backup read size (KiB)",
        description="Database Backup: the size of each sequential read (256 KiB as a streaming backup reads); whole pages.",
        json_schema_extra=cli("--backup-read-kib", unit="KiB"))
    backup_path: Path | None = Field(
        None, title="Backup folder",
        description="Database Backup: also write each database's copy here (Jetstress's BackupToDisk), as "
        "Jetwise001.jwbak and so on; a copy an earlier backup left there is replaced.",
        json_schema_extra=cli("--backup-path", default_words="read only, no copy written"),
    )
    log_files_to_checksum: int = Field(
        500, ge=0, le=100_000, title="Log files to checksum",
        description="Database Checksum: the most log files of each instance read after its database "
        "(Jetstress's LogFilesToChecksum); 0 reads none.",
        json_schema_extra=cli("--log-files-to-checksum", unit="files"),
    )
    log_files_to_replay: int = Field(
        500, ge=2, le=100_000, title="Log files to replay",
        description="Soft Recovery: the 1 MiB log files each instance generates under load and then replays "
        "(Jetstress's LogFilesToReplay).",
        json_schema_extra=cli("--log-files-to-replay", unit="files"),
    )
    replay_limit_s: float = Field(
        6.0, gt=0, le=3600, title="Replay limit (s per log file)",
        description="Soft Recovery: the longest average time to play one log file that passes.",
        json_schema_extra=cli("--replay-limit", unit="s"),
    )
    seed: int | None = Field(
        None, title="Random seed", description="Fixes the I/O pattern, to repeat a run exactly.",
        json_schema_extra=cli("--seed", default_words="a new pattern each run"),
    )

    @model_validator(mode="before")
    @classmethod
    def _exchange_of_its_time(cls, data: Any, info: ValidationInfo) -> Any:
        """A configuration written before the choice of Exchange version ran Exchange 2010's workload, the only one
        Jetwise drove then: read so, whatever the default is now, so that it and its runs keep their meaning. A file
        (`FROM_FILE` context) that names no schema version is of that time too."""
        if not isinstance(data, dict):
            return data
        version = data.get("schema_version", 1 if info.context == FROM_FILE else SCHEMA_VERSION)
        if version not in (1, "1"):
            return data
        profile = data.get("profile", {})
        if isinstance(profile, dict):
            profile = {"exchange": ExchangeVersion.EXCHANGE_2010.value, **profile}
        return {**data, "profile": profile, "schema_version": SCHEMA_VERSION}

    @model_validator(mode="after")
    def _servers(self) -> TestConfig:
        seen: set[str] = set()
        for index, part in enumerate(self.servers):
            if part.host.casefold() in seen:  # a host name is not case-sensitive
                raise FieldError(f"servers.{index}.host", f"{part.host} is named twice: give each server once")
            seen.add(part.host.casefold())
            if part.databases and len(part.databases) != len(self.databases):
                raise FieldError(f"servers.{index}.databases", (
                    f"{part.host} has folders for {len(part.databases)} database(s) and the test has "
                    f"{len(self.databases)}: give its folders for each database, or none to use the test's"))
        return self

    @model_validator(mode="after")
    def _cache_bounds(self) -> TestConfig:
        if self.database_cache_min_mb > self.database_cache_max_mb:
            raise FieldError(
                "database_cache_min_mb",
                f"the minimum database cache ({self.database_cache_min_mb:g} MB) is larger than "
                f"the maximum ({self.database_cache_max_mb:g} MB)"
            )
        return self

    # Derived figures -------------------------------------------------------------

    @property
    def generation(self) -> Generation:
        """The Exchange generation whose workload the test drives (`engine.model.exchange`)."""
        return generation(self.profile.exchange)

    @property
    def checkpoint_depth_bytes(self) -> int:
        """The log a dirty page may be behind before the flushers write it: the design's, by its copies."""
        return CHECKPOINT_DEPTH_COPIES if self.copies_per_database > 1 else CHECKPOINT_DEPTH_STANDALONE

    def maintenance_bytes_per_s(self, read_ms: float) -> float:
        """Background maintenance's bytes a second per database when its batch reads take `read_ms` (0 when off)."""
        if not self.background_maintenance:
            return 0.0
        return self.generation.maintenance_bytes_per_s(self.dbm_throttling_ms, read_ms)

    def at_setting(self, threads: int, sluggish_sessions: int) -> TestConfig:
        """This test at another thread count and SluggishSessions, all else the same (not validated again)."""
        return self.model_copy(update={"thread_count": threads, "sluggish_sessions": sluggish_sessions})

    def threads_for_database(self, index: int) -> int:
        """Threads given to database `index` (0-based): the global count spread evenly."""
        base, extra = divmod(self.thread_count, self.database_count)
        return base + (1 if index < extra else 0)

    def instance_name(self, index: int) -> str:
        return f"Instance {index + 1}"

    # A test across servers -------------------------------------------------------

    @property
    def server_names(self) -> list[str]:
        """The servers of a test across servers, in order; empty for a test on this server alone."""
        return [part.host for part in self.servers]

    def for_server(self, host: str) -> TestConfig:
        """What `host` runs of a test across servers: this configuration on its own folders, for it alone."""
        part = next(p for p in self.servers if p.host == host)
        return self.model_copy(update={"servers": [], "databases": list(part.databases or self.databases),
                                       "backup_path": part.backup_path or self.backup_path})

    @property
    def instance_names(self) -> list[str]:
        """Every instance of the test by name: this server's, or across servers each server's, named by its server."""
        return list(self.instance_servers) or [self.instance_name(index) for index in range(self.database_count)]

    @property
    def instance_servers(self) -> dict[str, tuple[str, str]]:
        """Across servers, each instance of the test by its name in the test ("HOST Instance N"): its server, and its
        name on that server; empty for a test on this server alone."""
        own = [self.instance_name(index) for index in range(self.database_count)]  # every server runs as many
        return {on_server(host, name): (host, name) for host in self.server_names for name in own}

    def of_server(self, host: str, named: Mapping[str, T]) -> dict[str, T]:
        """What `named` (by the instances' names in the test) holds of `host`'s instances, by their names on it."""
        return {own: named[name] for name, (server, own) in self.instance_servers.items()
                if server == host and name in named}

    @property
    def test_target_iops(self) -> float:
        """The whole test's target: a server's, times the servers of a test across servers (each carries its share of
        the design), as its summed transactional IOPS are judged against."""
        return self.target_transactional_iops * max(1, len(self.servers))

    def as_one(self) -> TestConfig:
        """The test as one design, as it is measured and judged: across servers, every server's databases in turn
        (named as `instance_names` names them), their mailboxes and threads together; on this server alone, itself."""
        count = len(self.servers)
        if not count:
            return self
        profile = self.profile.model_copy(update={"mailboxes": self.profile.mailboxes * count})
        databases = [spec for part in self.servers for spec in (part.databases or self.databases)]
        return self.model_copy(update={"servers": [], "databases": databases, "profile": profile,
                                       "thread_count": self.thread_count * count})


def default_config(
    base: Path,
    databases: int = 2,
    **overrides: object,
) -> TestConfig:
    """A complete configuration with Jetstress defaults and per-database folders below `base`."""
    specs = [
        DatabaseSpec(database_path=base / f"DB{n}", log_path=base / f"Log{n}")
        for n in range(1, databases + 1)
    ]
    values: dict[str, object] = {"databases": specs, "thread_count": max(2, databases)}
    values.update(overrides)
    return TestConfig.model_validate(values)
