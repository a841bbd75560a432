"""What the runner and its worker processes say to each other, defined once and imported by both ends.

A worker gets one `WorkerChannels` (its share of the run and the primitives it shares
with the parent) and sends typed messages on its queue: a `WorkerHello` first, naming
the `MESSAGE_VERSION` it speaks, then progress, log lines, interval counters and errors,
and a `WorkerDone` last. The runner refuses a worker that speaks another version: on
Windows a worker process imports Jetwise afresh, so an installation changed under a
running test could otherwise feed it counters it misreads.

Messages are small frozen dataclasses with slots: they pickle as their field values, the
interval counters as the run counts them (`engine.workload.stats.InstanceInterval`).
"""

from __future__ import annotations

from dataclasses import dataclass
from multiprocessing.queues import Queue
from multiprocessing.sharedctypes import Synchronized, SynchronizedArray
from multiprocessing.synchronize import Event

from engine.io.platform import IoBackend
from engine.workload.recovery import RecoveryTally
from engine.workload.scan import ScanTally
from engine.workload.stats import InstanceInterval

MESSAGE_VERSION = 5  # raise it whenever a message or its fields change


@dataclass(frozen=True, slots=True)
class WorkerHello:
    """The first message of every worker: who it is, and which message version it speaks."""

    worker_id: int
    pid: int
    version: int = MESSAGE_VERSION


@dataclass(frozen=True, slots=True)
class DatabaseProgress:
    """How far the creation (or the check) of one database file has come."""

    worker_id: int
    instance_index: int
    done_bytes: int
    total_bytes: int


@dataclass(frozen=True, slots=True)
class WorkerReady:
    """Every database of the worker is prepared; it waits for the parent's go."""

    worker_id: int


@dataclass(frozen=True, slots=True)
class IntervalCounters:
    """One interval's counters of each of the worker's instances."""

    worker_id: int
    index: int
    counters: dict[str, InstanceInterval]


@dataclass(frozen=True, slots=True)
class ScanReport:
    """A Checksum or Backup test's scan of one database ended (done, or stopped): what it found, and when it ended."""

    worker_id: int
    instance_index: int
    tally: ScanTally
    ended_ns: int


@dataclass(frozen=True, slots=True)
class LogsGenerated:
    """A Soft Recovery test's instance has written every log file it is to replay: its load stops there."""

    worker_id: int
    instance_index: int
    ended_ns: int


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    """A Soft Recovery test's replay of one instance ended (done, stopped, or unable to go on)."""

    worker_id: int
    instance_index: int
    tally: RecoveryTally


@dataclass(frozen=True, slots=True)
class WorkerLog:
    """A line for the test log."""

    worker_id: int
    level: str  # info, warning or error, as `engine.protocol.LogEvent` has them
    text: str


@dataclass(frozen=True, slots=True)
class WorkerIoError:
    """An I/O error that ends the test (unless errors are to be tolerated); `reason` fails the run."""

    worker_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class WorkerCrash:
    """Something unexpected ended the worker: the exception and its traceback."""

    worker_id: int
    error: str
    details: str


@dataclass(frozen=True, slots=True)
class WorkerDone:
    """The last message of every worker, however it ended."""

    worker_id: int


WorkerMessage = (
    WorkerHello | DatabaseProgress | WorkerReady | IntervalCounters | ScanReport | LogsGenerated | RecoveryReport
    | WorkerLog | WorkerIoError | WorkerCrash | WorkerDone
)


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """A worker's share of the run."""

    worker_id: int
    config_json: str
    instance_indexes: tuple[int, ...]
    unbuffered: bool
    warmup_intervals: int
    total_intervals: int
    backend: IoBackend | None = None  # the runner's backend when it is not the platform's own (None: the worker opens that)


@dataclass(frozen=True, slots=True)
class WorkerChannels:
    """Everything a worker process is started with; pickled for the `spawn` start method.

    `go` and `t0_ns` are set by the parent once every worker is ready; `stop` and
    `stop_at_ns` are a stop request and the time from which nothing counts; `end_at_ns`
    is an earlier planned end, once a settling run has decided it. `load` is the load asked
    for now (thread count for the whole run, SluggishSessions), 0s for the configuration's.
    """

    spec: WorkerSpec
    messages: Queue[WorkerMessage]
    go: Event
    t0_ns: Synchronized[int]
    stop: Event
    stop_at_ns: Synchronized[int]
    end_at_ns: Synchronized[int]
    load: SynchronizedArray[int]


def interval_parts(names: list[str], payloads: dict[int, dict[str, InstanceInterval]]) -> dict[str, InstanceInterval]:
    """Every instance's counters of one interval from the workers' payloads (an instance no worker sent: empty)."""
    merged = {name: InstanceInterval(name) for name in names}
    for payload in payloads.values():
        merged.update(payload)
    return merged


def refused_words(worker_id: int, pid: int, version: int, mine: int) -> str:
    """Why a worker of another message version (the installation changed as the test started) ends the run."""
    return (f"worker {worker_id} (process {pid}) speaks message version {version}, this runner version {mine}; "
            "Jetwise was changed on disk while the test started: restart it and run the test again")
