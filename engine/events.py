"""Typed events a run emits: phase changes, progress, interval samples, log lines, the result.

The CLI renders them; `jetwise engine` writes them as one JSON object per line so a
front end in another process can follow a run.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from engine.config import TestConfig
from engine.protocol import PROTOCOL_VERSION
from engine.schema import IntervalSample, RunResult
from engine.version import __version__


class Phase(StrEnum):
    VALIDATING = "validating"
    PREPARING = "preparing"  # creating or attaching databases
    WARMING_UP = "warming_up"  # attaining prerequisites
    MEASURING = "measuring"
    FINISHING = "finishing"
    DONE = "done"


PHASE_WORDS = {
    Phase.VALIDATING: "Validating configuration",
    Phase.PREPARING: "Creating or attaching databases",
    Phase.WARMING_UP: "Attaining prerequisites",
    Phase.MEASURING: "Measuring",
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
    started_utc: str
    config: TestConfig


class IntervalEvent(BaseModel):
    """One sample interval, in the shape every part reads (`engine.schema.IntervalSample`)."""

    event: Literal["interval"] = "interval"
    sample: IntervalSample


class LogEvent(BaseModel):
    event: Literal["log"] = "log"
    time: str
    level: Literal["info", "warning", "error"] = "info"
    message: str


class ResultEvent(BaseModel):
    event: Literal["result"] = "result"
    result: RunResult


Event = Annotated[
    HelloEvent | StartEvent | PhaseEvent | ProgressEvent | IntervalEvent | LogEvent | ResultEvent,
    Field(discriminator="event"),
]
_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def to_json_line(event: BaseModel) -> str:
    return event.model_dump_json() + "\n"


def from_json_line(line: str) -> HelloEvent | StartEvent | PhaseEvent | ProgressEvent | IntervalEvent | LogEvent | ResultEvent:
    return _EVENT_ADAPTER.validate_json(line)
