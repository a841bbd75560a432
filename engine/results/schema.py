"""The run schema: one typed shape for a run's result (an interval sample's is `engine.results.sample_schema`'s).

Everything that passes a run's figures between parts reads and writes these models:
`samples.sqlite` and `result.json` in the run folder, the store, the event stream to the
window, the advisor, the report and both front ends. `docs/result.schema.json` is
generated from `RunResult` (`python -m engine.results.schema`).

Figure names follow one rule: `<stream>s_per_s`, `<stream>_avg_latency_ms`,
`<stream>_max_latency_ms`, `<stream>_avg_bytes` for the streams db_read, db_write,
log_write, bdm_read (background maintenance), log_replication_read and log_read.

I/O errors are counted over the whole run, warm-up included (`io_errors`), by kind
(`io_errors_by_kind`, keyed by `ErrorKind`), and grouped per instance and kind with where
the first was (`RunResult.error_groups`).
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, model_validator

from engine.io.pages import ErrorKind
from engine.model.config import MaximumLatency, TestConfig, ThreadWeight
from engine.results.base import Schema as _Schema
from engine.results.base import UtcTime
from engine.results.criterion_schema import Criterion
from engine.results.host_schema import HostInfo, HostPerformance
from engine.results.note_schema import RunNote
from engine.results.recovery_schema import RecoveryResult
from engine.results.sample_schema import Figures
from engine.results.scan_schema import ScanResult
from engine.results.sweep_schema import Sweep

# 2: typed, with run_kind and host_bound; 3: I/O errors by kind (io_errors_by_kind, error_groups);
# 4: a load sweep's steps (`sweep`, and each sample's `step`); 5: a Checksum or Backup test's scan (`scan`);
# 6: a Soft Recovery test's replay (`recovery`); 7: a failed maximum latency's samples over it (`summary.latency_spikes`);
# 8: maxima judged on log-interval averages (each instance's `*_interval_max_latency_ms`); older runs judged single I/Os;
# 9: the database cache is the server's, shared by the databases (`database_cache_shared`); older runs gave each its all;
# 10: a thread weighs what a Jetstress thread does (`thread_weight`); older runs' threads waited on reads only;
# 11: a checksum reads volume by volume with several reads in flight (`scan.by_volume`, `scan.reads_in_flight`, each
# database's `volume` and `began_s`); older scans read every database at once, one read in flight each.
# 12: databases grow as ESE's do (each instance's `database_bytes_initial` and `_final`); the host's Windows memory
# counters and the page fault stalls' spread over the samples (`host_performance`); older runs have none of them.
# 13: each reason as a fact (`summary.failures`: the criterion failed and its instance), each latency spike too
# (`summary.spikes`); older runs have words alone (`reasons`, `latency_spikes`).
# 15: a test across servers is one run (`servers`: each server's share, judged on its own counters).
# 16: the device a run ran on (`device`: the simulated device's profile, '' for the storage at its paths); an older
# simulated run's is its simulated note's, or 'simulated' where it names none.
# 17: storage faults of new kinds among the I/O errors (a lost flush, a page newer than any write, a CRC error and
# its page patching, a hung read or write) and the configuration's hung I/O threshold; an older run found none of them.
# Documents of an older version read with the defaults: no run kind, no errors by kind, no sweep, no scan, no recovery,
# no spikes, no servers.
RESULT_SCHEMA_VERSION = 18
FIRST_AVERAGED_MAXIMA = 8  # a result before it judged each maximum on the slowest single I/O
FIRST_SHARED_CACHE = 9  # a result before it gave each database the whole database cache
FIRST_JETSTRESS_THREADS = 10  # a result before it ran threads that waited on their reads and commits only
FIRST_GROWING_DATABASES = 12  # a result before its databases grew: they ended the size they began
FIRST_DEVICE = 16  # a result before it named its device: a simulated one's is in its notes, when it says one
FIRST_TYPED_END = 18  # a result before a server's end had its kind: "HOW: words" in one field
UNNAMED_DEVICE = "simulated"  # the device of a simulated run of an older version that names none


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    ABORTED = "aborted"


class RunKind(StrEnum):
    """A short tuning run, or a qualification run of the standard length (2 h Performance, 24 h Stress)."""

    TUNING = "tuning"
    QUALIFICATION = "qualification"


Percentiles = dict[str, dict[str, float | None]]


class Failure(_Schema):
    """One reason a run did not pass, as a fact: the criterion it failed, by name and instance (its value, limit and
    unit are that criterion's in `RunResult.criteria`), or none (a stop, an engine failure), and its words, said once
    where it was judged (`engine.results.verdict`). Nothing reads the words back."""

    criterion: str | None = Field(None, description="The failed criterion's name; None: no criterion's.")
    instance: str | None = Field(None, description="The instance the criterion judged; None: the server's, or none.")
    words: str


class LatencySpike(_Schema):
    """A maximum latency's limit passed by the server's slowest I/O in measured samples: how often, when, how high."""

    criterion: str = Field(description="The maximum latency criterion: 'maximum database read latency', ...")
    limit_ms: float
    threshold_set: str
    samples: int = Field(description="Measured samples whose slowest I/O passed the limit.")
    of_samples: int = Field(description="Measured samples in all.")
    sample_interval_s: float
    first_utc: UtcTime | None = None
    first_in_s: float = Field(description="Seconds into the measured time the first sample ended.")
    last_utc: UtcTime | None = None
    highest_ms: float
    passed_as_averaged_ms: float | None = Field(None, description=(
        "Where the criterion passed, judged on log-interval averages: its judged value (None: the criterion failed)."))


class Summary(Figures):
    """The server over the measured window, with the verdict and how the run was set up."""

    verdict: Outcome
    reasons: list[str] = Field(default_factory=list, description="Each failure's words, in order (`failures`).")
    failures: list[Failure] = Field(default_factory=list, description=(
        "Why the run did not pass, as facts, in the order of `reasons`; none in a result before schema 13."))
    test_type: str
    threshold_set: str
    target_transactional_iops: float
    target_margin_percent: float
    measured_s: float
    database_count: int
    copies_per_database: int = 1
    threads: int
    sluggish_sessions: int
    unbuffered_io: bool = True
    achieved_transactional_iops: float
    latency_percentiles_ms: Percentiles = Field(default_factory=dict)
    run_kind: RunKind = RunKind.QUALIFICATION
    host_bound: bool = Field(
        False, description="The host's CPU was saturated while measuring: the engine, not the storage, set the pace."
    )
    io_errors_by_kind: dict[str, int] = Field(default_factory=dict, description="I/O errors of the run by kind (ErrorKind).")
    spikes: list[LatencySpike] = Field(
        default_factory=list, description="For a failed maximum latency, or single I/Os over a maximum judged on "
        "log-interval averages: in how many measured samples the server's slowest I/O passed it, when, and how high "
        "(engine.results.spikes says them in words).")
    latency_spikes: list[str] = Field(
        default_factory=list, description="A result before schema 13: its spikes, in words (now `spikes`).")

    @property
    def effective_load(self) -> float:
        return self.threads / max(1, self.sluggish_sessions)


class InstanceResult(Figures):
    name: str
    database_path: str
    log_path: str
    database_file: str = ""
    more_database_files: list[str] = Field(default_factory=list)  # Jetstress's DatabasePaths after the first
    verdict: Outcome
    reasons: list[str] = Field(default_factory=list)
    achieved_transactional_iops: float
    target_transactional_iops: float
    threads: int
    sluggish_sessions: int
    unbuffered_io: bool = True
    latency_percentiles_ms: Percentiles = Field(default_factory=dict)
    io_errors_by_kind: dict[str, int] = Field(default_factory=dict, description="I/O errors of the run by kind (ErrorKind).")
    db_read_interval_max_latency_ms: float | None = Field(
        None, description="The highest average database read latency over one log interval (Jetstress's maximum, "
        "judged unless the configuration asks for the slowest single I/O, which `db_read_max_latency_ms` is).")
    log_write_interval_max_latency_ms: float | None = Field(
        None, description="The highest average log write latency over one log interval (as above).")
    database_bytes_initial: int | None = Field(None, description="The database file's length as the test began.")
    database_bytes_final: int | None = Field(None, description="Its length as the test ended: it grows as ESE's does.")

    @property
    def database_files(self) -> list[str]:
        """The instance's database files, the first first; none where a result before files were named kept none."""
        return [self.database_file, *self.more_database_files] if self.database_file else []


class ErrorGroup(_Schema):
    """The I/O errors of one kind on one instance over the run: how many, ESE's error, and where the first was."""

    instance: str
    kind: ErrorKind
    unit: Literal["page", "log sector"] = Field(description="What was read or written: a database page or a log sector.")
    title: str = Field(description="The kind in words, e.g. 'bad checksum'.")
    ese_error: int = Field(description="The error ESE raises for it, e.g. -1018.")
    ese_name: str = Field(description="Its name, e.g. JET_errReadVerifyFailure.")
    count: int = Field(ge=1)
    first_stream: str
    first_file: str
    first_number: int = Field(description="The page, or the log sector in its file, of the first error.")
    first_offset: int = Field(description="Its byte offset in the file.")
    first_message: str = Field(description="The first error as the test log says it.")
    patched: int = Field(0, description="Of CRC errors (ESE -1021) on database pages, how many pages page patching "
                                        "wrote again and read back good.")
    patch: str = Field("", description="What page patching did about them, in words ('patched: written again and read "
                                       "back good', or 'not patched: ' and why); empty for another kind.")


class RunTimes(_Schema):
    test_start_utc: UtcTime | None = None
    test_end_utc: UtcTime | None = None
    collection_start_utc: UtcTime | None = None
    collection_end_utc: UtcTime | None = None


class ServerEnd(StrEnum):
    """How a server's part ended when not with the test."""

    LOST = "lost"  # its link ended, or it went silent past a deadline
    REFUSED = "refused"  # it refused its part (its configuration, on its machine)
    REJECTED = "rejected"  # the controller refused a message of it that does not fit the test
    ERROR = "error"  # its run ended in error
    ABORTED = "aborted"  # its run was aborted

    def said_of(self, host: str) -> str:
        """This end, said of `host`: "HOST was lost"."""
        return {ServerEnd.LOST: f"{host} was lost", ServerEnd.REFUSED: f"{host} refused its part",
                ServerEnd.REJECTED: f"{host} was refused", ServerEnd.ERROR: f"{host}'s run ended in error",
                ServerEnd.ABORTED: f"{host}'s run was aborted"}[self]


class ServerResult(_Schema):
    """One server of a test across servers: its share of the test, measured and judged on its own instances'
    counters as a test on it alone is (the paper's Individual Server Metrics)."""

    host: str
    summary: Summary | None = Field(None, description="None: nothing of it was measured (lost or refused before).")
    end: ServerEnd | None = Field(None, description="How its part ended when not with the test; None: with it.")
    ended: str = Field("", description="Why its part ended so, in words.")

    @model_validator(mode="before")
    @classmethod
    def _end_of_its_time(cls, data: Any) -> Any:
        """A share of a result before `FIRST_TYPED_END` said its end as "HOW: words": its kind and its words."""
        if isinstance(data, dict) and data.get("end") is None and isinstance(ended := data.get("ended"), str):
            how, _, words = ended.partition(": ")
            if how in ServerEnd.__members__.values() and words:
                return {**data, "end": how, "ended": words}
        return data

    @property
    def how_it_ended(self) -> str:
        """How its part ended when not with the test, and why, in words ("lost: its agent is not connected")."""
        return f"{self.end.value}: {self.ended}" if self.end is not None else ""
    clock_offset_s: float | None = Field(None, description="The controller's clock minus the server's, at the start.")
    run_folder: str = Field("", description="Its copy of the server's run folder, in the test's (hosts/HOST).")


class RunFiles(_Schema):
    samples: str = Field("samples.sqlite", description="The interval samples (samples.jsonl in runs of older versions).")
    log: str = "test.log"
    configuration: str = "config.json"


class RunResult(_Schema):
    """The result document of one run (`result.json`), however the run ended."""

    schema_version: int = RESULT_SCHEMA_VERSION
    tool: str = "Jetwise"
    tool_version: str = ""
    run_id: str
    times: RunTimes = Field(default_factory=RunTimes)
    host: HostInfo = Field(default_factory=HostInfo)
    io_backend: str = ""
    simulated: bool = False
    device: str = Field("", description=(
        "What it ran on: the simulated device's profile (`--simulate`, on every server across servers); '': the "
        "storage at its configured paths (each server's own across servers)."))
    unbuffered_io: bool = True
    unbuffered_io_detail: str = ""
    configuration: TestConfig
    summary: Summary
    instances: list[InstanceResult]
    criteria: list[Criterion] = Field(default_factory=list)
    error_groups: list[ErrorGroup] = Field(default_factory=list)
    host_performance: HostPerformance = Field(default_factory=HostPerformance)
    notes: list[RunNote] = Field(default_factory=list, description="What the result says beside its figures (words, before schema 14).")
    files: RunFiles = Field(default_factory=RunFiles)
    sweep: Sweep | None = Field(None, description="A load sweep's steps; None for a run at one setting.")
    scan: ScanResult | None = Field(None, description="A Database Checksum or Backup test's scan of each database.")
    recovery: RecoveryResult | None = Field(None, description="A Soft Recovery test's log generation and replay.")
    servers: list[ServerResult] = Field(default_factory=list, description=(
        "A test across servers: each server's share, in the order of the configuration's servers; empty for a test "
        "on one server."))

    @model_validator(mode="before")
    @classmethod
    def _rules_of_its_time(cls, data: Any) -> Any:
        """A result of an earlier version ran by the rules of its time (maxima judged on single I/Os, each database
        given the whole cache, threads waiting on reads only): its configuration says so, whatever the defaults are
        now, so its report does not claim another rule."""
        configuration = data.get("configuration") if isinstance(data, dict) else None
        if not isinstance(configuration, dict):
            return data
        version = int(data.get("schema_version", 1))
        if version < FIRST_DEVICE and data.get("simulated") and not data.get("device"):
            named = [n.get("device") for n in data.get("notes") or [] if isinstance(n, dict) and n.get("what") == "simulated"]
            data = {**data, "device": next(filter(None, named), UNNAMED_DEVICE)}
        configuration = dict(configuration)
        if version < FIRST_AVERAGED_MAXIMA:
            thresholds = dict(configuration.get("thresholds") or {})
            thresholds.setdefault("maximum_latency", MaximumLatency.SINGLE_IO.value)
            configuration["thresholds"] = thresholds
        if version < FIRST_SHARED_CACHE:
            configuration.setdefault("database_cache_shared", False)
        if version < FIRST_JETSTRESS_THREADS:
            configuration.setdefault("thread_weight", ThreadWeight.READS_ONLY.value)
        return {**data, "configuration": configuration}

    @property
    def verdict(self) -> Outcome:
        return self.summary.verdict


def device_words(device: str) -> str:
    """What a run ran on (`RunResult.device`), in words."""
    if device == UNNAMED_DEVICE:
        return "a simulated device"
    return f"the simulated device '{device}'" if device else "the storage at the configured paths"


def device_mark(device: str) -> str:
    """How a run on a simulated device is marked beside runs of another ("simulated: flash"); '' for the storage."""
    if not device:
        return ""
    return "simulated" if device == UNNAMED_DEVICE else f"simulated: {device}"


def result_json_schema() -> str:
    return json.dumps(RunResult.model_json_schema(), indent=2) + "\n"


if __name__ == "__main__":  # regenerates docs/result.schema.json
    sys.stdout.write(result_json_schema())
