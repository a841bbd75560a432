"""The contract between the engine and its front ends, defined once and imported by both ends.

Exit codes keep their meaning everywhere (every sub-command, the engine process): 0 pass,
1 fail, 2 invalid input, 3 aborted or an error. A run emits typed events (phase changes,
progress, interval samples, log lines, the result); the CLI renders them, and the engine
process writes them on stdout as one JSON object per line, a `HelloEvent` first, and reads
the stop command on stdin.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum, StrEnum
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, Field, TypeAdapter

from engine.model.config import TestConfig
from engine.model.validation import Problem
from engine.results.host_schema import HostInfo
from engine.results.sample_schema import IntervalSample
from engine.results.schema import Outcome, RunResult
from engine.results.suite import SuiteRecord
from engine.version import __version__

# the event stream's version (5: a test across servers' events; 6: the test as one run, for tuning; 7: a test across
# servers is a run, its events a run's); a front end refuses an engine that speaks another
PROTOCOL_VERSION = 7
STOP_COMMAND = "stop"  # a line on the engine process's stdin: end the run, keeping what it measured


LogLevel = Literal["info", "warning", "error"]


class ExitCode(IntEnum):
    PASS = 0  # the test passed (or: valid, converged, written)
    FAIL = 1  # the test failed (or: out of reach)
    INVALID = 2  # bad input: a message says where
    ABORTED = 3  # stopped, killed, or an error ended it

    @classmethod
    def of(cls, outcome: Outcome) -> ExitCode:
        return {Outcome.PASS: cls.PASS, Outcome.FAIL: cls.FAIL, Outcome.ABORTED: cls.ABORTED}[outcome]

    def words(self) -> str:
        """What the code says of a run, for people."""
        return {0: "passed", 1: "failed", 2: "refused the configuration", 3: "was stopped or aborted"}[self.value]


class Phase(StrEnum):
    VALIDATING = "validating"
    PREPARING = "preparing"  # creating or attaching databases
    WARMING_UP = "warming_up"  # attaining prerequisites
    MEASURING = "measuring"
    REPLAYING = "replaying"  # a Soft Recovery's replay of the log files its measured load generated
    FINISHING = "finishing"
    DONE = "done"


# the test's own work: its measured load, a scan's reads, a Soft Recovery's replay; not the databases' creation
WORK_PHASES = (Phase.MEASURING, Phase.REPLAYING)

PHASE_WORDS = {
    Phase.VALIDATING: "Validating configuration",
    Phase.PREPARING: "Creating or attaching databases",
    Phase.WARMING_UP: "Attaining prerequisites",
    Phase.MEASURING: "Measuring",
    Phase.REPLAYING: "Replaying log files",
    Phase.FINISHING: "Finishing",
    Phase.DONE: "Done",
}


class PhaseEvent(BaseModel):
    event: Literal["phase"] = "phase"
    phase: Phase
    message: str = ""


class ProgressEvent(BaseModel):
    event: Literal["progress"] = "progress"
    phase: Phase
    done_bytes: int
    total_bytes: int
    rate_bytes_per_s: float
    eta_s: float | None


class HelloEvent(BaseModel):
    """The first line of the engine process's stream: which protocol and which Jetwise speak."""

    event: Literal["hello"] = "hello"
    protocol: int = PROTOCOL_VERSION
    tool_version: str = __version__


class StartEvent(BaseModel):
    """The run passed validation and begins: what it runs, and the tuning session it belongs to."""

    event: Literal["start"] = "start"
    run_id: str
    session: str | None = None
    started_utc: AwareDatetime
    config: TestConfig
    host: HostInfo | None = Field(None, description=(
        "The machine that runs the test, kept in the run folder as it begins (`host.json`), so that a run killed "
        "before its result names its machine; None from an engine before it was sent."))


class IntervalEvent(BaseModel):
    """One sample interval, in the shape every part reads (`engine.results.sample_schema.IntervalSample`)."""

    event: Literal["interval"] = "interval"
    sample: IntervalSample


class LogEvent(BaseModel):
    event: Literal["log"] = "log"
    time: AwareDatetime  # when it was said, with its offset: each reader shows it in its own words and zone
    level: LogLevel = "info"
    message: str


class RefusalEvent(BaseModel):
    """The run did not begin: each problem with the field it is about ("" for the whole configuration), as facts a
    front end places at its fields; the words are the problems' own, not parsed back from a log line."""

    event: Literal["refusal"] = "refusal"
    problems: list[Problem]


class ResultEvent(BaseModel):
    event: Literal["result"] = "result"
    result: RunResult


class SuiteEvent(BaseModel):
    """An ESRP suite's record as it goes: before each stage (`stage`, 0-based), and once it stopped or ended (None).
    Each stage is a run of its own, with its own events, in between."""

    event: Literal["suite"] = "suite"
    folder: str
    stage: int | None
    record: SuiteRecord


class WaitingEvent(BaseModel):
    """A test across servers waits for its servers' agents to connect: as the wait begins and as each connects."""

    event: Literal["waiting"] = "waiting"
    connected: list[str]
    waiting: list[str]
    left_s: float  # before the test gives up on those still waiting


# What one server's run sends its controller in a test across servers (`engine.hosts.messages`)
ServerRunEvent = StartEvent | PhaseEvent | ProgressEvent | IntervalEvent | LogEvent | RefusalEvent | ResultEvent


# Every event a run sends, one of each kind: a consumer's chain of cases ends in assert_never, checked by mypy
RunEvent = (HelloEvent | StartEvent | PhaseEvent | ProgressEvent | IntervalEvent | LogEvent | RefusalEvent | ResultEvent
            | SuiteEvent | WaitingEvent)
EmitFn = Callable[[RunEvent], None]  # where a run sends its events: the front end, the store, the run folder
Event = Annotated[RunEvent, Field(discriminator="event")]
_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def to_json_line(event: RunEvent) -> str:
    return event.model_dump_json() + "\n"


def from_json_line(line: str) -> RunEvent:
    return _EVENT_ADAPTER.validate_json(line)
