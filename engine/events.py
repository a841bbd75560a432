"""Typed events a run emits: phase changes, progress, interval samples, log lines, the result.

The CLI renders them; `jetwise engine` writes them as one JSON object per line so a
front end in another process can follow a run.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


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


class IntervalEvent(BaseModel):
    """One sample interval: the server's figures, each instance's, and the host's."""

    event: Literal["interval"] = "interval"
    index: int
    phase: Literal["warmup", "measure"]
    elapsed_s: float
    duration_s: float
    remaining_s: float
    summary: dict[str, Any]
    instances: list[dict[str, Any]]
    host: dict[str, float]


class LogEvent(BaseModel):
    event: Literal["log"] = "log"
    time: str
    level: Literal["info", "warning", "error"] = "info"
    message: str


class ResultEvent(BaseModel):
    event: Literal["result"] = "result"
    result: dict[str, Any]


Event = Annotated[
    PhaseEvent | ProgressEvent | IntervalEvent | LogEvent | ResultEvent,
    Field(discriminator="event"),
]
_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def to_json_line(event: BaseModel) -> str:
    return event.model_dump_json() + "\n"


def from_json_line(line: str) -> PhaseEvent | ProgressEvent | IntervalEvent | LogEvent | ResultEvent:
    return _EVENT_ADAPTER.validate_json(line)


def fan_out(*sinks: Callable[[BaseModel], None]) -> Callable[[BaseModel], None]:
    """One emit callback that hands every event to each sink in turn (e.g. the store, then the console)."""

    def emit(event: BaseModel) -> None:
        for sink in sinks:
            sink(event)

    return emit
